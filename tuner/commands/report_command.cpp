// `vktune report -o report.html`: one self-contained HTML page of what a
// database holds (tuner/html_report.hpp), to open in any browser offline.
// Only reads the database; the page is written whole or not at all.
#include <iostream>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "results/browse.hpp"
#include "tuner/commands/browse_options.hpp"
#include "tuner/commands/commands.hpp"
#include "tuner/html_report.hpp"

namespace vktune::cli {
namespace {

struct ReportOptions {
  results::BrowseFilter filter;
  std::string db;
  std::string output;
};

}  // namespace

void add_report_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand(
      "report", "Write one self-contained HTML page (inline SVG, no network) of a results database: per kernel "
                "and shape the distribution of variant times, convergence, parameter importance, the roofline "
                "and the top variants");
  auto options = std::make_shared<ReportOptions>();
  add_browse_filter_options(*cmd, options->filter);
  cmd->add_option("-o,--output", options->output, "The HTML file to write")->required();
  cmd->add_option("--db", options->db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)");
  cmd->callback([options, &result_code] {
    const auto store = open_existing_store(options->db);
    check_kernel_filter(store, options->filter.kernel);
    const auto data = results::browse(store, options->filter);
    write_html_report(options->output, html_report(data, store.path().string()));
    std::cerr << "vktune report: wrote " << options->output << " (" << data.shapes.size() << " kernel shape"
              << (data.shapes.size() == 1 ? "" : "s") << ")\n";
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
