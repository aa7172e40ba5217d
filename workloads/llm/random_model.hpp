#pragma once
// GGUF models with real metadata, tensor names, shapes and a type mix, and
// random weights: the models `vktune gguf --make-random PRESET MIX` writes,
// for tuning and measuring a model where none can be downloaded. Tests use
// the tiny preset.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "reference/gguf_reader.hpp"
#include "reference/gguf_types.hpp"
#include "reference/gguf_writer.hpp"

namespace vktune::model {

struct ModelPreset {
  std::string name;          // "llama3-8b"
  std::string architecture;  // "llama"
  std::uint32_t layers = 0, embedding = 0, feed_forward = 0, heads = 0, kv_heads = 0, vocab = 0, context_length = 0;
  bool qkv_bias = false;  // qwen2: a bias added to each of q, k and v
  bool qk_norm = false;   // qwen3: an rmsnorm over each head of q and k
};

// The shapes of real models of each family vktune serves (llama3-8b,
// mistral-7b, qwen2.5-7b, qwen3-8b: their published layer counts, widths,
// head counts, vocabularies and context lengths), and a tiny model of each
// (2 layers, 256 wide, heads of 64) for tests on a CPU device.
// model_presets' list is where each is written down.
const std::vector<ModelPreset>& model_presets();
// "Q4_K_M" (llama.cpp's: Q4_K, with attn_v and ffn_down in Q6_K in the
// layers that get more bits, and a Q6_K output head), "Q8_0", "F16".
const std::vector<std::string>& type_mixes();

// Throws Error(usage) naming the known presets or mixes.
const ModelPreset& find_preset(const std::string& name);
void check_type_mix(const std::string& mix);

// The model in memory: every weight random, uniform with a root mean square
// of 1/sqrt(K) (then quantized), norms around 1; reproducible from `seed`.
ref::GgufWriter random_model(const ModelPreset& preset, const std::string& mix, std::uint64_t seed);

// Random bytes of one tensor of `type`, k wide and `rows` rows: values
// uniform in [lo, hi), quantized for quantized types, whose rows past the
// first kDistinctRows repeat them.
inline constexpr std::uint64_t kDistinctRows = 1024;
std::vector<std::uint8_t> random_tensor_bytes(ref::GgmlType type, std::uint64_t k, std::uint64_t rows,
                                              std::uint64_t seed, float lo = -1, float hi = 1);

// The type of each weight: ROLE is "token_embd", "output", or a layer's
// "attn_q" ... "ffn_down" (LAYER its index). The norms are F32.
using TypeOf = std::function<ref::GgmlType(const std::string& role, std::uint32_t layer)>;
ref::GgufWriter random_model(const ModelPreset& preset, const TypeOf& type_of, const std::string& mix_name,
                             std::uint64_t seed);

// What random_model(preset, mix, seed) would write, as a reader parses it
// (metadata and tensor infos, offsets as written), without making a byte
// of the weights: a model's ops at full size without its gigabytes.
ref::GgufContents preset_contents(const ModelPreset& preset, const std::string& mix);

}  // namespace vktune::model
