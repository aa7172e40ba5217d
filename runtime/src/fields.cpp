#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "table_data.hpp"

namespace vktune::runtime::detail {
namespace {

constexpr std::uint32_t kSpirvMagic = 0x07230203u;
constexpr std::size_t kSpirvHeaderWords = 5;

// 0..63 for a base64 digit, -1 otherwise.
int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool as_uint32(const nlohmann::json& value, std::uint32_t& out) {
  if (!value.is_number_integer()) return false;
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > std::numeric_limits<std::uint32_t>::max()) return false;
    out = static_cast<std::uint32_t>(v);
    return true;
  }
  const auto v = value.get<std::int64_t>();
  if (v < 0 || v > std::numeric_limits<std::uint32_t>::max()) return false;
  out = static_cast<std::uint32_t>(v);
  return true;
}

}  // namespace

void fail(const std::string& source, const std::string& what) {
  throw Error(Error::Kind::format, "vktune table '" + source + "': " + what);
}

std::vector<std::uint32_t> parse_shape_text(std::string_view text) {
  std::vector<std::uint32_t> shape;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const auto part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::uint32_t value = 0;
    const auto* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, value);
    if (part.empty() || ec != std::errc() || ptr != end || value == 0) return {};
    shape.push_back(value);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return shape;
}

std::string shape_text(std::span<const std::uint32_t> shape) {
  std::string text;
  for (const auto d : shape) {
    if (!text.empty()) text += ',';
    text += std::to_string(d);
  }
  return text;
}

DispatchRule parse_dispatch(const nlohmann::json& value, const std::string& source, const std::string& where) {
  const auto bad = [&](const std::string& why) {
    fail(source, where + ": " + why + " (expected 3 axes {\"shape_dim\": d, \"divisor\": q}, d < 0 for 1 workgroup)");
  };
  if (!value.is_array() || value.size() != 3) bad("not an array of 3 axes");
  DispatchRule rule{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const auto& a = value[axis];
    if (!a.is_object() || !a.contains("shape_dim") || !a.contains("divisor")) {
      bad("axis " + std::to_string(axis) + " lacks shape_dim or divisor");
    }
    const auto& dim = a["shape_dim"];
    if (!dim.is_number_integer()) bad("axis " + std::to_string(axis) + " has a non-integer shape_dim");
    // Shapes have a handful of dimensions; anything larger is corruption.
    if (dim.is_number_unsigned() && dim.get<std::uint64_t>() > 64) {
      bad("axis " + std::to_string(axis) + " names shape dimension " + std::to_string(dim.get<std::uint64_t>()));
    }
    const auto d = dim.get<std::int64_t>();
    std::uint32_t divisor = 0;
    if (!as_uint32(a["divisor"], divisor) || divisor == 0) {
      bad("axis " + std::to_string(axis) + " has a divisor that is not a positive 32-bit integer");
    }
    rule[axis].shape_dim = d < 0 ? -1 : static_cast<int>(d);
    rule[axis].divisor = divisor;
    if (a.contains("fold") && (!as_uint32(a["fold"], rule[axis].fold) || rule[axis].fold == 0)) {
      bad("axis " + std::to_string(axis) + " has a fold that is not a positive 32-bit integer");
    }
  }
  // A fold leaves the rest of its count to the next axis: without that axis
  // reading the same dimension by divisor * fold, the dispatch would cover
  // part of the work, so a contract that says otherwise is refused.
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const auto& a = rule[axis];
    if (a.fold == 0) continue;
    if (axis == 2 || a.shape_dim < 0 || rule[axis + 1].shape_dim != a.shape_dim ||
        rule[axis + 1].divisor != rules::folded_divisor(a.divisor, a.fold)) {
      bad("axis " + std::to_string(axis) + " folds, but the next axis does not carry the rest (shape_dim " +
          std::to_string(a.shape_dim) + ", divisor " + std::to_string(rules::folded_divisor(a.divisor, a.fold)) + ")");
    }
  }
  return rule;
}

std::vector<SpecializationConstant> parse_specialization(const nlohmann::json& value, const std::string& source,
                                                         const std::string& where) {
  std::vector<SpecializationConstant> constants;
  if (value.is_null()) return constants;
  if (!value.is_object()) fail(source, where + ": not an object {\"constant_id\": value}");
  for (const auto& [key, v] : value.items()) {
    SpecializationConstant c;
    const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), c.id);
    if (key.empty() || ec != std::errc() || ptr != key.data() + key.size()) {
      fail(source, where + ": key '" + key + "' is not a constant_id (a 32-bit unsigned integer)");
    }
    if (v.is_boolean()) {
      c.value = v.get<bool>() ? 1u : 0u;
    } else if (v.is_number_integer()) {
      if (v.is_number_unsigned()) {
        if (v.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
          fail(source, where + "[" + key + "]: value does not fit 32 bits");
        }
        c.value = static_cast<std::uint32_t>(v.get<std::uint64_t>());
      } else {
        const auto s = v.get<std::int64_t>();
        if (s < std::numeric_limits<std::int32_t>::min() || s > std::numeric_limits<std::int32_t>::max()) {
          fail(source, where + "[" + key + "]: value does not fit 32 bits");
        }
        c.value = static_cast<std::uint32_t>(static_cast<std::int32_t>(s));
      }
    } else if (v.is_number_float()) {
      const float f = static_cast<float>(v.get<double>());
      std::memcpy(&c.value, &f, sizeof f);
    } else {
      fail(source, where + "[" + key + "]: value is not a number or boolean");
    }
    constants.push_back(c);
  }
  std::sort(constants.begin(), constants.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  // Keys "1" and "01" name the same constant.
  for (std::size_t i = 1; i < constants.size(); ++i) {
    if (constants[i].id == constants[i - 1].id) {
      fail(source, where + ": constant_id " + std::to_string(constants[i].id) + " appears twice");
    }
  }
  return constants;
}

bool base64_decode(std::string_view text, std::vector<std::uint8_t>& bytes) {
  bytes.clear();
  if (text.size() % 4 != 0) return false;
  bytes.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::size_t padding = 0;
    if (last && text[i + 3] == '=') padding = text[i + 2] == '=' ? 2 : 1;
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      int v = 0;
      if (k < 4 - padding) {
        v = base64_value(text[i + k]);
        if (v < 0) return false;
      }
      group = (group << 6) | static_cast<std::uint32_t>(v);
    }
    // Canonical encoding only: the bits under the padding must be zero.
    if ((padding == 1 && (group & 0xffu) != 0) || (padding == 2 && (group & 0xffffu) != 0)) return false;
    for (std::size_t k = 0; k < 3 - padding; ++k) bytes.push_back(static_cast<std::uint8_t>(group >> (16 - 8 * k)));
  }
  return true;
}

std::vector<std::uint32_t> spirv_from_bytes(std::span<const std::uint8_t> bytes, std::string_view hash,
                                            const std::string& source, const std::string& where) {
  if (bytes.size() % 4 != 0) {
    fail(source, where + ": " + std::to_string(bytes.size()) + " bytes of SPIR-V is not a whole number of words");
  }
  if (bytes.size() < 4 * kSpirvHeaderWords) {
    fail(source, where + ": " + std::to_string(bytes.size()) + " bytes is too short for SPIR-V");
  }
  std::vector<std::uint32_t> words(bytes.size() / 4);
  for (std::size_t i = 0; i < words.size(); ++i) {
    words[i] = static_cast<std::uint32_t>(bytes[4 * i]) | static_cast<std::uint32_t>(bytes[4 * i + 1]) << 8 |
               static_cast<std::uint32_t>(bytes[4 * i + 2]) << 16 | static_cast<std::uint32_t>(bytes[4 * i + 3]) << 24;
  }
  if (words[0] != kSpirvMagic) fail(source, where + ": not SPIR-V (wrong magic number)");
  if (!hash.empty() && format::content_hash(bytes.data(), bytes.size()) != hash) {
    fail(source, where + ": the SPIR-V does not match its hash " + std::string(hash) + " (the table is corrupt)");
  }
  return words;
}

void check_entry(const TableData& table, const Entry& entry, const std::string& where) {
  if (entry.device >= table.devices.size()) fail(table.source, where + ": refers to no device of the table");
  if (entry.kernel.empty()) fail(table.source, where + ": empty kernel name");
  if (entry.shape.empty()) fail(table.source, where + ": empty shape");
  if (entry.contract.stages.empty()) fail(table.source, where + ": no stages");
  for (std::size_t s = 0; s < entry.contract.stages.size(); ++s) {
    const auto& stage = entry.contract.stages[s];
    const auto field = where + ".contract.stages[" + std::to_string(s) + "]";
    for (std::size_t axis = 0; axis < 3; ++axis) {
      const int d = stage.dispatch[axis].shape_dim;
      if (d >= 0 && static_cast<std::size_t>(d) >= entry.shape.size()) {
        fail(table.source, field + ": dispatch axis " + std::to_string(axis) + " names shape dimension " +
                               std::to_string(d) + " of a " + std::to_string(entry.shape.size()) +
                               "-dimensional shape");
      }
    }
    for (const auto size : stage.local_size) {
      if (size == 0) fail(table.source, field + ": local_size has a zero dimension");
    }
  }
  // The tuned shape must be one the entry serves.
  const auto& c = entry.contract;
  if (rules::shape_mismatch(entry.shape.data(), entry.shape.size(), entry.shape.data(), entry.shape.size(),
                            c.shape_class.data(), c.shape_class.size(), c.specialized_dims.data(),
                            c.specialized_dims.size()) != nullptr) {
    fail(table.source, where + ".contract.shape_class: does not hold the entry's own shape");
  }
}

}  // namespace vktune::runtime::detail
