#pragma once
// Helpers every kernel file uses: random inputs, host buffers, shape and
// parameter checks, a subgroup-size request's legality, and a config's
// defines. Vulkan-free: kernels describe work, the harness runs it.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "harness/limit_rules.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::support {

using Defines = std::vector<std::pair<std::string, std::string>>;

// Uniform floats in [lo, hi) from std::mt19937_64 seeded with `seed`, or
// adversarial ones in the same range (ref::InputKind); never exactly zero.
inline std::vector<float> random_values(std::size_t count, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f,
                                        InputKind kind = InputKind::random) {
  if (kind == InputKind::adversarial) return ref::adversarial_floats(count, seed, lo, hi);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(count);
  for (auto& v : values) {
    do v = dist(rng);
    while (v == 0.0f);
  }
  return values;
}

// An input buffer, marked as weights: timing rotates copies of it, so it is
// read from memory, not the cache.
inline HostBuffer input_buffer(const std::string& name, const std::vector<float>& values) {
  HostBuffer b{name, std::vector<std::uint8_t>(values.size() * sizeof(float)), false, true};
  std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}

inline HostBuffer output_buffer(const std::string& name, std::size_t floats) {
  return HostBuffer{name, std::vector<std::uint8_t>(floats * sizeof(float)), true, false};
}

// A problem whose output is the last buffer.
inline Problem problem_of(const Shape& shape, std::vector<HostBuffer> buffers, std::vector<double> expected) {
  Problem problem;
  problem.shape = shape;
  problem.buffers = std::move(buffers);
  problem.output_index = problem.buffers.size() - 1;
  problem.expected = std::move(expected);
  return problem;
}

// Bytes of `floats` fp32 values.
inline std::uint64_t floats_bytes(std::uint64_t floats) { return floats * sizeof(float); }

// Shape dims all positive, `dims` of them.
inline void check_dim_count(const std::string& kernel, const std::vector<std::string>& dims, const Shape& shape) {
  if (shape.size() != dims.size()) {
    std::string names;
    for (const auto& d : dims) names += (names.empty() ? "" : ",") + d;
    throw Error(ErrorKind::usage, kernel + " takes shapes " + names + "; got " + std::to_string(shape.size()) +
                                      " dimensions");
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) throw Error(ErrorKind::usage, kernel + ": " + dims[i] + " must be positive");
  }
}

// The above, and the product of all dims small enough for 32-bit float
// indices (for kernels whose buffers are the whole shape, flat).
inline void check_dims(const std::string& kernel, const std::vector<std::string>& dims, const Shape& shape) {
  check_dim_count(kernel, dims, shape);
  std::uint64_t total = 1;
  for (auto d : shape) total *= d;
  if (total >= (1ull << 31)) {
    throw Error(ErrorKind::usage, kernel + ": shape " + shape_to_string(shape) + " has " + std::to_string(total) +
                                      " elements, more than 32-bit indexing allows");
  }
}

// The values of `names`, given in ascending order, read in one ordered walk
// of the config. Rules that read many parameters of every enumerated config
// (attention_decode's walk: 13 at each of its ~30,000 configs a shape, once
// per pruning rule) spent most of the enumeration in map lookups, each a
// handful of string compares; one walk compares each entry once.
template <std::size_t N>
std::array<int, N> ordered_values(const Config& config, const std::array<std::string_view, N>& names) {
  std::array<int, N> values{};
  auto it = config.begin();
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0 && !NameLess{}(names[i - 1], names[i])) {
      throw Error(ErrorKind::internal, "ordered_values: " + std::string(names[i]) + " is out of order");
    }
    while (it != config.end() && NameLess{}(it->first, names[i])) ++it;
    if (it == config.end() || it->first != names[i]) {
      throw Error(ErrorKind::internal, "parameter " + std::string(names[i]) + " is missing from the config");
    }
    values[i] = it->second;
  }
  return values;
}

// Empty when every parameter of the space is present with a candidate value.
inline Violation parameter_violation(const Config& config, const Space& space) {
  for (const auto& p : space.parameters) {
    const auto it = config.find(p.name);
    if (it == config.end()) return legality::kParameterMissing("parameter " + p.name + " is missing");
    if (std::find(p.values.begin(), p.values.end(), it->second) == p.values.end()) {
      return legality::kParameterValue(p.name + "=" + std::to_string(it->second) + " is not a candidate value");
    }
  }
  if (config.size() != space.parameters.size()) {
    return legality::kParameterOutside("the config has parameters outside the space");
  }
  return {};
}

// A requested subgroup size (0 = the device's choice) for a workgroup of
// `wg` invocations.
inline Violation subgroup_size_violation(int subgroup_size, std::uint32_t wg, const vk::DeviceInfo& device) {
  if (subgroup_size == 0) return {};
  const auto sg = static_cast<std::uint32_t>(subgroup_size);
  if (!device.supports_required_subgroup_size(sg)) {
    return vk::limits::kSubgroupRange("the device cannot require subgroup size " + std::to_string(sg));
  }
  if (device.min_subgroup_size == device.max_subgroup_size) {
    return legality::kDuplicate("subgroup size " + std::to_string(sg) +
                                " is the device's only size: SUBGROUP_SIZE=0 is the same variant");
  }
  if (wg % sg != 0) {
    return legality::kSubgroupDivides("WG_SIZE " + std::to_string(wg) + " is not a multiple of SUBGROUP_SIZE " +
                                      std::to_string(sg));
  }
  return {};
}

inline Defines config_defines(const Config& config, const Space& space) {
  Defines defines;
  for (const auto& p : space.parameters) {
    const auto it = config.find(p.name);
    if (it == config.end()) throw Error(ErrorKind::internal, "config lacks parameter " + p.name);
    defines.emplace_back(p.name, std::to_string(it->second));
  }
  return defines;
}

}  // namespace vktune::kernels::support
