// `vktune import FILE...`: merges JSON tuned tables into the results database.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "common/error.hpp"
#include "harness/spirv_validation.hpp"
#include "results/import.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "vktune_runtime.hpp"

namespace vktune::cli {

namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string db;
  bool newest_per_model = false;
};

results::TableContents read_table_file(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw Error(ErrorKind::usage, "cannot import " + file + ": " +
                                      (std::filesystem::exists(file, ec) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) throw Error(ErrorKind::io, "cannot read table " + file);
  auto table = results::read_table_text(text.str(), file);
  // The runtime library's own parser on the whole table: an entry it would
  // refuse when it loads the database or an export of it (a divisor of 0, an
  // axis naming a dimension the shape lacks, 33 push-constant words, ...)
  // is refused here, before the database is touched, not imported to make
  // every later table of that database unloadable.
  try {
    (void)runtime::Table::from_json_text(text.str(), file);
  } catch (const runtime::Error& e) {
    throw Error(ErrorKind::format, "cannot import " + file + ": the runtime library refuses it: " + e.what());
  }
  // Every stage's SPIR-V through the validator: a module with the right
  // magic number and hash but no valid code would be handed to a driver by
  // every later run and by the runtime library (issue 40, item 15).
  for (const auto& w : table.winners) {
    const auto& v = w.winner;
    for (std::size_t stage = 0; stage <= v.later_stage_spirv.size(); ++stage) {
      const auto& words = stage == 0 ? v.spirv : v.later_stage_spirv[stage - 1];
      if (const auto problem = vk::spirv_validation_problem(words); !problem.empty()) {
        throw Error(ErrorKind::format, "cannot import " + file + ": the SPIR-V of stage " + std::to_string(stage) +
                                           " of the winner of " + w.winner.kernel + " " + w.winner.shape +
                                           " is not valid for Vulkan: " + problem);
      }
    }
  }
  return table;
}

}  // namespace

void add_import_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand(
      "import", "Merge JSON tuned tables (from `vktune export`) into the results database; per key the newer "
                "winner stays, and conflicts are listed");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Merges JSON tables from other machines; all are checked before anything is
written. Per device, kernel, shape and cache mode the newer winner stays,
whatever the order of the files, and conflicts are listed.

--newest-per-model keeps only the newest winner among all physical GPUs of one
model (vendor and device id), so the exported table gives one answer for that
model. Each physical GPU is its own device (the key includes its UUID), so
tables tuned on several GPUs of one model are combined with
    vktune import --newest-per-model --db merged.db OLD.json ... NEW.json
    vktune export --db merged.db -o OUT.json

Every SPIR-V hash of an imported table is recomputed from its words and a
mismatch rejects the table, as does SPIR-V that SPIRV-Tools' validator
rejects for Vulkan, a field not of the form vktune writes,
and any entry the runtime library's own parser refuses (a contract it could
not serve: a divisor of 0, an axis naming a dimension the shape lacks, ...).

See docs/RESULTS_DATABASE.md and docs/TABLE_FORMAT.md, "Import rules".
)vkt");
  auto args = std::make_shared<ImportArgs>();
  cmd->add_option("FILE", args->files, "The tables to import (any order: per key the newer winner stays)")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("--db", args->db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(database_validator());
  cmd->add_flag("--newest-per-model", args->newest_per_model,
                "Keep only the newest winner per GPU model (vendor and device id), kernel, shape and cache mode, "
                "dropping older ones of other physical GPUs of that model (to export one table for the model)");
  cmd->callback([args, &result_code] {
    // Every table is read and checked before the database is opened or created.
    std::vector<results::TableContents> tables;
    for (const auto& file : args->files) tables.push_back(read_table_file(file));
    auto store = open_store(args->db);
    results::ImportOptions options;
    options.newest_per_model = args->newest_per_model;
    for (std::size_t i = 0; i < tables.size(); ++i) {
      const auto& file = args->files[i];
      const auto report = results::import_table(store, std::move(tables[i]), options);
      for (const auto& conflict : report.conflicts) std::cout << results::describe(conflict) << "\n";
      std::cout << "imported " << file << " into " << store.path().string() << ": " << report.devices
                << " devices, " << report.winners_added << " winners added, " << report.winners_replaced
                << " replaced by newer, " << report.winners_kept << " kept (stored is as new or newer), "
                << report.conflicts.size() << " conflicts";
      if (args->newest_per_model) {
        std::cout << ", " << report.winners_superseded << " older winners of the same GPU model removed";
      }
      std::cout << "\n";
    }
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
