// libFuzzer target: any bytes, as a file, given to the runtime's SQLite table
// reader (runtime/src/sqlite_table.cpp) must load or give a runtime::Error.
// SQLite reads from a file, so the input is written to one per process.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime_table_exercise.hpp"

namespace {

const std::filesystem::path& input_path() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("vktune_fuzz_sqlite_" + std::to_string(::getpid()) + ".db");
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& path = input_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const auto table = vktune::runtime::Table::open_sqlite(path);
    vktune::fuzz::exercise_table(table);
  } catch (const vktune::runtime::Error&) {
    // A damaged or foreign database, rejected properly.
  }
  // A reader must leave nothing behind (a -wal or -shm file would mean it
  // wrote to a file it only reads).
  std::filesystem::remove(path);
  return 0;
}
