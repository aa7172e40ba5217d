#include "workloads/llm/model_description.hpp"

#include <algorithm>
#include <optional>

#include "common/error.hpp"
#include "reference/gguf_types.hpp"

namespace vktune::model {

std::uint32_t default_context(const ModelDescription& model) {
  return model.context_length > 0 ? std::min(kDefaultContext, model.context_length) : kDefaultContext;
}

std::uint32_t default_prompt(std::uint32_t context) { return std::min(kDefaultPrompt, context); }

const std::vector<std::string>& supported_architectures() {
  static const std::vector<std::string> names{"llama", "mistral", "qwen2", "qwen3"};
  return names;
}

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& problem) {
  throw Error(ErrorKind::usage, source + ": " + problem);
}

std::uint32_t key_u32(const ref::GgufContents& c, const std::string& source, const std::string& key,
                      std::optional<std::uint32_t> fallback = std::nullopt) {
  const auto* value = c.find(key);
  if (value == nullptr) {
    if (fallback) return *fallback;
    fail(source, "metadata key " + key + " is missing");
  }
  const auto v = value->as_uint64();
  if (!v || *v == 0 || *v > 0xffffffffull) fail(source, "metadata key " + key + " is not a positive 32-bit integer");
  return static_cast<std::uint32_t>(*v);
}

}  // namespace

std::uint32_t checked_dimension(const std::string& source, const std::string& what, std::uint64_t value) {
  if (value == 0) fail(source, what + " is 0");
  if (value > 0xffffffffull) fail(source, what + " is " + std::to_string(value) + ", above 2^32-1");
  return static_cast<std::uint32_t>(value);
}

ModelDescription describe_model(const ref::GgufContents& contents, const std::string& source) {
  ModelDescription m;
  m.source = source;
  const auto* arch = contents.find("general.architecture");
  if (arch == nullptr || arch->as_string() == nullptr) fail(source, "general.architecture is missing");
  m.architecture = *arch->as_string();
  const auto& supported = supported_architectures();
  if (std::find(supported.begin(), supported.end(), m.architecture) == supported.end()) {
    std::string list;
    for (const auto& a : supported) list += (list.empty() ? "" : ", ") + a;
    fail(source, "architecture '" + m.architecture + "' is not supported (supported: " + list + ")");
  }
  if (const auto* name = contents.find("general.name"); name && name->as_string()) m.name = *name->as_string();
  const std::string& a = m.architecture;
  m.layers = key_u32(contents, source, a + ".block_count");
  m.embedding = key_u32(contents, source, a + ".embedding_length");
  m.feed_forward = key_u32(contents, source, a + ".feed_forward_length");
  m.heads = key_u32(contents, source, a + ".attention.head_count");
  m.kv_heads = key_u32(contents, source, a + ".attention.head_count_kv", m.heads);
  if (m.embedding % m.heads != 0 && !contents.find(a + ".attention.key_length")) {
    fail(source, "embedding_length " + std::to_string(m.embedding) + " is not a multiple of head_count " +
                     std::to_string(m.heads) + " and attention.key_length is missing");
  }
  m.head_dim = key_u32(contents, source, a + ".attention.key_length", m.embedding / m.heads);
  if (m.heads % m.kv_heads != 0) {
    fail(source,
         "head_count " + std::to_string(m.heads) + " is not a multiple of head_count_kv " + std::to_string(m.kv_heads));
  }
  if (const auto* ctx = contents.find(a + ".context_length")) {
    const auto v = ctx->as_uint64();
    if (v && *v > 0 && *v <= 0xffffffffull) m.context_length = static_cast<std::uint32_t>(*v);
  }
  m.rope_neox = a == "qwen2" || a == "qwen3";
  for (const auto& t : contents.tensors) m.tensors.emplace(t.name, t);
  m.qk_norm = m.tensors.count("blk.0.attn_q_norm.weight") > 0;
  const auto embd = m.tensors.find("token_embd.weight");
  if (embd == m.tensors.end()) fail(source, "tensor token_embd.weight is missing");
  if (embd->second.shape.size() != 2 || embd->second.shape[0] != m.embedding) {
    fail(source, "tensor token_embd.weight is not " + std::to_string(m.embedding) + " wide (embedding_length)");
  }
  m.vocab = checked_dimension(source, "the vocabulary (token_embd.weight's rows)", embd->second.shape[1]);
  // The products the kernels' shapes hold, checked once here.
  const std::uint64_t q = checked_dimension(source, "head_count x key_length", std::uint64_t{m.heads} * m.head_dim);
  const std::uint64_t kv =
      checked_dimension(source, "head_count_kv x key_length", std::uint64_t{m.kv_heads} * m.head_dim);
  checked_dimension(source, "2 x feed_forward_length (gate and up stacked)", 2 * std::uint64_t{m.feed_forward});
  // Every tensor one layer reads, with the shape (ne0 = K, ne1 = rows) the metadata implies.
  auto expect = [&](const std::string& name, std::vector<std::uint64_t> shape) {
    const auto it = m.tensors.find(name);
    if (it == m.tensors.end()) fail(source, "tensor " + name + " is missing");
    auto text = [](const std::vector<std::uint64_t>& s) {
      std::string t;
      for (auto d : s) t += (t.empty() ? "" : " x ") + std::to_string(d);
      return t;
    };
    if (it->second.shape != shape) {
      fail(source, "tensor " + name + " is " + text(it->second.shape) + ", the metadata says " + text(shape));
    }
  };
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    expect(blk + "attn_norm.weight", {m.embedding});
    expect(blk + "attn_q.weight", {m.embedding, q});
    expect(blk + "attn_k.weight", {m.embedding, kv});
    expect(blk + "attn_v.weight", {m.embedding, kv});
    expect(blk + "attn_output.weight", {q, m.embedding});
    expect(blk + "ffn_norm.weight", {m.embedding});
    expect(blk + "ffn_gate.weight", {m.embedding, m.feed_forward});
    expect(blk + "ffn_up.weight", {m.embedding, m.feed_forward});
    expect(blk + "ffn_down.weight", {m.feed_forward, m.embedding});
    if (m.qk_norm) {  // qwen3: one weight per head element, shared by the heads
      expect(blk + "attn_q_norm.weight", {m.head_dim});
      expect(blk + "attn_k_norm.weight", {m.head_dim});
    }
    for (const auto& [bias, width] : {std::pair{"attn_q.bias", q}, {"attn_k.bias", kv}, {"attn_v.bias", kv}}) {
      if (m.tensors.count(blk + bias)) expect(blk + bias, {width});  // qwen2
    }
  }
  expect("output_norm.weight", {m.embedding});
  // Norm weights (and biases) are read as F32 rows by rmsnorm_mul,
  // add_rmsnorm_mul and add: another type would bind fewer bytes than the
  // kernel reads.
  for (const auto& [name, tensor] : m.tensors) {
    const bool norm_or_bias = name.ends_with("_norm.weight") || name.ends_with(".bias");
    if (norm_or_bias && tensor.type != ref::GgmlType::F32) {
      fail(source, "tensor " + name + " is " + std::string(ref::type_name(tensor.type)) +
                       "; norm weights and biases are read as F32");
    }
  }
  if (m.tensors.count("output.weight")) expect("output.weight", {m.embedding, m.vocab});  // else tied to token_embd
  return m;
}

}  // namespace vktune::model
