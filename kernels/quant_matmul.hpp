#pragma once
// What the GGUF-quantized matmul kernels matmul_q4_0, matmul_q8_0,
// matmul_q5k and matmul_q6k share: y[M×N] = x[M×K]·Wᵀ with W in N rows of
// GGUF blocks of one type, x and y fp32 row-major; the "decode" space
// (M <= 8, templates/matvec_quant.comp) and the "prefill" space (M > 8,
// templates/matmul_quant.comp; with USE_COOPMAT=1 tensor cores,
// templates/matmul_quant_cm.comp; with DEQUANT_STAGE=1 too, dequant_f16.comp
// then matmul_quant_cm_f16w.comp), all generic over the block type through
// templates/include/quant_block.glsl (QTYPE picks the block header). A kernel
// file describes its block format (QuantFormat) and registers a QuantMatmul.
//
// Buffers: x (fp32), W (the rows of blocks, padded with zero bytes to a
// multiple of 16 bytes: the templates read 2-byte-aligned fields as 32-bit
// words or 16-byte vectors), y (fp32); the prefill space adds the scratch W16 (2*N*K bytes of
// fp16, read and written only by DEQUANT_STAGE=1: kernels/quant_coopmat.hpp).
// Push constants: M, N, K. With Activations::fp16 (the kernels named
// KERNEL_f16: matmul_q4_0_f16, ...) x and y are fp16 and every template is
// compiled with ACT_F16 (kernels/half_activations.hpp): the same spaces,
// legality and pruning, plus the device's 16-bit storage.
//
// The decode space's X_QUANT=1 path has two templates: matvec_quant_q8.comp
// (W_STAGE=0, every field read as 32-bit words from the buffer) and, where
// rows are 16-byte aligned, matvec_quant_q8_staged.comp (W_STAGE > 0: rows
// read as coalesced 16-byte vectors, staged in shared memory). For Q4_0 and
// Q8_0 a third, BLOCK_PAIRS=1 (matvec_q4_0_q8.comp, on rows of K % 256 == 0):
// groups of 8 blocks read as 16-byte vectors by 4 invocations, each taking a
// pair of blocks. For the K-quants, SUPER_BLOCK=1: 4 invocations per
// super-block, a 64-weight chunk each, read as 16-byte vectors
// (matvec_q4k_q8.comp; matvec_q5k_q8.comp, the same with the fifth bits); for
// Q6_K (matvec_q6k_q8.comp) the same split of 210-byte super-blocks, each
// invocation's bytes read as the 16-byte vectors that cover them and
// realigned. The four share one walk (templates/include/matvec_q8_walk.glsl).
// Q4_K's SUPER_BLOCK=1 also serves X_QUANT=0 (matvec_q4k.comp, exact
// activations, 8 invocations per super-block). These are the formats'
// "dedicated layouts"; their rules are shared (layout_violation).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "kernels/quant_matmul_epilogue.hpp"
#include "reference/gguf_types.hpp"
#include "reference/weight_layout.hpp"

namespace vktune::kernels {

struct QuantFormat {
  std::string kernel_name;      // "matmul_q8_0"
  std::string type_name;        // "Q8_0"
  ref::GgmlType type;
  int qtype = 0;                // QTYPE of templates/include/quant_block.glsl
  std::uint32_t block_weights;  // 32 or 256
  std::uint32_t block_bytes;    // 18, 34, 176, 210
  std::uint32_t units;          // QB_UNITS of the block header: matrix-vector work units per block
  // Whether the decode space offers BLOCK_PAIRS=1 (templates/matvec_q4_0_q8.comp:
  // an invocation takes a pair of 32-weight blocks per step; Q4_0 and Q8_0).
  bool block_pairs = false;
  // Whether the decode space offers SUPER_BLOCK=1 (templates/matvec_q5k_q8.comp,
  // matvec_q6k_q8.comp: 4 invocations per super-block, 64 weights each; Q5_K
  // and Q6_K).
  bool super_block = false;
  // How W's bytes lie on the device (reference/weight_layout.hpp): GGUF's
  // own blocks, or Q6_K's split layout (the matmul_q6k_split kernels:
  // SUPER_BLOCK=1 alone, decode shapes; the problem's W is the reference's
  // blocks rearranged).
  ref::WeightLayout layout = ref::WeightLayout::gguf;
};

// The path of `space` named `name` that pins `pinned` and varies every
// other parameter over its values in `space`, or over `values[name]` where
// that names them (a template that takes fewer).
Path pinned_path(const Space& space, std::string name, Config pinned,
                     const std::map<std::string, std::vector<int>>& values = {});

// Prefill's fp32 tiles of fewer than 32 invocations (a pruning rule on every
// device: less than one subgroup of most GPUs per workgroup).
PruningRule few_invocations_rule();

// Doubles y[i*n + j] for the outputs of a sample of rows i of x and rows j of
// W (first, last and evenly spread), NaN elsewhere, each accumulated in
// double in K order on the bit-exact dequantized row as
// ref::matmul_quantized does; the full reference when m*n*k is small.
std::vector<double> quantized_matmul_reference(const std::vector<float>& x, std::size_t m,
                                               const std::vector<std::uint8_t>& w, ref::GgmlType type,
                                               std::size_t n, std::size_t k, bool full);

// The element type of x and y, or what x is made of: `swiglu` (the kernels
// named with "_swiglu") reads the outputs of a feed-forward block's gate and
// up products side by side (row m of x's buffer: the gate's K values, then
// the up's K) and multiplies silu(gate)·up as x is read, so that ffn_down
// takes in the SwiGLU before it: one dispatch and one barrier fewer. Decode
// shapes only (M <= kMaxDecodeM): the tensor-core prefill paths stage x as
// it is stored. `addnorm` (the kernels named with "_addnorm") reads a
// residual stream h (binding x) and what a block added to it, d (binding
// b), writes their sum s = h + d (binding s, the stream the next block adds
// to) and multiplies x = s / sqrt(mean(s^2) + eps) · w (the norm's weight,
// binding w): the residual add and the norm before a layer's q/k/v and
// gate/up products and the output head in the product itself, one dispatch
// and one barrier fewer each (templates/include/matmul_xy.glsl,
// ACT_ADDNORM). Decode shapes only, as the SwiGLU input.
enum class Activations { fp32, fp16, swiglu, addnorm };

class QuantMatmul final : public Kernel {
 public:
  // An epilogue (kernels/quant_matmul_epilogue.hpp) with fp32 activations only.
  explicit QuantMatmul(QuantFormat format, Activations activations = Activations::fp32,
                       Epilogue epilogue = Epilogue::none);

  // The format's kernel name, with "_f16" for fp16 activations, "_swiglu" for SwiGLU ones, "_addnorm" for
  // the residual norm; "_rope", "_rope_cache" or "_cache" for an epilogue.
  std::string name() const override;
  std::string description() const override;
  std::vector<std::string> shape_dims() const override;
  void validate_shape(const Shape& shape) const override;
  std::vector<Shape> default_shapes() const override;
  std::vector<Shape> check_shapes() const override;
  std::vector<Space> build_spaces() const override;
  Config baseline(const Shape& shape) const override;
  // matmul_q4k before it joined the family (session 13): its integer path
  // with THREADS_PER_BLOCK=4, and its fp32 path with THREADS_PER_BLOCK=8,
  // LOAD_WIDTH=4 and DEQUANT=0, are SUPER_BLOCK=1 (X_QUANT 1 and 0) with
  // THREADS_PER_ROW = THREADS_PER_BLOCK * BLOCK_SLOTS and UNROLL =
  // BLOCK_UNROLL: the same walk and loads. Its other thread counts, load
  // widths and DEQUANT=1 have no counterpart.
  std::optional<Config> from_earlier_vocabulary(const Config& config, const Shape& shape) const override;
  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override;
  // The decode space's cheapest legality rules decided prefix by prefix
  // (kernels/early_rules.hpp): its 30,000 to 90,000 configs per shape,
  // checked one by one, took up to 92 ms on two idle cores, 17.5 ms so
  // (ci/logs/2026-11-29-enumeration-early-rules.txt).
  std::unique_ptr<PrefixChecker> prefix_checker(const Path& path, const Shape& shape, const vk::DeviceInfo& device,
                                                const std::vector<const PruningRule*>& pruning) const override;
  // The first stage of the config's path (dequant_f16.comp with DEQUANT_STAGE=1).
  ShaderPlan plan(const Config& config, const Shape& shape) const override;
  // DEQUANT_STAGE=1: the dequantization, then the GEMM on fp16 weights
  // (kernels/quant_coopmat.hpp); one stage otherwise.
  std::vector<ShaderPlan> stages(const Config& config, const Shape& shape) const override;
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override;
  Tolerance tolerance(const Shape& shape) const override;
  Tolerance variant_tolerance(const Config& config, const Shape& shape) const override;
  Metrics metrics(const Shape& shape) const override;
  std::uint64_t device_bytes(const Shape& shape) const override;

 private:
  // The indices of the decode (M <= 8) and prefill spaces.
  static constexpr std::size_t kDecode = 0;
  static constexpr std::size_t kPrefill = 1;
  // X_SEGMENT as pinned where X_SCOPE=1 (each slot quantizes its own units).
  static constexpr int kSlotScopeSegment = 4096;
  std::uint64_t weight_bytes(const Shape& shape) const;
  // Bytes of one value of x or y: 4, or 2 with fp16 activations.
  std::uint64_t activation_bytes() const;
  bool fp16_activations() const { return activations_ == Activations::fp16; }
  bool swiglu_activations() const { return activations_ == Activations::swiglu; }
  bool addnorm_activations() const { return activations_ == Activations::addnorm; }
  bool split_layout() const { return format_.layout != ref::WeightLayout::gguf; }
  // The one stage of a path other than DEQUANT_STAGE=1, for fp32 activations
  // (plan(), stages() and it: quant_matmul_plan.cpp).
  ShaderPlan single_stage(const Config& config, const Shape& shape) const;
  // Legality (what the templates and the device need:
  // quant_matmul_legality.cpp); the pruning is decode_pruning's and
  // prefill_pruning's (quant_matmul_pruning.cpp).
  Violation decode_violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) const;
  Violation prefill_violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) const;
  std::vector<Path> decode_paths(const Space& decode) const;
  std::vector<PruningRule> decode_pruning() const;
  std::vector<PruningRule> prefill_pruning() const;
  // The parameter of the format's dedicated integer-dot layout
  // ("BLOCK_PAIRS", "SUPER_BLOCK"), or "" where it has none.
  std::string layout_parameter() const;
  // Whether the config takes that layout (the parameter at 1).
  bool uses_layout(const Config& config) const;
  // Q4_K's SUPER_BLOCK=1 with X_QUANT=0: templates/matvec_q4k.comp, exact
  // fp32 activations, 8 invocations per super-block.
  bool uses_exact_layout(const Config& config) const;
  Violation layout_violation(const Config& config, const Shape& shape) const;
  Violation staged_violation(const Config& config, const Shape& shape) const;
  // Blocks of the smallest run that starts and ends 16-byte aligned (8 for
  // 18-, 34- and 210-byte blocks, 1 for 176-byte ones).
  std::uint32_t aligned_run_blocks() const;
  // Blocks per staged run of a W_STAGE > 0 config: whole aligned runs
  // within W_STAGE bytes.
  std::uint32_t stage_blocks(const Config& config) const;

  QuantFormat format_;
  Activations activations_;
  Epilogue epilogue_;
};

}  // namespace vktune::kernels
