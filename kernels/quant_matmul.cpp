#include "kernels/matmul_contract.hpp"
#include "kernels/quant_matmul.hpp"
#include "reference/parallel_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "common/error.hpp"
#include "kernels/half_activations.hpp"
#include "kernels/matvec_rules.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/rms_norm_eps.hpp"
#include "kernels/row_ops.hpp"
#include "reference/dequantize.hpp"
#include "reference/matmul.hpp"
#include "reference/ops.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::kernels {
namespace {

// Above this many multiply-adds the CPU reference is computed for a sample of
// outputs only (see Problem::expected).
constexpr double kFullReferenceMacs = 3.0e8;

// The fp32 paths' tolerance with fp32 activations (see tolerance()).
constexpr Tolerance kExactTolerance{1e-4, 1e-3};

using matvec::next_pow2;

std::vector<std::size_t> spread(std::size_t count, std::size_t want) {
  std::vector<std::size_t> picks;
  const std::size_t take = std::min(count, want);
  for (std::size_t i = 0; i < take; ++i) picks.push_back(take == 1 ? 0 : i * (count - 1) / (take - 1));
  return picks;
}

}  // namespace

std::vector<double> quantized_matmul_reference(const std::vector<float>& x, std::size_t m,
                                               const std::vector<std::uint8_t>& w, ref::GgmlType type,
                                               std::size_t n, std::size_t k, bool full) {
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kFullReferenceMacs && !full) {
    return ref::matmul_quantized(x.data(), m, w.data(), type, n, k);
  }
  std::vector<double> expected(m * n, std::nan(""));
  const std::size_t row_bytes = ref::row_bytes(type, k);
  const auto rows = full ? spread(m, m) : spread(m, 24);
  const auto cols = full ? spread(n, n) : spread(n, 96);
  // Each thread owns a range of W's rows, i.e. of output columns.
  ref::parallel_rows(cols.size(), [&](std::size_t begin, std::size_t end) {
    std::vector<float> row(k);
    for (std::size_t c = begin; c < end; ++c) {
      const auto j = cols[c];
      ref::dequantize_row(type, w.data() + j * row_bytes, row.data(), k);
      for (const auto i : rows) {
        double sum = 0;
        for (std::size_t t = 0; t < k; ++t) sum += static_cast<double>(x[i * k + t]) * static_cast<double>(row[t]);
        expected[i * n + j] = sum;
      }
    }
  });
  return expected;
}

QuantMatmul::QuantMatmul(QuantFormat format, Activations activations, Epilogue epilogue)
    : format_(std::move(format)), activations_(activations), epilogue_(epilogue) {
  const bool takes = activations_ == Activations::fp32 ||
                     (activations_ == Activations::swiglu && epilogue_ == Epilogue::residual_norm);
  if (epilogue_ != Epilogue::none && !takes) {
    throw Error(ErrorKind::internal,
                format_.kernel_name + ": the epilogues take fp32 activations (the residual norm SwiGLU ones too)");
  }
}

std::vector<std::string> QuantMatmul::shape_dims() const {
  std::vector<std::string> dims{"M", "N", "K"};
  for (auto& d : matmul_epilogue::extra_dims(epilogue_)) dims.push_back(std::move(d));
  return dims;
}

std::string QuantMatmul::name() const {
  std::string activations;
  switch (activations_) {
    case Activations::fp16:
      activations = "_f16";
      break;
    case Activations::swiglu:
      activations = "_swiglu";
      break;
    case Activations::addnorm:
      activations = "_addnorm";
      break;
    case Activations::fp32:
      break;
  }
  return format_.kernel_name + activations + matmul_epilogue::suffix(epilogue_);
}

std::string QuantMatmul::description() const {
  if (split_layout()) {
    std::string x = swiglu_activations() ? "x = silu(gate)·up read from the gate and up products' outputs side by "
                                           "side (M rows of 2K fp32: gate, then up)"
                                         : "x fp32";
    return "y[M×N] = x[M×K]·Wᵀ, W " + format_.type_name + " in the split layout (every block's 208 bytes of codes "
           "and scales in row order, then every block's fp16 d: reference/weight_layout.hpp), " + x + ", y fp32" +
           matmul_epilogue::description(epilogue_) + "; decode shapes (M <= " +
           std::to_string(matmul::kMaxDecodeM) + ")";
  }
  if (swiglu_activations()) {
    return "y[M×N] = x[M×K]·Wᵀ, W in GGUF " + format_.type_name +
           " rows, x = silu(gate)·up read from the gate and up products' outputs side by side (M rows of 2K fp32: "
           "gate, then up), y fp32: ffn_down with the SwiGLU before it" + matmul_epilogue::description(epilogue_) +
           "; decode shapes (M <= " + std::to_string(matmul::kMaxDecodeM) + ")";
  }
  if (addnorm_activations()) {
    return "y[M×N] = x[M×K]·Wᵀ, W in GGUF " + format_.type_name +
           " rows, x = RMS norm of h + d times w (x = s / sqrt(mean(s^2) + 1e-5) * w, s = h + d; h, d fp32 M×K, w "
           "fp32 K), s written too, y fp32: a layer's product with the residual add and the norm before it; decode "
           "shapes (M <= " +
           std::to_string(matmul::kMaxDecodeM) + ")";
  }
  if (epilogue_ != Epilogue::none) {
    return "y[M×N] = x[M×K]·Wᵀ, W in GGUF " + format_.type_name + " rows, x fp32" +
           matmul_epilogue::description(epilogue_) + "; decode shapes (M <= " +
           std::to_string(matmul::kMaxDecodeM) + ")";
  }
  return "y[M×N] = x[M×K]·Wᵀ, W in GGUF " + format_.type_name + " rows, x and y " +
         (fp16_activations() ? "fp16 (fp32 arithmetic and accumulation)" : "fp32") +
         "; matrix-vector template for M <= 8 (decode), tiled template for M > 8 (prefill), both generic over the "
         "block type";
}

void QuantMatmul::validate_shape(const Shape& shape) const {
  const auto name = this->name();
  const auto dims = shape_dims();
  if (shape.size() != dims.size()) {
    std::string list;
    for (const auto& d : dims) list += (list.empty() ? "" : ",") + d;
    throw Error(ErrorKind::usage,
                name + " takes shapes " + list + "; got " + std::to_string(shape.size()) + " dimensions");
  }
  for (std::size_t i = 0; i < 3; ++i) {
    if (shape[i] == 0) throw Error(ErrorKind::usage, name + ": " + shape_dims()[i] + " must be positive");
  }
  if (shape[2] % format_.block_weights != 0) {
    throw Error(ErrorKind::usage, name + ": K=" + std::to_string(shape[2]) + " is not a multiple of " +
                                      std::to_string(format_.block_weights) + " (the weights of a " +
                                      format_.type_name + " block)");
  }
  if ((swiglu_activations() || addnorm_activations() || epilogue_ != Epilogue::none || split_layout()) &&
      shape[0] > matmul::kMaxDecodeM) {
    throw Error(ErrorKind::usage, name + ": M=" + std::to_string(shape[0]) + " is a prefill shape; the " +
                                      (split_layout()          ? "split layout"
                                       : swiglu_activations()  ? "SwiGLU input"
                                       : addnorm_activations() ? "residual norm input"
                                                               : "epilogue") +
                                      " serves decode shapes (M <= " + std::to_string(matmul::kMaxDecodeM) + ")");
  }
  matmul_epilogue::validate_shape(epilogue_, name, shape);
  // Indices inside the shaders are 32-bit: bytes of W, vec4s of x (two
  // rows' worth with the SwiGLU input), floats of y.
  const std::uint64_t m = shape[0], n = shape[1], k = shape[2] * (swiglu_activations() ? 2 : 1);
  if (m * n >= (1ull << 32) || m * k >= (1ull << 32) || weight_bytes(shape) + 4 >= (1ull << 32)) {
    throw Error(ErrorKind::usage, name + ": shape " + shape_to_string(shape) + " is too large for 32-bit indexing");
  }
}

std::vector<Shape> QuantMatmul::default_shapes() const {
  // The SwiGLU input is ffn_down's: Llama-3-8B's one decode token.
  if (swiglu_activations()) return {{1, 4096, 14336}};
  if (epilogue_ != Epilogue::none) return matmul_epilogue::default_shapes(epilogue_);
  // The residual norm's input is the q/k/v and gate/up products': Llama-3-8B's.
  if (addnorm_activations()) return {{1, 4096, 4096}, {1, 28672, 4096}};
  std::vector<Shape> shapes;
  for (std::uint32_t m : {1u, 512u}) {
    if (m > matmul::kMaxDecodeM && split_layout()) break;  // decode shapes only
    shapes.push_back({m, 4096, 4096});
    shapes.push_back({m, 14336, 4096});
    shapes.push_back({m, 4096, 14336});
  }
  return shapes;
}

// Small odd shapes, N never a multiple of the rows per workgroup or the tile.
// Decode: one x row on a row that is 16-byte aligned, so that the staged
// integer template (W_STAGE > 0) runs, whose unit count admits 16
// invocations per row and, but for Q6_K, leaves a remainder after the
// unrolled loop (24 blocks of 32, 3 Q5_K super-blocks; 8 Q6_K super-blocks,
// the fewest that are 16-byte aligned); the staged runs are cut at the row's
// end (a run longer than the row, or full runs and a shorter last one). And M=3 (a tail of
// COLS_PER_PASS=2) on a single block, not 16-byte aligned but for Q5_K
// (W_STAGE > 0 is rejected there). The dedicated layouts run at the first
// shape: 3 groups of 8 blocks (BLOCK_PAIRS=1), 3 Q5_K super-blocks
// (SUPER_BLOCK=1, 4 slots, one idle) or 8 Q6_K ones (4 and 8 slots, odd and
// even blocks); none at M=3's single super-block.
// tests/kernels/quant_matmul_test.cpp runs the staged template and the
// dedicated layouts at every decode M over two x segments.
// Prefill: M=40 (tails of TILE_M 32 and 64, two tiles of 32) on N=30 (one
// tile of 32) with K a tail of TILE_K=64 for the 32-weight blocks and several
// super-blocks for the K-quants, and M=9 (one row past decode) on N=60 (tails
// of TILE_N 32 and 64) over a single block.
std::vector<Shape> QuantMatmul::check_shapes() const {
  const bool small = format_.block_weights == 32;
  const std::uint32_t aligned_k = small ? 768u : format_.block_bytes % 16 == 0 ? 768u : 2048u;
  // The fp16-activation kernels run the fp32 kernels' code but for how x is
  // read and y stored: one decode and one prefill shape of theirs (the
  // others' tails, one block of K and M = 3 and 9, are the same code).
  if (epilogue_ != Epilogue::none) return matmul_epilogue::check_shapes(epilogue_, aligned_k, format_.block_weights);
  // The split layout: the dedicated layout's decode shapes, rows of 8
  // super-blocks and of 3 (an odd count of d values a row).
  if (split_layout()) return {{1, 37, 2048}, {3, 19, 768}};
  if (fp16_activations()) return {{1, 37, aligned_k}, {40, 30, small ? 96u : 512u}};
  // The SwiGLU input changes how x is read, nothing else: one decode shape.
  if (swiglu_activations()) return {{1, 37, aligned_k}};
  // The residual norm also holds a scale per x row: M=3 over a single block.
  if (addnorm_activations()) return {{1, 37, aligned_k}, {3, 19, format_.block_weights}};
  return {{1, 37, aligned_k}, {3, 19, format_.block_weights}, {40, 30, small ? 96u : 512u},
          {9, 60, format_.block_weights}};
}

std::vector<Space> QuantMatmul::build_spaces() const {
  Space decode{"decode", "matvec_quant.comp", {}, {}, {}, {}};
  decode.parameters = {
      {"WG_SIZE", {64, 128, 256, 512}, "invocations per workgroup"},
      {"ROWS_PER_WG", {1, 2, 4, 8, 16}, "rows of W (outputs along N) per workgroup"},
      {"THREADS_PER_ROW", {4, 8, 16, 32, 64}, "invocations sharing a row of W, each taking every T-th unit of the row "
                                              "(WG_SIZE/THREADS_PER_ROW row groups)"},
      {"UNROLL", {1, 2, 4}, "units per invocation per loop step, loads of all issued together"},
      {"REDUCTION", {0, 1}, "0 = subgroup shuffle butterfly over a row's invocations; 1 = shared-memory tree"},
      {"COLS_PER_PASS", {1, 2, 4, 8}, "rows of x (outputs along M) per workgroup"},
      {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
  };
  for (auto& p : quantized_activation_parameters()) decode.parameters.push_back(std::move(p));
  decode.parameters.push_back(
      {"W_STAGE", {0, 1024, 2048}, "X_QUANT=1 weight reads: 0 = each invocation reads its units' fields as "
                                   "32-bit words (matvec_quant_q8.comp); B > 0 = a row group (one subgroup) reads "
                                   "runs of up to B bytes of each row as coalesced 16-byte loads into shared "
                                   "memory, the next run in flight while the current one is worked on, and each "
                                   "lane takes UNROLL consecutive units (matvec_quant_q8_staged.comp; rows must "
                                   "be 16-byte aligned)"});
  if (!layout_parameter().empty()) {
    // 32 rows per workgroup (two per invocation at 256 invocations and 16
    // per row) is matmul_q4k's integer-path winner on the H200; there only
    // the dedicated layouts take it (quant_matmul.rows32-dedicated-only).
    decode.parameters[1].values.push_back(32);
    decode.parameters[1].help += " (32 pruned on NVIDIA but with " + layout_parameter() + "=1)";
  }
  if (!layout_parameter().empty()) {
    decode.parameters.push_back(
        {"X_SCOPE", {0, 1}, "the dedicated layouts' x quantization: 0 = by the workgroup, X_SEGMENT values at a "
                            "time between barriers, before the slots walk them; 1 = by each slot, the 256 values "
                            "of each unit it walks as it walks it, synchronised by subgroup barriers only "
                            "(WG_SIZE/(THREADS_PER_ROW/4) invocations per slot must lie in one subgroup)"});
  }
  if (format_.block_pairs) {
    decode.parameters.push_back(
        {"BLOCK_PAIRS", {0, 1}, "X_QUANT=1 work split: 0 = units of a block (W_STAGE's templates); 1 = groups of 8 "
                                "blocks (256 weights, 16-byte aligned) read as 16-byte vectors by 4 invocations, "
                                "each taking a pair of blocks per step with one scale per block and Q4_0's -8 "
                                "folded into a per-block sum of x, THREADS_PER_ROW/4 groups side by side "
                                "(matvec_q4_0_q8.comp, modeled on matmul_q4k's integer path; K % 256 == 0)"});
  }
  if (format_.super_block && format_.type == ref::GgmlType::Q6_K) {
    decode.parameters.push_back(
        {"SUPER_BLOCK", {0, 1}, "X_QUANT=1 work split: 0 = units of a super-block (W_STAGE's templates); 1 = 4 "
                                "invocations per super-block, each taking 32 bytes of low bits (two quarters of "
                                "one half) read as the 16-byte vectors that cover them (the 2-byte-aligned block "
                                "realigned by selects), scales applied once per 16 weights and the -32 folded "
                                "into a sum of x, THREADS_PER_ROW/4 super-blocks side by side "
                                "(matvec_q6k_q8.comp, on the walk of the integer-dot decode templates)"});
  } else if (format_.super_block && format_.type == ref::GgmlType::Q4_K) {
    decode.parameters.push_back(
        {"SUPER_BLOCK", {0, 1}, "work split: 0 = units of a super-block (the generic templates); 1 = X_QUANT=1: 4 "
                                "invocations per super-block, each taking a 64-weight chunk (two sub-blocks) "
                                "read as 16-byte vectors, scales decoded once per chunk, THREADS_PER_ROW/4 "
                                "super-blocks side by side (matvec_q4k_q8.comp); X_QUANT=0: 8 invocations per "
                                "super-block, 4 qs words each as one 16-byte load, nibbles made floats through "
                                "the mantissa, THREADS_PER_ROW/8 super-blocks side by side (matvec_q4k.comp)"});
  } else if (format_.super_block) {
    decode.parameters.push_back(
        {"SUPER_BLOCK", {0, 1}, "X_QUANT=1 work split: 0 = units of a super-block (W_STAGE's templates); 1 = 4 "
                                "invocations per super-block, each taking a 64-weight chunk (two sub-blocks) "
                                "read as 16-byte vectors with the whole qh, scales decoded once per chunk, "
                                "THREADS_PER_ROW/4 super-blocks side by side (matvec_q5k_q8.comp: Q4_K's "
                                "layout plus the fifth bits)"});
  }
  Space prefill{"prefill", "matmul_quant.comp", {}, {}, {}, {}};
  prefill.parameters = {
      {"TILE_M", {32, 64, 128, 256}, "output rows (along M) per workgroup"},
      {"TILE_N", {32, 64, 128, 256}, "output columns (along N) per workgroup"},
      {"TILE_K", {16, 32, 64}, "K slice staged (x and dequantized W) in shared memory per step"},
      {"THREAD_M", {2, 4, 8}, "register tile rows per invocation"},
      {"THREAD_N", {2, 4, 8}, "register tile columns per invocation"},
      {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
  };
  for (auto& p : quant_coopmat::parameters()) prefill.parameters.push_back(std::move(p));
  for (auto& p : quant_coopmat::dequant_parameters(activations_ == Activations::fp32)) {
    prefill.parameters.push_back(std::move(p));
  }
  decode.paths = decode_paths(decode);
  matmul_epilogue::adapt_paths(epilogue_, layout_parameter(), decode.paths);
  if (split_layout()) {  // matvec_q6k_q8.comp alone reads the split layout
    std::erase_if(decode.paths, [](const Path& path) {
      const auto it = path.pinned.find("SUPER_BLOCK");
      return it == path.pinned.end() || it->second != 1;
    });
  }
  decode.pruning = decode_pruning();
  prefill.paths = quant_coopmat::paths(prefill);
  prefill.pruning = prefill_pruning();
  // The fp16 and SwiGLU activation kernels run their fp32 sibling's
  // templates but for how x is read (and y stored): every value of each
  // parameter with that read; the sibling's gate takes the pairs.
  // So do the epilogues but for how y is stored.
  if (activations_ != Activations::fp32 || epilogue_ != Epilogue::none) {
    for (auto* space : {&decode, &prefill}) {
      for (auto& path : space->paths) path.covering_strength = 1;
    }
  }
  decode.shape_class = matmul::decode_shapes();
  prefill.shape_class = matmul::prefill_shapes();
  decode.bindings = prefill.bindings =
      matmul::bindings(activation_bytes() * (swiglu_activations() ? 2 : 1),
                       size_rule(format_.block_bytes, {1, 2}, format_.block_weights), activation_bytes());
  if (addnorm_activations()) {  // templates/include/matmul_xy.glsl's ACT_ADDNORM bindings 3, 4 and 5
    for (auto* space : {&decode, &prefill}) {
      space->bindings.push_back({"b", BindingRole::input, size_rule(4, {0, 2})});
      space->bindings.push_back({"w", BindingRole::weights, size_rule(4, {2})});
      space->bindings.push_back({"s", BindingRole::output, size_rule(4, {0, 2})});
    }
  }
  for (auto* space : {&decode, &prefill}) matmul_epilogue::adapt_bindings(epilogue_, space->bindings);
  // Whole 16-byte vectors: matvec_q6k_q8.comp reads the vectors that cover
  // each 2-byte-aligned block, the last one's reaching up to 14 bytes past it.
  decode.bindings[1].size.align = prefill.bindings[1].size.align = 16;
  prefill.bindings.push_back(quant_coopmat::w16_binding(activations_ == Activations::fp32));  // DEQUANT_STAGE's scratch
  return {decode, prefill};
}

Config QuantMatmul::baseline(const Shape& shape) const {
  if (space_index(shape) == kDecode) {
    // A plain matrix-vector kernel: 64 invocations, eight per row summed by
    // subgroup shuffles (a device whose subgroups hold fewer, lavapipe's 4
    // on a 128-bit host, runs the nearest legal config instead:
    // tuner/device_baseline.hpp), one row per row group, two units per step
    // where the row has enough, all x rows at once.
    const std::uint32_t units = shape[2] / format_.block_weights * format_.units;
    const int t = units >= 8 ? 8 : 4;
    const int unroll = units >= 16 ? 2 : 1;
    Config config{{"WG_SIZE", 64},           {"ROWS_PER_WG", 64 / t},
                  {"THREADS_PER_ROW", t},    {"UNROLL", unroll},
                  {"REDUCTION", 0},          {"COLS_PER_PASS", static_cast<int>(next_pow2(shape[0]))},
                  {"SUBGROUP_SIZE", 0},      {"X_QUANT", 0},
                  {"X_SEGMENT", 4096},       {"W_STAGE", 0}};
    if (format_.block_pairs) config["BLOCK_PAIRS"] = 0;
    if (format_.super_block) config["SUPER_BLOCK"] = 0;
    if (!layout_parameter().empty()) config["X_SCOPE"] = 0;
    if ((epilogue_ != Epilogue::none || split_layout()) && format_.type != ref::GgmlType::Q4_K) {
      // The epilogues' templates (and the split layout's) are the dedicated layouts (whose only
      // other format with an exact path is Q4_K's, below): the integer one
      // with the plain choices above, two super-blocks side by side, eight
      // rows per workgroup (pairs).
      config["X_QUANT"] = 1;
      config[layout_parameter()] = 1;
      config["THREADS_PER_ROW"] = 8;
      config["ROWS_PER_WG"] = 8;
      config["UNROLL"] = 1;
    }
    if (format_.type == ref::GgmlType::Q4_K) {
      // matmul_q4k keeps the baseline it had before it joined the family,
      // the same shader (matvec_q4k.comp): eight invocations per super-block
      // with 16-byte loads, two super-blocks side by side where the row has
      // them, one row per row group. Its tuned-vs-baseline figures stay
      // comparable with the ones measured before.
      const int slots = shape[2] / 256 >= 2 ? 2 : 1;
      config["THREADS_PER_ROW"] = 8 * slots;
      config["ROWS_PER_WG"] = 8 / slots;
      config["UNROLL"] = 1;
      config["SUPER_BLOCK"] = 1;
    }
    return config;
  }
  // The textbook 64×64 tile, 4×4 per invocation, K in 32-weight slices
  // (16.6 KB of shared memory); 32 along M or N where the shape is that small.
  // The fp32 path even on tensor-core devices, so a tensor-core winner's
  // speedup shows what the tensor cores gain.
  const int tm = next_pow2(shape[0]) <= 32 ? 32 : 64;
  const int tn = next_pow2(shape[1]) <= 32 ? 32 : 64;
  return {{"TILE_M", tm},      {"TILE_N", tn},    {"TILE_K", 32},  {"THREAD_M", 4}, {"THREAD_N", 4},
          {"SUBGROUP_SIZE", 0}, {"USE_COOPMAT", 0}, {"CM_SHAPE", 0}, {"WARPS_M", 1},  {"WARPS_N", 1},
          {"DEQUANT_STAGE", 0}, {"DQ_WG", 64},      {"DQ_RUN", 8},   {"CM_PREFETCH", 1}};
}

std::string QuantMatmul::layout_parameter() const {
  if (format_.block_pairs) return "BLOCK_PAIRS";
  if (format_.super_block) return "SUPER_BLOCK";
  return {};
}

std::optional<Config> QuantMatmul::from_earlier_vocabulary(const Config& config, const Shape& shape) const {
  if (format_.type != ref::GgmlType::Q4_K || fp16_activations() || space_index(shape) != kDecode ||
      !config.count("THREADS_PER_BLOCK")) {
    return std::nullopt;
  }
  const auto value = [&](const char* name) {
    const auto it = config.find(name);
    return it == config.end() ? -1 : it->second;
  };
  // The integer path with 4 threads per super-block, and the exact path
  // with 8 threads, 16-byte loads and the 1 + q/16 dequantization.
  const bool integer = value("X_QUANT") == 1 && value("THREADS_PER_BLOCK") == 4;
  const bool exact = value("X_QUANT") == 0 && value("THREADS_PER_BLOCK") == 8 && value("LOAD_WIDTH") == 4 &&
                     value("DEQUANT") == 0;
  if ((!integer && !exact) || value("BLOCK_SLOTS") < 1) return std::nullopt;
  Config now;
  for (const char* name :
       {"WG_SIZE", "ROWS_PER_WG", "SUBGROUP_SIZE", "COLS_PER_PASS", "X_QUANT", "X_SEGMENT", "REDUCTION"}) {
    if (value(name) < 0) return std::nullopt;
    now[name] = value(name);
  }
  now["THREADS_PER_ROW"] = value("THREADS_PER_BLOCK") * value("BLOCK_SLOTS");
  now["UNROLL"] = value("BLOCK_UNROLL");
  now["W_STAGE"] = 0;
  now["SUPER_BLOCK"] = 1;
  now["X_SCOPE"] = 0;
  return now;
}

bool QuantMatmul::uses_layout(const Config& config) const {
  const auto name = layout_parameter();
  return !name.empty() && config.at(name) == 1;
}

bool QuantMatmul::uses_exact_layout(const Config& config) const {
  return format_.type == ref::GgmlType::Q4_K && uses_layout(config) && !uses_quantized_activations(config);
}

Problem QuantMatmul::make_problem(const Shape& shape, const Inputs& inputs) const {
  const std::uint64_t seed = inputs.seed;
  validate_shape(shape);
  const std::size_t m = shape[0], n = shape[1], k = shape[2];
  auto weights = ref::random_quantized_rows(format_.type, n, k, seed, inputs.kind);
  auto x = ref::random_floats(m * k, seed ^ 0x9e3779b97f4a7c15ull, -1.0f, 1.0f, inputs.kind);
  HostBuffer xb{"x", std::vector<std::uint8_t>(x.size() * sizeof(float)), false, false};
  std::vector<float> sums;         // addnorm: h + d, what s must hold
  std::vector<HostBuffer> extra;   // addnorm: d, w and s (bindings 3 to 5)
  auto float_buffer = [](std::string name, const std::vector<float>& v, bool weights) {
    HostBuffer b{std::move(name), std::vector<std::uint8_t>(v.size() * sizeof(float)), false, weights};
    std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
    return b;
  };
  if (fp16_activations()) {
    xb = half_activations::rounded_x(x);  // the reference multiplies the halves the device reads
  } else if (swiglu_activations()) {
    // Gate and up side by side, row by row, of the size a feed-forward
    // block's products give; the reference multiplies their SwiGLU.
    const auto gate = ref::random_floats(m * k, seed ^ 0x51ed27c3a4f1b2d9ull, -3.0f, 3.0f, inputs.kind);
    const auto up = ref::random_floats(m * k, seed ^ 0x2c1b3c6d8e9fa0b1ull, -1.0f, 1.0f, inputs.kind);
    std::vector<float> pairs(2 * m * k);
    for (std::size_t r = 0; r < m; ++r) {
      std::copy_n(gate.begin() + r * k, k, pairs.begin() + 2 * r * k);
      std::copy_n(up.begin() + r * k, k, pairs.begin() + 2 * r * k + k);
    }
    const auto s = ref::swiglu(gate, up);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(s[i]);
    xb.bytes.resize(pairs.size() * sizeof(float));
    std::memcpy(xb.bytes.data(), pairs.data(), xb.bytes.size());
  } else if (addnorm_activations()) {
    // h and d of a residual stream's scale, the norm's weight around 1; the
    // reference multiplies the norm of their fp32 sum, which s must hold.
    const auto h = ref::random_floats(m * k, seed ^ 0x51ed27c3a4f1b2d9ull, -1.0f, 1.0f, inputs.kind);
    const auto d = ref::random_floats(m * k, seed ^ 0x2c1b3c6d8e9fa0b1ull, -1.0f, 1.0f, inputs.kind);
    const auto g = ref::random_floats(k, seed ^ 0x5bd1e995u, 0.5f, 1.5f, inputs.kind);
    sums.resize(m * k);
    for (std::size_t i = 0; i < sums.size(); ++i) sums[i] = h[i] + d[i];
    const auto normed = ref::rmsnorm(sums, k, kRmsNormEps, g);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(normed[i]);
    std::memcpy(xb.bytes.data(), h.data(), xb.bytes.size());
    extra = {float_buffer("b", d, false), float_buffer("w", g, true),
             HostBuffer{"s", std::vector<std::uint8_t>(sums.size() * sizeof(float)), true, false}};
  } else {
    std::memcpy(xb.bytes.data(), x.data(), xb.bytes.size());
  }
  Problem problem;
  problem.shape = shape;
  // An epilogue turns and places pairs of outputs: every one is computed.
  problem.expected = quantized_matmul_reference(x, m, weights, format_.type, n, k,
                                                inputs.full_reference || epilogue_ != Epilogue::none);
  problem.output_f16 = fp16_activations();  // poisoned with fp16 NaNs, widened exactly on read-back
  weights.resize(spaces()[space_index(shape)].bindings[1].size.bytes(shape), 0);  // see quant_matmul.hpp
  weights = ref::to_layout(format_.layout, weights);  // the reference read GGUF's blocks

  HostBuffer wb{"W", std::move(weights), false, true};
  // An odd count of halves takes a whole last word (launch_contract.hpp).
  const auto y_bytes = spaces()[space_index(shape)].bindings[2].size.bytes(shape);
  HostBuffer yb{"y", std::vector<std::uint8_t>(y_bytes), true, false};
  problem.buffers = {std::move(xb), std::move(wb), std::move(yb)};
  if (addnorm_activations()) {  // y's expected values, then s's (Problem::more_outputs)
    for (auto& b : extra) problem.buffers.push_back(std::move(b));
    problem.more_outputs = {problem.buffers.size() - 1};
    problem.expected.insert(problem.expected.end(), sums.begin(), sums.end());
  }
  if (space_index(shape) == kPrefill) {
    const auto w16_bytes = spaces()[kPrefill].bindings.back().size.bytes(shape);  // quant_coopmat::w16_binding
    problem.buffers.push_back(HostBuffer{"W16", std::vector<std::uint8_t>(w16_bytes), false, false});
  }
  problem.output_index = 2;
  matmul_epilogue::adapt_problem(epilogue_, shape, seed, problem);
  return problem;
}

// Both templates accumulate in fp32 (per invocation over its share of K, then
// a shuffle or shared-memory sum) against a double reference; the prefill
// template dequantizes bit-exactly, the decode template factors each run of 4
// weights as a*dot(x, q) - b*sum(x). For random signs the rounding error of a
// K-term fp32 dot product grows like eps*sqrt(K) relative to the result (eps =
// 6e-8; K = 14336 gives about 1e-5 at worst); typical errors are 1e-7 to
// 1e-6, while a wrong scale, nibble or block gives errors above 1e-2. With
// fp16 activations the reference multiplies the fp16-rounded x, and y's
// rounding to fp16 is added (kernels/half_activations.hpp).
Tolerance QuantMatmul::tolerance(const Shape&) const {
  return matmul_epilogue::tolerance(
      epilogue_, fp16_activations() ? half_activations::tolerance(kExactTolerance) : kExactTolerance);
}

// X_QUANT=1: see kernels/quantized_activations.hpp; USE_COOPMAT=1:
// kernels/quant_coopmat.hpp.
Tolerance QuantMatmul::variant_tolerance(const Config& config, const Shape& shape) const {
  auto fp32 = kExactTolerance;
  if (space_index(shape) == kDecode && uses_quantized_activations(config)) {
    fp32 = swiglu_activations() ? kQuantizedSwigluActivationTolerance : kQuantizedActivationTolerance;
  }
  if (space_index(shape) == kPrefill && quant_coopmat::uses_coopmat(config)) {
    fp32 = quant_coopmat::multiplies_int8(config) ? quant_coopmat::kInt8Tolerance : quant_coopmat::kTolerance;
  }
  return matmul_epilogue::tolerance(epilogue_, fp16_activations() ? half_activations::tolerance(fp32) : fp32);
}

std::uint64_t QuantMatmul::weight_bytes(const Shape& shape) const {
  return static_cast<std::uint64_t>(shape.at(1)) * (shape.at(2) / format_.block_weights) * format_.block_bytes;
}

std::uint64_t QuantMatmul::activation_bytes() const { return fp16_activations() ? 2 : 4; }

Metrics QuantMatmul::metrics(const Shape& shape) const {
  const double m = shape.at(0), n = shape.at(1), k = shape.at(2) * (swiglu_activations() ? 2 : 1);
  const auto value = static_cast<double>(activation_bytes());
  Metrics metrics;
  metrics.bytes = static_cast<double>(weight_bytes(shape)) + (m * k + m * n) * value;
  if (addnorm_activations()) metrics.bytes += (2 * m * k + k) * value;  // d and w read, s written
  metrics.bytes += matmul_epilogue::extra_bytes(epilogue_, shape);
  metrics.flops = 2 * m * n * k;
  return metrics;
}

std::uint64_t QuantMatmul::device_bytes(const Shape& shape) const {
  const std::uint64_t m = shape.at(0), n = shape.at(1), k = shape.at(2);
  const std::uint64_t w16 = space_index(shape) == kPrefill ? spaces()[kPrefill].bindings.back().size.bytes(shape) : 0;
  const std::uint64_t x_values = m * k * (swiglu_activations() ? 2 : addnorm_activations() ? 3 : 1) +
                                 (addnorm_activations() ? k : 0);  // x, or h, d and s, and w
  return spaces()[space_index(shape)].bindings[1].size.bytes(shape) + (x_values + m * n) * activation_bytes() + w16 +
         matmul_epilogue::extra_device_bytes(epilogue_, shape);
}

}  // namespace vktune::kernels
