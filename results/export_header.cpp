#include "results/export_header.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "results/table_format.hpp"

namespace vktune::results {
namespace {

// The part of the header that does not depend on the table. C++17.
constexpr std::string_view preamble = R"cpp(#pragma once
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace vktune_table {

// The lookup rules of vktune's runtime library, its own text
// (runtime/lookup_rules.inc): device levels, shape classes, distance,
// tie-breaks, device needs.
namespace rules {
)cpp";

constexpr std::string_view types = R"cpp(

// Workgroups along one axis: ceil(shape[shape_dim] / divisor), or 1 when shape_dim < 0;
// at most `fold` when fold > 0, the next axis carrying the rest (0 = unfolded).
struct DispatchAxis {
  std::int32_t shape_dim;
  std::uint32_t divisor;
  std::uint32_t fold;
};

// One VkSpecializationMapEntry: constant_id and its 32-bit value.
struct SpecConstant {
  std::uint32_t id;
  std::uint32_t value;
};

// One dispatch of a variant; every stage binds all the entry's bindings and
// gets the entry's push constants (push_constant_words), with a
// compute-to-compute barrier between stages.
struct Stage {
  const std::uint32_t* spirv;  // SPIR-V words for VkShaderModuleCreateInfo
  std::size_t spirv_words;
  std::uint32_t local_size[3];
  DispatchAxis dispatch[3];
  std::uint32_t required_subgroup_size;  // 0 = none required
  bool require_full_subgroups;
  std::uint32_t shared_memory_bytes;
  const SpecConstant* specialization;
  std::size_t specialization_count;
};

// bytes = ceil(sum of coefficient * product of shape[dims] / divisor), rounded up to align.
struct SizeTerm {
  std::uint64_t coefficient;
  const int* dims;
  std::size_t dim_count;
};
// One 32-bit push-constant word: ceil(sum of coefficient * product of shape[dims] / divisor),
// or (expression not empty) an expression of the shape's dimensions, named in dims;
// pushed as its type says: "u32", "i32" (two's complement) or "f32" (a float's bits).
struct PushWord {
  std::string_view name;
  const SizeTerm* terms;
  std::size_t term_count;
  std::uint64_t divisor;
  std::string_view type;
  std::string_view expression;
  const std::string_view* dims;
  std::size_t dim_count;
};

// One word of a uniform block: a push-constant word at a byte offset.
struct UniformMember {
  std::uint32_t offset;
  PushWord word;
};

struct Binding {  // set 0, binding = its index
  std::string_view name;
  // "input", "weights", "output", "scratch" (allocate, zero once): storage buffers;
  // "uniform": a uniform buffer holding uniform_block()'s bytes.
  std::string_view role;
  const SizeTerm* terms;
  std::size_t term_count;
  std::uint64_t divisor, align;
  std::int32_t alias_of;  // >= 0: bind the buffer of that binding here too; -1: its own
  const UniformMember* members;  // role "uniform": the block's words
  std::size_t member_count;
};

// The tuned winner for one (device, kernel, shape, cache mode), with its launch contract.
struct Entry {
  std::uint32_t vendor_id, device_id, driver_version;
  std::string_view device_name, device_uuid;
  std::string_view kernel;
  std::string_view shape_text;  // "M,N,K", dims in the kernel's order
  const std::uint32_t* shape;
  std::size_t shape_dims;
  std::string_view cache_mode;  // "cold" or "hot"
  std::string_view variant_hash;
  std::string_view config_json;  // parameter values, for people
  const rules::DimBound* shape_class;  // the shapes it serves
  std::size_t shape_class_count;
  const int* specialized_dims;  // dims compiled into the SPIR-V: must equal the tuned shape's
  std::size_t specialized_count;
  const Binding* bindings;
  std::size_t binding_count;
  const Stage* stages;
  std::size_t stage_count;
  const std::string_view* features;  // device features the SPIR-V needs
  std::size_t feature_count;
  double median_ns, gbps, gflops;
  // The push-constant layout; none (0) = the shape, one word per dimension.
  const PushWord* push_constants;
  std::size_t push_constant_count;
  std::string_view updated_at;  // when it was measured, ISO 8601 UTC (rules::Candidate)
};

)cpp";

constexpr std::string_view lookup = R"cpp(
// Workgroup counts of one stage for a shape (of the entry's dimension count).
inline std::array<std::uint32_t, 3> workgroup_counts(const Stage& stage, const std::uint32_t* shape) noexcept {
  return {rules::workgroups_along(stage.dispatch[0].shape_dim, stage.dispatch[0].divisor, stage.dispatch[0].fold, shape),
          rules::workgroups_along(stage.dispatch[1].shape_dim, stage.dispatch[1].divisor, stage.dispatch[1].fold, shape),
          rules::workgroups_along(stage.dispatch[2].shape_dim, stage.dispatch[2].divisor, stage.dispatch[2].fold, shape)};
}

// ceil(sum of the terms for a shape / divisor): binding sizes and push-constant words.
inline std::uint64_t terms_over(const SizeTerm* terms, std::size_t count, std::uint64_t divisor,
                                const std::uint32_t* shape) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t t = 0; t < count; ++t) {
    std::uint64_t product = terms[t].coefficient;
    for (std::size_t d = 0; d < terms[t].dim_count; ++d) product *= shape[terms[t].dims[d]];
    sum += product;
  }
  return divisor <= 1 ? sum : (sum + divisor - 1) / divisor;
}

// Bytes of one binding for a shape.
inline std::uint64_t binding_bytes(const Binding& binding, const std::uint32_t* shape) noexcept {
  const std::uint64_t whole = terms_over(binding.terms, binding.term_count, binding.divisor, shape);
  return binding.align <= 1 ? whole : (whole + binding.align - 1) / binding.align * binding.align;
}

// One word's bits for a shape; false when it has no value of its type there.
inline bool word_at(const PushWord& word, const Entry& entry, const std::uint32_t* shape, std::uint32_t& out) noexcept {
  double value = 0;
  if (word.expression.empty()) {
    value = static_cast<double>(terms_over(word.terms, word.term_count, word.divisor, shape));
  } else {
    double values[32] = {};
    for (std::size_t d = 0; d < entry.shape_dims && d < 32; ++d) values[d] = shape[d];
    const auto v = words::evaluate_word_expression(word.expression, word.dims, word.dim_count, values);
    if (!v.ok) return false;
    value = v.value;
  }
  return words::word_bits(value, word.type, out);
}

// Uniform binding `binding`'s block for a shape into `out` (room for
// binding_bytes of it): each member's bits at its offset, little-endian,
// zeros elsewhere. False when a member has no value of its type there.
inline bool uniform_block(const Entry& entry, std::size_t binding, const std::uint32_t* shape, std::uint8_t* out) noexcept {
  const Binding& b = entry.bindings[binding];
  const std::uint64_t bytes = binding_bytes(b, shape);
  for (std::uint64_t i = 0; i < bytes; ++i) out[i] = 0;
  for (std::size_t m = 0; m < b.member_count; ++m) {
    std::uint32_t bits = 0;
    if (!word_at(b.members[m].word, entry, shape, bits)) return false;
    for (std::uint32_t i = 0; i < 4; ++i) out[b.members[m].offset + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  }
  return true;
}

// The entry's push-constant words for a shape into `out` (room for
// max(push_constant_count, shape_dims) words); returns how many: the shape
// itself when the entry has no layout of its own; 0 when a word has no
// value of its type at this shape (an expression's 1 / (n - 4) at n = 4).
inline std::size_t push_constant_words(const Entry& entry, const std::uint32_t* shape, std::uint32_t* out) noexcept {
  if (entry.push_constant_count == 0) {
    for (std::size_t d = 0; d < entry.shape_dims; ++d) out[d] = shape[d];
    return entry.shape_dims;
  }
  for (std::size_t w = 0; w < entry.push_constant_count; ++w) {
    if (!word_at(entry.push_constants[w], entry, shape, out[w])) return 0;
  }
  return entry.push_constant_count;
}

// The device asking (VkPhysicalDeviceProperties; the UUID as lowercase hex, "" when unknown).
struct Device {
  std::uint32_t vendor_id, device_id, driver_version;
  std::string_view name, uuid;
};

struct Found {
  const Entry* entry;  // nullptr: nothing fits, use your baseline
  rules::Level level;
  double distance;
};

// Why the device cannot run the entry, or "".
inline std::string unmet(const Entry& e, const rules::Capabilities& device) {
  if (auto why = rules::unmet_push_constants(device, e.push_constant_count); !why.empty()) return why;
  for (std::size_t f = 0; f < e.feature_count; ++f) {
    if (auto why = rules::missing_feature(device, e.features[f]); !why.empty()) return why;
  }
  for (std::size_t s = 0; s < e.stage_count; ++s) {
    const Stage& st = e.stages[s];
    const rules::StageNeeds needs{st.local_size[0] * st.local_size[1] * st.local_size[2], st.shared_memory_bytes,
                                  st.required_subgroup_size};
    if (auto why = rules::unmet_need(device, needs); !why.empty()) return why;
  }
  return {};
}

// The runtime library's lookup over this header's entries: the best device
// level with an entry of the kernel that serves the shape and that the
// device can run, then the best candidate (rules::better). cache_mode ""
// prefers "cold". {nullptr, Level::none} when nothing fits.
inline Found find(const Device& device, std::string_view kernel, const std::uint32_t* shape, std::size_t shape_dims,
                  std::string_view cache_mode = {}, const rules::Capabilities& capabilities = {}) {
  const std::string_view preferred = cache_mode.empty() ? std::string_view("cold") : cache_mode;
  const rules::DeviceKey query{device.vendor_id, device.device_id, device.driver_version, device.name, device.uuid};
  Found found{nullptr, rules::Level::none, 0};
  rules::Candidate best;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.kernel != kernel) continue;
    const rules::DeviceKey tuned{e.vendor_id, e.device_id, e.driver_version, e.device_name, e.device_uuid};
    const auto level = rules::device_level(tuned, query);
    if (level == rules::Level::none) continue;
    if (rules::shape_mismatch(e.shape, e.shape_dims, shape, shape_dims, e.shape_class, e.shape_class_count,
                              e.specialized_dims, e.specialized_count) != nullptr) {
      continue;
    }
    if (!unmet(e, capabilities).empty()) continue;
    const rules::Candidate candidate{level, rules::shape_distance(shape, e.shape, shape_dims),
                                     rules::driver_gap(level, e.driver_version, device.driver_version),
                                     e.cache_mode == preferred ? 0 : 1, e.updated_at, i};
    if (found.entry == nullptr || rules::better(candidate, best)) {
      found = {&e, level, candidate.distance};
      best = candidate;
    }
  }
  return found;
}

}  // namespace vktune_table
)cpp";

std::string cpp_string(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {  // '?': no trigraph can form (a C++14 compiler may read them)
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

// Text for a // comment: a newline would end the comment and make the rest
// code, a trailing backslash would splice the next line into it, so
// everything but printable ASCII other than backslash becomes '?'.
std::string cpp_comment(std::string_view text) {
  std::string safe(text);
  for (char& c : safe) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '\\') c = '?';
  }
  return safe;
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

Error bad_entry(const nlohmann::json& w, const std::string& why) {
  return Error(ErrorKind::format, "cannot export the winner of '" + w.value("kernel", std::string()) + "' shape '" +
                                      w.value("shape", std::string()) + "' (" + w.value("cache_mode", std::string()) +
                                      ") as a header: " + why);
}

// The arrays of one rule's terms (a binding's size, a push-constant word):
// PREFIXdims_ID_T for each term's dimensions, then PREFIXterms_ID of them all.
void write_terms(std::ostream& data, const std::string& prefix, const std::string& id, const nlohmann::json& terms) {
  for (std::size_t t = 0; t < terms.size(); ++t) {
    data << "inline constexpr int " << prefix << "dims_" << id << "_" << t << "[] = {";
    for (const auto& d : terms[t].at("dims")) data << d.get<int>() << ", ";
    data << "-1};\n";
  }
  data << "inline constexpr SizeTerm " << prefix << "terms_" << id << "[] = {";
  for (std::size_t t = 0; t < terms.size(); ++t) {
    data << "{" << terms[t].at("coefficient").get<std::uint64_t>() << "u, " << prefix << "dims_" << id << "_" << t
         << ", " << terms[t].at("dims").size() << "}, ";
  }
  data << "{0u, nullptr, 0}};\n";
}

// The initializer of one PushWord (a push-constant word or a uniform
// member's), its terms in TERMS (written by write_terms), an expression's
// names in NAMES.
std::string push_word_init(const nlohmann::json& word, const std::string& terms, const std::string& names,
                           std::size_t dim_count) {
  std::ostringstream out;
  const auto type = cpp_string(word.value("type", std::string("u32")));
  out << "{" << cpp_string(word.at("name").get<std::string>()) << ", ";
  if (word.contains("expression")) {
    out << "nullptr, 0, 1u, " << type << ", " << cpp_string(word.at("expression").get<std::string>());
  } else {
    const auto& value = word.at("value");
    out << terms << ", " << value.at("terms").size() << ", " << value.at("divisor").get<std::uint64_t>() << "u, "
        << type << ", \"\"";
  }
  out << ", " << names << ", " << dim_count << "}";
  return out.str();
}

std::uint32_t spec_bits(const nlohmann::json& value) {
  if (value.is_boolean()) return value.get<bool>() ? 1u : 0u;
  if (value.is_number_integer()) return static_cast<std::uint32_t>(value.get<std::int64_t>());
  return std::bit_cast<std::uint32_t>(value.get<float>());
}

}  // namespace

std::string export_header(const Store& store, const ExportFilter& filter, const ContractSource& contracts,
                          const FeaturesOf& features_of, std::vector<std::string>* skipped) {
  // The header is the JSON table in another form: the same selection, order and contracts.
  const auto table = export_table(store, filter, contracts, skipped);
  std::map<std::int64_t, const nlohmann::json*> devices;
  for (const auto& d : table["devices"]) devices[d["id"].get<std::int64_t>()] = &d;

  std::ostringstream data, rows;
  std::map<std::string, std::string> spirv_arrays;  // hash -> array name, each stored once
  std::map<std::string, std::vector<std::string>> spirv_features;
  std::size_t index = 0;
  for (const auto& w : table["winners"]) {
    const std::string n = std::to_string(index++);
    const auto& device = *devices.at(w["device"].get<std::int64_t>());
    const auto dims = shape_dims(w["shape"].get<std::string>());
    if (!dims) throw bad_entry(w, "its shape is not comma-separated unsigned numbers");
    const auto& c = w["contract"];
    try {
      data << "inline constexpr std::uint32_t shape_" << n << "[] = {";
      for (std::size_t k = 0; k < dims->size(); ++k) data << (k ? ", " : "") << (*dims)[k] << 'u';
      data << "};\n";
      // Shape class, specialised dims.
      data << "inline constexpr rules::DimBound class_" << n << "[] = {";
      for (const auto& b : c.at("shape_class")) {
        data << "{" << b.at("dim").get<int>() << ", " << b.at("min").get<std::uint32_t>() << "u, "
             << b.at("max").get<std::uint32_t>() << "u}, ";
      }
      data << "{0, 1u, 0u}};  // the last is a placeholder: arrays may not be empty\n";
      data << "inline constexpr int specialized_" << n << "[] = {";
      for (const auto& d : c.at("specialized_dims")) data << d.get<int>() << ", ";
      data << "-1};\n";
      // A word given as an expression (a push constant's, a uniform member's) names the contract's dimensions.
      const std::string names = "shape_names_" + n;
      const auto dim_count = c.at("shape_dims").size();
      data << "inline constexpr std::string_view " << names << "[] = {";
      for (const auto& d : c.at("shape_dims")) data << cpp_string(d.get<std::string>()) << ", ";
      data << "\"\"};\n";
      // Bindings, with a uniform block's members and an alias's target.
      const auto& bindings = c.at("bindings");
      const std::string members_field(table_format::binding_members_field);
      const std::string alias_field(table_format::binding_alias_field);
      const std::string offset_field(table_format::member_offset_field);
      for (std::size_t b = 0; b < bindings.size(); ++b) {
        const auto id = n + "_" + std::to_string(b);
        write_terms(data, "", id, bindings[b].at("size").at("terms"));
        const auto members = bindings[b].value(members_field, nlohmann::json::array());
        for (std::size_t m = 0; m < members.size(); ++m) {
          if (members[m].contains("expression")) continue;
          write_terms(data, "member_", id + "_" + std::to_string(m), members[m].at("value").at("terms"));
        }
        data << "inline constexpr UniformMember members_" << id << "[] = {";
        for (std::size_t m = 0; m < members.size(); ++m) {
          data << "\n    {" << members[m].at(offset_field).get<std::uint32_t>() << "u, "
               << push_word_init(members[m], "member_terms_" + id + "_" + std::to_string(m), names, dim_count) << "},";
        }
        data << "\n    {0u, {\"\", nullptr, 0, 1u, \"u32\", \"\", nullptr, 0}}};\n";
      }
      data << "inline constexpr Binding bindings_" << n << "[] = {";
      for (std::size_t b = 0; b < bindings.size(); ++b) {
        const auto& size = bindings[b].at("size");
        const auto id = n + "_" + std::to_string(b);
        data << "\n    {" << cpp_string(bindings[b].at("name").get<std::string>()) << ", "
             << cpp_string(bindings[b].at("role").get<std::string>()) << ", terms_" << id << ", "
             << size.at("terms").size() << ", " << size.at("divisor").get<std::uint64_t>() << "u, "
             << size.at("align").get<std::uint64_t>() << "u, " << bindings[b].value(alias_field, -1) << ", members_"
             << id << ", " << bindings[b].value(members_field, nlohmann::json::array()).size() << "},";
      }
      data << "\n    {\"\", \"\", nullptr, 0, 1u, 1u, -1, nullptr, 0}};\n";
      // Push constants (absent from the contract = the shape: none here).
      const auto push = c.contains("push_constants") ? c.at("push_constants") : nlohmann::json::array();
      for (std::size_t p = 0; p < push.size(); ++p) {
        if (push[p].contains("expression")) continue;
        write_terms(data, "push_", n + "_" + std::to_string(p), push[p].at("value").at("terms"));
      }
      data << "inline constexpr PushWord push_" << n << "[] = {";
      for (std::size_t p = 0; p < push.size(); ++p) {
        data << "\n    " << push_word_init(push[p], "push_terms_" + n + "_" + std::to_string(p), names, dim_count) << ",";
      }
      data << "\n    {\"\", nullptr, 0, 1u, \"u32\", \"\", nullptr, 0}};\n";
      // Stages, and the features their SPIR-V needs.
      const auto& stages = c.at("stages");
      std::vector<std::string> features;
      for (std::size_t s = 0; s < stages.size(); ++s) {
        const auto& st = stages[s];
        const auto hash = st.at("spirv_hash").get<std::string>();
        const auto words = spirv_from_base64(table["spirv"].at(hash).get<std::string>());
        auto [spirv, added] = spirv_arrays.emplace(hash, "spirv_" + std::to_string(spirv_arrays.size()));
        if (added) {
          data << "// SPIR-V " << cpp_comment(hash) << ", " << words.size() << " words\ninline constexpr std::uint32_t "
               << spirv->second << "[] = {";
          for (std::size_t k = 0; k < words.size(); ++k) {
            data << (k % 8 == 0 ? "\n    " : " ") << hex_word(words[k]) << (k + 1 < words.size() ? "," : "");
          }
          data << "};\n";
          spirv_features[hash] = features_of ? features_of(words) : std::vector<std::string>{};
        }
        for (const auto& f : spirv_features[hash]) {
          if (std::find(features.begin(), features.end(), f) == features.end()) features.push_back(f);
        }
        data << "inline constexpr SpecConstant spec_" << n << "_" << s << "[] = {";
        for (const auto& [key, value] : st.at("specialization").items()) {
          const auto id = shape_dims(key);
          if (!id || id->size() != 1) throw bad_entry(w, "specialization constant id '" + key + "' is not a number");
          data << "{" << id->front() << "u, " << hex_word(spec_bits(value)) << "}, ";
        }
        data << "{0u, 0u}};\n";
      }
      data << "inline constexpr Stage stages_" << n << "[] = {";
      for (std::size_t s = 0; s < stages.size(); ++s) {
        const auto& st = stages[s];
        const auto& local = st.at("local_size");
        const auto& dispatch = st.at("dispatch");
        if (!dispatch.is_array() || dispatch.size() != 3) throw bad_entry(w, "its dispatch rule is not 3 axes");
        data << "\n    {detail::" << spirv_arrays.at(st.at("spirv_hash").get<std::string>()) << ", "
             << spirv_from_base64(table["spirv"].at(st.at("spirv_hash").get<std::string>()).get<std::string>()).size()
             << ", {" << local.at(0).get<std::uint32_t>() << "u, " << local.at(1).get<std::uint32_t>() << "u, "
             << local.at(2).get<std::uint32_t>() << "u}, {";
        for (std::size_t a = 0; a < 3; ++a) {
          data << (a ? ", " : "") << "{" << dispatch[a].at("shape_dim").get<std::int32_t>() << ", "
               << dispatch[a].at("divisor").get<std::uint32_t>() << "u, "
               << (dispatch[a].contains("fold") ? dispatch[a].at("fold").get<std::uint32_t>() : 0u) << "u}";
        }
        data << "}, " << st.at("required_subgroup_size").get<std::uint32_t>() << "u, "
             << (st.at("require_full_subgroups").get<bool>() ? "true" : "false") << ", "
             << st.at("shared_memory_bytes").get<std::uint32_t>() << "u, spec_" << n << "_" << s << ", "
             << st.at("specialization").size() << "},";
      }
      data << "};\n";
      data << "inline constexpr std::string_view features_" << n << "[] = {";
      for (const auto& f : features) data << cpp_string(f) << ", ";
      data << "\"\"};\n";

      rows << "    Entry{" << hex_word(device.at("vendor_id").get<std::uint32_t>()) << ", "
           << hex_word(device.at("device_id").get<std::uint32_t>()) << ", "
           << hex_word(device.at("driver_version").get<std::uint32_t>()) << ", "
           << cpp_string(device.at("name").get<std::string>()) << ", "
           << cpp_string(device.value("device_uuid", std::string())) << ",\n          "
           << cpp_string(w["kernel"].get<std::string>()) << ", " << cpp_string(w["shape"].get<std::string>())
           << ", detail::shape_" << n << ", " << dims->size() << ", " << cpp_string(w["cache_mode"].get<std::string>())
           << ", " << cpp_string(w["variant_hash"].get<std::string>()) << ",\n          "
           << cpp_string(w["config"].dump()) << ",\n          detail::class_" << n << ", "
           << c.at("shape_class").size() << ", detail::specialized_" << n << ", " << c.at("specialized_dims").size()
           << ", detail::bindings_" << n << ", " << bindings.size() << ", detail::stages_" << n << ", "
           << stages.size() << ", detail::features_" << n << ", " << features.size() << ",\n          "
           << cpp_double(w.value("median_ns", 0.0)) << ", " << cpp_double(w.value("gbps", 0.0)) << ", "
           << cpp_double(w.value("gflops", 0.0)) << ", detail::push_" << n << ", " << push.size() << ", "
           << cpp_string(w.value("updated_at", std::string())) << "},\n";
    } catch (const nlohmann::json::exception& e) {
      throw bad_entry(w, std::string("its contract does not have the expected fields: ") + e.what());
    }
  }

  std::ostringstream out;
  out << "// vktune tuned table: " << index << " entries, generated by " << generator_version()
      << " (`vktune export --format header`).\n"
         "// Do not edit: export again. Needs only the C++17 standard library. API: docs/TABLE_FORMAT.md.\n"
         "//\n"
         "//   const std::uint32_t shape[] = {1, 4096, 4096};\n"
         "//   const vktune_table::Device device{props.vendorID, props.deviceID, props.driverVersion, props.deviceName, uuid};\n"
         "//   if (const auto found = vktune_table::find(device, \"matmul_q4k\", shape, 3); found.entry) {\n"
         "//     // found.entry->stages[i]: spirv, local_size, workgroup_counts(stage, shape); bindings: binding_bytes\n"
         "//   }\n"
      << preamble << lookup_rules_text << "}  // namespace rules\n\n"
      << "// A push-constant word given as an expression: the runtime's own text\n"
         "// (runtime/src/word_expression.inc).\nnamespace words {\n"
      << word_expression_text << "}  // namespace words\n" << types << "inline constexpr int format_version = " << table_format_version
      << ";\n"
      << "inline constexpr std::string_view generator = " << cpp_string(generator_version()) << ";\n\n"
      << "namespace detail {\n"
      << data.str() << "}  // namespace detail\n\n"
      << "inline constexpr std::array<Entry, " << index << "> entries = {";
  if (index == 0) {
    out << "};\n";
  } else {
    out << "{\n" << rows.str() << "}};\n";
  }
  out << lookup;
  return out.str();
}

}  // namespace vktune::results
