#pragma once
// Writing GGUF files (version 3 by default, or 2: the layouts are the same
// for little-endian files). Metadata is written in the order it was set,
// tensors in the order they were added, each tensor's data at the next
// multiple of the alignment and padded with zeros to the next one, so every
// file it writes is one the reader accepts.
//
// The alignment is the value of "general.alignment" when that key is set
// (it must be a uint32 power of two), else 32.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "reference/gguf_format.hpp"
#include "reference/gguf_value.hpp"

namespace vktune::ref {

class GgufWriter {
 public:
  explicit GgufWriter(std::uint32_t version = 3);  // 2 or 3, else Error(usage)

  // Adds a key. Error(usage) for an empty, non-UTF-8 or duplicate key, an
  // array whose items are not all of its element type, or a bad alignment.
  void set(std::string key, GgufValue value);
  // Adds a tensor; `data` must be exactly its size (rows of row_bytes).
  // Error(usage) for a bad name or shape, or a size mismatch.
  void add_tensor(std::string name, GgmlType type, std::vector<std::uint64_t> shape, std::vector<std::uint8_t> data);

  std::vector<std::uint8_t> bytes() const;
  void write(const std::filesystem::path& path) const;  // Error(io) on failure

 private:
  struct Tensor {
    std::string name;
    GgmlType type;
    std::vector<std::uint64_t> shape;
    std::vector<std::uint8_t> data;
  };
  std::uint32_t version_;
  std::uint64_t alignment_ = gguf_default_alignment;
  std::vector<GgufKeyValue> metadata_;
  std::vector<Tensor> tensors_;
};

}  // namespace vktune::ref
