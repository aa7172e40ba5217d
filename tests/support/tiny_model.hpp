#pragma once
// A tiny llama-family GGUF model for tests of `vktune model`: 2 layers,
// embedding 256, 4 query heads and 2 KV heads of 64, feed-forward 512,
// vocabulary 128, with a real type mix (Q8_0 q/k/v, Q4_K output and
// gate/up, Q6_K ffn_down in layer 0 and Q4_K in layer 1, a Q6_K output head,
// an F16 embedding). The weights are zeros: `vktune model` reads shapes and
// types, never weights.
#include <cstdint>
#include <string>
#include <vector>

#include "reference/gguf_types.hpp"
#include "reference/gguf_writer.hpp"

namespace vktune::testing_support {

inline ref::GgufWriter tiny_model(const std::string& architecture = "llama") {
  using ref::GgmlType;
  ref::GgufWriter w;
  w.set("general.architecture", architecture);
  w.set("general.name", std::string("tiny"));
  const std::string a = architecture;
  w.set(a + ".block_count", std::uint32_t{2});
  w.set(a + ".embedding_length", std::uint32_t{256});
  w.set(a + ".feed_forward_length", std::uint32_t{512});
  w.set(a + ".attention.head_count", std::uint32_t{4});
  w.set(a + ".attention.head_count_kv", std::uint32_t{2});
  auto tensor = [&](const std::string& name, GgmlType type, std::uint64_t k, std::uint64_t rows) {
    w.add_tensor(name, type, rows == 1 ? std::vector<std::uint64_t>{k} : std::vector<std::uint64_t>{k, rows},
                 std::vector<std::uint8_t>(ref::row_bytes(type, k) * rows, 0));
  };
  tensor("token_embd.weight", GgmlType::F16, 256, 128);
  for (int layer = 0; layer < 2; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    tensor(blk + "attn_norm.weight", GgmlType::F32, 256, 1);
    tensor(blk + "attn_q.weight", GgmlType::Q8_0, 256, 256);
    tensor(blk + "attn_k.weight", GgmlType::Q8_0, 256, 128);
    tensor(blk + "attn_v.weight", GgmlType::Q8_0, 256, 128);
    tensor(blk + "attn_output.weight", GgmlType::Q4_K, 256, 256);
    tensor(blk + "ffn_norm.weight", GgmlType::F32, 256, 1);
    tensor(blk + "ffn_gate.weight", GgmlType::Q4_K, 256, 512);
    tensor(blk + "ffn_up.weight", GgmlType::Q4_K, 256, 512);
    tensor(blk + "ffn_down.weight", layer == 0 ? GgmlType::Q6_K : GgmlType::Q4_K, 512, 256);
  }
  tensor("output_norm.weight", GgmlType::F32, 256, 1);
  tensor("output.weight", GgmlType::Q6_K, 256, 128);
  return w;
}

}  // namespace vktune::testing_support
