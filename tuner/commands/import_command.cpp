// `vktune import FILE`: merges a JSON tuned table into the results database.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/error.hpp"
#include "results/import.hpp"
#include "tuner/commands/commands.hpp"
#include "tuner/commands/options.hpp"

namespace vktune::cli {

void add_import_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand(
      "import", "Merge a JSON tuned table (from `vktune export`) into the results database; per key the newer "
                "winner stays, and conflicts are listed");
  auto file = std::make_shared<std::string>();
  auto db = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, "The table to import")->required()->check(CLI::ExistingFile);
  cmd->add_option("--db", *db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)");
  cmd->callback([file, db, &result_code] {
    std::ifstream in(*file, std::ios::binary);
    if (!in) throw Error(ErrorKind::io, "cannot read table " + *file);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw Error(ErrorKind::io, "cannot read table " + *file);

    auto table = results::read_table_text(text.str(), *file);  // before the database is opened or created
    auto store = open_store(*db);
    const auto report = results::import_table(store, std::move(table));
    for (const auto& conflict : report.conflicts) std::cout << results::describe(conflict) << "\n";
    std::cout << "imported " << *file << " into " << store.path().string() << ": " << report.devices
              << " devices, " << report.winners_added << " winners added, " << report.winners_replaced
              << " replaced by newer, " << report.winners_kept << " kept (stored is as new or newer), "
              << report.conflicts.size() << " conflicts\n";
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
