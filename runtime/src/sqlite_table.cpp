// A vktune results database, read-only: the tables devices, winners and spirv
// (results/schema.cpp, schema versions 1 to 6: version 6 added a column to
// measurements, which the runtime does not read). Nothing is ever written.
// A WAL database in a read-only directory (a package, a container layer)
// cannot get the -shm file even a reader needs; it is then read in SQLite's
// immutable mode. Its pages are checked (PRAGMA quick_check) before use.
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "capped_json.hpp"
#include "table_data.hpp"

namespace vktune::runtime::detail {
namespace {

// v3 changed only measurements; v4 added winners.contract_json; v5 spirv.content_hash
constexpr int kMinSchema = 1, kMaxSchema = 6;

// "file:PATH?immutable=1" with the characters a URI gives meaning to percent-encoded (as
// results/sqlite.cpp's file_uri does: the runtime may not include results/).
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#' || static_cast<unsigned char>(c) < 0x20) {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

// The first read: where a WAL file whose -shm cannot be made shows itself.
int probe(sqlite3* db) { return sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr); }

class Database {
 public:
  explicit Database(const std::string& path) : path_(path) {
    // Without SQLITE_OPEN_CREATE a missing file is an error; without
    // SQLITE_OPEN_READWRITE nothing can be written, not even a journal.
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw Error(Error::Kind::io, "vktune database '" + path + "' cannot be opened: " + why);
    }
    sqlite3_busy_timeout(db_, 5000);  // a writer may hold the lock for a moment
    const int primary = probe(db_) & 0xff;
    if (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR) {
      std::error_code ec;
      if (std::filesystem::file_size(path + "-wal", ec) > 0 && !ec) {
        throw Error(Error::Kind::io, "vktune database '" + path + "' cannot be read here (" + sqlite3_errmsg(db_) +
                                         ") and its write-ahead log holds commits the file lacks: ship a copy made "
                                         "with `vktune export --format sqlite`");
      }
      sqlite3_close(db_);
      db_ = nullptr;
      if (sqlite3_open_v2(immutable_uri(path).c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                          nullptr) != SQLITE_OK) {
        const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        throw Error(Error::Kind::io, "vktune database '" + path + "' cannot be opened (immutable): " + why);
      }
    }
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  [[noreturn]] void fail_sqlite(const std::string& what) const {
    const int code = sqlite3_errcode(db_);
    const auto kind = code == SQLITE_BUSY || code == SQLITE_CANTOPEN || code == SQLITE_IOERR ? Error::Kind::io
                                                                                             : Error::Kind::format;
    throw Error(kind, "vktune database '" + path_ + "': " + what + ": " + sqlite3_errmsg(db_) +
                          (kind == Error::Kind::format ? " (the file is corrupt or not a vktune database)" : ""));
  }

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(const Database& db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr) != SQLITE_OK) db.fail_sqlite("reading it failed");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail_sqlite("reading it failed");
  }

  void bind(int index, const std::string& text) {
    sqlite3_reset(stmt_);
    sqlite3_bind_text(stmt_, index, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  std::int64_t int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  bool is_integer(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_INTEGER; }
  std::string text(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    const int n = sqlite3_column_bytes(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string();
  }
  std::vector<std::uint8_t> blob(int column) const {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_, column));
    const int n = sqlite3_column_bytes(stmt_, column);
    return p ? std::vector<std::uint8_t>(p, p + n) : std::vector<std::uint8_t>();
  }

 private:
  const Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// SQLite itself reads a truncated file as if the missing pages were empty in
// some places; the header says how long the file must be. Bytes 16..17 hold
// the page size (1 = 65536), bytes 28..31 the page count, valid when the
// change counter (24..27) equals the version-valid-for number (92..95).
void check_length(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[100] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) {
    fail(path, "shorter than an SQLite header (truncated)");
  }
  if (std::string_view(reinterpret_cast<const char*>(header), 16) != std::string_view("SQLite format 3\0", 16)) {
    fail(path, "not an SQLite database (no \"SQLite format 3\" header)");
  }
  const auto be32 = [&](int at) {
    return static_cast<std::uint32_t>(header[at]) << 24 | static_cast<std::uint32_t>(header[at + 1]) << 16 |
           static_cast<std::uint32_t>(header[at + 2]) << 8 | static_cast<std::uint32_t>(header[at + 3]);
  };
  const std::uint32_t raw_page = static_cast<std::uint32_t>(header[16]) << 8 | header[17];
  const std::uint64_t page_size = raw_page == 1 ? 65536u : raw_page;
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
    fail(path, "the SQLite header has an invalid page size (corrupt)");
  }
  if (be32(24) != be32(92)) return;  // page count not maintained: leave it to SQLite
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(Error::Kind::io, "vktune database '" + path + "' cannot be read: " + ec.message());
  const std::uint64_t expected = page_size * be32(28);
  if (size < expected) {
    fail(path, "the file has " + std::to_string(size) + " bytes but its header says " + std::to_string(expected) +
                   " (truncated)");
  }
}

// PRAGMA quick_check: damaged pages anywhere in the file are an error, not
// only those the winners' rows happen to sit on.
void check_pages(const Database& db) {
  Statement check(db, "PRAGMA quick_check");
  std::string first;
  while (check.step()) {
    const auto line = check.text(0);
    if (line != "ok" && first.empty()) first = line;
  }
  for (char& c : first) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (!first.empty()) fail(db.path(), "the file is corrupt: " + first + " (PRAGMA quick_check)");
}

std::uint32_t column_uint32(const Statement& row, int column, const std::string& path, const std::string& where) {
  const auto v = row.int64(column);
  if (!row.is_integer(column) || v < 0 || v > std::numeric_limits<std::uint32_t>::max()) {
    fail(path, where + " is not a 32-bit unsigned integer");
  }
  return static_cast<std::uint32_t>(v);
}

nlohmann::json parse_column_json(const std::string& text, const std::string& path, const std::string& where) {
  if (text.empty()) return nullptr;
  auto parsed = parse_capped_json(text);
  if (!parsed.error.empty()) fail(path, where + " is " + parsed.error);
  return std::move(parsed.value);
}

}  // namespace

TableData load_sqlite(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(Error::Kind::io, "vktune database '" + path + "' does not exist or is not a file");
  }
  check_length(path);
  Database db(path);
  check_pages(db);

  // One read transaction, so that a writer committing meanwhile cannot make
  // winners refer to SPIR-V this read does not see.
  if (sqlite3_exec(db.handle(), "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) db.fail_sqlite("BEGIN failed");
  std::int64_t v = 0;
  {
    Statement version(db, "PRAGMA user_version");
    v = version.step() ? version.int64(0) : 0;
    if (v == 0) {
      fail(path, "an SQLite database without a vktune schema version (not a vktune results database)");
    }
    if (v < kMinSchema || v > kMaxSchema) {
      throw Error(Error::Kind::version, "vktune database '" + path + "' has schema version " + std::to_string(v) +
                                            ", but this runtime reads versions " + std::to_string(kMinSchema) +
                                            ".." + std::to_string(kMaxSchema) + ": update the runtime");
    }
  }

  TableData table;
  table.source = path;
  std::map<std::int64_t, std::size_t> device_index;
  {
    Statement devices(db, "SELECT id, vendor_id, device_id, driver_version, name, device_uuid FROM devices ORDER BY id");
    while (devices.step()) {
      const auto where = "devices row " + std::to_string(devices.int64(0));
      TableDevice d;
      d.id = devices.int64(0);
      d.identity.vendor_id = column_uint32(devices, 1, path, where + " vendor_id");
      d.identity.device_id = column_uint32(devices, 2, path, where + " device_id");
      d.identity.driver_version = column_uint32(devices, 3, path, where + " driver_version");
      d.identity.name = devices.text(4);
      d.identity.uuid = devices.text(5);
      if (!device_index.emplace(d.id, table.devices.size()).second) fail(path, where + " appears twice");
      table.devices.push_back(std::move(d));
    }
  }
  {
    // Schema 4 stores each winner's contract; older rows are legacy entries.
    Statement winners(db, v >= 4 ? "SELECT w.device, w.kernel, w.shape, w.cache_mode, w.variant, w.config_json, "
                                   "w.spirv_hash, w.specialization_json, w.local_size_x, w.local_size_y, "
                                   "w.local_size_z, w.dispatch_json, w.required_subgroup_size, w.median_ns, w.gbps, "
                                   "w.gflops, w.rel_l2_error, s.words, w.contract_json, w.updated_at "
                                   "FROM winners w LEFT JOIN spirv s ON s.hash = w.spirv_hash "
                                   "ORDER BY w.device, w.kernel, w.shape, w.cache_mode"
                                 : "SELECT w.device, w.kernel, w.shape, w.cache_mode, w.variant, w.config_json, "
                                   "w.spirv_hash, w.specialization_json, w.local_size_x, w.local_size_y, "
                                   "w.local_size_z, w.dispatch_json, w.required_subgroup_size, w.median_ns, w.gbps, "
                                   "w.gflops, w.rel_l2_error, s.words, '', w.updated_at "
                                   "FROM winners w LEFT JOIN spirv s ON s.hash = w.spirv_hash "
                                   "ORDER BY w.device, w.kernel, w.shape, w.cache_mode");
    Statement module(db, "SELECT words FROM spirv WHERE hash = ?1");
    while (winners.step()) {
      const auto where = "winner (" + winners.text(1) + ", " + winners.text(2) + ", " + winners.text(3) + ")";
      Entry e;
      const auto device = device_index.find(winners.int64(0));
      if (device == device_index.end()) fail(path, where + " refers to a device that is not in the devices table");
      e.device = device->second;
      e.kernel = winners.text(1);
      e.shape = parse_shape_text(winners.text(2));
      if (e.shape.empty()) fail(path, where + ": the shape is not a list of positive integers");
      e.cache_mode = winners.text(3);
      e.variant_hash = winners.text(4);
      e.config_json = winners.text(5);
      if (winners.is_null(17)) fail(path, where + ": its SPIR-V (" + winners.text(6) + ") is missing");
      Stage stage;
      stage.spirv = spirv_from_bytes(winners.blob(17), winners.text(6), path, where + " SPIR-V");
      stage.specialization =
          parse_specialization(parse_column_json(winners.text(7), path, where + " specialization_json"), path,
                               where + " specialization_json");
      for (int i = 0; i < 3; ++i) {
        stage.local_size[static_cast<std::size_t>(i)] = column_uint32(winners, 8 + i, path, where + " local_size");
      }
      const auto dispatch = parse_column_json(winners.text(11), path, where + " dispatch_json");
      stage.dispatch = parse_dispatch(dispatch, path, where + " dispatch_json");
      stage.required_subgroup_size = column_uint32(winners, 12, path, where + " required_subgroup_size");
      const auto contract_text = winners.text(18);
      if (contract_text.empty()) {
        e.contract = legacy_contract(e.shape, std::move(stage));
      } else {
        const auto contract = parse_column_json(contract_text, path, where + " contract_json");
        SpirvByHash modules;
        modules.emplace(winners.text(6), stage.spirv);
        if (contract.is_object() && contract.contains("stages") && contract["stages"].is_array()) {
          for (const auto& st : contract["stages"]) {
            if (!st.is_object() || !st.contains("spirv_hash") || !st["spirv_hash"].is_string()) continue;
            const auto hash = st["spirv_hash"].get<std::string>();
            if (modules.count(hash) != 0) continue;
            module.bind(1, hash);
            if (!module.step()) fail(path, where + ": the SPIR-V of a stage (" + hash + ") is missing");
            modules.emplace(hash, spirv_from_bytes(module.blob(0), hash, path, where + " stage SPIR-V"));
          }
        }
        const Stage& row = stage;
        e.contract = parse_contract(contract, e.shape.size(), modules, path, where);
        // The row's launch columns and its contract's first stage say the same thing twice (the
        // columns serve readers of schema 1..3): a row where they differ is corrupt.
        const auto& first = e.contract.stages.front();
        if (first.spirv != row.spirv || first.local_size != row.local_size || first.dispatch != row.dispatch ||
            first.required_subgroup_size != row.required_subgroup_size || first.specialization != row.specialization) {
          fail(path, where + ": contract_json's first stage disagrees with the row's SPIR-V or launch columns");
        }
      }
      e.median_ns = winners.real(13);
      e.gbps = winners.real(14);
      e.gflops = winners.real(15);
      e.rel_l2_error = winners.real(16);
      e.updated_at = winners.text(19);
      check_entry(table, e, where);
      table.entries.push_back(std::move(e));
    }
  }
  sqlite3_exec(db.handle(), "COMMIT", nullptr, nullptr, nullptr);
  return table;
}

}  // namespace vktune::runtime::detail
