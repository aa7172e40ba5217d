#pragma once
// How a measurement treats the weights: cold rotates copies larger than the
// GPU's caches between dispatches, so that the figure is the memory's
// bandwidth; hot reuses one copy. Code holds a CacheMode; the command line
// (--cache), the store's rows, tables and JSON outputs hold its text, "cold"
// or "hot", and to_string and parse_cache_mode convert at those edges.
#include <string>
#include <vector>

namespace vktune {

enum class CacheMode { cold, hot };

const char* to_string(CacheMode mode);  // "cold", "hot"
// Throws Error(usage) naming the text for anything but "cold" or "hot".
CacheMode parse_cache_mode(const std::string& text);
// Every mode's text, in enum order: the choices of --cache.
std::vector<std::string> cache_mode_names();
// The other mode (a chain falls back to the winners of the other).
CacheMode other_cache_mode(CacheMode mode);

}  // namespace vktune
