#pragma once
// The ggml tensor types vktune understands, with their GGUF type ids and block
// geometry. A "block" is the unit a quantized row is made of: `block_weights`
// weights stored in `block_bytes` bytes. F32 and F16 are blocks of one weight.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace vktune::ref {

enum class GgmlType : std::uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  IQ4_NL = 20,
  IQ4_XS = 23,
};

// Every supported type, in id order.
std::span<const GgmlType> all_ggml_types();

// The names of the supported types, comma-separated in id order ("F32, F16,
// Q4_0, ..."), or only the quantized ones: what an error message lists.
std::string ggml_type_list(bool quantized_only = false);

std::size_t block_weights(GgmlType type);  // weights per block: 1, 32 or 256
std::size_t block_bytes(GgmlType type);    // bytes per block
// Bytes of one row of k weights. Throws Error(usage) when k is not a multiple
// of the type's block (or would overflow size_t).
std::size_t row_bytes(GgmlType type, std::size_t k);
std::string_view type_name(GgmlType type);  // "F32", "Q4_K", ...
bool is_quantized(GgmlType type);           // everything but F32 and F16

// The type with GGUF id `id`, or nullopt for ids vktune does not support.
std::optional<GgmlType> ggml_type_from_id(std::uint32_t id);
// The type named `name` (as type_name spells it, case-insensitive), or nullopt.
std::optional<GgmlType> ggml_type_from_name(std::string_view name);

}  // namespace vktune::ref
