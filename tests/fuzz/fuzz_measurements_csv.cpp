// libFuzzer target: any bytes given to the measurements CSV reader
// (results/import_csv.cpp, `vktune replay --from FILE.csv`) must be read or
// give a vktune::Error. The reader takes a path: the input is written to a
// file per process.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "results/import_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("vktune_fuzz_csv_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)vktune::results::read_measurements_csv(path);
  } catch (const vktune::Error&) {
    // A malformed file, rejected properly.
  }
  return 0;
}
