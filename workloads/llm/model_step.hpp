#pragma once
// A step of a llama-family model as a chain of vktune kernels on the GPU
// (`vktune step`): one decode token at position context - 1, or the
// processing of a prompt of P tokens at positions 0..P-1 from an empty
// cache (StepOptions::prompt). The embedding lookup, every layer's ops in
// model order (the q/k/v products, rope on q, k rotated into its fp16 cache
// rows and v stored into its own, caches of the context's length, attention
// over them: decode attention over `context` entries, or the prompt's causal
// attention over its own P, the output product, the residual add and the
// norm after it as one add_rmsnorm_mul, the feed-forward block (in a decode
// step gate and up as one product, down reading their SwiGLU), and the add
// with the next layer's norm; StepOptions::fused), then the last token's
// residual add and norm, the output head and argmax, recorded into one
// command buffer with a compute-to-compute barrier before each dispatch that
// reads what an earlier one since the last barrier wrote, or writes what it
// read or wrote (independent ops, such as the q, k and v products, run side
// by side). Each op runs the stored winner for this device at its shape
// (--tuned) or its kernel's baseline. The cache holds random fp16 entries
// before the token's position (context - 1); a decode step stores the new
// token's k and v there, so the attention reads `context` entries as in a
// real step.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/cache_mode.hpp"
#include "harness/device.hpp"
#include "harness/timer.hpp"
#include "kernels/kernel.hpp"
#include "reference/gguf_reader.hpp"
#include "reference/weight_layout.hpp"
#include "results/store.hpp"
#include "workloads/kernel_chain.hpp"
#include "workloads/llm/model_description.hpp"
#include "engine/template_library.hpp"

namespace vktune::step {

struct StepOptions {
  std::uint32_t context = 4096;
  // > 0: a prefill of this many tokens (at most `context`) rather than one
  // decode token.
  std::uint32_t prompt = 0;
  bool tuned = true;                // stored winners where there are; else baselines
  bool random_weights = false;      // random weights of the file's shapes and types
  std::uint64_t seed = 1;           // random weights, the cache's earlier entries, the token ids
  CacheMode cache_mode = CacheMode::cold;  // which stored winners (this mode, then the other)
  // Non-empty: stored winners only for these kernels, baselines for the rest
  // (to find which kernel's winners move a chain's result).
  std::vector<std::string> tuned_kernels{};
  // A barrier before every dispatch, as before barriers were placed where
  // ops meet: to measure what the placement saves.
  bool barrier_every_op = false;
  // Fused kernels where they save a barrier: each residual add and the norm
  // after it as one add_rmsnorm_mul (or taken into the products that read
  // the norm: norm_into_products), k rotated straight into its cache row
  // (rope_cache), gate and up as one product of their stacked weights whose
  // SwiGLU ffn_down reads (matmul_q6k_swiglu; model::fuses_swiglu). false:
  // the ops one kernel each, to measure what that saves.
  bool fused = true;
  // With `fused`: each residual add and norm taken into the products that
  // read it (the _addnorm kernels) where the stored winners say it pays,
  // rather than one add_rmsnorm_mul before them. Off by default: on H200s
  // it gained 1.2% at context 128 and lost 4.4% at 4096
  // (measurements/nvidia-h200/session33/addnorm).
  bool norm_into_products = false;
  // With `fused` and not norm_into_products, in a decode step: each block's
  // last product (attn_output, ffn_down after its SwiGLU) takes in the
  // residual add and the next norm (the _resnorm kernels,
  // kernels/quant_matmul_epilogue.hpp) where the stored winners say it pays,
  // rather than one add_rmsnorm_mul after it. false: never (to measure what
  // it saves).
  bool norm_at_block_end = true;
  // In a decode step: each product whose weight another device layout
  // serves faster (model::layout_twin: Q6_K's split layout) runs its twin on
  // the weight rearranged, where the stored winners say it pays. false:
  // every weight in GGUF's layout (to measure what the layouts save).
  bool device_layouts = true;
  // With `fused` and not norm_into_products, in a decode step: gate and up
  // as one product of their rows interleaved that stores their SwiGLU
  // (model::glu_matmul_kernel), ffn_down reading it as plain x, where the
  // stored winners say it pays against the stacked product and ffn_down
  // computing the SwiGLU in each of its workgroups. false: never (to
  // measure what it saves).
  bool swiglu_in_gate_up = true;
};

// A weight's buffer in a device layout other than GGUF's
// ("blk.3.ffn_down.weight@q6_k_split"), and the tensor any weight buffer
// holds, whatever its layout.
std::string laid_out_name(const std::string& tensor, ref::WeightLayout layout);
std::string laid_out_tensor(const std::string& buffer);

// "blk.12.ffn_down (Q6_K)" -> "ffn_down (Q6_K)": the same op in every layer.
std::string op_kind(const std::string& role);

// One dispatch of the chain (its `weight`: a product's weight tensor,
// "blk.3.ffn_down.weight").
using StepOp = chain::ChainOp;

class ModelStep {
 public:
  // Plans the chain and chooses each op's variant; throws Error(usage) for
  // an op no kernel serves, a shape its kernel refuses or a prompt longer
  // than the context.
  // `device_rows`: the store's rows whose winners may serve this device, in
  // order of preference (this GPU first, then others of its model).
  ModelStep(const model::ModelDescription& model, const ref::GgufFile& file, const StepOptions& options,
             const results::Store* store, const std::vector<std::int64_t>& device_rows, const vk::DeviceInfo& device);
  ModelStep(const ModelStep&) = delete;
  ModelStep& operator=(const ModelStep&) = delete;

  const std::vector<StepOp>& ops() const { return chain_.ops(); }
  // Barriers recorded per step, known after prepare() (chain::KernelChain).
  std::size_t barriers() const { return chain_.barriers(); }

  // Compiles every distinct variant, uploads the weights and inputs, and
  // records the chain.
  void prepare(vk::Device& device, const TemplateLibrary& templates);
  // Runs one step and returns the logits (vocab floats).
  std::vector<float> run_once(vk::Device& device);
  // Runs the step one op at a time (chain::KernelChain::run_op_by_op) and
  // returns the logits.
  using Contents = chain::KernelChain::Contents;
  std::vector<float> run_op_by_op(
      vk::Device& device,
      const std::function<void(std::size_t op, const Contents& before, const Contents& after)>& visit);
  // Where a step's time goes, and the step timed back to back
  // (chain::KernelChain::profile and time).
  using Profile = chain::KernelChain::Profile;
  Profile profile(vk::Device& device, int samples) { return chain_.profile(device, samples); }
  vk::TimingResult time(vk::Device& device, int samples) { return chain_.time(device, samples); }

  // The step's token ids (one, or the prompt's) at their positions, and the
  // host copies the CPU reference needs.
  const std::vector<std::int32_t>& tokens() const { return tokens_; }
  const std::vector<std::int32_t>& positions() const { return positions_; }
  std::uint32_t context() const { return context_; }
  std::uint32_t prompt() const { return prompt_; }  // 0: a decode step
  // Every weight as the file holds it (its bytes or the random ones), by
  // tensor or by the name of its buffer in another layout.
  const std::vector<std::uint8_t>& weight_bytes(const std::string& buffer) const;
  // The cache's entries before the step, per layer: k then v, fp16 bits
  // [context][kv_heads * head_dim] (the rows at positions() are the step's own).
  const std::vector<std::uint16_t>& cache(std::uint32_t layer, bool values) const;
  float rope_base() const { return rope_base_; }

 private:
  std::vector<float> logits() const;

  chain::KernelChain chain_;
  std::vector<std::vector<std::uint16_t>> k_cache_, v_cache_;  // per layer, fp16 bits
  std::uint32_t vocab_ = 0, context_ = 0, prompt_ = 0;
  std::vector<std::int32_t> tokens_, positions_;
  float rope_base_ = 10000.0f;
};

}  // namespace vktune::step
