#include "results/export_header.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "common/error.hpp"

namespace vktune::results {
namespace {

// The part of the header that does not depend on the table.
constexpr std::string_view preamble = R"cpp(#pragma once
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

namespace vktune_table {

// Workgroups along one axis: ceil(shape[shape_dim] / divisor), or 1 when shape_dim < 0.
struct DispatchAxis {
  std::int32_t shape_dim;
  std::uint32_t divisor;
};

// One VkSpecializationMapEntry: constant_id and its 32-bit value (ints as
// two's complement, bools as 0/1, floats as their bits).
struct SpecConstant {
  std::uint32_t id;
  std::uint32_t value;
};

// The tuned winner for one (device, kernel, shape, cache mode).
struct Entry {
  std::uint32_t vendor_id;
  std::uint32_t device_id;
  std::uint32_t driver_version;
  std::string_view device_name;
  std::string_view kernel;
  std::string_view shape_text;           // "M,N,K", dims in the kernel's order
  std::span<const std::uint32_t> shape;  // the same dims as numbers
  std::string_view cache_mode;           // "cold" or "hot"
  std::string_view variant_hash;
  std::string_view config_json;          // parameter values, for people
  std::array<std::uint32_t, 3> local_size;
  std::array<DispatchAxis, 3> dispatch;
  std::uint32_t required_subgroup_size;  // 0 = none required
  std::span<const SpecConstant> specialization;
  std::span<const std::uint32_t> spirv;  // SPIR-V words for VkShaderModuleCreateInfo
  double median_ns;
  double gbps;
  double gflops;
};

)cpp";

constexpr std::string_view lookup = R"cpp(
// Workgroup counts of an entry's dispatch rule for a shape.
inline std::array<std::uint32_t, 3> workgroup_counts(const Entry& entry, std::span<const std::uint32_t> shape) noexcept {
  std::array<std::uint32_t, 3> counts{1, 1, 1};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const DispatchAxis rule = entry.dispatch[axis];
    if (rule.shape_dim < 0 || static_cast<std::size_t>(rule.shape_dim) >= shape.size() || rule.divisor == 0) continue;
    const std::uint64_t extent = shape[static_cast<std::size_t>(rule.shape_dim)];
    counts[axis] = static_cast<std::uint32_t>((extent + rule.divisor - 1) / rule.divisor);
  }
  return counts;
}

// The regime of a shape, as the runtime library defines it: for 3-dim
// (M,N,K) shapes decode (M <= 8) or prefill (M > 8); one regime otherwise.
// A variant is never used across regimes.
inline int shape_regime(std::span<const std::uint32_t> shape) noexcept {
  return shape.size() == 3 && shape[0] <= 8 ? 1 : 0;
}

// How far a tuned shape is from a wanted one: the sum over dims of
// |log2(a) - log2(b)|; infinite across dimension counts or regimes. 0
// exactly when the shapes are equal.
inline double shape_distance(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) noexcept {
  if (a.size() != b.size() || shape_regime(a) != shape_regime(b)) return std::numeric_limits<double>::infinity();
  double distance = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    const double la = std::log2(a[i] == 0 ? 1.0 : static_cast<double>(a[i]));
    const double lb = std::log2(b[i] == 0 ? 1.0 : static_cast<double>(b[i]));
    distance += std::fabs(la - lb);
  }
  return distance;
}

// The entry for (device, kernel, shape): the exact shape when tuned, else the
// nearest tuned shape of the same kernel on the same device (same number of
// dims, same regime). cache_mode "" accepts both modes. Ties go to "cold", then to the
// newest driver version, then to the first entry. nullptr when the device
// has no entry for the kernel.
inline const Entry* find(std::uint32_t vendor_id, std::uint32_t device_id, std::string_view kernel,
                         std::span<const std::uint32_t> shape, std::string_view cache_mode = {}) noexcept {
  const Entry* best = nullptr;
  double best_distance = 0;
  for (const Entry& entry : entries) {
    if (entry.vendor_id != vendor_id || entry.device_id != device_id || entry.kernel != kernel) continue;
    if (entry.shape.size() != shape.size() || (!cache_mode.empty() && entry.cache_mode != cache_mode)) continue;
    const double distance = shape_distance(entry.shape, shape);
    if (distance == std::numeric_limits<double>::infinity()) continue;  // another regime
    bool better = best == nullptr || distance < best_distance;
    if (!better && !(distance > best_distance)) {
      const bool cold = entry.cache_mode == "cold", best_cold = best->cache_mode == "cold";
      better = cold != best_cold ? cold : entry.driver_version > best->driver_version;
    }
    if (better) {
      best = &entry;
      best_distance = distance;
    }
  }
  return best;
}

// True when the entry was tuned for exactly this shape.
inline bool is_exact(const Entry& entry, std::span<const std::uint32_t> shape) noexcept {
  return shape_distance(entry.shape, shape) == 0.0;
}

}  // namespace vktune_table
)cpp";

std::string cpp_string(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (u < 0x20 || u >= 0x7f) {
      char octal[8];
      std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned>(u));
      quoted += octal;
    } else {
      quoted += c;
    }
  }
  return quoted + '"';
}

std::string cpp_double(double value) {
  if (std::isnan(value)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(value)) return value > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
  std::string text = shortest(value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string hex_word(std::uint32_t word) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08xu", static_cast<unsigned>(word));
  return text;
}

Error bad_winner(const Winner& w, const std::string& why) {
  return Error(ErrorKind::format, "cannot export the winner of '" + w.kernel + "' shape '" + w.shape + "' (" +
                                      w.cache_mode + ") as a header: " + why);
}

std::array<std::pair<std::int64_t, std::uint64_t>, 3> dispatch_rule(const Winner& w) {
  const auto rule = nlohmann::json::parse(w.dispatch_json, nullptr, false);
  const auto why = "its dispatch rule '" + w.dispatch_json + "' is not [{\"shape_dim\": d, \"divisor\": q} x 3]";
  if (!rule.is_array() || rule.size() != 3) throw bad_winner(w, why);
  std::array<std::pair<std::int64_t, std::uint64_t>, 3> axes{};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& a = rule[i];
    if (!a.is_object() || !a.contains("shape_dim") || !a["shape_dim"].is_number_integer() || !a.contains("divisor") ||
        !a["divisor"].is_number_unsigned() || a["divisor"].get<std::uint64_t>() == 0 ||
        a["divisor"].get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
      throw bad_winner(w, why);
    }
    axes[i] = {a["shape_dim"].get<std::int64_t>(), a["divisor"].get<std::uint64_t>()};
    if (axes[i].first > 64 || axes[i].first < -1) throw bad_winner(w, why);
  }
  return axes;
}

std::map<std::uint32_t, std::uint32_t> spec_constants(const Winner& w) {
  std::map<std::uint32_t, std::uint32_t> constants;
  if (w.specialization_json.empty()) return constants;
  const auto spec = nlohmann::json::parse(w.specialization_json, nullptr, false);
  const auto why = "its specialization constants '" + w.specialization_json +
                   "' are not an object of {\"constant_id\": int, bool or float}";
  if (!spec.is_object()) throw bad_winner(w, why);
  for (const auto& [key, value] : spec.items()) {
    const auto id = shape_dims(key);
    if (!id || id->size() != 1) throw bad_winner(w, why);
    std::uint32_t bits = 0;
    if (value.is_boolean()) bits = value.get<bool>() ? 1u : 0u;
    else if (value.is_number_integer()) bits = static_cast<std::uint32_t>(value.get<std::int64_t>());
    else if (value.is_number_float()) bits = std::bit_cast<std::uint32_t>(value.get<float>());
    else throw bad_winner(w, why);
    constants[id->front()] = bits;
  }
  return constants;
}

}  // namespace

std::string export_header(const Store& store, const ExportFilter& filter) {
  const auto selection = select(store, filter);
  const auto winners = selected_winners(store, selection);

  std::ostringstream data, entries;
  std::map<std::string, std::string> spirv_arrays;  // SPIR-V hash -> array name, each stored once
  for (std::size_t i = 0; i < winners.size(); ++i) {
    const auto& w = winners[i];
    const auto& device = selection.devices[selection.device_rank(w.device_id)].second;
    const auto dims = shape_dims(w.shape);
    if (!dims) throw bad_winner(w, "its shape is not comma-separated unsigned numbers");
    const auto axes = dispatch_rule(w);
    const auto constants = spec_constants(w);

    auto [spirv, added] = spirv_arrays.emplace(w.spirv_hash, "spirv_" + std::to_string(spirv_arrays.size()));
    if (added) {
      data << "// SPIR-V " << w.spirv_hash << ", " << w.spirv.size() << " words\ninline constexpr std::uint32_t "
           << spirv->second << "[] = {";
      for (std::size_t k = 0; k < w.spirv.size(); ++k) {
        data << (k % 8 == 0 ? "\n    " : " ") << hex_word(w.spirv[k]) << (k + 1 < w.spirv.size() ? "," : "");
      }
      data << "};\n";
    }
    const std::string shape_name = "shape_" + std::to_string(i);
    data << "inline constexpr std::uint32_t " << shape_name << "[] = {";
    for (std::size_t k = 0; k < dims->size(); ++k) data << (k ? ", " : "") << (*dims)[k] << 'u';
    data << "};\n";
    std::string spec_name = "{}";
    if (!constants.empty()) {
      spec_name = "detail::spec_" + std::to_string(i);
      data << "inline constexpr SpecConstant spec_" << i << "[] = {";
      bool first = true;
      for (const auto& [id, value] : constants) {
        data << (first ? "" : ", ") << '{' << id << "u, " << hex_word(value) << '}';
        first = false;
      }
      data << "};\n";
    }

    entries << "    Entry{.vendor_id = " << hex_word(device.vendor_id) << ", .device_id = " << hex_word(device.device_id)
            << ", .driver_version = " << hex_word(device.driver_version)
            << ",\n          .device_name = " << cpp_string(device.name) << ", .kernel = " << cpp_string(w.kernel)
            << ", .shape_text = " << cpp_string(w.shape) << ",\n          .shape = detail::" << shape_name
            << ", .cache_mode = " << cpp_string(w.cache_mode) << ", .variant_hash = " << cpp_string(w.variant_hash)
            << ",\n          .config_json = " << cpp_string(w.config_json) << ",\n          .local_size = {"
            << w.local_size[0] << "u, " << w.local_size[1] << "u, " << w.local_size[2] << "u}, .dispatch = {{";
    for (std::size_t a = 0; a < 3; ++a) entries << (a ? ", " : "") << '{' << axes[a].first << ", " << axes[a].second << "u}";
    entries << "}}, .required_subgroup_size = " << w.required_subgroup_size << "u,\n          .specialization = "
            << spec_name << ", .spirv = detail::" << spirv->second << ",\n          .median_ns = "
            << cpp_double(w.median_ns) << ", .gbps = " << cpp_double(w.gbps) << ", .gflops = " << cpp_double(w.gflops)
            << "},\n";
  }

  std::ostringstream out;
  out << "// vktune tuned table: " << winners.size() << " entries, generated by " << generator_version()
      << " (`vktune export --format header`).\n"
         "// Do not edit: export again. Needs only the C++20 standard library. API: results/TABLE_FORMAT.md.\n"
         "//\n"
         "//   std::uint32_t shape[] = {1, 4096, 4096};\n"
         "//   if (const auto* e = vktune_table::find(props.vendorID, props.deviceID, \"matmul_q4k\", shape)) {\n"
         "//     // e->spirv, e->local_size, e->specialization, e->required_subgroup_size,\n"
         "//     // vktune_table::workgroup_counts(*e, shape)\n"
         "//   }\n"
      << preamble << "inline constexpr int format_version = " << table_format_version << ";\n"
      << "inline constexpr std::string_view generator = " << cpp_string(generator_version()) << ";\n\n"
      << "namespace detail {\n"
      << data.str() << "}  // namespace detail\n\n"
      << "inline constexpr std::array<Entry, " << winners.size() << "> entries = {";
  if (winners.empty()) {
    out << "};\n";
  } else {
    out << "{\n" << entries.str() << "}};\n";
  }
  out << lookup;
  return out.str();
}

}  // namespace vktune::results
