// `vktune report -o report.html`: one self-contained HTML page of what a
// database holds (cli/html/html_report.hpp), to open in any browser offline.
// Only reads the database; the page is written whole or not at all.
#include <iostream>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "results/browse.hpp"
#include "cli/commands/browse_options.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "cli/html/html_report.hpp"

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
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Writes one self-contained HTML page (inline SVG, no network) per kernel and
shape: the distribution of variant times, best-so-far against evaluations,
parameter importance, winner and baseline on the device's measured roofline,
and the top variants. Read-only; the page is written whole or not at all.

Times are each variant's median per dispatch (its confirmation re-timing where
it has one). The convergence plot shows the search's evaluations in the order
they were measured (failures as marks along the top) with the best time so
far. The roofline is min(read bandwidth x arithmetic intensity, fp32 FMA
rate), with a dashed second roof at the fp16 tensor-core rate where the device
has tensor cores, from the device's measured ceilings and the kernel's FLOPs
over its least bytes at the shape.

A missing --db is an error (exit 2) and creates nothing, and so is a --kernel
that is neither a registered kernel nor stored; filters that match nothing say
so and exit 0.

See docs/RESULTS_DATABASE.md, "Browsing results".
)vkt");
  auto options = std::make_shared<ReportOptions>();
  add_browse_filter_options(*cmd, options->filter);
  cmd->add_option("-o,--output", options->output, "The HTML file to write")->required();
  cmd->add_option("--db", options->db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(database_validator());
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
