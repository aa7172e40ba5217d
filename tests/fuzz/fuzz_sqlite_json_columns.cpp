// libFuzzer target, structure-aware: a valid vktune store (a committed seed
// table imported, one measurement recorded) whose JSON text columns hold the
// fuzzer's text instead: winners.config_json, contract_json,
// specialization_json and dispatch_json, variants.config_json, and a
// measurement's reason. The pages are valid, so every reader gets past
// SQLite to the text; each must then give an Error (vktune's or the
// runtime's) or its output, never crash: `vktune export` as a table, header
// and CSV, `vktune results`, and the runtime's SQLite table reader with its
// lookups. (fuzz_runtime_sqlite mutates whole files, which rarely keeps the
// pages valid long enough to reach these texts.)
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "results/browse.hpp"
#include "results/export.hpp"
#include "results/export_csv.hpp"
#include "results/export_header.hpp"
#include "results/import.hpp"
#include "results/store.hpp"
#include "runtime_table_exercise.hpp"

#ifndef VKTUNE_SOURCE_DIR
#error "VKTUNE_SOURCE_DIR must name the source tree (the seed table)"
#endif

namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& what) {
  return fs::temp_directory_path() / ("vktune_fuzz_columns_" + std::to_string(::getpid()) + what);
}

// The seed store's bytes, made once per process.
const std::string& seed_store() {
  static const std::string bytes = [] {
    const auto path = scratch("_seed.db");
    fs::remove(path);
    {
      std::ifstream in(fs::path(VKTUNE_SOURCE_DIR) / "tests/fuzz/corpus/json_tables/gelu_tanh_decode.json");
      const std::string table((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto store = vktune::results::Store::open(path);
      (void)vktune::results::import_table_text(store, table, "gelu_tanh_decode.json");
      const auto winners = store.winners();
      if (winners.empty()) {
        std::cerr << "fuzz_sqlite_json_columns: the seed table imported no winner\n";
        std::abort();
      }
      vktune::results::Measurement m;
      m.device_id = winners.front().device_id;
      m.variant_hash = winners.front().variant_hash;
      m.shape = winners.front().shape;
      m.cache_mode = winners.front().cache_mode;
      m.median_ns = 1000;
      store.record_measurement(m);
    }  // the last connection checkpoints the WAL into the file
    fs::remove(path.string() + "-wal");
    fs::remove(path.string() + "-shm");
    std::ifstream in(path, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(path);
    return data;
  }();
  return bytes;
}

// Writes the seed with the fuzzer's texts in its JSON columns; false when
// SQLite refuses a text (none should be: TEXT takes any bytes).
bool write_store(const fs::path& path, FuzzedDataProvider& input) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << seed_store();
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  bool ok = true;
  auto update = [&](const char* sql, int texts) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) {
      ok = false;
      return;
    }
    for (int i = 1; i <= texts; ++i) {
      const auto text = input.ConsumeRandomLengthString(8192);
      sqlite3_bind_text(statement, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    if (sqlite3_step(statement) != SQLITE_DONE) ok = false;
    sqlite3_finalize(statement);
  };
  update("UPDATE winners SET config_json = ?1, contract_json = ?2, specialization_json = ?3, dispatch_json = ?4", 4);
  update("UPDATE variants SET config_json = ?1", 1);
  update("UPDATE measurements SET reason = ?1", 1);
  sqlite3_close(db);
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const auto path = scratch(".db");
  if (!write_store(path, input)) {
    std::cerr << "fuzz_sqlite_json_columns: SQLite refused a text column update\n";
    std::abort();
  }
  try {
    const auto store = vktune::results::Store::open_for_reading(path);
    std::vector<std::string> skipped;
    (void)vktune::results::export_table(store, {}, {}, &skipped).dump(2);
    (void)vktune::results::export_header(store);
    std::ostringstream csv;
    vktune::results::export_csv(csv, store);
    (void)vktune::results::browse(store, {});
  } catch (const vktune::Error&) {
    // A text the exporters refuse, with one line: fine.
  }
  try {
    const auto table = vktune::runtime::Table::open_sqlite(path);
    vktune::fuzz::exercise_table(table);
  } catch (const vktune::runtime::Error&) {
  }
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
  return 0;
}
