#pragma once
// Facts of the GGUF file format shared by the reader and the writer, and the
// description of one tensor. Layout of a GGUF (v2, v3) file, little-endian:
//   u32 magic "GGUF" | u32 version | u64 tensor_count | u64 metadata_kv_count
//   metadata_kv_count × { string key | u32 value_type | value }
//   tensor_count × { string name | u32 n_dims | u64 dims[n_dims] | u32 ggml_type | u64 offset }
//   zero padding up to a multiple of the alignment, then the tensor data,
//   each tensor at data_start + offset, offset a multiple of the alignment.
// A string is a u64 byte length and that many UTF-8 bytes (no terminator); an
// array is a u32 element type, a u64 count and the elements.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/text_escape.hpp"  // is_valid_utf8: GGUF strings are UTF-8
#include "reference/gguf_types.hpp"

namespace vktune::ref {

inline constexpr std::uint32_t gguf_magic = 0x46554747;  // "GGUF" read as a little-endian u32
inline constexpr std::uint64_t gguf_default_alignment = 32;
inline constexpr std::string_view gguf_alignment_key = "general.alignment";
inline constexpr std::size_t gguf_max_dims = 4;
inline constexpr std::size_t gguf_max_tensor_name = 64;  // bytes
inline constexpr std::size_t gguf_max_key = 65535;       // bytes

struct GgufTensorInfo {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<std::uint64_t> shape;  // shape[0] (ne0) is the row length, the fastest dimension
  std::uint64_t offset = 0;          // from the start of the data section
  std::uint64_t file_offset = 0;     // from the start of the file
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;

  std::uint64_t row_length() const { return shape.empty() ? 0 : shape[0]; }
  std::uint64_t rows() const { return shape.empty() || shape[0] == 0 ? 0 : elements / shape[0]; }
};

// Element count and byte size of a tensor, or the reason it is invalid (zero
// or too many dimensions, a zero dimension, a row that is not a whole number
// of blocks, or a size that overflows 64 bits). `problem` is empty when valid.
struct TensorSize {
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
  std::string problem;
};
TensorSize compute_tensor_size(GgmlType type, std::span<const std::uint64_t> shape);

// Whether alignment is a usable GGUF alignment: a power of two.
inline bool is_valid_alignment(std::uint64_t alignment) {
  return alignment != 0 && (alignment & (alignment - 1)) == 0;
}

}  // namespace vktune::ref
