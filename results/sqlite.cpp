#include "results/sqlite.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <cstring>

#include "common/error.hpp"
#include "common/stop_request.hpp"

namespace vktune::results::sqlite {
namespace {

std::string describe_file(sqlite3* db) {
  const char* name = db ? sqlite3_db_filename(db, "main") : nullptr;
  return (name && *name) ? std::string(name) : std::string("(unnamed)");
}

// The one place that turns an SQLite failure into an Error.
[[noreturn]] void throw_database_error(sqlite3* db, const std::string& file, std::string_view what) {
  const int code = db ? sqlite3_errcode(db) : SQLITE_ERROR;
  const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
  std::string text = "results database '" + file + "': ";
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      text += "the file is not an SQLite database (" + std::string(what) + ")";
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      text += std::string(what) + ": the database is locked by another process and stayed locked (" +
              message + ")";
      break;
    default:
      text += std::string(what) + ": " + message;
      if (sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_FOREIGNKEY) {
        text += " (store the device, variant, kernel and SPIR-V a record refers to first)";
      }
  }
  throw Error(ErrorKind::database, text);
}

// The start of an SQL text on one line: enough to recognise it in a message.
std::string one_line(std::string_view sql) {
  std::string text;
  for (const char c : sql) {
    if (text.size() >= 72) break;
    const bool space = c == '\n' || c == ' ' || c == '\t';
    if (!space || (!text.empty() && text.back() != ' ')) text += space ? ' ' : c;
  }
  return text;
}

}  // namespace

void Connection::Closer::operator()(sqlite3* db) const {
  // sqlite3_close_v2 defers the close until every statement is finalized.
  sqlite3_close_v2(db);
}

std::string file_uri(const std::filesystem::path& path) {
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
  return uri;
}

struct Connection::LockWait {
  std::string path;
  std::chrono::milliseconds notice_after;
  std::chrono::steady_clock::time_point since, next_notice;
};

void Connection::LockWaitDeleter::operator()(LockWait* wait) const { delete wait; }

namespace {

// The first read of a file: where "not a database" and "cannot open the
// -shm of a WAL file" show themselves. Returns SQLite's result code.
int probe(sqlite3* db) { return sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr); }

bool blocked_by_read_only_place(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR;
}

// How long a stopping run still waits for locks, counted from the first wait
// after the user asked to stop (once for the process, not per statement):
// long enough for another writer's commit (milliseconds), so that the result
// a stopping run still stores is not lost to a lock held that briefly.
constexpr auto kWaitAfterStop = std::chrono::seconds(2);

// When a wait first saw the stop request; 0 until then.
std::atomic<std::int64_t> stop_seen_ns{0};

// SQLite's busy handler: called while another connection holds the lock, with
// `count` the number of calls so far for this lock. Gives up (returns 0, and
// the statement fails as locked) once the user asked the process to stop and
// kWaitAfterStop has passed since a wait first saw it: a Ctrl-C must not wait
// for another process to let go of a lock it keeps. Otherwise it sleeps a
// little longer each time, up to 50 ms, which costs at most that much
// latency once the lock is free.
int wait_for_lock(void* user, int count) {
  auto* wait = static_cast<Connection::LockWait*>(user);
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) {
    wait->since = now;
    wait->next_notice = now + wait->notice_after;
  }
  if (stop_signal() != 0) {
    const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
    std::int64_t seen = 0;
    stop_seen_ns.compare_exchange_strong(seen, now_ns);
    if (seen != 0 && now_ns - seen >= std::chrono::nanoseconds(kWaitAfterStop).count()) return 0;
  } else {
    stop_seen_ns.store(0);  // a request cleared (a new command's handlers): its clock with it
  }
  if (now >= wait->next_notice) {
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - wait->since).count();
    std::fprintf(stderr,
                 "vktune: results database '%s' is locked by another process; waited %llds, still waiting "
                 "(Ctrl-C stops)\n",
                 wait->path.c_str(), static_cast<long long>(waited));
    std::fflush(stderr);
    wait->next_notice = now + std::chrono::minutes(1);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(count + 1, 50)));
  return 1;
}

}  // namespace

Connection Connection::open(const std::filesystem::path& path, Mode mode, int notice_after_ms) {
  const auto parent = path.parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    throw Error(ErrorKind::database, "results database '" + path.string() + "': the directory '" +
                                         parent.string() + "' does not exist");
  }
  if (mode == Mode::read_only && !std::filesystem::exists(path, ec)) {
    throw Error(ErrorKind::database, "results database '" + path.string() + "': no such file");
  }
  const int flags = (mode == Mode::read_only ? SQLITE_OPEN_READONLY
                                             : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_NOMUTEX;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Connection connection;
  connection.db_.reset(raw);
  connection.path_ = path;
  if (rc != SQLITE_OK) connection.fail("cannot open");
  sqlite3_extended_result_codes(raw, 1);
  connection.lock_wait_.reset(new LockWait{path.string(), std::chrono::milliseconds(notice_after_ms), {}, {}});
  if (sqlite3_busy_handler(raw, wait_for_lock, connection.lock_wait_.get()) != SQLITE_OK) {
    connection.fail("cannot set a busy handler");
  }
  if (mode == Mode::read_only) {
    const int read = probe(raw);
    if (read != SQLITE_OK && blocked_by_read_only_place(read)) {
      const auto wal = std::filesystem::path(path.string() + "-wal");
      if (std::filesystem::file_size(wal, ec) > 0 && !ec) {
        throw Error(ErrorKind::database,
                    "results database '" + path.string() + "' cannot be read here (" + sqlite3_errmsg(raw) +
                        ") and its write-ahead log '" + wal.string() +
                        "' holds commits the file lacks: open it once where it can be written, or ship a copy "
                        "made with `vktune export --format sqlite`");
      }
      raw = nullptr;
      if (sqlite3_open_v2((file_uri(path) + "?immutable=1").c_str(), &raw,
                          SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        connection.db_.reset(raw);
        connection.fail("cannot open (immutable)");
      }
      connection.db_.reset(raw);
      connection.immutable_ = true;
      sqlite3_extended_result_codes(raw, 1);
      if (probe(raw) != SQLITE_OK) connection.fail("cannot read");
    }
  }
  return connection;
}

void Connection::check_integrity() const {
  sqlite3_stmt* raw = nullptr;
  std::string first;
  std::size_t problems = 0;
  int rc = sqlite3_prepare_v2(db_.get(), "PRAGMA quick_check", -1, &raw, nullptr);
  const std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> statement(raw, &sqlite3_finalize);
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    rc = sqlite3_step(raw);
    if (rc != SQLITE_ROW) break;
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
    const std::string line = text ? text : "";
    if (line == "ok") continue;
    if (problems++ == 0) first = line;
  }
  // A page too damaged to walk makes quick_check itself fail: that is the problem then.
  if (rc != SQLITE_DONE && problems == 0) {
    first = sqlite3_errmsg(db_.get());
    problems = 1;
  }
  if (problems == 0) return;
  for (char& c : first) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  throw Error(ErrorKind::database,
              "results database '" + path_.string() + "' is corrupt: " + first + " (" + std::to_string(problems) +
                  (problems == 1 ? " problem" : " problems") +
                  " found by PRAGMA quick_check); restore it from a copy, or re-tune into a new database");
}

int Connection::changes() const { return sqlite3_changes(db_.get()); }

void Connection::exec(const char* sql) const {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, &error);
  sqlite3_free(error);  // the same text is available through sqlite3_errmsg
  if (rc != SQLITE_OK) {
    fail("running '" + one_line(sql) + "'");
  }
}

void Connection::rollback_quietly() const noexcept {
  if (in_transaction()) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

bool Connection::in_transaction() const noexcept { return db_ && sqlite3_get_autocommit(db_.get()) == 0; }

void Connection::fail(std::string_view what) const {
  throw_database_error(db_.get(), path_.string(), what);
}

void Statement::Finalizer::operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }

Statement::Statement(const Connection& connection, std::string_view sql) : db_(connection.get()) {
  sqlite3_stmt* raw = nullptr;
  if (sql.size() > static_cast<std::size_t>(INT_MAX)) throw Error(ErrorKind::internal, "SQL text too long");
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                    &raw, nullptr);
  stmt_.reset(raw);
  if (rc != SQLITE_OK) throw_database_error(db_, describe_file(db_), "preparing '" + one_line(sql) + "'");
}

std::string Statement::sql_text() const {
  const char* sql = sqlite3_sql(stmt_.get());
  return one_line(sql ? sql : "");
}

void Statement::fail(std::string_view what) const {
  throw_database_error(db_, describe_file(db_), std::string(what) + " '" + sql_text() + "'");
}

void Statement::check_bind(int rc, int index) const {
  if (rc != SQLITE_OK) fail("binding parameter " + std::to_string(index) + " of");
}

Statement& Statement::bind(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_.get(), index, value), index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_.get(), index, value), index);
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  check_bind(sqlite3_bind_text64(stmt_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
             index);
  return *this;
}

Statement& Statement::bind_blob(int index, std::span<const std::byte> bytes) {
  // A zero-length blob must still be a blob, not NULL: give SQLite a valid pointer.
  static const std::byte empty{};
  const void* data = bytes.empty() ? &empty : static_cast<const void*>(bytes.data());
  check_bind(sqlite3_bind_blob64(stmt_.get(), index, data, bytes.size(), SQLITE_TRANSIENT), index);
  return *this;
}

Statement& Statement::bind_null(int index) {
  check_bind(sqlite3_bind_null(stmt_.get(), index), index);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail("running");
}

void Statement::run() {
  while (step()) {
  }
}

std::int64_t Statement::column_int64(int column) const { return sqlite3_column_int64(stmt_.get(), column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_.get(), column); }

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_.get(), column);
  if (!text) return {};
  const int size = sqlite3_column_bytes(stmt_.get(), column);
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

std::vector<std::byte> Statement::column_blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_.get(), column);
  const int size = sqlite3_column_bytes(stmt_.get(), column);
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  if (size > 0) std::memcpy(bytes.data(), data, bytes.size());
  return bytes;
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL;
}

void Statement::reset() noexcept {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

}  // namespace vktune::results::sqlite
