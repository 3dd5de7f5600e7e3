/* compare_assets.h: the comparison page's template and its own stylesheet, compiled into the
 * binary at build time (cmake/embed.cmake writes them into report_assets.c from
 * templates/compare.xml and styles/compare.css, beside the report's template and stylesheet;
 * the page inlines styles/report.css first, then styles/compare.css). NUL-terminated; the
 * lengths exclude the NUL. */
#ifndef RL_COMPARE_ASSETS_H
#define RL_COMPARE_ASSETS_H

#include <stddef.h>

extern const unsigned char rl_asset_compare_xml[];
extern const size_t rl_asset_compare_xml_len;
extern const unsigned char rl_asset_compare_css[];
extern const size_t rl_asset_compare_css_len;

#endif
