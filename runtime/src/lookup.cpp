// Table::lookup: runtime/lookup_rules.inc applied to a loaded table, with an
// explanation of every level tried.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string_view>

#include "table_data.hpp"
#include "word_expression.hpp"

namespace vktune::runtime {
namespace detail {
// The checked size arithmetic vktune shares (size_rule.inc).
#include "size_rule.inc"
}  // namespace detail
namespace {

rules::DeviceKey key_of(const DeviceIdentity& d) {
  return {d.vendor_id, d.device_id, d.driver_version, d.name, d.uuid};
}

Match match_of(rules::Level level) {
  switch (level) {
    case rules::Level::device_and_driver: return Match::device_and_driver;
    case rules::Level::device: return Match::device;
    case rules::Level::model: return Match::model;
    case rules::Level::architecture: return Match::architecture;
    case rules::Level::vendor: return Match::vendor;
    case rules::Level::none: break;
  }
  return Match::baseline;
}

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

std::string describe(const DeviceIdentity& d) {
  return "'" + d.name + "' (vendor " + hex(d.vendor_id) + ", device " + hex(d.device_id) + ", driver " +
         hex(d.driver_version) + (d.uuid.empty() ? "" : ", uuid " + d.uuid.substr(0, 8)) + ")";
}

const char* level_text(Match m) {
  switch (m) {
    case Match::device_and_driver: return "same device and driver";
    case Match::device: return "same device, other driver";
    case Match::model: return "same model, another GPU";
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

// Why the device cannot run the contract, or "".
std::string unmet(const Contract& contract, const DeviceCapabilities& caps) {
  std::vector<std::string_view> features(caps.features.begin(), caps.features.end());
  rules::Capabilities device;
  device.known = caps.known;
  device.features = features.data();
  device.feature_count = features.size();
  device.max_shared_memory_bytes = caps.max_shared_memory_bytes;
  device.max_invocations = caps.max_invocations;
  device.min_subgroup_size = caps.min_subgroup_size;
  device.max_subgroup_size = caps.max_subgroup_size;
  device.subgroup_size_control = caps.subgroup_size_control;
  device.max_push_constant_bytes = caps.max_push_constant_bytes;
  if (auto why = rules::unmet_push_constants(device, contract.push_constants.size()); !why.empty()) return why;
  for (const auto& feature : contract.features) {
    if (auto why = rules::missing_feature(device, feature); !why.empty()) return why;
  }
  for (const auto& stage : contract.stages) {
    const rules::StageNeeds needs{stage.local_size[0] * stage.local_size[1] * stage.local_size[2],
                                  stage.shared_memory_bytes, stage.required_subgroup_size};
    if (auto why = rules::unmet_need(device, needs); !why.empty()) return why;
  }
  return {};
}

void evaluate(LookupResult& result, const Shape& shape) {
  for (const auto& stage : result.contract.stages) result.workgroups.push_back(workgroup_counts(stage.dispatch, shape));
  for (const auto& binding : result.contract.bindings) result.binding_bytes.push_back(binding.size.bytes(shape));
  result.push_constants = push_constant_words(result.contract, shape);
  for (std::size_t b = 0; b < result.contract.bindings.size(); ++b) {
    result.uniform_blocks.push_back(uniform_block(result.contract, b, shape));
  }
}

// The bits of `word` for `shape` (names: the contract's shape_dims); `what`
// names it in messages ("push constant 'n'").
std::uint32_t word_bits_at(const PushWord& word, const Contract& contract, const Shape& shape, const std::string& what) {
  double value = 0;
  if (word.expression.empty()) {
    value = static_cast<double>(word.value.bytes(shape));
  } else {
    const std::vector<std::string_view> names(contract.shape_dims.begin(), contract.shape_dims.end());
    std::vector<double> values(shape.begin(), shape.end());
    values.resize(names.size(), 0.0);
    const auto v = detail::evaluate_word_expression(word.expression, names.data(), names.size(), values.data());
    if (!v.ok) throw Error(Error::Kind::usage, "vktune: " + what + ": " + v.error);
    value = v.value;
  }
  std::uint32_t bits = 0;
  if (!detail::word_bits(value, word.type, bits)) {
    throw Error(Error::Kind::usage, "vktune: " + what + " is " + std::to_string(value) + " for shape " +
                                        detail::shape_text(shape) + ", which is no " + word.type + " word");
  }
  return bits;
}

}  // namespace

bool operator==(const DeviceIdentity& a, const DeviceIdentity& b) {
  return a.vendor_id == b.vendor_id && a.device_id == b.device_id && a.driver_version == b.driver_version &&
         a.name == b.name && a.uuid == b.uuid;
}

std::string name_family(std::string_view device_name) { return rules::name_family(device_name); }

bool same_architecture(const DeviceIdentity& a, const DeviceIdentity& b) {
  return rules::same_architecture(key_of(a), key_of(b));
}

double shape_distance(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) {
    throw Error(Error::Kind::usage, "vktune: shapes " + detail::shape_text(a) + " and " + detail::shape_text(b) +
                                        " have different numbers of dimensions");
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0 || b[i] == 0) throw Error(Error::Kind::usage, "vktune: a shape dimension is 0");
  }
  return rules::shape_distance(a.data(), b.data(), a.size());
}

std::array<std::uint32_t, 3> workgroup_counts(const DispatchRule& rule, const Shape& shape) {
  std::array<std::uint32_t, 3> groups{1, 1, 1};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const auto& a = rule[axis];
    if (a.shape_dim >= 0 && (static_cast<std::size_t>(a.shape_dim) >= shape.size() || a.divisor == 0)) {
      throw Error(Error::Kind::usage, "vktune: dispatch axis " + std::to_string(axis) + " (shape_dim " +
                                          std::to_string(a.shape_dim) + ", divisor " + std::to_string(a.divisor) +
                                          ") does not fit the " + std::to_string(shape.size()) +
                                          "-dimensional shape " + detail::shape_text(shape));
    }
    groups[axis] = rules::workgroups_along(a.shape_dim, a.divisor, a.fold, shape.data());
  }
  return groups;
}

std::uint64_t SizeRule::bytes(const Shape& shape) const {
  const auto size = detail::size_rule_bytes(*this, shape);
  if (size.failure == detail::SizeFailure::missing_dimension) {
    throw Error(Error::Kind::usage, "vktune: a binding size names dimension " + std::to_string(size.dimension) +
                                        " of the " + std::to_string(shape.size()) + "-dimensional shape " +
                                        detail::shape_text(shape));
  }
  if (size.failure == detail::SizeFailure::overflow) {
    throw Error(Error::Kind::usage, "vktune: a binding size passes 2^64 bytes at shape " + detail::shape_text(shape));
  }
  return size.bytes;
}

std::vector<std::uint32_t> push_constant_words(const Contract& contract, const Shape& shape) {
  if (contract.push_constants.empty()) return shape;
  std::vector<std::uint32_t> words;
  for (const auto& word : contract.push_constants) {
    words.push_back(word_bits_at(word, contract, shape, "push constant '" + word.name + "'"));
  }
  return words;
}

std::vector<std::uint8_t> uniform_block(const Contract& contract, std::size_t binding, const Shape& shape) {
  const auto& b = contract.bindings.at(binding);
  if (b.role != BindingRole::uniform) return {};
  const auto bytes = b.size.bytes(shape);
  std::vector<std::uint8_t> block(static_cast<std::size_t>(bytes), 0);
  for (const auto& member : b.members) {
    // A member is a push word placed at its offset (checked inside the block at load).
    const auto bits = word_bits_at(member.word, contract, shape,
                                   "uniform buffer '" + b.name + "' member '" + member.word.name + "'");
    for (std::size_t i = 0; i < 4; ++i) block[member.offset + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  }
  return block;
}

const char* to_string(BindingRole role) {
  const auto index = static_cast<std::size_t>(role);
  // The names are string literals: their views end in a NUL.
  return (index < detail::format::binding_role_count ? detail::format::binding_role_names[index]
                                                      : detail::format::binding_role_names[0])
      .data();
}

const char* to_string(Match match) {
  switch (match) {
    case Match::device_and_driver: return "device_and_driver";
    case Match::device: return "device";
    case Match::model: return "model";
    case Match::architecture: return "architecture";
    case Match::vendor: return "vendor";
    case Match::baseline: return "baseline";
  }
  return "unknown";
}

LookupResult Table::lookup(const Query& query, const std::optional<Contract>& baseline, const Validity& valid) const {
  check_query(query);
  const auto& table = *data_;
  const std::string preferred_mode = query.cache_mode.empty() ? std::string("cold") : query.cache_mode;
  const auto query_key = key_of(query.device);

  std::vector<rules::Level> levels;
  levels.reserve(table.devices.size());
  for (const auto& d : table.devices) levels.push_back(rules::device_level(key_of(d.identity), query_key));

  // Per level: how many entries of the kernel it had and why each was skipped.
  std::map<rules::Level, std::vector<std::string>> skipped;
  std::map<rules::Level, int> seen;
  const Entry* best = nullptr;
  rules::Candidate best_candidate;
  for (std::size_t i = 0; i < table.entries.size(); ++i) {
    const Entry& e = table.entries[i];
    const auto level = levels[e.device];
    if (level == rules::Level::none || e.kernel != query.kernel) continue;
    ++seen[level];
    const auto& c = e.contract;
    std::string why;
    if (const char* mismatch = rules::shape_mismatch(e.shape.data(), e.shape.size(), query.shape.data(),
                                                     query.shape.size(), c.shape_class.data(), c.shape_class.size(),
                                                     c.specialized_dims.data(), c.specialized_dims.size())) {
      why = mismatch;
    } else if (auto need = unmet(c, query.capabilities); !need.empty()) {
      why = need;
    } else if (valid && !valid(e, query.shape)) {
      why = "the caller's validity check rejected it";
    }
    if (!why.empty()) {
      skipped[level].push_back(detail::shape_text(e.shape) + " on " + describe(table.devices[e.device].identity) +
                               ": " + why);
      continue;
    }
    const auto& tuned = table.devices[e.device].identity;
    const rules::Candidate candidate{level, rules::shape_distance(query.shape.data(), e.shape.data(), e.shape.size()),
                                     rules::driver_gap(level, tuned.driver_version, query.device.driver_version),
                                     e.cache_mode == preferred_mode ? 0 : 1, e.updated_at, i};
    if (!best || rules::better(candidate, best_candidate)) {
      best = &e;
      best_candidate = candidate;
    }
  }

  LookupResult result;
  for (int l = 0; l < static_cast<int>(rules::Level::none); ++l) {
    const auto level = static_cast<rules::Level>(l);
    const Match m = match_of(level);
    if (best && best_candidate.level == level) {
      // What the level also held and could not use: an entry nearer the
      // shape that this device cannot run is said, not silently passed over.
      result.explain.push_back(std::string(level_text(m)) + ": matched");
      for (const auto& s : skipped[level]) result.explain.push_back("  skipped " + s);
      break;
    }
    std::string line = std::string(level_text(m)) + ": ";
    line += seen[level] == 0 ? "no entry of " + query.kernel : std::to_string(seen[level]) + " entries, none usable";
    result.explain.push_back(line);
    for (const auto& s : skipped[level]) result.explain.push_back("  skipped " + s);
  }

  if (!best) {
    if (!baseline) {
      throw Error(Error::Kind::no_match, "vktune lookup: table '" + table.source + "' has no entry of kernel '" +
                                             query.kernel + "' usable for shape " + detail::shape_text(query.shape) +
                                             " on " + describe(query.device) + ", and no baseline was given");
    }
    result.match = Match::baseline;
    result.contract = *baseline;
    result.match_text = "baseline: no usable tuned " + query.kernel + " entry for shape " +
                        detail::shape_text(query.shape) + " on this device's vendor in '" + table.source + "'";
    result.explain.push_back("baseline: used");
    evaluate(result, query.shape);
    return result;
  }
  result.match = match_of(best_candidate.level);
  result.entry = best;
  result.tuned_device = table.devices[best->device].identity;
  result.tuned_shape = best->shape;
  result.exact_shape = best->shape == query.shape;
  result.shape_distance = best_candidate.distance;
  result.contract = best->contract;
  evaluate(result, query.shape);
  char distance[32];
  std::snprintf(distance, sizeof distance, "%.3g", result.shape_distance);
  result.match_text = std::string(level_text(result.match)) + ": " + describe(*result.tuned_device) + ", " +
                      (result.exact_shape ? "exact shape " + detail::shape_text(best->shape)
                                          : "nearest shape " + detail::shape_text(best->shape) + " (distance " +
                                                distance + ")") +
                      (best->cache_mode.empty() ? "" : ", " + best->cache_mode);
  return result;
}

}  // namespace vktune::runtime
