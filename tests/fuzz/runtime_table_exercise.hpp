#pragma once
// What the runtime fuzz targets do with a table the loader accepted: look up
// every entry at its own shape and at a doubled one, so the lookup rules,
// dispatch and size rules run over whatever the fuzzer smuggled through
// validation. A lookup may refuse (runtime::Error); it must not crash.
#include <cstdint>

#include "vktune_runtime.hpp"

namespace vktune::fuzz {

inline void exercise_table(const runtime::Table& table) {
  for (const auto& entry : table.entries()) {
    runtime::Query query;
    query.device = table.devices().at(entry.device).identity;
    query.kernel = entry.kernel;
    for (const int factor : {1, 2}) {
      query.shape = entry.shape;
      for (auto& dim : query.shape) dim = dim <= UINT32_MAX / 2 ? dim * static_cast<std::uint32_t>(factor) : dim;
      try {
        const auto found = table.lookup(query);
        (void)found.workgroups;
      } catch (const runtime::Error&) {
      }
    }
  }
}

}  // namespace vktune::fuzz
