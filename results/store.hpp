#pragma once
// The results store: one SQLite database (WAL mode) holding devices, kernels,
// variants, the SPIR-V cache, measurements, device ceilings and winners.
//
// Concurrency: a Store is one connection and is not shared between threads.
// Any number of processes may read while one writes: WAL lets readers go on
// during a write, and busy_timeout makes a second writer wait its turn.
//
// Durability: each write call commits at once in its own transaction (unless
// it runs inside transaction(), which then commits it). synchronous=NORMAL:
// a committed write survives the process being killed at any point; a power
// loss may lose the last few commits, which a resumed run measures again.
//
// Default path (default_path()):
//   1. $VKTUNE_DB when set and not empty;
//   2. else $XDG_DATA_HOME/vktune/vktune.db when XDG_DATA_HOME is an absolute path;
//   3. else $HOME/.local/share/vktune/vktune.db.
// open() does not create missing directories; the caller (the CLI) does.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/cache_mode.hpp"
#include "results/records.hpp"
#include "results/schema.hpp"
#include "results/sqlite.hpp"

namespace vktune::results {

class Store {
 public:
  static constexpr int current_schema_version = schema::current_version;

  // Opens or creates the file, checks its pages (PRAGMA quick_check: a
  // corrupt file is an Error naming it and the first problem, before
  // anything is written), turns on WAL, busy_timeout and foreign keys, and
  // migrates it to the current schema. Errors (not SQLite, corrupt, newer
  // schema, missing directory) name the file.
  static Store open(const std::filesystem::path& path);
  // Never writes. The file must exist and be at the current schema version.
  // In a read-only directory a WAL file is read in SQLite's immutable mode
  // (sqlite::Connection::open).
  static Store open_read_only(const std::filesystem::path& path);
  // For commands that only read (export): open_read_only when the file is at
  // the current schema; an older one is migrated once through open().
  static Store open_for_reading(const std::filesystem::path& path);
  static std::filesystem::path default_path();
  // "" for a path a database may be at; else the one line every command
  // gives (exit 2) for it: a directory. Every open above refuses it too.
  static std::string path_problem(const std::filesystem::path& path);

  // PRAGMA quick_check; throws Error(database) naming the file and the first
  // problem. open() runs it; exporters run it on read-only stores.
  void check_integrity() const { connection_.check_integrity(); }
  // A self-contained copy for shipping (`vktune export --format sqlite`): one
  // file in rollback-journal mode (journal_mode=DELETE), so that it is read
  // without a -wal or -shm beside it, at the current schema. Written to
  // OUT.partial and renamed: a failure leaves no half file. Checks this
  // store's pages first.
  void write_snapshot(const std::filesystem::path& out) const;

  // Where the store reports rows it cannot trust and leaves out (each kind
  // once per Store): by default a "vktune: warning: ..." line on stderr.
  using WarningSink = std::function<void(const std::string& line)>;
  void set_warning_sink(WarningSink sink) { warn_ = std::move(sink); }

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;
  ~Store() = default;

  const std::filesystem::path& path() const { return connection_.path(); }
  int schema_version() const;
  bool read_only() const { return read_only_; }

  // Devices: the same identity always maps to the same row id; descriptive
  // fields (driver name, version texts) are updated.
  std::int64_t upsert_device(const DeviceIdentity& device);
  std::optional<std::int64_t> find_device(const DeviceIdentity& device) const;
  std::vector<std::pair<std::int64_t, DeviceIdentity>> devices() const;

  // Variants (and their kernel).
  void upsert_variant(const VariantRecord& variant);
  std::optional<VariantRecord> find_variant(const std::string& variant_hash) const;
  std::vector<std::string> kernels() const;

  // SPIR-V, keyed by a hash the caller chooses: the variant hash (the
  // tuner's compile cache) or the words' own content hash (winners' stages).
  // Every row also holds its words' content hash, and every read checks it.
  //  - A row keyed by its content hash never changes once stored: putting the
  //    same key again keeps it (ON CONFLICT DO NOTHING); a damaged one is
  //    repaired by the words that hash to its key; a row whose key names other
  //    words (a crafted collision) is an Error, and the store keeps its own.
  //  - A row keyed otherwise (the cache) takes the latest words put.
  void put_spirv(const std::string& hash, std::span<const std::uint32_t> words);
  // nullopt when absent, or when the words do not match their content hash
  // (a damaged row: warned once; the tuner compiles again and put_spirv
  // replaces it).
  std::optional<std::vector<std::uint32_t>> get_spirv(const std::string& hash) const;

  // Measurements: one per (device, variant, shape, cache_mode, phase); a new
  // one replaces the old of the same phase, so a confirmation stores its row
  // beside the search's. The device and variant must be stored first.
  // A row this vktune cannot read (an unknown status or phase) counts as not
  // measured everywhere (has_, find_, measurements, all_measurements), with
  // one warning per Store: a tune measures it again, and the new row
  // replaces it.
  void record_measurement(const Measurement& measurement);
  // Removes a search row of status `attempt` (see engine/attempt_log.hpp);
  // a row with a result is left alone.
  void forget_attempt(std::int64_t device_id, const std::string& variant_hash, const std::string& shape,
                      const std::string& cache_mode);
  bool has_measurement(std::int64_t device_id, const std::string& variant_hash, const std::string& shape,
                       const std::string& cache_mode, Phase phase = Phase::search) const;
  std::optional<Measurement> find_measurement(std::int64_t device_id, const std::string& variant_hash,
                                              const std::string& shape, const std::string& cache_mode,
                                              Phase phase = Phase::search) const;
  // One measurement per variant of a kernel at a shape, the one a winner is
  // chosen from: its confirmation row where it has one (re-timed beside the
  // baseline, so the better evidence), else its search row. Successes first,
  // fastest first, then failures.
  std::vector<Measurement> measurements(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                                        const std::string& cache_mode) const;
  // The same two for a cache mode as the tuner holds it (rows hold its text).
  std::optional<Measurement> find_measurement(std::int64_t device_id, const std::string& variant_hash,
                                              const std::string& shape, CacheMode cache_mode,
                                              Phase phase = Phase::search) const {
    return find_measurement(device_id, variant_hash, shape, to_string(cache_mode), phase);
  }
  std::vector<Measurement> measurements(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                                        CacheMode cache_mode) const {
    return measurements(device_id, kernel, shape, to_string(cache_mode));
  }

  // Every measurement row of every device, both phases, with its variant's
  // kernel and config and whether it is the stored winner of its key (marked
  // on the row measurements() would choose); in no particular order (for
  // exports).
  struct MeasurementInContext {
    Measurement measurement;
    std::string kernel, config_json;
    bool is_winner = false;
  };
  std::vector<MeasurementInContext> all_measurements() const;

  // Device ceilings ("read_bandwidth" GB/s, "fp32_fma" GFLOP/s, ...).
  void put_ceiling(std::int64_t device_id, const std::string& name, double value, const std::string& unit);
  std::optional<double> ceiling(std::int64_t device_id, const std::string& name) const;
  std::vector<Ceiling> ceilings(std::int64_t device_id) const;

  // Winners: one per (device, kernel, shape, cache_mode). updated_at is kept
  // when given (an imported winner keeps the time it was measured), else now.
  // The SPIR-V words are stored under their content hash; a spirv_hash given
  // with words must be that hash (else Error: nothing is written). With no
  // words, spirv_hash must name SPIR-V already stored.
  //
  // A winner whose SPIR-V does not match its content hash is damaged:
  // find_winner answers nullopt for it (warned once; a tune or an import then
  // stores a good one), winners() throws Error(database) naming it (an export
  // must not hand it out).
  void set_winner(const Winner& winner);
  std::optional<Winner> find_winner(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                                    const std::string& cache_mode) const;
  std::optional<Winner> find_winner(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                                    CacheMode cache_mode) const {
    return find_winner(device_id, kernel, shape, to_string(cache_mode));
  }
  // Removes the winner of the key (its measurements and SPIR-V stay); true
  // when there was one.
  bool remove_winner(std::int64_t device_id, const std::string& kernel, const std::string& shape,
                     const std::string& cache_mode);
  // Filtered by device and exactly by kernel name ("" = all), ordered by
  // device, kernel, shape, cache mode; each with its SPIR-V.
  std::vector<Winner> winners(std::optional<std::int64_t> device_id = {},
                              const std::string& kernel_filter = "") const;

  // Moves everything committed from the WAL into the database file, so that
  // the file alone (copied without its -wal) holds it.
  void checkpoint();

  // Runs body in one transaction: BEGIN IMMEDIATE ... COMMIT, ROLLBACK when it
  // throws. Nested calls become savepoints of the outer transaction.
  template <class F>
  void transaction(F&& body) {
    begin_transaction();
    try {
      std::forward<F>(body)();
    } catch (...) {
      rollback_transaction();
      throw;
    }
    commit_transaction();
  }

 private:
  Store(sqlite::Connection connection, bool read_only);

  // Calls the warning sink once per topic.
  void warn_once(const std::string& topic, const std::string& line) const;
  // The row's words when they match its content hash, else nullopt (warned).
  std::optional<std::vector<std::uint32_t>> verified_spirv(const std::string& key, const std::vector<std::byte>& bytes,
                                                           const std::string& content_hash) const;

  // A cached prepared statement, reset when the returned guard dies.
  sqlite::ScopedStatement statement(std::string_view sql) const;
  void begin_transaction();
  void commit_transaction();
  void rollback_transaction() noexcept;
  void put_kernel(const std::string& kernel);
  std::string spirv_key(const Winner& winner) const;

  sqlite::Connection connection_;
  bool read_only_ = false;
  int transaction_depth_ = 0;
  mutable std::unordered_map<std::string, sqlite::Statement> statements_;
  WarningSink warn_;
  mutable std::set<std::string> warned_;
};

}  // namespace vktune::results
