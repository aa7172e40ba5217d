#include "workloads/llm/random_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"
#include "reference/fp16.hpp"
#include "reference/gguf_types.hpp"
#include "reference/parallel_rows.hpp"
#include "reference/quantize.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::model {

const std::vector<ModelPreset>& model_presets() {
  // name, architecture, layers, embedding, feed-forward, heads, KV heads,
  // vocabulary, context, q/k/v biases, q/k norms. Mistral's GGUF files say
  // "llama" (the converters write its architecture so).
  static const std::vector<ModelPreset> presets{
      {"tiny", "llama", 2, 256, 512, 4, 2, 128, 2048},
      {"tiny-mistral", "llama", 2, 256, 768, 4, 1, 160, 4096},
      {"tiny-qwen2", "qwen2", 2, 256, 512, 4, 2, 192, 4096, true, false},
      {"tiny-qwen3", "qwen3", 2, 256, 768, 4, 2, 192, 4096, false, true},
      {"llama3-8b", "llama", 32, 4096, 14336, 32, 8, 128256, 8192},
      {"mistral-7b", "llama", 32, 4096, 14336, 32, 8, 32768, 32768},
      {"qwen2.5-7b", "qwen2", 28, 3584, 18944, 28, 4, 152064, 32768, true, false},
      {"qwen3-8b", "qwen3", 36, 4096, 12288, 32, 8, 151936, 40960, false, true},
  };
  return presets;
}

const std::vector<std::string>& type_mixes() {
  static const std::vector<std::string> mixes{"Q4_K_M", "Q8_0", "F16"};
  return mixes;
}

namespace {

template <class List, class Name>
std::string names_of(const List& list, Name name) {
  std::string text;
  for (const auto& item : list) text += (text.empty() ? "" : ", ") + name(item);
  return text;
}

// llama.cpp's Q4_K_M gives attn_v and ffn_down more bits in the first and
// last eighth of the layers and in every third layer between.
bool more_bits(std::uint32_t layer, std::uint32_t layers) {
  return layer < layers / 8 || layer >= 7 * layers / 8 || (layer >= layers / 8 && (layer - layers / 8) % 3 == 2);
}

ref::GgmlType type_of(const std::string& mix, const std::string& role, std::uint32_t layer, std::uint32_t layers) {
  if (mix == "F16") return ref::GgmlType::F16;
  if (mix == "Q8_0") return ref::GgmlType::Q8_0;
  if (role == "output") return ref::GgmlType::Q6_K;
  if ((role == "attn_v" || role == "ffn_down") && more_bits(layer, layers)) return ref::GgmlType::Q6_K;
  return ref::GgmlType::Q4_K;
}

}  // namespace

std::vector<std::uint8_t> random_tensor_bytes(ref::GgmlType type, std::uint64_t k, std::uint64_t rows,
                                              std::uint64_t seed, float lo, float hi) {
  if (ref::is_quantized(type) && rows > kDistinctRows) {
    // The first kDistinctRows rows, repeated: quantizing every row of an 8B
    // model costs some 25 CPU-minutes (the quantizer's scale search takes
    // 70-190 ns a weight), and a matrix product reads every row from memory
    // whether or not it repeats another.
    const auto distinct = random_tensor_bytes(type, k, kDistinctRows, seed, lo, hi);
    std::vector<std::uint8_t> bytes(ref::row_bytes(type, k) * rows);
    for (std::size_t at = 0; at < bytes.size(); at += distinct.size()) {
      std::memcpy(bytes.data() + at, distinct.data(), std::min(distinct.size(), bytes.size() - at));
    }
    return bytes;
  }
  const auto values = ref::random_floats(rows * k, seed, lo, hi);
  if (ref::is_quantized(type)) {
    // Quantized from the floats, rows spread over the cores.
    std::vector<std::uint8_t> bytes(ref::row_bytes(type, k) * rows);
    ref::parallel_rows(rows, [&](std::size_t begin, std::size_t end) {
      const auto part = ref::quantize_rows(type, values.data() + begin * k, end - begin, k);
      std::memcpy(bytes.data() + begin * ref::row_bytes(type, k), part.data(), part.size());
    });
    return bytes;
  }
  std::vector<std::uint8_t> bytes(ref::row_bytes(type, k) * rows);
  if (type == ref::GgmlType::F32) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  } else {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto h = ref::fp32_to_fp16(values[i]);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
  }
  return bytes;
}

const ModelPreset& find_preset(const std::string& name) {
  const auto& presets = model_presets();
  const auto it = std::find_if(presets.begin(), presets.end(), [&](const auto& p) { return p.name == name; });
  if (it == presets.end()) {
    throw Error(ErrorKind::usage, "no model preset '" + name +
                                      "' (presets: " + names_of(presets, [](const auto& p) { return p.name; }) + ")");
  }
  return *it;
}

void check_type_mix(const std::string& mix) {
  const auto& mixes = type_mixes();
  if (std::find(mixes.begin(), mixes.end(), mix) == mixes.end()) {
    throw Error(ErrorKind::usage,
                "no type mix '" + mix + "' (mixes: " + names_of(mixes, [](const auto& m) { return m; }) + ")");
  }
}

namespace {

// The metadata of a preset's file.
std::vector<ref::GgufKeyValue> preset_metadata(const ModelPreset& p, const std::string& mix) {
  const std::string& a = p.architecture;
  return {{"general.architecture", a},
          {"general.name", p.name + " " + mix + " (random weights)"},
          {a + ".block_count", p.layers},
          {a + ".context_length", p.context_length},
          {a + ".embedding_length", p.embedding},
          {a + ".feed_forward_length", p.feed_forward},
          {a + ".attention.head_count", p.heads},
          {a + ".attention.head_count_kv", p.kv_heads}};
}

// One tensor of a preset's file: k wide, `rows` rows (1: a vector), its
// random values uniform in [lo, hi).
struct PlannedTensor {
  std::string name;
  ref::GgmlType type;
  std::uint64_t k, rows;
  float lo, hi;
};

// A preset's tensors in file order: the weights uniform with a root mean
// square of 1/sqrt(K), as trained models roughly have (a product keeps its
// input's scale, so a chain through the model keeps realistic magnitudes and
// attention spreads over the cache), norms around 1, biases around 0.
std::vector<PlannedTensor> preset_tensors(const ModelPreset& p, const TypeOf& type_of) {
  std::vector<PlannedTensor> tensors;
  auto matrix = [&](const std::string& name, ref::GgmlType type, std::uint64_t k, std::uint64_t rows) {
    const auto hi = static_cast<float>(std::sqrt(3.0 / static_cast<double>(k)));
    tensors.push_back({name, type, k, rows, -hi, hi});
  };
  auto vector = [&](const std::string& name, std::uint64_t k, float lo, float hi) {
    tensors.push_back({name, ref::GgmlType::F32, k, 1, lo, hi});
  };
  const std::uint32_t head_dim = p.embedding / p.heads, kv = p.kv_heads * head_dim;
  matrix("token_embd.weight", type_of("token_embd", 0), p.embedding, p.vocab);
  for (std::uint32_t layer = 0; layer < p.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    auto t = [&](const char* role) { return type_of(role, layer); };
    vector(blk + "attn_norm.weight", p.embedding, 0.5f, 1.5f);
    matrix(blk + "attn_q.weight", t("attn_q"), p.embedding, p.embedding);
    matrix(blk + "attn_k.weight", t("attn_k"), p.embedding, kv);
    matrix(blk + "attn_v.weight", t("attn_v"), p.embedding, kv);
    if (p.qkv_bias) {
      vector(blk + "attn_q.bias", p.embedding, -0.5f, 0.5f);
      vector(blk + "attn_k.bias", kv, -0.5f, 0.5f);
      vector(blk + "attn_v.bias", kv, -0.5f, 0.5f);
    }
    if (p.qk_norm) {
      vector(blk + "attn_q_norm.weight", head_dim, 0.5f, 1.5f);
      vector(blk + "attn_k_norm.weight", head_dim, 0.5f, 1.5f);
    }
    matrix(blk + "attn_output.weight", t("attn_output"), p.embedding, p.embedding);
    vector(blk + "ffn_norm.weight", p.embedding, 0.5f, 1.5f);
    matrix(blk + "ffn_gate.weight", t("ffn_gate"), p.embedding, p.feed_forward);
    matrix(blk + "ffn_up.weight", t("ffn_up"), p.embedding, p.feed_forward);
    matrix(blk + "ffn_down.weight", t("ffn_down"), p.feed_forward, p.embedding);
  }
  vector("output_norm.weight", p.embedding, 0.5f, 1.5f);
  matrix("output.weight", type_of("output", 0), p.embedding, p.vocab);
  return tensors;
}

std::vector<std::uint64_t> shape_of(const PlannedTensor& t) {
  return t.rows == 1 ? std::vector<std::uint64_t>{t.k} : std::vector<std::uint64_t>{t.k, t.rows};
}

TypeOf mix_types(const ModelPreset& p, const std::string& mix) {
  check_type_mix(mix);
  return [mix, layers = p.layers](const std::string& role, std::uint32_t layer) {
    return type_of(mix, role, layer, layers);
  };
}

}  // namespace

ref::GgufWriter random_model(const ModelPreset& p, const std::string& mix, std::uint64_t seed) {
  return random_model(p, mix_types(p, mix), mix, seed);
}

ref::GgufWriter random_model(const ModelPreset& p, const TypeOf& type_of, const std::string& mix, std::uint64_t seed) {
  ref::GgufWriter w;
  for (auto& kv : preset_metadata(p, mix)) w.set(std::move(kv.key), std::move(kv.value));
  std::uint64_t stream = seed;
  for (const auto& t : preset_tensors(p, type_of)) {
    w.add_tensor(t.name, t.type, shape_of(t), random_tensor_bytes(t.type, t.k, t.rows, ++stream, t.lo, t.hi));
  }
  return w;
}

ref::GgufContents preset_contents(const ModelPreset& p, const std::string& mix) {
  ref::GgufContents contents;
  contents.metadata = preset_metadata(p, mix);
  std::uint64_t offset = 0;
  for (const auto& t : preset_tensors(p, mix_types(p, mix))) {
    ref::GgufTensorInfo info;
    info.name = t.name, info.type = t.type, info.shape = shape_of(t), info.offset = offset;
    const auto size = ref::compute_tensor_size(t.type, info.shape);
    if (!size.problem.empty()) throw Error(ErrorKind::internal, p.name + ": " + t.name + ": " + size.problem);
    info.elements = size.elements, info.bytes = size.bytes;
    offset += (size.bytes + contents.alignment - 1) / contents.alignment * contents.alignment;
    contents.tensors.push_back(std::move(info));
  }
  return contents;
}

}  // namespace vktune::model
