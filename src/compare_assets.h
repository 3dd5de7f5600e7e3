/* compare_assets.h: the comparison page's template, compiled into the binary at build time
 * (cmake/embed.cmake writes it into report_assets.c from templates/compare.xml, beside the
 * report's template and stylesheet, which the page shares: report_assets.h). NUL-terminated;
 * the length excludes the NUL. */
#ifndef RL_COMPARE_ASSETS_H
#define RL_COMPARE_ASSETS_H

#include <stddef.h>

extern const unsigned char rl_asset_compare_xml[];
extern const size_t rl_asset_compare_xml_len;

#endif
