#pragma once
// Damage done to a real SQLite file on purpose, for the tests of what the
// store and the runtime do with a corrupt database: one page of a table
// overwritten as a failing disk or a stray write would, and a subprocess
// runner that cannot write where root could (tests may run as root, where
// chmod stops nothing).
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace vktune_test {

// The page number of a table's root b-tree page and the file's page size,
// read through SQLite (the file must be closed by every writer, its WAL
// checkpointed: a store checkpoints when its last connection closes).
inline std::pair<std::int64_t, std::int64_t> table_root_page(const std::filesystem::path& db, const std::string& table) {
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(handle);
    throw std::runtime_error("cannot open " + db.string());
  }
  const auto integer = [&](const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    std::int64_t value = -1;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      value = sqlite3_column_int64(statement, 0);
    }
    sqlite3_finalize(statement);
    return value;
  };
  const auto root = integer("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = '" + table + "'");
  const auto page_size = integer("PRAGMA page_size");
  sqlite3_close(handle);
  if (root <= 1 || page_size <= 0) throw std::runtime_error("no table " + table + " in " + db.string());
  return {root, page_size};
}

// Overwrites the b-tree header of the table's root page: its page type byte
// becomes one no b-tree page has, its cell count absurd. Reading the table
// fails; reading any other table does not, so only a check of every page
// (PRAGMA quick_check) finds it.
inline void corrupt_table_page(const std::filesystem::path& db, const std::string& table) {
  const auto [root, page_size] = table_root_page(db, table);
  std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp((root - 1) * page_size);
  const char garbage[8] = {'\x07', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f'};
  file.write(garbage, sizeof garbage);
  if (!file) throw std::runtime_error("cannot damage " + db.string());
}

// The SQLite header's journal mode bytes (18 and 19): 1 = rollback journal, 2 = WAL.
inline int journal_version(const std::filesystem::path& db) {
  std::ifstream in(db, std::ios::binary);
  char header[20] = {};
  in.read(header, sizeof header);
  return in ? header[18] : -1;
}

// A prefix for a shell command that runs it as a user who cannot write to
// files and directories the test made: as root, in a new user namespace
// (unshare -U: the process is "nobody" to the file system); otherwise the
// command as it is (chmod does the rest). "" with `why` set when neither works.
inline std::string unprivileged_prefix(std::string& why) {
  if (::geteuid() != 0) return " ";
  if (std::system("unshare -U true >/dev/null 2>&1") == 0) return "unshare -U ";
  why = "running as root and `unshare -U` is not available: root writes into read-only directories";
  return {};
}

}  // namespace vktune_test
