#include "tuner/model/model_description.hpp"

#include <algorithm>
#include <optional>

#include "common/error.hpp"

namespace vktune::model {

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
    fail(source, "head_count " + std::to_string(m.heads) + " is not a multiple of head_count_kv " +
                     std::to_string(m.kv_heads));
  }
  m.rope_neox = a == "qwen2" || a == "qwen3";
  for (const auto& t : contents.tensors) m.tensors.emplace(t.name, t);
  m.qk_norm = m.tensors.count("blk.0.attn_q_norm.weight") > 0;
  const auto embd = m.tensors.find("token_embd.weight");
  if (embd == m.tensors.end()) fail(source, "tensor token_embd.weight is missing");
  if (embd->second.shape.size() != 2 || embd->second.shape[0] != m.embedding) {
    fail(source, "token_embd.weight is not " + std::to_string(m.embedding) + " wide");
  }
  m.vocab = static_cast<std::uint32_t>(embd->second.shape[1]);
  return m;
}

}  // namespace vktune::model
