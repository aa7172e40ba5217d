// vktune databases made by the real vktune binary: what loads, that nothing
// is written, and corrupt, truncated, foreign and wrong-version files.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <utility>

#include "fixtures.hpp"
#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;
namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kSpirvMagic = 0x07230203u;

// A private copy of the fixture database (no -wal/-shm beside it).
fs::path copy_db(const fs::path& dir) {
  const auto copy = dir / "copy.db";
  fs::copy_file(rt_test::tuned_db(), copy, fs::copy_options::overwrite_existing);
  return copy;
}

void exec(const fs::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(handle);
}

// Opening must fail with an rt::Error (format or io), never crash or load.
void expect_error(const fs::path& path, const std::string& what) {
  try {
    const auto table = rt::Table::open(path);
    ADD_FAILURE() << what << ": loaded " << table.entries().size() << " entries";
  } catch (const rt::Error& e) {
    EXPECT_TRUE(e.kind() == rt::Error::Kind::format || e.kind() == rt::Error::Kind::io) << what << ": " << e.what();
  }
}

}  // namespace

TEST(RuntimeSqlite, LoadsATunedDatabase) {
  const auto table = rt::Table::open_sqlite(rt_test::tuned_db());
  ASSERT_EQ(table.devices().size(), 1u);
  ASSERT_EQ(table.entries().size(), 2u);
  std::vector<std::vector<std::uint32_t>> shapes;
  for (const auto& e : table.entries()) {
    shapes.push_back(e.shape);
    EXPECT_EQ(e.kernel, "matmul_q4k");
    EXPECT_EQ(e.cache_mode, "cold");
    ASSERT_GT(e.contract.stages[0].spirv.size(), 100u);
    EXPECT_EQ(e.contract.stages[0].spirv[0], kSpirvMagic);
    EXPECT_GE(e.contract.stages[0].local_size[0], 32u);
    EXPECT_EQ(e.contract.stages[0].dispatch[0].shape_dim, 1);  // N along x, M along y: both matmul templates
    EXPECT_EQ(e.contract.stages[0].dispatch[1].shape_dim, 0);
    EXPECT_EQ(e.contract.stages[0].dispatch[2].shape_dim, -1);
    EXPECT_FALSE(e.variant_hash.empty());
    EXPECT_NE(e.config_json.find("SUBGROUP_SIZE"), std::string::npos);
    EXPECT_GT(e.median_ns, 0.0);
  }
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), rt_test::kDecodeShape), shapes.end());
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), rt_test::kPrefillShape), shapes.end());
  // Table::open tells a database from JSON by its first bytes.
  EXPECT_EQ(rt::Table::open(rt_test::tuned_db()).entries().size(), 2u);
}

TEST(RuntimeSqlite, LookupsOnARealTable) {
  const auto table = rt::Table::open(rt_test::tuned_db());
  auto device = table.devices()[0].identity;
  rt::Query q{device, "matmul_q4k", {5, 100, 2048}, ""};
  auto r = table.lookup(q);
  EXPECT_EQ(r.match, rt::Match::device_and_driver);
  EXPECT_EQ(r.tuned_shape, rt_test::kDecodeShape);
  q.shape = {100, 100, 2048};
  r = table.lookup(q);
  EXPECT_EQ(r.tuned_shape, rt_test::kPrefillShape);
  q.device.driver_version += 1;
  EXPECT_EQ(table.lookup(q).match, rt::Match::device);
  q.device.name += " (another build)";
  EXPECT_EQ(table.lookup(q).match, rt::Match::architecture);  // same name family, same vendor
  q.device.name = "softpipe";
  EXPECT_EQ(table.lookup(q).match, rt::Match::vendor);
}

TEST(RuntimeSqlite, JsonOfTheSameTableLoadsTheSame) {
  const auto db = rt::Table::open_sqlite(rt_test::tuned_db());
  const auto json = rt::Table::from_json_text(rt_test::to_table_json(db).dump(2));
  ASSERT_EQ(json.entries().size(), db.entries().size());
  for (std::size_t i = 0; i < db.entries().size(); ++i) {
    const auto &a = db.entries()[i], &b = json.entries()[i];
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.contract.stages[0].spirv, b.contract.stages[0].spirv);
    EXPECT_EQ(a.contract.stages[0].local_size, b.contract.stages[0].local_size);
    EXPECT_EQ(a.contract.stages[0].dispatch, b.contract.stages[0].dispatch);
    EXPECT_EQ(a.contract.stages[0].specialization, b.contract.stages[0].specialization);
    EXPECT_EQ(a.contract.stages[0].required_subgroup_size, b.contract.stages[0].required_subgroup_size);
  }
  EXPECT_EQ(json.devices()[0].identity, db.devices()[0].identity);
}

TEST(RuntimeSqlite, ExportedTableMatchesTheDatabase) {
  const auto dir = rt_test::fresh_dir("export");
  const auto out = dir / "table.json";
  const auto r = rt_test::run(std::string(VKTUNE_BINARY) + " export --format json -o " + out.string() + " --db " +
                              rt_test::tuned_db().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto db = rt::Table::open_sqlite(rt_test::tuned_db());
  const auto json = rt::Table::open(out);
  ASSERT_EQ(json.entries().size(), db.entries().size());
  for (const auto& e : db.entries()) {
    const auto match = std::find_if(json.entries().begin(), json.entries().end(),
                                    [&](const rt::Entry& j) { return j.shape == e.shape; });
    ASSERT_NE(match, json.entries().end());
    EXPECT_EQ(match->contract.stages[0].spirv, e.contract.stages[0].spirv);
    EXPECT_EQ(match->contract.stages[0].dispatch, e.contract.stages[0].dispatch);
    EXPECT_EQ(match->contract.stages[0].local_size, e.contract.stages[0].local_size);
  }
  fs::remove_all(dir);
}

TEST(RuntimeSqlite, OpensReadOnlyAndWritesNothing) {
  const auto dir = rt_test::fresh_dir("readonly");
  const auto db = copy_db(dir);
  const auto before = rt_test::read_file(db);
  {
    const auto table = rt::Table::open_sqlite(db);
    EXPECT_EQ(table.entries().size(), 2u);
  }
  EXPECT_EQ(rt_test::read_file(db), before);
  EXPECT_FALSE(fs::exists(dir / "copy.db-journal"));
  // A missing database is an error, and is not created.
  try {
    rt::Table::open_sqlite(dir / "missing.db");
    FAIL();
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::io) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "missing.db"));
  fs::remove_all(dir);
}

TEST(RuntimeSqlite, TruncatedFilesAreErrors) {
  const auto dir = rt_test::fresh_dir("truncated");
  const auto whole = rt_test::read_file(copy_db(dir));
  ASSERT_GT(whole.size(), 8192u);
  std::vector<std::size_t> cuts{0, 10, 16, 99, 100, 512, 1000, 4095, 4096, 4097, 8192, whole.size() / 3,
                                whole.size() / 2, whole.size() - 4096, whole.size() - 100, whole.size() - 1};
  for (std::size_t page = 4096; page < whole.size(); page += 4096 * 3) cuts.push_back(page);
  for (const auto cut : cuts) {
    const auto path = dir / ("cut-" + std::to_string(cut) + ".db");
    rt_test::write_file(path, std::string_view(whole).substr(0, cut));
    expect_error(path, "truncated at " + std::to_string(cut));
  }
  fs::remove_all(dir);
}

TEST(RuntimeSqlite, FlippedBytesNeverCrash) {
  const auto dir = rt_test::fresh_dir("flipped");
  const auto whole = rt_test::read_file(copy_db(dir));
  std::size_t errors = 0, loaded = 0;
  for (std::size_t at = 0; at < whole.size(); at += 331) {
    auto bad = whole;
    bad[at] = static_cast<char>(static_cast<unsigned char>(bad[at]) ^ 0x5a);
    const auto path = dir / "flipped.db";
    fs::remove(dir / "flipped.db-wal");
    fs::remove(dir / "flipped.db-shm");
    rt_test::write_file(path, bad);
    try {
      const auto table = rt::Table::open(path);
      ++loaded;  // a byte of a free page, a measurement row or another unused part
    } catch (const rt::Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors + loaded, 100u);
  std::printf("flipped-byte databases: %zu errors, %zu loaded\n", errors, loaded);
  fs::remove_all(dir);
}

TEST(RuntimeSqlite, CorruptSpirvIsAnError) {
  // Flip a byte in the middle of every stored copy of a winner's SPIR-V: the
  // content hash catches what SQLite cannot.
  const auto dir = rt_test::fresh_dir("spirv");
  const auto table = rt::Table::open_sqlite(rt_test::tuned_db());
  const auto bytes = rt_test::le_bytes(table.entries()[0].contract.stages[0].spirv);
  auto whole = rt_test::read_file(copy_db(dir));
  const std::string needle(bytes.begin(), bytes.begin() + 64);
  std::size_t copies = 0;
  for (auto at = whole.find(needle); at != std::string::npos; at = whole.find(needle, at + 1)) {
    whole[at + 40] = static_cast<char>(whole[at + 40] ^ 0x10);
    ++copies;
  }
  ASSERT_GE(copies, 1u);
  rt_test::write_file(dir / "bad.db", whole);
  try {
    rt::Table::open(dir / "bad.db");
    FAIL() << "corrupt SPIR-V loaded";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::format);
    EXPECT_NE(std::string(e.what()).find("does not match its hash"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

// A JSON column nested 100,000 deep overflowed the stack of every
// application that opened the database (a recursive copy after the
// iterative parse): each of the three JSON columns the runtime reads is now
// a format error naming the field.
TEST(RuntimeSqlite, JsonColumnsNestedTooDeepAreFormatErrorsNotCrashes) {
  const auto dir = rt_test::fresh_dir("deep_columns");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const char* column : {"contract_json", "dispatch_json", "specialization_json"}) {
    const auto db = copy_db(dir);
    exec(db, std::string("UPDATE winners SET ") + column + " = '" + deep + "'");
    try {
      rt::Table::open(db);
      ADD_FAILURE() << column << ": loaded";
    } catch (const rt::Error& e) {
      EXPECT_EQ(e.kind(), rt::Error::Kind::format) << column;
      EXPECT_NE(std::string(e.what()).find(column), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
    }
    fs::remove(db);
  }
  fs::remove_all(dir);
}

TEST(RuntimeSqlite, WrongVersionsAndForeignDatabases) {
  const auto dir = rt_test::fresh_dir("versions");
  auto db = copy_db(dir);
  exec(db, "PRAGMA user_version = 99");
  try {
    rt::Table::open(db);
    FAIL();
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::version);
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
  exec(db, "PRAGMA user_version = 0");
  expect_error(db, "user_version 0");

  const auto foreign = dir / "foreign.db";
  exec(foreign, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  expect_error(foreign, "a foreign database");
  exec(foreign, "PRAGMA user_version = 2");
  expect_error(foreign, "versioned but without vktune tables");

  // One damaged field at a time, each in a fresh copy.
  const std::pair<const char*, const char*> damage[] = {
      {"UPDATE winners SET dispatch_json = '{}'", "dispatch_json not an array"},
      {"UPDATE winners SET local_size_y = 0", "local_size 0"},
      {"UPDATE winners SET shape = '1,x,3' WHERE shape = '1,37,1024'", "bad shape"},
      {"DELETE FROM spirv", "missing SPIR-V"},
      {"UPDATE winners SET required_subgroup_size = -4", "negative subgroup size"},
      {"UPDATE winners SET device = 12345", "winner of no device"},
      {"DROP TABLE winners", "no winners table"},
  };
  for (const auto& [sql, what] : damage) {
    db = copy_db(dir);
    exec(db, sql);
    expect_error(db, what);
  }
  fs::remove_all(dir);
}
