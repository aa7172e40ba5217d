#pragma once
// Reading GGUF files (versions 2 and 3; see gguf_format.hpp for the layout).
//
// The parser trusts nothing: every count, length, type id, dimension, offset
// and size is checked against the bytes that are really there before it is
// used, so a malformed or hostile file gives an Error(format) that names the
// problem and its byte offset, never an over-read, a crash or an allocation
// larger than the file justifies. Deliberate choices:
//   - version 1, big-endian files and unknown value or tensor types are
//     rejected (the message names the type id);
//   - keys and tensor names must be non-empty, valid UTF-8 and unique (tensor
//     names at most 64 bytes, keys at most 65535); string values must be
//     valid UTF-8 too, as the specification requires of every GGUF string
//     (the error names the key and, inside arrays, the item);
//   - bool values must be 0 or 1; float values may be any bit pattern;
//   - arrays nest at most 8 deep, and a file holds at most 2^24 metadata
//     values in all (a tokenizer of 256k tokens needs under 2^20);
//   - general.alignment, when present, must be a uint32 power of two;
//   - tensors need 1 to 4 non-zero dimensions, a row that is a whole number
//     of blocks, an offset that is a multiple of the alignment, and bytes
//     that lie inside the file and overlap no other tensor.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/gguf_format.hpp"
#include "reference/gguf_value.hpp"
#include "reference/read_only_file.hpp"

namespace vktune::ref {

inline constexpr std::size_t gguf_max_array_depth = 8;
inline constexpr std::uint64_t gguf_max_metadata_values = std::uint64_t{1} << 24;

// Everything a GGUF file says about itself; tensor bytes stay in the file.
struct GgufContents {
  std::uint32_t version = 3;
  std::uint64_t alignment = gguf_default_alignment;
  std::uint64_t data_offset = 0;  // start of the tensor data section in the file
  std::vector<GgufKeyValue> metadata;  // in file order
  std::vector<GgufTensorInfo> tensors;  // in file order

  const GgufValue* find(std::string_view key) const;  // nullptr when absent
  const GgufTensorInfo* find_tensor(std::string_view name) const;
};

// Parses a complete GGUF file held in memory. `source` names it in errors
// ("model.gguf: tensor count ... at byte 16").
GgufContents parse_gguf(std::span<const std::uint8_t> bytes, std::string_view source = "GGUF data");

// A parsed GGUF file together with its bytes (read from disk on demand, or
// owned). A file on disk is never memory-mapped: if it shrinks while it is
// read, reading a tensor gives an Error(io) naming the file, not a SIGBUS.
class GgufFile {
 public:
  // Reads the metadata of `path` and parses it: Error(io) if it cannot be
  // read, Error(format) if malformed. Tensor bytes are read when asked for.
  static GgufFile open(const std::filesystem::path& path);
  static GgufFile from_bytes(std::vector<std::uint8_t> bytes, std::string source = "GGUF data");

  const GgufContents& contents() const { return contents_; }
  std::uint64_t file_size() const { return size_; }  // when opened
  // Bytes [offset, offset + out.size()) of a tensor of this file.
  void read_tensor(const GgufTensorInfo& tensor, std::uint64_t offset, std::span<std::uint8_t> out) const;
  // All raw bytes of a tensor of this file.
  std::vector<std::uint8_t> tensor_data(const GgufTensorInfo& tensor) const;
  // Rows [first_row, first_row + rows) dequantized to float (so a large
  // tensor can be streamed without holding it whole).
  std::vector<float> dequantize_row_range(const GgufTensorInfo& tensor, std::uint64_t first_row,
                                          std::size_t rows) const;
  // The tensor dequantized to float, row-major with shape[0] fastest.
  std::vector<float> dequantize(const GgufTensorInfo& tensor) const;

 private:
  GgufFile() = default;
  std::optional<ReadOnlyFile> file_;
  std::vector<std::uint8_t> owned_;
  std::uint64_t size_ = 0;
  GgufContents contents_;
};

}  // namespace vktune::ref
