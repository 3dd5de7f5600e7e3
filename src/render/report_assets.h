/* report_assets.h: the report's template and stylesheet, compiled into the binary at build
 * time (cmake/embed.cmake writes report_assets.c from templates/report.xml and
 * styles/report.css), so an installed llama-roofline needs no data files. Each array is
 * NUL-terminated; the length excludes the NUL. */
#ifndef RL_REPORT_ASSETS_H
#define RL_REPORT_ASSETS_H

#include <stddef.h>

extern const unsigned char rl_asset_report_xml[];
extern const size_t rl_asset_report_xml_len;
extern const unsigned char rl_asset_report_css[];
extern const size_t rl_asset_report_css_len;

#endif
