/* SPDX-License-Identifier: MIT */
/* report_assets.h: the pages' templates and stylesheets, compiled into the binary at build
 * time (cmake/embed.cmake writes report_assets.c from templates/report.xml, styles/report.css,
 * templates/compare.xml, styles/compare.css and templates/history.xml), so an installed
 * llama-roofline needs no data files. The comparison and history pages inline styles/report.css
 * first, then styles/compare.css. Each array is NUL-terminated; the length excludes the NUL. */
#ifndef RL_REPORT_ASSETS_H
#define RL_REPORT_ASSETS_H

#include <stddef.h>

extern const unsigned char rl_asset_report_xml[];
extern const size_t rl_asset_report_xml_len;
extern const unsigned char rl_asset_report_css[];
extern const size_t rl_asset_report_css_len;
extern const unsigned char rl_asset_compare_xml[];
extern const size_t rl_asset_compare_xml_len;
extern const unsigned char rl_asset_compare_css[];
extern const size_t rl_asset_compare_css_len;
extern const unsigned char rl_asset_history_xml[];
extern const size_t rl_asset_history_xml_len;

#endif
