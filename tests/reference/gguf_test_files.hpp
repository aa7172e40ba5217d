#pragma once
// Small GGUF files for the reader tests, made with the writer.
#include <cstdint>
#include <vector>

#include "reference/gguf_writer.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::ref::testing {

// A valid file with a few metadata types (string, bool, array, float) and two
// tensors (F32 2x32 and Q8_0 32x2), everything the mutation tests poke at.
inline std::vector<std::uint8_t> small_gguf() {
  GgufWriter writer;
  writer.set("general.architecture", GgufValue("llama"));
  writer.set("test.flag", GgufValue(true));
  writer.set("test.list", make_array(GgufValueType::int32, {GgufValue(1), GgufValue(2), GgufValue(3)}));
  writer.set("test.scale", GgufValue(0.5f));
  writer.add_tensor("tensor.a1", GgmlType::F32, {32, 2}, random_quantized_rows(GgmlType::F32, 2, 32, 1));
  writer.add_tensor("tensor.b2", GgmlType::Q8_0, {32, 2}, random_quantized_rows(GgmlType::Q8_0, 2, 32, 2));
  return writer.bytes();
}

}  // namespace vktune::ref::testing
