// libFuzzer target: any bytes given to `vktune import`'s table reader
// (results/import.cpp, read_table_text: the whole check before anything is
// written to a store) must be accepted or give a vktune::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.hpp"
#include "results/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto contents = vktune::results::read_table_text(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
    (void)contents;
  } catch (const vktune::Error&) {
    // A malformed table, rejected properly.
  }
  return 0;
}
