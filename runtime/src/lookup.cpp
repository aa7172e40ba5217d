// The lookup rules of vktune_runtime.hpp: device levels, shape regimes and
// distance, dispatch rule evaluation.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "table_data.hpp"

namespace vktune::runtime {
namespace {

constexpr std::uint32_t kMaxDecodeRows = 8;  // matmul: M <= 8 is decode

bool same_device(const DeviceIdentity& a, const DeviceIdentity& b) {
  return a.vendor_id == b.vendor_id && a.device_id == b.device_id && a.name == b.name;
}

// The best level at which a table device serves the queried one, or
// Match::baseline when it does not serve it at all.
Match device_level(const DeviceIdentity& table, const DeviceIdentity& query) {
  if (same_device(table, query)) {
    return table.driver_version == query.driver_version ? Match::device_and_driver : Match::device;
  }
  if (same_architecture(table, query)) return Match::architecture;
  if (table.vendor_id == query.vendor_id) return Match::vendor;
  return Match::baseline;
}

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

std::string describe(const DeviceIdentity& d) {
  return "'" + d.name + "' (vendor " + hex(d.vendor_id) + ", device " + hex(d.device_id) + ", driver " +
         hex(d.driver_version) + ")";
}

const char* level_text(Match m) {
  switch (m) {
    case Match::device_and_driver: return "same device and driver";
    case Match::device: return "same device, other driver";
    case Match::architecture: return "same vendor and architecture";
    case Match::vendor: return "vendor default";
    case Match::baseline: return "baseline";
  }
  return "?";
}

void check_query(const Query& query) {
  if (query.kernel.empty()) throw Error(Error::Kind::usage, "vktune lookup: the kernel name is empty");
  if (query.shape.empty()) throw Error(Error::Kind::usage, "vktune lookup: the shape is empty");
  for (const auto d : query.shape) {
    if (d == 0) {
      throw Error(Error::Kind::usage, "vktune lookup: shape " + detail::shape_text(query.shape) +
                                          " has a zero dimension");
    }
  }
}

bool dispatch_covers(const DispatchRule& rule, std::size_t dims) {
  for (const auto& a : rule) {
    if (a.divisor == 0 || (a.shape_dim >= 0 && static_cast<std::size_t>(a.shape_dim) >= dims)) return false;
  }
  return true;
}

}  // namespace

std::string name_family(std::string_view device_name) {
  std::string family;
  for (const char c : device_name) {
    family += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (c >= '0' && c <= '9') break;
  }
  return family;
}

bool same_architecture(const DeviceIdentity& a, const DeviceIdentity& b) {
  if (a.vendor_id != b.vendor_id) return false;
  if (name_family(a.name) == name_family(b.name)) return true;
  return (a.device_id >> 8) != 0 && (a.device_id >> 8) == (b.device_id >> 8);
}

int shape_regime(std::span<const std::uint32_t> shape) {
  if (shape.size() == 3) return shape[0] <= kMaxDecodeRows ? 0 : 1;
  return 0;
}

const char* regime_name(std::span<const std::uint32_t> shape) {
  if (shape.size() != 3) return "any";
  return shape_regime(shape) == 0 ? "decode" : "prefill";
}

double shape_distance(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  if (a.size() != b.size()) {
    throw Error(Error::Kind::usage, "vktune: shapes " + detail::shape_text(a) + " and " + detail::shape_text(b) +
                                        " have different numbers of dimensions");
  }
  double distance = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0 || b[i] == 0) throw Error(Error::Kind::usage, "vktune: a shape dimension is 0");
    distance += std::fabs(std::log2(static_cast<double>(a[i])) - std::log2(static_cast<double>(b[i])));
  }
  return distance;
}

std::array<std::uint32_t, 3> workgroup_counts(const DispatchRule& rule, std::span<const std::uint32_t> shape) {
  std::array<std::uint32_t, 3> groups{1, 1, 1};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const auto& a = rule[axis];
    if (a.shape_dim < 0) continue;
    if (static_cast<std::size_t>(a.shape_dim) >= shape.size() || a.divisor == 0) {
      throw Error(Error::Kind::usage, "vktune: dispatch axis " + std::to_string(axis) + " (shape_dim " +
                                          std::to_string(a.shape_dim) + ", divisor " + std::to_string(a.divisor) +
                                          ") does not fit the " + std::to_string(shape.size()) +
                                          "-dimensional shape " + detail::shape_text(shape));
    }
    const std::uint32_t d = shape[static_cast<std::size_t>(a.shape_dim)];
    groups[axis] = d / a.divisor + (d % a.divisor != 0 ? 1u : 0u);
  }
  return groups;
}

const char* to_string(Match match) {
  switch (match) {
    case Match::device_and_driver: return "device_and_driver";
    case Match::device: return "device";
    case Match::architecture: return "architecture";
    case Match::vendor: return "vendor";
    case Match::baseline: return "baseline";
  }
  return "unknown";
}

LookupResult Table::lookup(const Query& query, const std::optional<Variant>& baseline, const Validity& valid) const {
  check_query(query);
  const auto& table = *data_;
  const int regime = shape_regime(query.shape);
  const std::string& preferred_mode = query.cache_mode.empty() ? std::string("cold") : query.cache_mode;

  // Levels of every table device, computed once.
  std::vector<Match> levels;
  levels.reserve(table.devices.size());
  for (const auto& d : table.devices) levels.push_back(device_level(d.identity, query.device));

  using Key = std::tuple<double, std::uint64_t, int, std::size_t>;
  const Entry* best = nullptr;
  Match best_level = Match::baseline;
  Key best_key{};
  for (std::size_t i = 0; i < table.entries.size(); ++i) {
    const Entry& e = table.entries[i];
    const Match level = levels[e.device];
    if (level == Match::baseline || (best && level > best_level)) continue;
    if (e.kernel != query.kernel || e.shape.size() != query.shape.size() || shape_regime(e.shape) != regime) continue;
    if (!dispatch_covers(e.variant.dispatch, query.shape.size())) continue;
    if (valid && !valid(e, query.shape)) continue;
    const auto& device = table.devices[e.device].identity;
    const std::uint64_t driver_gap =
        level == Match::device ? static_cast<std::uint64_t>(std::llabs(static_cast<long long>(device.driver_version) -
                                                                       static_cast<long long>(query.device.driver_version)))
                               : 0;
    const Key key{shape_distance(query.shape, e.shape), driver_gap, e.cache_mode == preferred_mode ? 0 : 1, i};
    if (!best || level < best_level || key < best_key) {
      best = &e;
      best_level = level;
      best_key = key;
    }
  }

  LookupResult result;
  if (!best) {
    if (!baseline) {
      throw Error(Error::Kind::no_match, "vktune lookup: table '" + table.source + "' has no entry of kernel '" +
                                             query.kernel + "' usable for shape " + detail::shape_text(query.shape) +
                                             " (" + regime_name(query.shape) + ") on " + describe(query.device) +
                                             ", and no baseline was given");
    }
    result.match = Match::baseline;
    result.variant = *baseline;
    result.workgroups = workgroup_counts(baseline->dispatch, query.shape);
    result.match_text = std::string("baseline: no tuned ") + query.kernel + " entry for " +
                        regime_name(query.shape) + " shapes on this device's vendor in '" + table.source + "'";
    return result;
  }
  result.match = best_level;
  result.entry = best;
  result.tuned_device = table.devices[best->device].identity;
  result.tuned_shape = best->shape;
  result.exact_shape = best->shape == query.shape;
  result.shape_distance = std::get<0>(best_key);
  result.variant = best->variant;
  result.workgroups = workgroup_counts(best->variant.dispatch, query.shape);
  char distance[32];
  std::snprintf(distance, sizeof distance, "%.3g", result.shape_distance);
  result.match_text = std::string(level_text(best_level)) + ": " + describe(*result.tuned_device) + ", " +
                      (result.exact_shape ? "exact shape " + detail::shape_text(best->shape)
                                          : "nearest " + std::string(regime_name(query.shape)) + " shape " +
                                                detail::shape_text(best->shape) + " (distance " + distance + ")") +
                      (best->cache_mode.empty() ? "" : ", " + best->cache_mode);
  return result;
}

}  // namespace vktune::runtime
