#pragma once
// `vktune report`: one self-contained HTML page of what a database holds.
// Per kernel and shape: the distribution of variant times, the best time so
// far against evaluations, parameter importance, the winner and baseline on
// the device's measured roofline, and a table of the top variants. No
// network: the plots are inline SVG and the only script is inline.
//
// The page checks itself once laid out: a small script measures every plot
// and every data point on screen and writes one line per plot into
// <pre id="selfcheck">:
//   plot ID kind=KIND width=W height=H points=N drawn=D
// (D: points with a non-zero size whose centre lies inside the plotting
// area). A headless browser's DOM dump shows whether the plots were drawn
// with all their points (tests/tuner/report_browser_test.cpp).
#include <filesystem>
#include <string>

#include "results/browse.hpp"

namespace vktune {

// The page for `data` (from results::browse). `database` names the file in
// the page's heading; `top` is the number of variants in each table.
std::string html_report(const results::BrowseResult& data, const std::string& database, std::size_t top = 10);

// Writes `html` to `path` whole or not at all (common/atomic_file.hpp).
void write_html_report(const std::filesystem::path& path, const std::string& html);

}  // namespace vktune
