#pragma once
// The ops of one decode token at a context length and of a prefill of P
// tokens, as vktune kernels at shapes (kernel name, shape), deduplicated:
// every matrix product with its real N, K and weight type, the norms, rope on
// q and on k, decode attention (a prefill's causal prompt attention), SwiGLU,
// the residual adds, the embedding's get_rows, the KV-cache stores and the
// final argmax. Ops vktune has no kernel for (a weight type without a
// product) are listed apart, so a predicted step time says what it leaves
// out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "reference/weight_layout.hpp"
#include "workloads/llm/model_description.hpp"

namespace vktune::model {

struct ModelOp {
  std::string kernel;
  kernels::Shape shape;
  std::uint32_t per_token = 0;     // dispatches in one decode step
  std::uint32_t per_prefill = 0;   // dispatches in one prefill
  std::vector<std::string> roles;  // "attn_q", "ffn_down", ... (first seen first)
};

struct Unserved {
  std::string what;   // "kv-cache store", "blk.*.ffn_down.weight (IQ4_XS)"
  std::string phase;  // "decode" or "prefill"
  std::uint32_t count = 0;
};

// A tensor whose weight type no vktune kernel reads (Q3_K, IQ4_XS, BF16...).
struct Unsupported {
  std::string tensor;  // "blk.0.ffn_down.weight"
  std::string type;    // "Q3_K"
};

struct ModelOps {
  std::vector<ModelOp> ops;              // in model order of first use
  std::vector<Unserved> unserved;        // per phase, what the predictions leave out
  std::vector<Unsupported> unsupported;  // each such tensor once
  // The phase's prediction covers every op of it.
  bool complete(const std::string& phase) const;
};

// The vktune kernel of a weight type: the matrix product (matmul_q4k, ...)
// and the embedding lookup (get_rows_q4k, ...); "" when vktune has none.
std::string matmul_kernel(ref::GgmlType type);
std::string get_rows_kernel(ref::GgmlType type);
// The kernel that rotates `tokens` rows of k straight into a cache of
// `context` rows (rope_cache or rope_neox_cache), or "" where it does not
// serve that shape: then k is rotated and stored by two kernels.
std::string rope_cache_kernel(const ModelDescription& model, std::uint32_t tokens, std::uint32_t context);
// The product that reads the SwiGLU of a feed-forward block's gate and up
// outputs side by side (matmul_q6k_swiglu for Q6_K weights), or "" where
// none serves `type`: then SwiGLU and the product run apart.
std::string swiglu_matmul_kernel(ref::GgmlType type);
// Whether a step computes layer `blk`'s gate and up as one product of their
// weights stacked (gate's rows, then up's; its output rows the two side by
// side): both weights of one type that a product reads. The SwiGLU then
// reads them side by side: in ffn_down's product where fuses_swiglu, else
// as swiglu_stacked.
bool stacks_gate_up(const ModelDescription& model, const std::string& blk);
// Whether a decode step of `tokens` rows stacks gate and up and runs
// ffn_down through swiglu_matmul_kernel: stacks_gate_up, a down weight that
// one reads, decode rows.
bool fuses_swiglu(const ModelDescription& model, const std::string& blk, std::uint32_t tokens);
// The stacked weights' buffer name: "blk.3.ffn_gate.weight+blk.3.ffn_up.weight".
std::string stacked_gate_up(const std::string& blk);
// The gate and up product that stores their SwiGLU (matmul_q4k_glu: the
// weights' rows interleaved, kernels/quant_matmul_epilogue.hpp), for a
// decode step of `tokens` rows of layer `blk` whose gate and up stack and
// whose ffn_down a plain product reads (its x the stored SwiGLU), or "".
// A step runs it, and ffn_down on its output, where the stored winners say
// that pays against the stacked product and the SwiGLU-reading ffn_down.
std::string glu_matmul_kernel(const ModelDescription& model, const std::string& blk, std::uint32_t tokens);
// Its weights' buffer name: "blk.3.ffn_gate.weight+blk.3.ffn_up.weight:interleaved".
std::string interleaved_gate_up(const std::string& blk);
// The product that takes in the residual add and the norm before it
// (matmul_q4k_addnorm for Q4_K weights), or "" where none serves `type`.
std::string addnorm_matmul_kernel(ref::GgmlType type);
// The product that takes in the residual add and the next block's norm after
// it (matmul_q4k_resnorm; with `swiglu` the SwiGLU before it too:
// matmul_q6k_swiglu_resnorm), or "" where none serves `type`.
std::string resnorm_matmul_kernel(ref::GgmlType type, bool swiglu);
// Whether a decode step of `tokens` rows can end layer `layer`'s attention
// block (attn_output) or its feed-forward block (ffn_down after its SwiGLU,
// where fuses_swiglu; feed_forward_glu: ffn_down reading what
// glu_matmul_kernel stored) with that product: decode rows and a kernel for
// the weight's type. A step takes it where the stored winners say it pays.
enum class BlockEnd { attention, feed_forward, feed_forward_glu };
bool ends_with_norm(const ModelDescription& model, std::uint32_t layer, BlockEnd which, std::uint32_t tokens);
// The products that read one residual norm in a decode step: a layer's q,
// k and v; its gate and up (stacked where fuses_swiglu); the output head.
enum class NormReaders { attention, feed_forward, output_head };
std::vector<std::string> norm_readers(const ModelDescription& model, std::uint32_t layer, NormReaders which);
// Whether a step of `tokens` rows takes that norm into each of its readers
// (addnorm_matmul_kernel): decode rows, and a kernel for every one of their
// weight types; else one add_rmsnorm_mul (rmsnorm_mul before layer 0) runs
// before them.
bool fuses_norm(const ModelDescription& model, std::uint32_t layer, NormReaders which, std::uint32_t tokens);

// A product that computes what `kernel` computes reading its weight in
// another device layout (reference/weight_layout.hpp): the matmul_q6k
// kernels' matmul_q6k_split twins (matmul_q6k_swiglu_resnorm ->
// matmul_q6k_split_swiglu_resnorm), decode shapes. `vktune model` tunes the
// twin in its place in a decode step (a prefill, even of 8 tokens or fewer,
// keeps GGUF's layout); `vktune step` runs it there where the stored
// winners say it pays, binding the weight rearranged.
struct LayoutTwin {
  std::string kernel;
  ref::WeightLayout layout = ref::WeightLayout::gguf;
};
// The twin of `kernel` that serves `shape`, or nothing.
std::optional<LayoutTwin> layout_twin(const std::string& kernel, const kernels::Shape& shape);

// A layer's q, k and v products with the epilogues that take in what
// follows them in a decode step (kernels/quant_matmul_epilogue.hpp): q's
// rope (matmul_q4k_rope), k's rope and cache store (matmul_q4k_rope_cache),
// v's cache store (matmul_q4k_cache, matmul_q6k_cache), with their shapes.
struct QkvEpilogues {
  std::string q, k, v;
  kernels::Shape q_shape, k_shape, v_shape;
};
// Those of layer `blk` for a step of `tokens` rows and a cache of `context`,
// where every one has a kernel that serves its shape and nothing runs
// between a product and its epilogue (the normal rope layout; no biases,
// no q/k norms); else nothing: the products, then rope and the stores.
std::optional<QkvEpilogues> qkv_epilogues(const ModelDescription& model, const std::string& blk,
                                          std::uint32_t tokens, std::uint32_t context);

// `prompt` = 0: decode only.
ModelOps model_ops(const ModelDescription& model, std::uint32_t context, std::uint32_t prompt);

}  // namespace vktune::model
