#include "results/store.hpp"

#include <cstdlib>
#include <string_view>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "results/spirv_bytes.hpp"

namespace vktune::results {
namespace {

// ISO-8601 UTC with milliseconds, computed by SQLite at the time of the write.
#define VKTUNE_SQL_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

constexpr std::string_view measurement_columns =
    "m.device, m.variant, m.shape, m.cache_mode, m.status, m.reason, m.median_ns, m.min_ns, m.p10_ns, "
    "m.p90_ns, m.mad_ns, m.repetitions, m.rel_l2_error, m.max_abs_error, m.gbps, m.gflops, m.created_at, "
    "m.phase, m.compile_ms, m.pipeline_ms, m.validation_ms, m.warmup_ms, m.timing_ms, m.statistics_json";
constexpr int measurement_column_count = 24;

// True for the row of its variant that a winner is chosen from: the
// confirmation row where one exists, else the search row.
constexpr std::string_view chosen_row =
    "(m.phase = 'confirm' OR NOT EXISTS (SELECT 1 FROM measurements c WHERE c.device = m.device "
    "AND c.variant = m.variant AND c.shape = m.shape AND c.cache_mode = m.cache_mode AND c.phase = 'confirm'))";

constexpr std::string_view winner_columns =
    "w.device, w.kernel, w.shape, w.cache_mode, w.variant, w.config_json, w.spirv_hash, s.words, "
    "w.specialization_json, w.local_size_x, w.local_size_y, w.local_size_z, w.dispatch_json, "
    "w.required_subgroup_size, w.median_ns, w.gbps, w.gflops, w.rel_l2_error, w.baseline_variant, "
    "w.baseline_median_ns, w.updated_at, w.contract_json, s.content_hash";

std::string select(std::string_view columns, std::string_view rest) {
  return "SELECT " + std::string(columns) + " " + std::string(rest);
}

std::vector<std::uint32_t> decode_words(const std::vector<std::byte>& bytes, const std::filesystem::path& file,
                                        const std::string& hash) {
  auto words = spirv_from_bytes(bytes);
  if (!words) {
    throw Error(ErrorKind::database, "results database '" + file.string() + "': SPIR-V '" + hash + "' has " +
                                         std::to_string(bytes.size()) + " bytes, not a whole number of words");
  }
  return std::move(*words);
}

// A row whose status or phase this vktune does not know is unreadable:
// nullopt, with the reason in `why`.
std::optional<Measurement> read_measurement(const sqlite::Statement& row, std::string& why) {
  Measurement m;
  m.device_id = row.column_int64(0);
  m.variant_hash = row.column_text(1);
  m.shape = row.column_text(2);
  m.cache_mode = row.column_text(3);
  try {
    m.status = status_from_string(row.column_text(4));
    m.phase = phase_from_string(row.column_text(17));
  } catch (const Error& e) {
    why = "variant " + row.column_text(1) + " shape " + row.column_text(2) + ": " + e.what();
    return std::nullopt;
  }
  m.reason = row.column_text(5);
  m.median_ns = row.column_double(6);
  m.min_ns = row.column_double(7);
  m.p10_ns = row.column_double(8);
  m.p90_ns = row.column_double(9);
  m.mad_ns = row.column_double(10);
  m.repetitions = static_cast<int>(row.column_int64(11));
  m.rel_l2_error = row.column_double(12);
  m.max_abs_error = row.column_double(13);
  m.gbps = row.column_double(14);
  m.gflops = row.column_double(15);
  m.created_at = row.column_text(16);
  m.durations.compile_ms = row.column_double(18);
  m.durations.pipeline_ms = row.column_double(19);
  m.durations.validation_ms = row.column_double(20);
  m.durations.warmup_ms = row.column_double(21);
  m.durations.timing_ms = row.column_double(22);
  m.statistics_json = row.column_text(23);
  return m;
}

// The winner and, in content_hash, its SPIR-V row's content hash (checked by the caller).
Winner read_winner(const sqlite::Statement& row, const std::filesystem::path& file, std::string& content_hash) {
  Winner w;
  w.device_id = row.column_int64(0);
  w.kernel = row.column_text(1);
  w.shape = row.column_text(2);
  w.cache_mode = row.column_text(3);
  w.variant_hash = row.column_text(4);
  w.config_json = row.column_text(5);
  w.spirv_hash = row.column_text(6);
  w.spirv = decode_words(row.column_blob(7), file, w.spirv_hash);
  w.specialization_json = row.column_text(8);
  for (int i = 0; i < 3; ++i) w.local_size[i] = static_cast<std::uint32_t>(row.column_int64(9 + i));
  w.dispatch_json = row.column_text(12);
  w.required_subgroup_size = static_cast<std::uint32_t>(row.column_int64(13));
  w.median_ns = row.column_double(14);
  w.gbps = row.column_double(15);
  w.gflops = row.column_double(16);
  w.rel_l2_error = row.column_double(17);
  w.baseline_variant_hash = row.column_text(18);
  w.baseline_median_ns = row.column_double(19);
  w.updated_at = row.column_text(20);
  w.contract_json = row.column_text(21);
  content_hash = row.column_text(22);
  return w;
}

std::string unreadable_measurement(const std::filesystem::path& file, const std::string& why) {
  return "results database '" + file.string() + "': a measurement row cannot be read (" + why +
         "); such rows count as not measured, and a tune measures them again";
}

std::string winner_key(const Winner& w) { return w.kernel + " " + w.shape + " (" + w.cache_mode + ")"; }

const char* non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  return (value && *value) ? value : nullptr;
}

}  // namespace

std::string_view to_string(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::compile_error: return "compile_error";
    case Status::pipeline_error: return "pipeline_error";
    case Status::device_limit: return "device_limit";
    case Status::wrong_result: return "wrong_result";
    case Status::timeout: return "timeout";
    case Status::device_lost: return "device_lost";
    case Status::error: return "error";
    case Status::out_of_bounds: return "out_of_bounds";
    case Status::nondeterministic: return "nondeterministic";
    case Status::attempt: return "attempt";
    case Status::crashed: return "crashed";
    case Status::compile_timeout: return "compile_timeout";
    case Status::compile_crash: return "compile_crash";
    case Status::compile_memory: return "compile_memory";
    case Status::pipeline_timeout: return "pipeline_timeout";
    case Status::pipeline_crash: return "pipeline_crash";
    case Status::pipeline_memory: return "pipeline_memory";
  }
  return "error";
}

Status status_from_string(std::string_view text) {
  for (const Status status : {Status::ok, Status::compile_error, Status::pipeline_error, Status::device_limit,
                              Status::wrong_result, Status::timeout, Status::device_lost, Status::error,
                              Status::out_of_bounds, Status::nondeterministic, Status::attempt, Status::crashed,
                              Status::compile_timeout, Status::compile_crash, Status::compile_memory,
                              Status::pipeline_timeout, Status::pipeline_crash, Status::pipeline_memory}) {
    if (to_string(status) == text) return status;
  }
  throw Error(ErrorKind::database, "unknown measurement status '" + std::string(text) + "'");
}

std::string_view to_string(Phase phase) { return phase == Phase::confirm ? "confirm" : "search"; }

Phase phase_from_string(std::string_view text) {
  for (const Phase phase : {Phase::search, Phase::confirm}) {
    if (to_string(phase) == text) return phase;
  }
  throw Error(ErrorKind::database, "unknown measurement phase '" + std::string(text) + "' (search or confirm)");
}

Store::Store(sqlite::Connection connection, bool read_only)
    : connection_(std::move(connection)), read_only_(read_only) {}

std::string Store::path_problem(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {};
  return "the results database " + path.string() +
         " is a directory; give the path of a database file (--db or $VKTUNE_DB)";
}

namespace {

void refuse_bad_path(const std::filesystem::path& path) {
  if (auto problem = Store::path_problem(path); !problem.empty()) throw Error(ErrorKind::usage, problem);
}

}  // namespace

Store Store::open(const std::filesystem::path& path) {
  refuse_bad_path(path);
  auto connection = sqlite::Connection::open(path, sqlite::Connection::Mode::read_write_create);
  // Read first: this is where a file that is not SQLite shows itself, and a
  // newer schema must be refused before anything is written.
  schema::check_known(connection, schema::read_version(connection));
  // Before anything is written: a tune, an import or a migration must not
  // build on damaged pages.
  connection.check_integrity();
  {
    sqlite::Statement mode(connection, "PRAGMA journal_mode = WAL");
    const std::string got = mode.step() ? mode.column_text(0) : std::string();
    if (got != "wal") {
      throw Error(ErrorKind::database, "results database '" + path.string() +
                                           "': cannot use WAL journal mode (got '" + got +
                                           "'); is it on a network file system?");
    }
  }
  connection.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  schema::migrate(connection);
  return Store(std::move(connection), false);
}

Store Store::open_read_only(const std::filesystem::path& path) {
  refuse_bad_path(path);
  auto connection = sqlite::Connection::open(path, sqlite::Connection::Mode::read_only);
  const int version = schema::read_version(connection);
  schema::check_known(connection, version);
  if (version < schema::current_version) {
    throw Error(ErrorKind::database, "results database '" + path.string() + "' has schema version " +
                                         std::to_string(version) + ", older than this vktune's " +
                                         std::to_string(schema::current_version) +
                                         ": open it once for writing (any tuning run) to migrate it");
  }
  return Store(std::move(connection), true);
}

Store Store::open_for_reading(const std::filesystem::path& path) {
  refuse_bad_path(path);
  {
    auto connection = sqlite::Connection::open(path, sqlite::Connection::Mode::read_only);
    const int version = schema::read_version(connection);
    schema::check_known(connection, version);
    if (version == schema::current_version) return Store(std::move(connection), true);
  }
  return open(path);
}

std::filesystem::path Store::default_path() {
  if (const char* db = non_empty_env("VKTUNE_DB")) return db;
  if (const char* xdg = non_empty_env("XDG_DATA_HOME"); xdg && std::filesystem::path(xdg).is_absolute()) {
    return std::filesystem::path(xdg) / "vktune" / "vktune.db";
  }
  if (const char* home = non_empty_env("HOME")) {
    return std::filesystem::path(home) / ".local" / "share" / "vktune" / "vktune.db";
  }
  throw Error(ErrorKind::usage,
              "cannot choose a results database: none of VKTUNE_DB, XDG_DATA_HOME or HOME is set; pass --db PATH");
}

int Store::schema_version() const { return schema::read_version(connection_); }

sqlite::ScopedStatement Store::statement(std::string_view sql) const {
  auto found = statements_.find(std::string(sql));
  if (found == statements_.end()) {
    found = statements_.emplace(std::string(sql), sqlite::Statement(connection_, sql)).first;
  }
  return sqlite::ScopedStatement(found->second);
}

void Store::begin_transaction() {
  connection_.exec(transaction_depth_ == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT nested");
  ++transaction_depth_;
}

void Store::commit_transaction() {
  if (transaction_depth_ > 1) {
    connection_.exec("RELEASE nested");
    --transaction_depth_;
    return;
  }
  transaction_depth_ = 0;
  try {
    connection_.exec("COMMIT");
  } catch (...) {
    connection_.rollback_quietly();
    throw;
  }
}

void Store::rollback_transaction() noexcept {
  if (transaction_depth_ > 1) {
    --transaction_depth_;
    try {
      if (connection_.in_transaction()) connection_.exec("ROLLBACK TO nested; RELEASE nested");
    } catch (...) {
      // The outer transaction is still open; its own rollback or commit decides.
    }
    return;
  }
  transaction_depth_ = 0;
  connection_.rollback_quietly();
}

std::int64_t Store::upsert_device(const DeviceIdentity& d) {
  auto insert = statement(
      "INSERT INTO devices (vendor_id, device_id, driver_version, name, device_uuid, driver_name, "
      "driver_version_text, api_version_text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
      "ON CONFLICT (vendor_id, device_id, driver_version, name, device_uuid) DO UPDATE SET "
      "driver_name = excluded.driver_name, driver_version_text = excluded.driver_version_text, "
      "api_version_text = excluded.api_version_text RETURNING id");
  insert->bind_all(d.vendor_id, d.device_id, d.driver_version, d.name, d.device_uuid, d.driver_name,
                   d.driver_version_text, d.api_version_text);
  if (!insert->step()) throw Error(ErrorKind::internal, "upsert_device returned no row id");
  const std::int64_t id = insert->column_int64(0);
  insert->run();
  return id;
}

std::optional<std::int64_t> Store::find_device(const DeviceIdentity& d) const {
  auto query = statement(
      "SELECT id FROM devices WHERE vendor_id = ?1 AND device_id = ?2 AND driver_version = ?3 AND name = ?4 "
      "AND device_uuid = ?5");
  query->bind_all(d.vendor_id, d.device_id, d.driver_version, d.name, d.device_uuid);
  if (!query->step()) return std::nullopt;
  return query->column_int64(0);
}

std::vector<std::pair<std::int64_t, DeviceIdentity>> Store::devices() const {
  auto query = statement(
      "SELECT id, vendor_id, device_id, driver_version, name, driver_name, driver_version_text, device_uuid, "
      "api_version_text FROM devices ORDER BY id");
  std::vector<std::pair<std::int64_t, DeviceIdentity>> result;
  while (query->step()) {
    DeviceIdentity d;
    d.vendor_id = static_cast<std::uint32_t>(query->column_int64(1));
    d.device_id = static_cast<std::uint32_t>(query->column_int64(2));
    d.driver_version = static_cast<std::uint32_t>(query->column_int64(3));
    d.name = query->column_text(4);
    d.driver_name = query->column_text(5);
    d.driver_version_text = query->column_text(6);
    d.device_uuid = query->column_text(7);
    d.api_version_text = query->column_text(8);
    result.emplace_back(query->column_int64(0), std::move(d));
  }
  return result;
}

void Store::put_kernel(const std::string& kernel) {
  auto insert = statement("INSERT INTO kernels (name) VALUES (?1) ON CONFLICT (name) DO NOTHING");
  insert->bind_all(kernel).run();
}

void Store::upsert_variant(const VariantRecord& v) {
  transaction([&] {
    put_kernel(v.kernel);
    auto insert = statement(
        "INSERT INTO variants (hash, kernel, template_name, config_json, template_hash, compiler_version) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (hash) DO UPDATE SET kernel = excluded.kernel, "
        "template_name = excluded.template_name, config_json = excluded.config_json, "
        "template_hash = excluded.template_hash, compiler_version = excluded.compiler_version");
    insert->bind_all(v.variant_hash, v.kernel, v.template_name, v.config_json, v.template_hash, v.compiler_version)
        .run();
  });
}

std::optional<VariantRecord> Store::find_variant(const std::string& variant_hash) const {
  auto query = statement(
      "SELECT hash, kernel, template_name, config_json, template_hash, compiler_version FROM variants "
      "WHERE hash = ?1");
  query->bind_all(variant_hash);
  if (!query->step()) return std::nullopt;
  return VariantRecord{query->column_text(0), query->column_text(1), query->column_text(2),
                       query->column_text(3), query->column_text(4), query->column_text(5)};
}

std::vector<std::string> Store::kernels() const {
  auto query = statement("SELECT name FROM kernels ORDER BY name");
  std::vector<std::string> names;
  while (query->step()) names.push_back(query->column_text(0));
  return names;
}

void Store::record_measurement(const Measurement& m) {
  auto insert = statement(
      "INSERT INTO measurements (device, variant, shape, cache_mode, phase, status, reason, median_ns, min_ns, "
      "p10_ns, p90_ns, mad_ns, repetitions, rel_l2_error, max_abs_error, gbps, gflops, compile_ms, pipeline_ms, "
      "validation_ms, warmup_ms, timing_ms, statistics_json, created_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
      "?23, " VKTUNE_SQL_NOW ") "
      "ON CONFLICT (device, variant, shape, cache_mode, phase) DO UPDATE SET status = excluded.status, "
      "reason = excluded.reason, median_ns = excluded.median_ns, min_ns = excluded.min_ns, "
      "p10_ns = excluded.p10_ns, p90_ns = excluded.p90_ns, mad_ns = excluded.mad_ns, "
      "repetitions = excluded.repetitions, rel_l2_error = excluded.rel_l2_error, "
      "max_abs_error = excluded.max_abs_error, gbps = excluded.gbps, gflops = excluded.gflops, "
      "compile_ms = excluded.compile_ms, pipeline_ms = excluded.pipeline_ms, "
      "validation_ms = excluded.validation_ms, warmup_ms = excluded.warmup_ms, timing_ms = excluded.timing_ms, "
      "statistics_json = excluded.statistics_json, created_at = excluded.created_at");
  const auto& d = m.durations;
  insert->bind_all(m.device_id, m.variant_hash, m.shape, m.cache_mode, to_string(m.phase), to_string(m.status),
                   m.reason, m.median_ns, m.min_ns, m.p10_ns, m.p90_ns, m.mad_ns, m.repetitions, m.rel_l2_error,
                   m.max_abs_error, m.gbps, m.gflops, d.compile_ms, d.pipeline_ms, d.validation_ms, d.warmup_ms,
                   d.timing_ms, m.statistics_json)
      .run();
}

void Store::forget_attempt(std::int64_t device_id, const std::string& variant_hash, const std::string& shape,
                           const std::string& cache_mode) {
  auto erase = statement(
      "DELETE FROM measurements WHERE device = ?1 AND variant = ?2 AND shape = ?3 AND cache_mode = ?4 "
      "AND phase = 'search' AND status = 'attempt'");
  erase->bind_all(device_id, variant_hash, shape, cache_mode).run();
}

void Store::checkpoint() {
  // TRUNCATE: every committed page moves into the main file and the WAL is
  // emptied, so the .db file alone holds everything committed.
  connection_.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

bool Store::has_measurement(std::int64_t device_id, const std::string& variant_hash, const std::string& shape,
                            const std::string& cache_mode, Phase phase) const {
  // Through find_measurement, so that a row it cannot read counts as missing.
  return find_measurement(device_id, variant_hash, shape, cache_mode, phase).has_value();
}

std::optional<Measurement> Store::find_measurement(std::int64_t device_id, const std::string& variant_hash,
                                                   const std::string& shape, const std::string& cache_mode,
                                                   Phase phase) const {
  static const std::string sql = select(
      measurement_columns,
      "FROM measurements m WHERE m.device = ?1 AND m.variant = ?2 AND m.shape = ?3 AND m.cache_mode = ?4 "
      "AND m.phase = ?5");
  auto query = statement(sql);
  query->bind_all(device_id, variant_hash, shape, cache_mode, to_string(phase));
  if (!query->step()) return std::nullopt;
  std::string why;
  auto m = read_measurement(*query, why);
  if (!m) warn_once("measurement", unreadable_measurement(path(), why));
  return m;
}

std::vector<Measurement> Store::measurements(std::int64_t device_id, const std::string& kernel,
                                             const std::string& shape, const std::string& cache_mode) const {
  static const std::string sql = select(
      measurement_columns,
      "FROM measurements m JOIN variants v ON v.hash = m.variant "
      "WHERE m.device = ?1 AND v.kernel = ?2 AND m.shape = ?3 AND m.cache_mode = ?4 AND " + std::string(chosen_row) +
          " ORDER BY m.status <> 'ok', m.median_ns, m.variant");
  auto query = statement(sql);
  query->bind_all(device_id, kernel, shape, cache_mode);
  std::vector<Measurement> result;
  std::string why;
  while (query->step()) {
    if (auto m = read_measurement(*query, why)) {
      result.push_back(std::move(*m));
    } else {
      warn_once("measurement", unreadable_measurement(path(), why));
    }
  }
  return result;
}

std::vector<Store::MeasurementInContext> Store::all_measurements() const {
  static const std::string sql =
      select(std::string(measurement_columns) + ", v.kernel, v.config_json, w.variant IS NOT NULL AND " +
                 std::string(chosen_row),
             "FROM measurements m JOIN variants v ON v.hash = m.variant "
             "LEFT JOIN winners w ON w.device = m.device AND w.kernel = v.kernel AND w.shape = m.shape "
             "AND w.cache_mode = m.cache_mode AND w.variant = m.variant");
  auto query = statement(sql);
  std::vector<MeasurementInContext> result;
  constexpr int n = measurement_column_count;
  std::string why;
  while (query->step()) {
    auto m = read_measurement(*query, why);
    if (!m) {
      warn_once("measurement", unreadable_measurement(path(), why));
      continue;
    }
    result.push_back({std::move(*m), query->column_text(n), query->column_text(n + 1), query->column_int64(n + 2) != 0});
  }
  return result;
}

void Store::put_ceiling(std::int64_t device_id, const std::string& name, double value, const std::string& unit) {
  auto insert = statement(
      "INSERT INTO ceilings (device, name, value, unit, measured_at) VALUES (?1, ?2, ?3, ?4, " VKTUNE_SQL_NOW ") "
      "ON CONFLICT (device, name) DO UPDATE SET value = excluded.value, unit = excluded.unit, "
      "measured_at = excluded.measured_at");
  insert->bind_all(device_id, name, value, unit).run();
}

std::optional<double> Store::ceiling(std::int64_t device_id, const std::string& name) const {
  auto query = statement("SELECT value FROM ceilings WHERE device = ?1 AND name = ?2");
  query->bind_all(device_id, name);
  if (!query->step()) return std::nullopt;
  return query->column_double(0);
}

std::vector<Ceiling> Store::ceilings(std::int64_t device_id) const {
  auto query = statement("SELECT name, value, unit, measured_at FROM ceilings WHERE device = ?1 ORDER BY name");
  query->bind_all(device_id);
  std::vector<Ceiling> result;
  while (query->step()) {
    result.push_back(Ceiling{query->column_text(0), query->column_double(1), query->column_text(2),
                             query->column_text(3)});
  }
  return result;
}

std::string Store::spirv_key(const Winner& w) const {
  if (w.spirv.empty()) {
    if (!w.spirv_hash.empty()) return w.spirv_hash;
    throw Error(ErrorKind::database, "results database '" + path().string() + "': the winner for kernel '" +
                                         w.kernel + "' shape '" + w.shape + "' has no SPIR-V");
  }
  // A winner's SPIR-V is content-addressed: a key that names other words
  // would make the row of some other winner's code say something else.
  const auto content = spirv_content_hash(w.spirv);
  if (!w.spirv_hash.empty() && w.spirv_hash != content) {
    throw Error(ErrorKind::database, "results database '" + path().string() + "': the winner for " + winner_key(w) +
                                         " gives SPIR-V hash '" + w.spirv_hash + "' but its words hash to " + content);
  }
  return content;
}

void Store::set_winner(const Winner& w) {
  const std::string spirv_hash = spirv_key(w);
  transaction([&] {
    if (!w.spirv.empty()) put_spirv(spirv_hash, w.spirv);
    for (const auto& words : w.later_stage_spirv) put_spirv(spirv_content_hash(words), words);
    put_kernel(w.kernel);
    auto insert = statement(
        "INSERT INTO winners (device, kernel, shape, cache_mode, variant, config_json, spirv_hash, "
        "specialization_json, local_size_x, local_size_y, local_size_z, dispatch_json, required_subgroup_size, "
        "median_ns, gbps, gflops, rel_l2_error, baseline_variant, baseline_median_ns, updated_at, contract_json) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
        "COALESCE(NULLIF(?20, ''), " VKTUNE_SQL_NOW "), ?21) "
        "ON CONFLICT (device, kernel, shape, cache_mode) DO UPDATE SET variant = excluded.variant, "
        "config_json = excluded.config_json, spirv_hash = excluded.spirv_hash, "
        "specialization_json = excluded.specialization_json, local_size_x = excluded.local_size_x, "
        "local_size_y = excluded.local_size_y, local_size_z = excluded.local_size_z, "
        "dispatch_json = excluded.dispatch_json, required_subgroup_size = excluded.required_subgroup_size, "
        "median_ns = excluded.median_ns, gbps = excluded.gbps, gflops = excluded.gflops, "
        "rel_l2_error = excluded.rel_l2_error, baseline_variant = excluded.baseline_variant, "
        "baseline_median_ns = excluded.baseline_median_ns, updated_at = excluded.updated_at, "
        "contract_json = excluded.contract_json");
    insert
        ->bind_all(w.device_id, w.kernel, w.shape, w.cache_mode, w.variant_hash, w.config_json, spirv_hash,
                   w.specialization_json, w.local_size[0], w.local_size[1], w.local_size[2], w.dispatch_json,
                   w.required_subgroup_size, w.median_ns, w.gbps, w.gflops, w.rel_l2_error, w.baseline_variant_hash,
                   w.baseline_median_ns, w.updated_at, w.contract_json)
        .run();
  });
}

std::optional<Winner> Store::find_winner(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                                         const std::string& cache_mode) const {
  static const std::string sql = select(
      winner_columns,
      "FROM winners w LEFT JOIN spirv s ON s.hash = w.spirv_hash "
      "WHERE w.device = ?1 AND w.kernel = ?2 AND w.shape = ?3 AND w.cache_mode = ?4");
  auto query = statement(sql);
  query->bind_all(device_id, kernel, shape, cache_mode);
  if (!query->step()) return std::nullopt;
  std::string content;
  auto w = read_winner(*query, path(), content);
  if (spirv_content_hash(w.spirv) != content) {
    warn_once("winner " + winner_key(w), "results database '" + path().string() + "': the SPIR-V '" + w.spirv_hash +
                                             "' of the winner for " + winner_key(w) +
                                             " does not match its content hash; it counts as no winner");
    return std::nullopt;
  }
  return w;
}

bool Store::remove_winner(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                          const std::string& cache_mode) {
  auto remove = statement("DELETE FROM winners WHERE device = ?1 AND kernel = ?2 AND shape = ?3 AND cache_mode = ?4");
  remove->bind_all(device_id, kernel, shape, cache_mode).run();
  return connection_.changes() > 0;
}

std::vector<Winner> Store::winners(std::optional<std::int64_t> device_id, const std::string& kernel_filter) const {
  static const std::string sql = select(
      winner_columns,
      "FROM winners w LEFT JOIN spirv s ON s.hash = w.spirv_hash "
      "WHERE (?1 IS NULL OR w.device = ?1) AND (?2 = '' OR w.kernel = ?2) "
      "ORDER BY w.device, w.kernel, w.shape, w.cache_mode");
  auto query = statement(sql);
  if (device_id) {
    query->bind(1, *device_id);
  } else {
    query->bind_null(1);
  }
  query->bind(2, kernel_filter);
  std::vector<Winner> result;
  std::string content;
  while (query->step()) {
    auto w = read_winner(*query, path(), content);
    if (spirv_content_hash(w.spirv) != content) {
      throw Error(ErrorKind::database, "results database '" + path().string() + "': the SPIR-V '" + w.spirv_hash +
                                           "' of the winner for " + winner_key(w) +
                                           " does not match its content hash (the row is damaged): tune it again "
                                           "or import its table again");
    }
    result.push_back(std::move(w));
  }
  return result;
}

}  // namespace vktune::results
