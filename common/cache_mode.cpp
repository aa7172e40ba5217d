#include "common/cache_mode.hpp"

#include "common/error.hpp"

namespace vktune {

const char* to_string(CacheMode mode) { return mode == CacheMode::hot ? "hot" : "cold"; }

CacheMode parse_cache_mode(const std::string& text) {
  for (const auto mode : {CacheMode::cold, CacheMode::hot}) {
    if (text == to_string(mode)) return mode;
  }
  throw Error(ErrorKind::usage, "--cache must be cold or hot, not '" + text + "'");
}

std::vector<std::string> cache_mode_names() { return {to_string(CacheMode::cold), to_string(CacheMode::hot)}; }

CacheMode other_cache_mode(CacheMode mode) { return mode == CacheMode::cold ? CacheMode::hot : CacheMode::cold; }

}  // namespace vktune
