// matmul_q4k: y[M×N] = x[M×K] · Wᵀ with W (N rows of K weights) in GGUF Q4_K
// rows and x, y fp32 row-major. Two spaces: "decode" (M <= 8, matrix-vector
// templates: templates/matvec_q4k.comp with fp32 activations, or
// templates/matvec_q4k_q8.comp with activations quantized to 8 bits, chosen by
// the parameter X_QUANT) and "prefill" (M > 8: fp32 tiles,
// templates/matmul_q4k.comp, or with USE_COOPMAT=1 fp16 tensor cores,
// templates/matmul_quant_cm.comp, or with DEQUANT_STAGE=1 too W dequantized
// to fp16 in a first dispatch (the scratch W16) and then the tensor-core
// GEMM; see kernels/quant_coopmat.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/pipeline.hpp"
#include "kernels/matmul_contract.hpp"
#include "kernels/kernel.hpp"
#include "kernels/matvec_rules.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/quant_matmul.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/registry.hpp"
#include "reference/dequantize.hpp"
#include "reference/gguf_types.hpp"
#include "reference/matmul.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::kernels {
namespace {

constexpr std::size_t kDecode = 0;
constexpr std::size_t kPrefill = 1;
constexpr std::uint32_t kBlockBytes = 144;  // one Q4_K super-block of 256 weights
constexpr int kCoopmatQtype = 5;              // Q4_K in matmul_quant_cm.comp

using matvec::next_pow2;

int get(const Config& config, const char* name) { return config.at(name); }

// Empty when every parameter of the space is present with a candidate value.
std::string check_keys(const Config& config, const Space& space) {
  for (const auto& p : space.parameters) {
    const auto it = config.find(p.name);
    if (it == config.end()) return "parameter " + p.name + " of the " + space.name + " space is missing";
    if (std::find(p.values.begin(), p.values.end(), it->second) == p.values.end()) {
      return p.name + "=" + std::to_string(it->second) + " is not a candidate value";
    }
  }
  if (config.size() != space.parameters.size()) {
    return "the config has parameters outside the " + space.name + " space";
  }
  return {};
}

// The smallest subgroup the device may run this variant with.
std::uint32_t smallest_subgroup(const vk::DeviceInfo& device) {
  return device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
}

// Checks shared by both spaces for a requested subgroup size.
std::string subgroup_violation(int subgroup_size, std::uint32_t wg_size, const vk::DeviceInfo& device) {
  if (subgroup_size == 0) return {};
  const auto sg = static_cast<std::uint32_t>(subgroup_size);
  if (!device.supports_required_subgroup_size(sg)) {
    return "the device cannot require subgroup size " + std::to_string(sg);
  }
  if (device.min_subgroup_size == device.max_subgroup_size && device.subgroup_size == sg) {
    return "subgroup size " + std::to_string(sg) + " is the device's only size: SUBGROUP_SIZE=0 is the same variant";
  }
  if (wg_size % sg != 0) {
    return "workgroup size " + std::to_string(wg_size) + " is not a multiple of SUBGROUP_SIZE " + std::to_string(sg);
  }
  return {};
}

// Why an X_QUANT=1 config cannot run matvec_q4k_q8.comp, beyond the rules
// of kernels/quantized_activations.hpp, or "". The fp32-only parameters are
// pinned to one value so that no two configs build the same shader.
std::string q4k_quantized_activation_violation(const Config& config) {
  const int t = config.at("THREADS_PER_BLOCK");
  if (t != 4 && t != 8 && t != 16) return "X_QUANT=1 takes THREADS_PER_BLOCK 4, 8 or 16 (matvec_q4k_q8.comp)";
  if (config.at("DEQUANT") != 0 || config.at("REDUCTION") != 0 || config.at("LOAD_WIDTH") != 4) {
    return "X_QUANT=1 has no DEQUANT, REDUCTION or LOAD_WIDTH choice (its template reads none: pinned to 0, 0 and 4)";
  }
  return {};
}

// Rows per invocation of a decode config, or 0 where the row groups do not
// divide ROWS_PER_WG (illegal; pruning rules see such configs too).
int q4k_rows_per_thread(const Config& c) {
  const int t = c.at("THREADS_PER_BLOCK") * c.at("BLOCK_SLOTS");
  return matvec::rows_per_invocation(c.at("WG_SIZE"), c.at("ROWS_PER_WG"), t);
}

// The decode space's pruning: what was measured on the H200 (or kept out of
// its gate) keyed to NVIDIA, and what any GPU wastes.
std::vector<PruningRule> q4k_decode_pruning() {
  const DeviceKey nvidia{kVendorNvidia, ""};
  const DeviceKey any{};
  const auto x_q8 = [](const Config& c) { return uses_quantized_activations(c); };
  const auto blocks = [](const Shape& s) { return s.at(2) / 256; };
  return {
      {"matmul_q4k.x-q8-threads", "X_QUANT=1 with 16 threads per super-block was never among the best on the H200",
       nvidia, [x_q8](const Config& c, const Shape&) { return x_q8(c) && c.at("THREADS_PER_BLOCK") == 16; }},
      {"matmul_q4k.x-q8-rows", "X_QUANT=1 with fewer than 8 rows per workgroup (little reuse of the quantized x) was "
                               "never among the best on the H200",
       nvidia, [x_q8](const Config& c, const Shape&) { return x_q8(c) && c.at("ROWS_PER_WG") < 8; }},
      {"matmul_q4k.rows32-x-q8-only", "ROWS_PER_WG=32 amortises the quantization of x; on the H200 only varied with "
                                      "X_QUANT=1",
       nvidia, [x_q8](const Config& c, const Shape&) { return !x_q8(c) && c.at("ROWS_PER_WG") == 32; }},
      {"matmul_q4k.dequant-unroll", "BLOCK_UNROLL > 1 only varied with DEQUANT=0 on the H200", nvidia,
       [](const Config& c, const Shape&) { return c.at("BLOCK_UNROLL") > 1 && c.at("DEQUANT") != 0; }},
      {"matmul_q4k.dequant-threads", "DEQUANT=1 only varied with THREADS_PER_BLOCK <= 8 on the H200", nvidia,
       [](const Config& c, const Shape&) { return c.at("DEQUANT") != 0 && c.at("THREADS_PER_BLOCK") > 8; }},
      {"matmul_q4k.tree-plain", "REDUCTION=1 only varied with BLOCK_UNROLL=1 and DEQUANT=0 on the H200", nvidia,
       [](const Config& c, const Shape&) {
         return c.at("REDUCTION") == 1 && (c.at("BLOCK_UNROLL") > 1 || c.at("DEQUANT") != 0);
       }},
      {"matmul_q4k.narrow-loads", "LOAD_WIDTH=1 below THREADS_PER_BLOCK=32: wider loads were never slower on the H200",
       nvidia, [](const Config& c, const Shape&) { return c.at("LOAD_WIDTH") == 1 && c.at("THREADS_PER_BLOCK") < 32; }},
      {"matmul_q4k.tree-sums", "REDUCTION=1 over more than 4 sums per invocation was never worth it on the H200",
       nvidia,
       [](const Config& c, const Shape&) {
         return c.at("REDUCTION") == 1 && q4k_rows_per_thread(c) * c.at("COLS_PER_PASS") > 4;
       }},
      {"matmul_q4k.idle-slots", "BLOCK_SLOTS past the super-blocks of a row: some threads never work", any,
       [blocks](const Config& c, const Shape& s) { return matvec::idle_threads(c.at("BLOCK_SLOTS"), blocks(s)); }},
      {"matmul_q4k.unroll-past-row", "BLOCK_SLOTS*BLOCK_UNROLL past the super-blocks of a row: the unrolled loop "
                                     "never runs",
       any,
       [blocks](const Config& c, const Shape& s) {
         return matvec::unroll_past_row(c.at("BLOCK_SLOTS"), c.at("BLOCK_UNROLL"), blocks(s));
       }},
      {"matmul_q4k.weight-registers", "more than 32 registers of weights (rows per invocation * 32/THREADS_PER_BLOCK "
                                      "words * BLOCK_UNROLL) per invocation",
       any,
       [](const Config& c, const Shape&) {
         return q4k_rows_per_thread(c) * (32 / c.at("THREADS_PER_BLOCK")) * c.at("BLOCK_UNROLL") > 32;
       }},
      {"matvec.sums", "more than 16 sums (rows per invocation * COLS_PER_PASS) per invocation spill registers", any,
       [](const Config& c, const Shape&) {
         return matvec::too_many_sums(q4k_rows_per_thread(c), c.at("COLS_PER_PASS"));
       }},
      long_segment_rule(),
  };
}

class MatmulQ4K final : public Kernel {
 public:
  std::string name() const override { return "matmul_q4k"; }

  std::string description() const override {
    return "y[M×N] = x[M×K]·Wᵀ, W in GGUF Q4_K rows, x and y fp32; matrix-vector template for M <= 8 "
           "(decode), tiled template for M > 8 (prefill)";
  }

  std::vector<std::string> shape_dims() const override { return {"M", "N", "K"}; }

  void validate_shape(const Shape& shape) const override {
    if (shape.size() != 3) {
      throw Error(ErrorKind::usage, "matmul_q4k takes shapes M,N,K; got " + std::to_string(shape.size()) +
                                        " dimensions");
    }
    for (std::size_t i = 0; i < 3; ++i) {
      if (shape[i] == 0) throw Error(ErrorKind::usage, "matmul_q4k: " + shape_dims()[i] + " must be positive");
    }
    if (shape[2] % 256 != 0) {
      throw Error(ErrorKind::usage, "matmul_q4k: K=" + std::to_string(shape[2]) +
                                        " is not a multiple of 256 (the weights of a Q4_K super-block)");
    }
    // Indices inside the shaders are 32-bit, counted in 16-byte units for W
    // and x and in floats for y.
    const std::uint64_t m = shape[0], n = shape[1], k = shape[2];
    if (m * n >= (1ull << 32) || m * k / 4 >= (1ull << 32) || n * (k / 256) * 9 >= (1ull << 32)) {
      throw Error(ErrorKind::usage, "matmul_q4k: shape " + shape_to_string(shape) +
                                        " is too large for 32-bit indexing");
    }
  }

  std::vector<Shape> default_shapes() const override {
    std::vector<Shape> shapes;
    for (std::uint32_t m : {1u, 512u}) {
      shapes.push_back({m, 4096, 4096});
      shapes.push_back({m, 14336, 4096});
      shapes.push_back({m, 4096, 14336});
    }
    return shapes;
  }

  // Small odd shapes: N never a multiple of the rows per workgroup or the tile,
  // M a tail of COLS_PER_PASS or of TILE_M, K from one super-block to several
  // per workgroup step. M <= 8 exercises decode, M > 8 prefill. (X_QUANT=1
  // quantizes x in segments of 4096 or 16384 values; a test in
  // tests/kernels/matmul_q4k_test.cpp covers K spanning two of them.)
  std::vector<Shape> check_shapes() const override {
    return {{1, 37, 2048}, {3, 67, 512}, {8, 5, 768}, {13, 70, 512}, {65, 33, 256}};
  }

  std::vector<Space> build_spaces() const override {
    Space decode{"decode", "matvec_q4k.comp", {}, {}, {}, {}};
    decode.parameters = {
        {"WG_SIZE", {64, 128, 256}, "invocations per workgroup"},
        {"ROWS_PER_WG", {2, 4, 8, 16, 32}, "rows of W (outputs along N) per workgroup (32 only with X_QUANT=1)"},
        {"THREADS_PER_BLOCK", {4, 8, 16, 32}, "threads sharing one 256-weight super-block (256/T weights each)"},
        {"BLOCK_SLOTS", {1, 2, 4, 8}, "super-blocks a workgroup walks side by side; the rest of the invocations "
                                      "split the rows (WG_SIZE/(THREADS_PER_BLOCK*BLOCK_SLOTS) row groups)"},
        {"BLOCK_UNROLL", {1, 2}, "super-blocks per slot per loop step, all weight loads issued first"},
        {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
        {"REDUCTION", {0, 1}, "0 = subgroup shuffle butterfly, then shared memory across slots; 1 = shared-memory tree"},
        {"COLS_PER_PASS", {1, 2, 4, 8}, "rows of x (outputs along M) per workgroup"},
        {"LOAD_WIDTH", {1, 2, 4}, "32-bit words per weight load (uint, uvec2, uvec4)"},
        {"DEQUANT", {0, 1}, "nibble to float: 0 = shift and mask per weight (1+q/16), 1 = mask four at once and "
                            "move bytes (1/2+q/256, needs shaderInt8)"},
    };
    for (auto& p : quantized_activation_parameters()) decode.parameters.push_back(std::move(p));
    Space prefill{"prefill", "matmul_q4k.comp", {}, {}, {}, {}};
    prefill.parameters = {
        {"TILE_M", {32, 64, 128}, "output rows (along M) per workgroup"},
        {"TILE_N", {32, 64, 128}, "output columns (along N) per workgroup"},
        {"TILE_K", {32, 64, 128}, "K slice staged in shared memory per step"},
        {"THREAD_M", {2, 4, 8}, "register tile rows per invocation"},
        {"THREAD_N", {2, 4, 8}, "register tile columns per invocation"},
        {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
    };
    for (auto& p : quant_coopmat::parameters()) prefill.parameters.push_back(std::move(p));
    for (auto& p : quant_coopmat::dequant_parameters()) prefill.parameters.push_back(std::move(p));
    // Two decode templates: matvec_q4k.comp (fp32 activations; X_SEGMENT
    // pinned) and matvec_q4k_q8.comp (integer dot products; DEQUANT,
    // REDUCTION and LOAD_WIDTH pinned at the values its configs carried, so
    // their defines and hashes are unchanged; THREADS_PER_BLOCK 4, 8 or 16).
    Config x_q8 = quantized_activations();
    x_q8["DEQUANT"] = 0;
    x_q8["REDUCTION"] = 0;
    x_q8["LOAD_WIDTH"] = 4;
    decode.paths = {pinned_path(decode, "fp32", fp32_activations()),
                    pinned_path(decode, "x-q8", x_q8, {{"THREADS_PER_BLOCK", {4, 8, 16}}})};
    decode.pruning = q4k_decode_pruning();
    prefill.paths = quant_coopmat::paths(prefill);
    prefill.pruning = quant_coopmat::pruning();
    prefill.pruning.insert(prefill.pruning.begin(), few_invocations_rule());
    decode.shape_class = matmul::decode_shapes();
    prefill.shape_class = matmul::prefill_shapes();
    decode.bindings = prefill.bindings = matmul::bindings(4, size_rule(kBlockBytes, {1, 2}, 256));
    prefill.bindings.push_back(quant_coopmat::w16_binding());  // DEQUANT_STAGE=1's scratch
    return {decode, prefill};
  }

  Config baseline(const Shape& shape) const override {
    if (space_index(shape) == kDecode) {
      // A plain, portable matrix-vector kernel: 64 invocations, eight threads
      // per super-block with 16-byte loads (eight fit every subgroup size the
      // shuffle reduction allows), two super-blocks side by side and the other
      // invocations on further rows (one row each); subgroup reduction at the
      // device's subgroup size, all x rows at once. Rows of one super-block
      // (K = 256) walk it one block at a time.
      const int cols = static_cast<int>(next_pow2(shape[0]));
      const std::uint32_t blocks = shape[2] / 256;
      const int slots = blocks >= 2 ? 2 : 1;
      return {{"WG_SIZE", 64},        {"ROWS_PER_WG", 8 / slots}, {"THREADS_PER_BLOCK", 8}, {"BLOCK_SLOTS", slots},
              {"BLOCK_UNROLL", 1},    {"SUBGROUP_SIZE", 0},       {"REDUCTION", 0},         {"COLS_PER_PASS", cols},
              {"LOAD_WIDTH", 4},      {"DEQUANT", 0},             {"X_QUANT", 0},
              {"X_SEGMENT", 4096}};
    }
    // The textbook 64×64 tile, 4×4 per invocation (256 invocations), K in
    // 32-weight sub-blocks: 16.6 KB of shared memory.
    // The fp32 path even on tensor-core devices: a tensor-core winner's
    // speedup then shows what the tensor cores gain.
    return {{"TILE_M", 64},       {"TILE_N", 64},     {"TILE_K", 32},      {"THREAD_M", 4},
            {"THREAD_N", 4},      {"SUBGROUP_SIZE", 0}, {"USE_COOPMAT", 0}, {"CM_SHAPE", 0},
            {"WARPS_M", 1},       {"WARPS_N", 1},     {"DEQUANT_STAGE", 0}, {"DQ_WG", 64},
            {"DQ_RUN", 8}};
  }

  std::string constraint_violation(const Config& config, const Shape& shape,
                                   const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    const auto& space_list = spaces();
    const auto space = space_index(shape);
    if (auto problem = check_keys(config, space_list[space]); !problem.empty()) return problem;
    const std::uint32_t m = shape[0];
    const int sg = get(config, "SUBGROUP_SIZE");

    if (space == kDecode) {
      const int wg = get(config, "WG_SIZE");
      const int t = get(config, "THREADS_PER_BLOCK");
      const int slots = get(config, "BLOCK_SLOTS");
      const int width = get(config, "LOAD_WIDTH");
      const int reduction = get(config, "REDUCTION");
      const int rows = get(config, "ROWS_PER_WG");
      // The pass width first: M leaves two widths (one at M = 1), so it
      // rejects most configs, and cheaply.
      if (auto problem = matvec::pass_width_violation(get(config, "COLS_PER_PASS"), m); !problem.empty()) {
        return problem;
      }
      if (wg % (t * slots) != 0) return "WG_SIZE must be a multiple of THREADS_PER_BLOCK*BLOCK_SLOTS";
      const int groups = wg / (t * slots);
      if (rows % groups != 0) {
        return "the " + std::to_string(groups) + " row groups (WG_SIZE/(THREADS_PER_BLOCK*BLOCK_SLOTS)) do not divide "
               "ROWS_PER_WG=" + std::to_string(rows);
      }
      if (auto problem = quantized_activation_violation(config, device); !problem.empty()) return problem;
      if (uses_quantized_activations(config)) {
        if (auto problem = q4k_quantized_activation_violation(config); !problem.empty()) return problem;
      } else if ((32 / t) % width != 0) {
        return "LOAD_WIDTH " + std::to_string(width) + " does not divide the " + std::to_string(32 / t) +
               " qs words of each of THREADS_PER_BLOCK=" + std::to_string(t) + " threads";
      }
      if (get(config, "DEQUANT") == 1 && !device.features.shader_int8) return "DEQUANT=1 needs shaderInt8";
      if (reduction == 1 && sg != 0) {
        return "REDUCTION=1 uses no subgroup operations; SUBGROUP_SIZE is only read with REDUCTION=0";
      }
      if (reduction == 0) {
        if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle")) {
          return "REDUCTION=0 needs subgroup shuffles in compute shaders";
        }
        const std::uint32_t smallest = sg != 0 ? static_cast<std::uint32_t>(sg) : smallest_subgroup(device);
        if (smallest < static_cast<std::uint32_t>(t)) {
          return "REDUCTION=0 sums THREADS_PER_BLOCK=" + std::to_string(t) +
                 " invocations with subgroup shuffles, more than the " + std::to_string(smallest) +
                 " invocations of the smallest subgroup the variant may get";
        }
      }
      if (auto problem = subgroup_violation(sg, static_cast<std::uint32_t>(wg), device); !problem.empty()) {
        return problem;
      }
    } else if (auto problem = quant_coopmat::idle_violation(config, space_list[space]); !problem.empty()) {
      return problem;
    } else if (quant_coopmat::uses_coopmat(config)) {
      if (auto problem = quant_coopmat::violation(config, shape, device); !problem.empty()) return problem;
    } else {
      const int tm = get(config, "TILE_M"), tn = get(config, "TILE_N");
      const int thm = get(config, "THREAD_M"), thn = get(config, "THREAD_N");
      const int wg = (tm / thm) * (tn / thn);
      if (wg > 1024) return "(TILE_M/THREAD_M)*(TILE_N/THREAD_N) = " + std::to_string(wg) + " invocations exceed 1024";
      if (auto problem = subgroup_violation(sg, static_cast<std::uint32_t>(wg), device); !problem.empty()) {
        return problem;
      }
    }
    return stages_limits_violation(stages(config, shape), shape,
                                   static_cast<std::uint32_t>(space_list[space].bindings.size()), device);
  }

  // DEQUANT_STAGE=1: the dequantization, then the GEMM on fp16 weights
  // (kernels/quant_coopmat.hpp); one stage otherwise.
  std::vector<ShaderPlan> stages(const Config& config, const Shape& shape) const override {
    if (space_index(shape) == kPrefill && quant_coopmat::uses_dequant_stage(config)) {
      return quant_coopmat::dequant_stages(config, spaces()[kPrefill], kCoopmatQtype);
    }
    return {plan(config, shape)};
  }

  // The first stage of the config's path.
  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    const auto space = space_index(shape);
    const auto& space_list = spaces();
    if (space == kPrefill && quant_coopmat::uses_dequant_stage(config)) {
      return quant_coopmat::dequant_stages(config, space_list[space], kCoopmatQtype).front();
    }
    if (space == kPrefill && quant_coopmat::uses_coopmat(config)) {
      return quant_coopmat::plan(config, space_list[space], kCoopmatQtype);
    }
    const auto& params = space_list[space].parameters;
    ShaderPlan plan;
    plan.template_file = space == kPrefill                ? "matmul_q4k.comp"
                         : uses_quantized_activations(config) ? "matvec_q4k_q8.comp"
                                                         : "matvec_q4k.comp";
    for (const auto& p : params) {
      if (quant_coopmat::is_dequant_parameter(p.name)) continue;  // DEQUANT_STAGE=1 only
      const auto it = config.find(p.name);
      if (it == config.end()) {
        throw Error(ErrorKind::internal, "matmul_q4k: config lacks parameter " + p.name + " of the " +
                                             (space == kDecode ? "decode" : "prefill") + " space");
      }
      plan.defines.emplace_back(p.name, std::to_string(it->second));
    }
    const auto sg = static_cast<std::uint32_t>(get(config, "SUBGROUP_SIZE"));
    plan.required_subgroup_size = sg;
    if (space == kDecode) {
      const auto wg = static_cast<std::uint32_t>(get(config, "WG_SIZE"));
      const auto rows = static_cast<std::uint32_t>(get(config, "ROWS_PER_WG"));
      const auto cols = static_cast<std::uint32_t>(get(config, "COLS_PER_PASS"));
      plan.local_size = {wg, 1, 1};
      plan.dispatch = {DispatchAxis{1, rows}, DispatchAxis{0, cols}, DispatchAxis{}};
      const auto t = static_cast<std::uint32_t>(get(config, "THREADS_PER_BLOCK"));
      const auto slots = static_cast<std::uint32_t>(get(config, "BLOCK_SLOTS"));
      if (uses_quantized_activations(config)) {
        plan.shared_memory_bytes = quantized_activation_shared_bytes(config, cols) + 4 * slots * rows * cols;
      } else if (get(config, "REDUCTION") == 0) {
        plan.shared_memory_bytes = 4 * slots * rows * cols;
      } else {
        const std::uint32_t groups = std::max(1u, wg / (t * slots));
        plan.shared_memory_bytes = 4 * (rows / groups) * cols * wg;
      }
    } else {
      const auto tm = static_cast<std::uint32_t>(get(config, "TILE_M"));
      const auto tn = static_cast<std::uint32_t>(get(config, "TILE_N"));
      const auto tk = static_cast<std::uint32_t>(get(config, "TILE_K"));
      const auto thm = static_cast<std::uint32_t>(get(config, "THREAD_M"));
      const auto thn = static_cast<std::uint32_t>(get(config, "THREAD_N"));
      plan.local_size = {(tm / thm) * (tn / thn), 1, 1};
      plan.dispatch = {DispatchAxis{1, tn}, DispatchAxis{0, tm}, DispatchAxis{}};
      plan.shared_memory_bytes = 4 * tk * ((tm + 1) + (tn + 1));
    }
    return plan;
  }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t m = shape[0], n = shape[1], k = shape[2];
    Problem problem;
    problem.shape = shape;
    const auto weights = ref::random_quantized_rows(ref::GgmlType::Q4_K, n, k, seed, inputs.kind);
    const auto x = ref::random_floats(m * k, seed ^ 0x9e3779b97f4a7c15ull, -1.0f, 1.0f, inputs.kind);

    // Full, or for large shapes a sample of outputs with NaN elsewhere.
    problem.expected = quantized_matmul_reference(x, m, weights, ref::GgmlType::Q4_K, n, k, inputs.full_reference);

    HostBuffer xb{"x", {}, false, false};
    xb.bytes.resize(x.size() * sizeof(float));
    std::memcpy(xb.bytes.data(), x.data(), xb.bytes.size());
    HostBuffer wb{"W", weights, false, true};
    HostBuffer yb{"y", std::vector<std::uint8_t>(m * n * sizeof(float)), true, false};
    problem.buffers = {std::move(xb), std::move(wb), std::move(yb)};
    if (space_index(shape) == kPrefill) {
      problem.buffers.push_back(HostBuffer{"W16", std::vector<std::uint8_t>(2 * n * k), false, false});
    }
    problem.output_index = 2;
    return problem;
  }

  // Both templates accumulate in fp32 (per thread over its share of K, then a
  // tree or subgroup sum) against a double reference. For random signs the
  // rounding error of a K-term fp32 dot product grows like eps*sqrt(K) relative
  // to the result (eps = 6e-8; K = 14336 gives about 1e-5 in the worst case),
  // and the decode template's 1+q/16 trick (see templates/include/q4k.glsl)
  // adds a few ulps of cancellation per sub-block. Typical errors are 1e-7 to
  // 1e-6; a wrong scale, nibble or block gives errors above 1e-2.
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-4, 1e-3}; }

  // X_QUANT=1: see kernels/quantized_activations.hpp; USE_COOPMAT=1:
  // kernels/quant_coopmat.hpp.
  Tolerance variant_tolerance(const Config& config, const Shape& shape) const override {
    if (space_index(shape) == kDecode && uses_quantized_activations(config)) return kQuantizedActivationTolerance;
    if (space_index(shape) == kPrefill && quant_coopmat::uses_coopmat(config)) return quant_coopmat::kTolerance;
    return tolerance(shape);
  }

  Metrics metrics(const Shape& shape) const override {
    const double m = shape.at(0), n = shape.at(1), k = shape.at(2);
    Metrics metrics;
    metrics.bytes = n * (k / 256) * kBlockBytes + m * k * 4 + m * n * 4;
    metrics.flops = 2 * m * n * k;
    return metrics;
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t m = shape.at(0), n = shape.at(1), k = shape.at(2);
    const std::uint64_t w16 = space_index(shape) == kPrefill ? 2 * n * k : 0;
    return n * (k / 256) * kBlockBytes + m * k * 4 + m * n * 4 + w16;
  }
};

const KernelRegistration registration([] { return std::make_unique<MatmulQ4K>(); });

}  // namespace
}  // namespace vktune::kernels
