#include "reference/gguf_types.hpp"

#include <array>
#include <limits>
#include <string>

#include "common/error.hpp"

namespace vktune::ref {

namespace {

struct TypeTraits {
  GgmlType type;
  std::string_view name;
  std::size_t weights;
  std::size_t bytes;
};

// Block geometry from the GGUF specification (ggml's block structs), in id
// order: the one list of supported types (all_ggml_types reads it).
constexpr std::array<TypeTraits, 13> kTraits{{
    {GgmlType::F32, "F32", 1, 4},
    {GgmlType::F16, "F16", 1, 2},
    {GgmlType::Q4_0, "Q4_0", 32, 18},
    {GgmlType::Q5_0, "Q5_0", 32, 22},
    {GgmlType::Q5_1, "Q5_1", 32, 24},
    {GgmlType::Q8_0, "Q8_0", 32, 34},
    {GgmlType::Q2_K, "Q2_K", 256, 84},
    {GgmlType::Q3_K, "Q3_K", 256, 110},
    {GgmlType::Q4_K, "Q4_K", 256, 144},
    {GgmlType::Q5_K, "Q5_K", 256, 176},
    {GgmlType::Q6_K, "Q6_K", 256, 210},
    {GgmlType::IQ4_NL, "IQ4_NL", 32, 18},
    {GgmlType::IQ4_XS, "IQ4_XS", 256, 136},
}};

constexpr auto kAllTypes = [] {
  std::array<GgmlType, kTraits.size()> types{};
  for (std::size_t i = 0; i < kTraits.size(); ++i) types[i] = kTraits[i].type;
  return types;
}();

constexpr bool in_id_order() {
  for (std::size_t i = 1; i < kTraits.size(); ++i) {
    if (static_cast<std::uint32_t>(kTraits[i - 1].type) >= static_cast<std::uint32_t>(kTraits[i].type)) return false;
  }
  return true;
}
static_assert(in_id_order(), "kTraits lists the types in id order, each once");

const TypeTraits& traits(GgmlType type) {
  for (const auto& t : kTraits) {
    if (t.type == type) return t;
  }
  throw Error(ErrorKind::usage,
              "unsupported ggml type id " + std::to_string(static_cast<std::uint32_t>(type)));
}

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

}  // namespace

std::span<const GgmlType> all_ggml_types() { return kAllTypes; }

std::size_t block_weights(GgmlType type) { return traits(type).weights; }
std::size_t block_bytes(GgmlType type) { return traits(type).bytes; }
std::string_view type_name(GgmlType type) { return traits(type).name; }
bool is_quantized(GgmlType type) { return type != GgmlType::F32 && type != GgmlType::F16; }

std::string ggml_type_list(bool quantized_only) {
  std::string list;
  for (const auto& t : kTraits) {
    if (quantized_only && !is_quantized(t.type)) continue;
    if (!list.empty()) list += ", ";
    list += t.name;
  }
  return list;
}

std::size_t row_bytes(GgmlType type, std::size_t k) {
  const TypeTraits& t = traits(type);
  if (k % t.weights != 0) {
    throw Error(ErrorKind::usage, "a row of " + std::to_string(k) + " weights is not a whole number of " +
                                      std::string(t.name) + " blocks (" + std::to_string(t.weights) +
                                      " weights each)");
  }
  const std::size_t blocks = k / t.weights;
  if (blocks > std::numeric_limits<std::size_t>::max() / t.bytes) {
    throw Error(ErrorKind::usage, "a row of " + std::to_string(k) + " weights is too large");
  }
  return blocks * t.bytes;
}

std::optional<GgmlType> ggml_type_from_id(std::uint32_t id) {
  for (const auto& t : kTraits) {
    if (static_cast<std::uint32_t>(t.type) == id) return t.type;
  }
  return std::nullopt;
}

std::optional<GgmlType> ggml_type_from_name(std::string_view name) {
  for (const auto& t : kTraits) {
    if (t.name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size(); ++i) same = same && upper(name[i]) == t.name[i];
    if (same) return t.type;
  }
  return std::nullopt;
}

}  // namespace vktune::ref
