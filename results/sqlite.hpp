#pragma once
// Thin RAII owners over SQLite's C API: a connection (sqlite3*) and a prepared
// statement (sqlite3_stmt*). Values only ever reach SQL through bound
// parameters; exec() is for fixed text (schema, pragmas, BEGIN/COMMIT).
// Every failure throws vktune::Error(ErrorKind::database) naming the database
// file, what was being done and SQLite's own message.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace vktune::results::sqlite {

class Connection {
 public:
  enum class Mode { read_write_create, read_only };

  // Opens (and in read_write_create mode creates) the file. The parent
  // directory must exist. A lock held by another process is waited for, as
  // long as it takes: a run must not die because another one committed
  // slowly. After `notice_after_ms` of waiting (and each minute after) a line
  // on stderr says so; a second Ctrl-C ends a wait that never ends.
  //
  // read_only never writes. A WAL database needs its -shm file even to be
  // read, which a read-only directory (a package, a container layer) cannot
  // hold: when the first read fails for that reason, the file is opened again
  // in SQLite's immutable mode (URI "file:...?immutable=1"), which reads the
  // main file alone. A non-empty -wal beside it holds commits the main file
  // lacks, so then it is an error that says so instead.
  static Connection open(const std::filesystem::path& path, Mode mode, int notice_after_ms = 10000);

  // True when open() fell back to immutable mode.
  bool immutable() const { return immutable_; }

  // PRAGMA quick_check (page structure, record formats, freelist: what
  // integrity_check reports except index consistency, in O(pages)). Throws
  // Error(database): "results database 'PATH' is corrupt: FIRST PROBLEM
  // (N problems found by PRAGMA quick_check)...", on one line.
  void check_integrity() const;

  sqlite3* get() const { return db_.get(); }
  const std::filesystem::path& path() const { return path_; }

  // Runs fixed SQL text (one or more statements, no values).
  void exec(const char* sql) const;
  // Rows changed by the last INSERT, UPDATE or DELETE on this connection.
  int changes() const;

  // Rolls back an open transaction, if any; never throws (for error paths).
  void rollback_quietly() const noexcept;
  bool in_transaction() const noexcept;

  // Throws an Error for the connection's last failure: "results database
  // 'PATH': WHAT: sqlite message". Recognises "not a database" and "locked".
  [[noreturn]] void fail(std::string_view what) const;

  struct LockWait;  // the busy handler's state (sqlite.cpp), at a fixed address

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  struct LockWaitDeleter {
    void operator()(LockWait* wait) const;
  };
  // Declared before db_ so that it outlives the connection's close.
  std::unique_ptr<LockWait, LockWaitDeleter> lock_wait_;
  std::unique_ptr<sqlite3, Closer> db_;
  std::filesystem::path path_;
  bool immutable_ = false;
};

// "file:PATH" with the characters a URI gives meaning to percent-encoded, for
// sqlite3_open_v2 with SQLITE_OPEN_URI.
std::string file_uri(const std::filesystem::path& path);

class Statement {
 public:
  Statement(const Connection& connection, std::string_view sql);

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_blob(int index, std::span<const std::byte> bytes);
  Statement& bind_null(int index);
  template <std::integral T>
  Statement& bind(int index, T value) {
    return bind(index, static_cast<std::int64_t>(value));
  }
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }

  // Binds the arguments to parameters 1, 2, ... in order.
  template <class... Args>
  Statement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  // One step: true when a row is ready, false when the statement is done.
  bool step();
  // Steps to completion, ignoring rows (for INSERT/UPDATE/DELETE).
  void run();

  std::int64_t column_int64(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;  // NULL reads as ""
  std::vector<std::byte> column_blob(int column) const;
  bool column_is_null(int column) const;

  // Ready for another use: resets and clears the bindings. Never throws.
  void reset() noexcept;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const;
  };
  [[noreturn]] void fail(std::string_view what) const;
  std::string sql_text() const;
  void check_bind(int rc, int index) const;

  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  sqlite3* db_;  // owned by the Connection, which outlives its statements
};

// Resets a (cached) statement when it goes out of scope, so that a read never
// keeps its snapshot open after the caller is done with it.
class ScopedStatement {
 public:
  explicit ScopedStatement(Statement& statement) : statement_(&statement) {}
  ~ScopedStatement() { statement_->reset(); }
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;
  Statement* operator->() const { return statement_; }
  Statement& operator*() const { return *statement_; }

 private:
  Statement* statement_;
};

}  // namespace vktune::results::sqlite
