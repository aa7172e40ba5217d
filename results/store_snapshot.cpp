// Store::write_snapshot: a copy of the store to ship with an application
// (`vktune export --format sqlite`). The working store stays in WAL mode,
// whose -wal and -shm files must sit beside it and be writable; a shipped
// file is read from places that are not (a package, a container layer), so
// the copy is one file in rollback-journal mode.
#include "common/error.hpp"
#include "results/store.hpp"

namespace vktune::results {

void Store::write_snapshot(const std::filesystem::path& out) const {
  check_integrity();  // never ship damaged pages
  const auto partial = std::filesystem::path(out.string() + ".partial");
  std::error_code ec;
  std::filesystem::remove(partial, ec);  // VACUUM INTO refuses an existing file
  try {
    // A consistent snapshot of every committed row (the WAL's included),
    // compacted; it works on a read-only connection too.
    sqlite::Statement(connection_, "VACUUM INTO ?1").bind(1, partial.string()).run();
    {
      auto copy = sqlite::Connection::open(partial, sqlite::Connection::Mode::read_write_create);
      sqlite::Statement mode(copy, "PRAGMA journal_mode = DELETE");
      const std::string got = mode.step() ? mode.column_text(0) : std::string();
      if (got != "delete") {
        throw Error(ErrorKind::database, "results database '" + partial.string() +
                                             "': cannot switch to rollback-journal mode (got '" + got + "')");
      }
      mode.reset();
      copy.check_integrity();
    }
    std::filesystem::rename(partial, out, ec);
    if (ec) throw Error(ErrorKind::io, "cannot write " + out.string() + ": " + ec.message());
  } catch (...) {
    std::filesystem::remove(partial, ec);
    throw;
  }
}

}  // namespace vktune::results
