#pragma once
// What one decode step and one prefill of a GGUF model compute, read from
// its metadata and tensor table: the llama family with grouped-query
// attention (llama, mistral, qwen2, qwen3), the architectures whose layers
// are rmsnorm, q/k/v products, rope, attention, an output product, a
// residual add, rmsnorm, a gated SwiGLU feed-forward and another add.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference/gguf_reader.hpp"

namespace vktune::model {

struct ModelDescription {
  std::string source;        // the file, for messages
  std::string architecture;  // "llama"
  std::string name;          // general.name, or ""
  std::uint32_t layers = 0, embedding = 0, heads = 0, kv_heads = 0, head_dim = 0, feed_forward = 0, vocab = 0;
  std::uint32_t context_length = 0;  // {arch}.context_length; 0 = not said
  bool rope_neox = false;            // qwen2/qwen3 rotate (x[i], x[i + d/2]); llama and mistral (x[2i], x[2i+1])
  bool qk_norm = false;              // qwen3: rmsnorm over each head of q and k before rope
  // Every tensor of the file by name ("blk.3.ffn_down.weight").
  std::map<std::string, ref::GgufTensorInfo> tensors;
};

// `value`, a dimension or a product of dimensions derived from the file's
// metadata (`what` names it: "head_count x key_length"), as the 32-bit
// dimension a kernel's shape holds; throws Error(usage) naming the file and
// `what` when it is 0 or above 2^32-1 (a product is always formed in 64
// bits first, never truncated).
std::uint32_t checked_dimension(const std::string& source, const std::string& what, std::uint64_t value);

// What `vktune model` and `vktune step` take when --context and --prompt are
// not given: a KV cache of kDefaultContext entries, or the model's context
// length where that is less; a prefill of kDefaultPrompt tokens, or the
// context where that is less (a prompt fills the cache it attends over).
inline constexpr std::uint32_t kDefaultContext = 4096;
inline constexpr std::uint32_t kDefaultPrompt = 512;
std::uint32_t default_context(const ModelDescription& model);
std::uint32_t default_prompt(std::uint32_t context);

// The architectures describe_model serves.
const std::vector<std::string>& supported_architectures();

// Throws Error(usage) with one line naming the file and the problem: an
// architecture outside the llama family (naming it and the supported ones),
// a missing key, a tensor the architecture needs that is missing or whose
// shape disagrees with the metadata (naming the tensor), a dimension or a
// product the kernels take (heads x head_dim, kv_heads x head_dim, 2 x
// feed_forward, the vocabulary) of 0 or above 2^32-1.
ModelDescription describe_model(const ref::GgufContents& contents, const std::string& source);

}  // namespace vktune::model
