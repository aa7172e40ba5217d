// Schema version, migrations, and the files the store refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>

#include "common/error.hpp"
#include "results/sqlite.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

using SchemaTest = StoreTest;

sqlite::Connection raw_connection(const std::filesystem::path& path) {
  return sqlite::Connection::open(path, sqlite::Connection::Mode::read_write_create);
}

std::string pragma_text(const std::filesystem::path& path, const char* pragma) {
  auto connection = raw_connection(path);
  sqlite::Statement query(connection, pragma);
  return query.step() ? query.column_text(0) : std::string();
}

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::database) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an Error";
  return {};
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Version 1 as it was released, written out by hand: no measurements.mad_ns
// and no ceilings table.
constexpr const char* version1_schema = R"sql(
CREATE TABLE devices (id INTEGER PRIMARY KEY, vendor_id INTEGER NOT NULL, device_id INTEGER NOT NULL,
  driver_version INTEGER NOT NULL, name TEXT NOT NULL, device_uuid TEXT NOT NULL DEFAULT '',
  driver_name TEXT NOT NULL DEFAULT '', driver_version_text TEXT NOT NULL DEFAULT '',
  api_version_text TEXT NOT NULL DEFAULT '', UNIQUE (vendor_id, device_id, driver_version, name, device_uuid));
CREATE TABLE kernels (name TEXT PRIMARY KEY NOT NULL);
CREATE TABLE variants (hash TEXT PRIMARY KEY NOT NULL, kernel TEXT NOT NULL REFERENCES kernels(name),
  template_name TEXT NOT NULL, config_json TEXT NOT NULL, template_hash TEXT NOT NULL DEFAULT '',
  compiler_version TEXT NOT NULL DEFAULT '');
CREATE INDEX variants_by_kernel ON variants(kernel);
CREATE TABLE spirv (hash TEXT PRIMARY KEY NOT NULL, words BLOB NOT NULL);
CREATE TABLE measurements (device INTEGER NOT NULL REFERENCES devices(id),
  variant TEXT NOT NULL REFERENCES variants(hash), shape TEXT NOT NULL, cache_mode TEXT NOT NULL,
  status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', median_ns REAL NOT NULL DEFAULT 0,
  min_ns REAL NOT NULL DEFAULT 0, p10_ns REAL NOT NULL DEFAULT 0, p90_ns REAL NOT NULL DEFAULT 0,
  repetitions INTEGER NOT NULL DEFAULT 0, rel_l2_error REAL NOT NULL DEFAULT 0,
  max_abs_error REAL NOT NULL DEFAULT 0, gbps REAL NOT NULL DEFAULT 0, gflops REAL NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, PRIMARY KEY (device, variant, shape, cache_mode));
CREATE INDEX measurements_by_shape ON measurements(device, shape, cache_mode);
CREATE TABLE winners (device INTEGER NOT NULL REFERENCES devices(id),
  kernel TEXT NOT NULL REFERENCES kernels(name), shape TEXT NOT NULL, cache_mode TEXT NOT NULL,
  variant TEXT NOT NULL REFERENCES variants(hash), config_json TEXT NOT NULL,
  spirv_hash TEXT NOT NULL REFERENCES spirv(hash), specialization_json TEXT NOT NULL DEFAULT '{}',
  local_size_x INTEGER NOT NULL DEFAULT 1, local_size_y INTEGER NOT NULL DEFAULT 1,
  local_size_z INTEGER NOT NULL DEFAULT 1, dispatch_json TEXT NOT NULL DEFAULT '{}',
  required_subgroup_size INTEGER NOT NULL DEFAULT 0, median_ns REAL NOT NULL DEFAULT 0,
  gbps REAL NOT NULL DEFAULT 0, gflops REAL NOT NULL DEFAULT 0, rel_l2_error REAL NOT NULL DEFAULT 0,
  baseline_variant TEXT NOT NULL DEFAULT '', baseline_median_ns REAL NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL, PRIMARY KEY (device, kernel, shape, cache_mode));
PRAGMA user_version = 1;
)sql";

constexpr const char* version1_data = R"sql(
INSERT INTO devices (id, vendor_id, device_id, driver_version, name, device_uuid, driver_name)
  VALUES (7, 4318, 9009, 5898240, 'NVIDIA H100 PCIe', '0123456789abcdef0123456789abcdef', 'NVIDIA');
INSERT INTO kernels VALUES ('matmul_q4k');
INSERT INTO variants VALUES ('v1hash', 'matmul_q4k', 'matvec_q4k.comp', '{"wg_size":64}', 'th', 'shaderc 2023.2');
INSERT INTO spirv VALUES ('v1hash', x'0302230700000100');
INSERT INTO measurements (device, variant, shape, cache_mode, status, reason, median_ns, min_ns, p10_ns, p90_ns,
  repetitions, rel_l2_error, max_abs_error, gbps, gflops, created_at)
  VALUES (7, 'v1hash', '1,4096,4096', 'cold', 'ok', '', 5000, 4900, 4950, 5100, 20, 1e-7, 2e-6, 900, 3.5,
          '2024-01-02T03:04:05.000Z');
INSERT INTO winners (device, kernel, shape, cache_mode, variant, config_json, spirv_hash, local_size_x, updated_at)
  VALUES (7, 'matmul_q4k', '1,4096,4096', 'cold', 'v1hash', '{"wg_size":64}', 'v1hash', 64,
          '2024-01-02T03:04:05.000Z');
)sql";

// Version 2 as it was released: version 1 plus this step.
constexpr const char* version2_step = R"sql(
ALTER TABLE measurements ADD COLUMN mad_ns REAL NOT NULL DEFAULT 0;
CREATE TABLE ceilings (device INTEGER NOT NULL REFERENCES devices(id), name TEXT NOT NULL, value REAL NOT NULL,
  unit TEXT NOT NULL, measured_at TEXT NOT NULL, PRIMARY KEY (device, name));
PRAGMA user_version = 2;
)sql";

constexpr const char* version2_data = R"sql(
INSERT INTO variants VALUES ('v2hash', 'matmul_q4k', 'matvec_q4k.comp', '{"wg_size":128}', 'th', 'shaderc 2023.2');
INSERT INTO measurements (device, variant, shape, cache_mode, status, reason, median_ns, min_ns, p10_ns, p90_ns,
  mad_ns, repetitions, rel_l2_error, max_abs_error, gbps, gflops, created_at)
  VALUES (7, 'v2hash', '1,4096,4096', 'cold', 'wrong_result', 'rel_l2 0.5', 0, 0, 0, 0, 0, 0, 0.5, 3, 0, 0,
          '2024-02-03T04:05:06.000Z'),
         (7, 'v2hash', '1,4096,4096', 'hot', 'ok', '', 4000, 3900, 3950, 4100, 7.5, 30, 1e-7, 2e-6, 950, 4,
          '2024-02-03T04:05:07.000Z');
INSERT INTO ceilings VALUES (7, 'read_bandwidth', 2000, 'GB/s', '2024-02-03T04:05:06.000Z');
)sql";

TEST_F(SchemaTest, NewDatabaseIsAtTheCurrentVersionInWalMode) {
  {
    auto store = Store::open(db_path());
    EXPECT_EQ(store.schema_version(), Store::current_schema_version);
    EXPECT_GE(Store::current_schema_version, 2);
  }
  EXPECT_EQ(pragma_text(db_path(), "PRAGMA journal_mode"), "wal");  // persistent, seen by any connection
  EXPECT_EQ(pragma_text(db_path(), "PRAGMA user_version"), std::to_string(Store::current_schema_version));
}

TEST_F(SchemaTest, ForeignKeysAreEnforced) {
  auto store = Store::open(db_path());
  // A measurement of a device that does not exist is refused.
  store.upsert_variant(sample_variant(1));
  EXPECT_THROW(store.record_measurement(sample_measurement(12345, "variant1", 1)), Error);
}

TEST_F(SchemaTest, Version1DatabaseIsMigratedAndKeepsItsData) {
  {
    auto connection = raw_connection(db_path());
    connection.exec(version1_schema);
    connection.exec(version1_data);
  }
  auto store = Store::open(db_path());
  EXPECT_EQ(store.schema_version(), Store::current_schema_version);

  const auto devices = store.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].first, 7);
  EXPECT_EQ(devices[0].second.name, "NVIDIA H100 PCIe");
  EXPECT_EQ(store.find_variant("v1hash")->config_json, R"({"wg_size":64})");
  EXPECT_EQ(store.get_spirv("v1hash"), (std::vector<std::uint32_t>{0x07230203u, 0x00010000u}));

  const auto m = store.find_measurement(7, "v1hash", "1,4096,4096", "cold");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->median_ns, 5000);
  EXPECT_EQ(m->p90_ns, 5100);
  EXPECT_EQ(m->repetitions, 20);
  EXPECT_EQ(m->mad_ns, 0);  // added by the migration
  EXPECT_EQ(m->phase, Phase::search);
  EXPECT_EQ(m->durations, PhaseDurations{});
  EXPECT_EQ(m->created_at, "2024-01-02T03:04:05.000Z");

  const auto winners = store.winners();
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_EQ(winners[0].local_size[0], 64u);
  EXPECT_EQ(winners[0].spirv.size(), 2u);

  // What version 2 added works on the migrated file.
  store.put_ceiling(7, "read_bandwidth", 2000, "GB/s");
  EXPECT_EQ(store.ceiling(7, "read_bandwidth"), 2000);
  auto with_mad = *m;
  with_mad.mad_ns = 12.5;
  store.record_measurement(with_mad);
  EXPECT_EQ(store.find_measurement(7, "v1hash", "1,4096,4096", "cold")->mad_ns, 12.5);
}

TEST_F(SchemaTest, Version2DatabaseIsMigratedToSearchRowsWithZeroDurations) {
  {
    auto connection = raw_connection(db_path());
    connection.exec(version1_schema);
    connection.exec(version1_data);
    connection.exec(version2_step);
    connection.exec(version2_data);
  }
  { Store::open(db_path()); }
  EXPECT_EQ(pragma_text(db_path(), "PRAGMA user_version"), std::to_string(Store::current_schema_version));

  // Read with plain SQL, not through the store: every old row is there, a
  // search row with zero durations, and the phase is part of its identity.
  auto connection = raw_connection(db_path());
  sqlite::Statement rows(connection,
                         "SELECT variant, cache_mode, phase, median_ns, mad_ns, created_at, compile_ms, pipeline_ms, "
                         "validation_ms, warmup_ms, timing_ms FROM measurements ORDER BY variant, cache_mode");
  std::vector<std::string> seen;
  while (rows.step()) {
    seen.push_back(rows.column_text(0) + "/" + rows.column_text(1));
    EXPECT_EQ(rows.column_text(2), "search");
    for (int column = 6; column <= 10; ++column) EXPECT_EQ(rows.column_double(column), 0.0) << column;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"v1hash/cold", "v2hash/cold", "v2hash/hot"}));
  sqlite::Statement key(connection, "SELECT name FROM pragma_table_info('measurements') WHERE pk > 0 ORDER BY pk");
  std::vector<std::string> key_columns;
  while (key.step()) key_columns.push_back(key.column_text(0));
  EXPECT_EQ(key_columns, (std::vector<std::string>{"device", "variant", "shape", "cache_mode", "phase"}));
  sqlite::Statement objects(connection,
                            "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema "
                            "WHERE tbl_name LIKE 'measurements%' AND name NOT LIKE 'sqlite_%' ORDER BY name)");
  ASSERT_TRUE(objects.step());
  EXPECT_EQ(objects.column_text(0), "measurements measurements_by_shape");  // no leftover, index rebuilt

  auto store = Store::open(db_path());
  const auto hot = store.find_measurement(7, "v2hash", "1,4096,4096", "hot");
  ASSERT_TRUE(hot);
  EXPECT_EQ(hot->median_ns, 4000);
  EXPECT_EQ(hot->mad_ns, 7.5);
  EXPECT_EQ(hot->repetitions, 30);
  EXPECT_EQ(hot->created_at, "2024-02-03T04:05:07.000Z");
  EXPECT_EQ(hot->durations, PhaseDurations{});
  const auto failed = store.find_measurement(7, "v2hash", "1,4096,4096", "cold");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, Status::wrong_result);
  EXPECT_EQ(failed->reason, "rel_l2 0.5");
  EXPECT_EQ(store.ceiling(7, "read_bandwidth"), 2000);
  EXPECT_EQ(store.winners().size(), 1u);

  // What version 3 added works on the migrated file: a confirmation row
  // beside the search row, which stays as it was.
  auto confirm = *hot;
  confirm.phase = Phase::confirm;
  confirm.median_ns = 3800;
  confirm.durations.timing_ms = 12;
  store.record_measurement(confirm);
  EXPECT_EQ(store.find_measurement(7, "v2hash", "1,4096,4096", "hot")->median_ns, 4000);
  EXPECT_EQ(store.find_measurement(7, "v2hash", "1,4096,4096", "hot", Phase::confirm)->durations.timing_ms, 12);
}

TEST_F(SchemaTest, ReopeningACurrentDatabaseChangesNothing) {
  std::int64_t device = 0;
  {
    auto store = Store::open(db_path());
    device = store.upsert_device(sample_device());
  }
  auto again = Store::open(db_path());
  EXPECT_EQ(again.schema_version(), Store::current_schema_version);
  EXPECT_EQ(again.find_device(sample_device()), device);
}

TEST_F(SchemaTest, ReadOnlyOpenOfAnOlderVersionAsksForAMigration) {
  {
    auto connection = raw_connection(db_path());
    connection.exec(version1_schema);
  }
  const auto message = error_of([&] { Store::open_read_only(db_path()); });
  EXPECT_NE(message.find("schema version 1"), std::string::npos) << message;
  EXPECT_EQ(pragma_text(db_path(), "PRAGMA user_version"), "1");  // untouched
}

TEST_F(SchemaTest, NewerVersionIsAnErrorNamingBothVersionsAndTheFile) {
  { Store::open(db_path()); }
  raw_connection(db_path()).exec("PRAGMA user_version = 99");
  for (const bool read_only : {false, true}) {
    const auto message = error_of([&] { read_only ? Store::open_read_only(db_path()) : Store::open(db_path()); });
    EXPECT_NE(message.find("99"), std::string::npos) << message;
    EXPECT_NE(message.find("versions up to " + std::to_string(Store::current_schema_version)), std::string::npos)
        << message;
    EXPECT_NE(message.find(db_path().string()), std::string::npos) << message;
  }
  EXPECT_EQ(pragma_text(db_path(), "PRAGMA user_version"), "99");  // not downgraded
}

TEST_F(SchemaTest, FileThatIsNotSqliteIsAnErrorNamingTheFile) {
  const std::string text = "M,N,K\n1,4096,4096\nthis is a CSV file, not a database, and it is long enough\n";
  { std::ofstream(db_path(), std::ios::binary) << text; }
  for (const bool read_only : {false, true}) {
    const auto message = error_of([&] { read_only ? Store::open_read_only(db_path()) : Store::open(db_path()); });
    EXPECT_NE(message.find("not an SQLite database"), std::string::npos) << message;
    EXPECT_NE(message.find(db_path().string()), std::string::npos) << message;
  }
  EXPECT_EQ(file_bytes(db_path()), text);  // left as it was
}

TEST_F(SchemaTest, AnotherProgramsSqliteDatabaseIsRefused) {
  raw_connection(db_path()).exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)");
  const auto message = error_of([&] { Store::open(db_path()); });
  EXPECT_NE(message.find("not a vktune"), std::string::npos) << message;
}

TEST_F(SchemaTest, MissingDirectoryIsAnErrorNamingIt) {
  const auto path = dir_.path() / "no" / "such" / "dir" / "vktune.db";
  const auto message = error_of([&] { Store::open(path); });
  EXPECT_NE(message.find((dir_.path() / "no" / "such" / "dir").string()), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "no"));
}

TEST_F(SchemaTest, ReadOnlyOpenOfAMissingFileIsAnErrorAndCreatesNothing) {
  const auto message = error_of([&] { Store::open_read_only(db_path()); });
  EXPECT_NE(message.find(db_path().string()), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(db_path()));
}

TEST_F(SchemaTest, ReadOnlyStoreRefusesWrites) {
  { Store::open(db_path()); }
  auto store = Store::open_read_only(db_path());
  EXPECT_TRUE(store.read_only());
  const auto message = error_of([&] { store.upsert_device(sample_device()); });
  EXPECT_NE(message.find("readonly"), std::string::npos) << message;
  EXPECT_TRUE(store.devices().empty());
}

}  // namespace
}  // namespace vktune::results::testing
