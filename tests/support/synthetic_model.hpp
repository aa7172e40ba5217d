#pragma once
// Llama-family GGUF models of given dimensions and weight types, with zero
// weights, for `vktune model` (which reads shapes and types, never
// weights): the tiny model of the tests and Llama-3-8B as llama.cpp's
// Q4_K_M quantizes it, for measurements on a GPU (write_model.cpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/gguf_types.hpp"
#include "reference/gguf_writer.hpp"

namespace vktune::testing_support {

struct ModelPlan {
  std::string architecture = "llama";
  std::uint32_t layers = 2, embedding = 256, feed_forward = 512, heads = 4, kv_heads = 2, vocab = 128;
  ref::GgmlType embedding_type = ref::GgmlType::F16, output_type = ref::GgmlType::Q6_K;
  // The type of blk.LAYER.ROLE.weight ("attn_q", ..., "ffn_down").
  std::function<ref::GgmlType(const std::string& role, std::uint32_t layer)> type;
};

inline ref::GgufWriter synthetic_model(const ModelPlan& plan) {
  using ref::GgmlType;
  ref::GgufWriter w;
  const std::string& a = plan.architecture;
  w.set("general.architecture", a);
  w.set("general.name", std::string("synthetic"));
  w.set(a + ".block_count", plan.layers);
  w.set(a + ".embedding_length", plan.embedding);
  w.set(a + ".feed_forward_length", plan.feed_forward);
  w.set(a + ".attention.head_count", plan.heads);
  w.set(a + ".attention.head_count_kv", plan.kv_heads);
  auto tensor = [&](const std::string& name, GgmlType type, std::uint64_t k, std::uint64_t rows) {
    w.add_tensor(name, type, rows == 1 ? std::vector<std::uint64_t>{k} : std::vector<std::uint64_t>{k, rows},
                 std::vector<std::uint8_t>(ref::row_bytes(type, k) * rows, 0));
  };
  const std::uint32_t head_dim = plan.embedding / plan.heads, kv = plan.kv_heads * head_dim;
  tensor("token_embd.weight", plan.embedding_type, plan.embedding, plan.vocab);
  for (std::uint32_t layer = 0; layer < plan.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    auto t = [&](const char* role) { return plan.type(role, layer); };
    tensor(blk + "attn_norm.weight", GgmlType::F32, plan.embedding, 1);
    tensor(blk + "attn_q.weight", t("attn_q"), plan.embedding, plan.embedding);
    tensor(blk + "attn_k.weight", t("attn_k"), plan.embedding, kv);
    tensor(blk + "attn_v.weight", t("attn_v"), plan.embedding, kv);
    tensor(blk + "attn_output.weight", t("attn_output"), plan.embedding, plan.embedding);
    tensor(blk + "ffn_norm.weight", GgmlType::F32, plan.embedding, 1);
    tensor(blk + "ffn_gate.weight", t("ffn_gate"), plan.embedding, plan.feed_forward);
    tensor(blk + "ffn_up.weight", t("ffn_up"), plan.embedding, plan.feed_forward);
    tensor(blk + "ffn_down.weight", t("ffn_down"), plan.feed_forward, plan.embedding);
  }
  tensor("output_norm.weight", GgmlType::F32, plan.embedding, 1);
  tensor("output.weight", plan.output_type, plan.embedding, plan.vocab);
  return w;
}

// 2 layers, embedding 256, 4 query heads and 2 KV heads of 64, feed-forward
// 512, vocabulary 128, with a real type mix: Q8_0 q/k/v, Q4_K output and
// gate/up, Q6_K ffn_down in layer 0 and Q4_K in layer 1, a Q6_K output
// head, an F16 embedding.
inline ref::GgufWriter tiny_model(const std::string& architecture = "llama") {
  ModelPlan plan;
  plan.architecture = architecture;
  plan.type = [](const std::string& role, std::uint32_t layer) {
    if (role == "attn_q" || role == "attn_k" || role == "attn_v") return ref::GgmlType::Q8_0;
    if (role == "ffn_down" && layer == 0) return ref::GgmlType::Q6_K;
    return ref::GgmlType::Q4_K;
  };
  return synthetic_model(plan);
}

// Llama-3-8B (32 layers, 4096, 14336, 32 heads and 8 KV heads of 128,
// vocabulary 128256) with llama.cpp's Q4_K_M type mix: Q4_K everywhere but
// attn_v and ffn_down in the layers that get more bits (the first and last
// eighth and every third between: 16 of 32), which are Q6_K, and a Q6_K
// output head.
inline ModelPlan llama3_8b_q4_k_m() {
  ModelPlan plan{"llama", 32, 4096, 14336, 32, 8, 128256, ref::GgmlType::Q4_K, ref::GgmlType::Q6_K, {}};
  plan.type = [](const std::string& role, std::uint32_t layer) {
    const std::uint32_t n = 32;
    const bool more_bits = layer < n / 8 || layer >= 7 * n / 8 || (layer >= n / 8 && (layer - n / 8) % 3 == 2);
    return (role == "attn_v" || role == "ffn_down") && more_bits ? ref::GgmlType::Q6_K : ref::GgmlType::Q4_K;
  };
  return plan;
}

}  // namespace vktune::testing_support
