// libFuzzer target: any bytes given to the runtime's JSON table loader
// (runtime/src/json_table.cpp, what vktune_table_open and applications call)
// must load or give a runtime::Error; a loaded table must answer lookups.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime_table_exercise.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto table = vktune::runtime::Table::from_json_text(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
    vktune::fuzz::exercise_table(table);
  } catch (const vktune::runtime::Error&) {
    // A malformed table, rejected properly.
  }
  return 0;
}
