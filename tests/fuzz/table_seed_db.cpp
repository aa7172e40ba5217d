// Seeds for fuzz_runtime_sqlite: each JSON table given (the committed seeds of
// fuzz_runtime_json, real exported tables) imported into a fresh vktune store,
// written as OUT_DIR/<name>.db. Generated, not committed: a store is tens of
// KB of mostly empty pages, and this keeps it in step with the schema.
//   table_seed_db OUT_DIR TABLE.json...
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/error.hpp"
#include "results/import.hpp"
#include "results/store.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: table_seed_db OUT_DIR TABLE.json...\n";
    return 2;
  }
  const std::filesystem::path out_dir = argv[1];
  std::filesystem::create_directories(out_dir);
  try {
    for (int i = 2; i < argc; ++i) {
      const std::filesystem::path table = argv[i];
      std::ifstream in(table, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      const auto db = out_dir / (table.stem().string() + ".db");
      std::filesystem::remove(db);
      {
        auto store = vktune::results::Store::open(db);
        (void)vktune::results::import_table_text(store, text.str(), table.string());
      }  // closing the last connection checkpoints the WAL into the file
      std::filesystem::remove(db.string() + "-wal");
      std::filesystem::remove(db.string() + "-shm");
    }
  } catch (const vktune::Error& e) {
    std::cerr << "table_seed_db: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
