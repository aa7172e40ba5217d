#include "results/schema.hpp"

#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "results/spirv_bytes.hpp"

namespace vktune::results::schema {
namespace {

// migrations[i] takes a database from version i to version i + 1 and ends by
// recording that version. Never edit a step once released: add a new one.
constexpr const char* migrations[] = {
    // 0 -> 1: the first schema.
    R"sql(
CREATE TABLE devices (
  id                  INTEGER PRIMARY KEY,
  vendor_id           INTEGER NOT NULL,
  device_id           INTEGER NOT NULL,
  driver_version      INTEGER NOT NULL,
  name                TEXT NOT NULL,
  device_uuid         TEXT NOT NULL DEFAULT '',
  driver_name         TEXT NOT NULL DEFAULT '',
  driver_version_text TEXT NOT NULL DEFAULT '',
  api_version_text    TEXT NOT NULL DEFAULT '',
  UNIQUE (vendor_id, device_id, driver_version, name, device_uuid)
);
CREATE TABLE kernels (
  name TEXT PRIMARY KEY NOT NULL
);
CREATE TABLE variants (
  hash             TEXT PRIMARY KEY NOT NULL,
  kernel           TEXT NOT NULL REFERENCES kernels(name),
  template_name    TEXT NOT NULL,
  config_json      TEXT NOT NULL,
  template_hash    TEXT NOT NULL DEFAULT '',
  compiler_version TEXT NOT NULL DEFAULT ''
);
CREATE INDEX variants_by_kernel ON variants(kernel);
CREATE TABLE spirv (
  hash  TEXT PRIMARY KEY NOT NULL,
  words BLOB NOT NULL  -- 32-bit words, little-endian
);
CREATE TABLE measurements (
  device        INTEGER NOT NULL REFERENCES devices(id),
  variant       TEXT NOT NULL REFERENCES variants(hash),
  shape         TEXT NOT NULL,
  cache_mode    TEXT NOT NULL,
  status        TEXT NOT NULL,
  reason        TEXT NOT NULL DEFAULT '',
  median_ns     REAL NOT NULL DEFAULT 0,
  min_ns        REAL NOT NULL DEFAULT 0,
  p10_ns        REAL NOT NULL DEFAULT 0,
  p90_ns        REAL NOT NULL DEFAULT 0,
  repetitions   INTEGER NOT NULL DEFAULT 0,
  rel_l2_error  REAL NOT NULL DEFAULT 0,
  max_abs_error REAL NOT NULL DEFAULT 0,
  gbps          REAL NOT NULL DEFAULT 0,
  gflops        REAL NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (device, variant, shape, cache_mode)
);
CREATE INDEX measurements_by_shape ON measurements(device, shape, cache_mode);
CREATE TABLE winners (
  device                 INTEGER NOT NULL REFERENCES devices(id),
  kernel                 TEXT NOT NULL REFERENCES kernels(name),
  shape                  TEXT NOT NULL,
  cache_mode             TEXT NOT NULL,
  variant                TEXT NOT NULL REFERENCES variants(hash),
  config_json            TEXT NOT NULL,
  spirv_hash             TEXT NOT NULL REFERENCES spirv(hash),
  specialization_json    TEXT NOT NULL DEFAULT '{}',
  local_size_x           INTEGER NOT NULL DEFAULT 1,
  local_size_y           INTEGER NOT NULL DEFAULT 1,
  local_size_z           INTEGER NOT NULL DEFAULT 1,
  dispatch_json          TEXT NOT NULL DEFAULT '{}',
  required_subgroup_size INTEGER NOT NULL DEFAULT 0,
  median_ns              REAL NOT NULL DEFAULT 0,
  gbps                   REAL NOT NULL DEFAULT 0,
  gflops                 REAL NOT NULL DEFAULT 0,
  rel_l2_error           REAL NOT NULL DEFAULT 0,
  baseline_variant       TEXT NOT NULL DEFAULT '',
  baseline_median_ns     REAL NOT NULL DEFAULT 0,
  updated_at             TEXT NOT NULL,
  PRIMARY KEY (device, kernel, shape, cache_mode)
);
PRAGMA user_version = 1;
)sql",
    // 1 -> 2: timing spread as median absolute deviation; measured device ceilings.
    R"sql(
ALTER TABLE measurements ADD COLUMN mad_ns REAL NOT NULL DEFAULT 0;
CREATE TABLE ceilings (
  device      INTEGER NOT NULL REFERENCES devices(id),
  name        TEXT NOT NULL,
  value       REAL NOT NULL,
  unit        TEXT NOT NULL,
  measured_at TEXT NOT NULL,
  PRIMARY KEY (device, name)
);
PRAGMA user_version = 2;
)sql",
    // 2 -> 3: the phase a row comes from joins its identity, so that the
    // confirmation pass stores its own row instead of overwriting the search's;
    // and the wall time each step of a measurement took. SQLite cannot change
    // a primary key in place: the table is rebuilt, its rows copied as
    // 'search' rows with zero durations (nothing references measurements, so
    // dropping the old table breaks no foreign key).
    R"sql(
CREATE TABLE measurements_v3 (
  device        INTEGER NOT NULL REFERENCES devices(id),
  variant       TEXT NOT NULL REFERENCES variants(hash),
  shape         TEXT NOT NULL,
  cache_mode    TEXT NOT NULL,
  phase         TEXT NOT NULL DEFAULT 'search' CHECK (phase IN ('search', 'confirm')),
  status        TEXT NOT NULL,
  reason        TEXT NOT NULL DEFAULT '',
  median_ns     REAL NOT NULL DEFAULT 0,
  min_ns        REAL NOT NULL DEFAULT 0,
  p10_ns        REAL NOT NULL DEFAULT 0,
  p90_ns        REAL NOT NULL DEFAULT 0,
  mad_ns        REAL NOT NULL DEFAULT 0,
  repetitions   INTEGER NOT NULL DEFAULT 0,
  rel_l2_error  REAL NOT NULL DEFAULT 0,
  max_abs_error REAL NOT NULL DEFAULT 0,
  gbps          REAL NOT NULL DEFAULT 0,
  gflops        REAL NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  compile_ms    REAL NOT NULL DEFAULT 0,
  pipeline_ms   REAL NOT NULL DEFAULT 0,
  validation_ms REAL NOT NULL DEFAULT 0,
  warmup_ms     REAL NOT NULL DEFAULT 0,
  timing_ms     REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (device, variant, shape, cache_mode, phase)
);
INSERT INTO measurements_v3 (device, variant, shape, cache_mode, phase, status, reason, median_ns, min_ns, p10_ns,
                             p90_ns, mad_ns, repetitions, rel_l2_error, max_abs_error, gbps, gflops, created_at)
  SELECT device, variant, shape, cache_mode, 'search', status, reason, median_ns, min_ns, p10_ns, p90_ns, mad_ns,
         repetitions, rel_l2_error, max_abs_error, gbps, gflops, created_at
  FROM measurements;
DROP TABLE measurements;
ALTER TABLE measurements_v3 RENAME TO measurements;
CREATE INDEX measurements_by_shape ON measurements(device, shape, cache_mode);
PRAGMA user_version = 3;
)sql",
    // 3 -> 4: each winner's launch contract (kernels/variant_contract.hpp) as
    // JSON; '' for winners stored before it (readers complete them).
    R"sql(
ALTER TABLE winners ADD COLUMN contract_json TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 4;
)sql",
    // 4 -> 5: the content hash of each SPIR-V row's words, checked on every
    // read. The SPIR-V cache keys rows by variant hash, which says nothing of
    // the words, so the content hash needs a column of its own. Rows already
    // stored get the hash of the words they hold (fill_content_hashes).
    R"sql(
ALTER TABLE spirv ADD COLUMN content_hash TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 5;
)sql",
    // 5 -> 6: each measurement's pipeline statistics, where the driver gives
    // them (VK_KHR_pipeline_executable_properties); '' elsewhere.
    R"sql(
ALTER TABLE measurements ADD COLUMN statistics_json TEXT NOT NULL DEFAULT '';
PRAGMA user_version = 6;
)sql",
};
static_assert(std::size(migrations) == current_version, "one migration per schema version");

// The step of a migration that SQL cannot do: hashing the words of every
// SPIR-V row (4 -> 5). Runs inside the migration's transaction.
void fill_content_hashes(const sqlite::Connection& connection) {
  sqlite::Statement rows(connection, "SELECT hash, words FROM spirv WHERE content_hash = ''");
  sqlite::Statement update(connection, "UPDATE spirv SET content_hash = ?2 WHERE hash = ?1");
  std::vector<std::pair<std::string, std::string>> hashes;
  while (rows.step()) {
    const auto words = spirv_from_bytes(rows.column_blob(1));
    // A blob that is not whole words can never verify: it keeps '' and reads as damaged.
    if (words) hashes.emplace_back(rows.column_text(0), spirv_content_hash(*words));
  }
  for (const auto& [key, content] : hashes) {
    update.bind_all(key, content).run();
    update.reset();
  }
}

bool has_tables(const sqlite::Connection& connection) {
  sqlite::Statement query(connection, "SELECT count(*) FROM sqlite_schema");
  return query.step() && query.column_int64(0) > 0;
}

}  // namespace

int read_version(const sqlite::Connection& connection) {
  sqlite::Statement query(connection, "PRAGMA user_version");
  return query.step() ? static_cast<int>(query.column_int64(0)) : 0;
}

void check_known(const sqlite::Connection& connection, int version) {
  const std::string file = "results database '" + connection.path().string() + "'";
  if (version > current_version) {
    throw Error(ErrorKind::database, file + " has schema version " + std::to_string(version) +
                                         ", but this vktune knows versions up to " +
                                         std::to_string(current_version) + ": use a newer vktune");
  }
  if (version < 0 || (version == 0 && has_tables(connection))) {
    throw Error(ErrorKind::database,
                file + " is an SQLite database but not a vktune one (it has tables but no vktune schema version)");
  }
}

void migrate(const sqlite::Connection& connection) {
  if (read_version(connection) == current_version) return;  // the common case takes no write lock
  connection.exec("BEGIN IMMEDIATE");
  try {
    int version = read_version(connection);  // again: another process may have migrated meanwhile
    check_known(connection, version);
    for (; version < current_version; ++version) {
      connection.exec(migrations[version]);
      if (version + 1 == 5) fill_content_hashes(connection);
    }
    connection.exec("COMMIT");
  } catch (...) {
    connection.rollback_quietly();
    throw;
  }
}

}  // namespace vktune::results::schema
