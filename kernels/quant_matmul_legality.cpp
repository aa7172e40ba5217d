// Legality of the quantized matmuls' configs (kernels/quant_matmul.hpp):
// what each template needs of a config, a shape and a device. What won on
// one GPU is pruning (quant_matmul_pruning.cpp), never legality.
#include <string>

#include "kernels/early_rules.hpp"
#include "kernels/half_activations.hpp"
#include "kernels/matvec_rules.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/quant_matmul.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {
namespace {

// The quantized matmuls' own legality rules (kernels/legality.hpp, matvec::
// and coopmat:: have the shared ones).
constexpr RuleId kLayoutThreads{"quant_matmul.layout_threads"};  // Q4_K's exact layout: 8 invocations per super-block
constexpr RuleId kRowAlignment{"quant_matmul.row_alignment"};    // rows read as 16-byte vectors
constexpr RuleId kStageRuns{"quant_matmul.stage_runs"};          // W_STAGE holds whole aligned runs within X_SEGMENT
constexpr RuleId kSplitReader{"quant_matmul.split_reader"};      // the split layout is read by SUPER_BLOCK=1 alone

// The smallest subgroup the device may run a variant with.
std::uint32_t smallest_subgroup(int required, const vk::DeviceInfo& device) {
  if (required != 0) return static_cast<std::uint32_t>(required);
  return device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
}

// The shared-memory tree reads no subgroup size.
Violation tree_reduction_violation(int reduction, int subgroup_size) {
  if (reduction != 1 || subgroup_size == 0) return {};
  return legality::kUnreadParameter(
      "REDUCTION=1 uses no subgroup operations; SUBGROUP_SIZE is only read with REDUCTION=0");
}

}  // namespace

Violation QuantMatmul::constraint_violation(const Config& config, const Shape& shape,
                                              const vk::DeviceInfo& device) const {
  validate_shape(shape);
  const auto space = space_index(shape);
  if (auto problem = rowops::parameter_violation(config, spaces()[space]); !problem.empty()) return problem;
  if (fp16_activations()) {
    if (auto problem = half_activations::device_violation(device); !problem.empty()) return problem;
  }
  auto problem = space == kDecode ? decode_violation(config, shape, device) : prefill_violation(config, shape, device);
  if (!problem.empty()) return problem;
  return stages_limits_violation(stages(config, shape), shape,
                                 static_cast<std::uint32_t>(spaces()[space].bindings.size()), device);
}

// Checks decode_violation (or constraint_violation before it) makes
// whatever the parameters it has not yet read: each is implied by
// constraint_violation, as early_rules.hpp asks.
std::unique_ptr<PrefixChecker> QuantMatmul::prefix_checker(const Path& path, const Shape& shape,
                                                           const vk::DeviceInfo& device,
                                                           const std::vector<const PruningRule*>& pruning) const {
  validate_shape(shape);
  if (space_index(shape) != kDecode) return nullptr;
  std::vector<EarlyRule> rules;
  if (fp16_activations()) {
    rules.push_back({{}, [&device](const Config&) { return half_activations::device_violation(device); }});
  }
  const std::uint32_t m = shape[0];
  rules.push_back({{"COLS_PER_PASS"},
                   [m](const Config& c) { return matvec::pass_width_violation(c.at("COLS_PER_PASS"), m); }});
  rules.push_back({{"WG_SIZE", "ROWS_PER_WG", "THREADS_PER_ROW"}, [](const Config& c) {
                     int rows_per_thread = 0;
                     return matvec::row_group_violation(c.at("WG_SIZE"), c.at("ROWS_PER_WG"), c.at("THREADS_PER_ROW"),
                                                        rows_per_thread);
                   }});
  rules.push_back({{"REDUCTION", "SUBGROUP_SIZE"},
                   [](const Config& c) { return tree_reduction_violation(c.at("REDUCTION"), c.at("SUBGROUP_SIZE")); }});
  rules.push_back({{"SUBGROUP_SIZE", "WG_SIZE"}, [&device](const Config& c) {
                     return rowops::subgroup_size_violation(c.at("SUBGROUP_SIZE"),
                                                            static_cast<std::uint32_t>(c.at("WG_SIZE")), device);
                   }});
  return make_early_rules_checker(*this, path, shape, device, pruning, std::move(rules));
}

// Legality of a decode config. The pass width comes first: M leaves two
// widths (one at M = 1), so it rejects most configs, and cheaply.
Violation QuantMatmul::decode_violation(const Config& config, const Shape& shape,
                                          const vk::DeviceInfo& device) const {
  const int wg = config.at("WG_SIZE"), rows = config.at("ROWS_PER_WG"), t = config.at("THREADS_PER_ROW");
  const int reduction = config.at("REDUCTION");
  const int sg = config.at("SUBGROUP_SIZE");
  if (auto problem = matvec::pass_width_violation(config.at("COLS_PER_PASS"), shape[0]); !problem.empty()) {
    return problem;
  }
  int rows_per_thread = 0;
  if (auto problem = matvec::row_group_violation(wg, rows, t, rows_per_thread); !problem.empty()) return problem;
  if (auto problem = matmul_epilogue::violation(epilogue_, config, uses_layout(config)); !problem.empty()) {
    return problem;
  }
  if (auto problem = quantized_activation_violation(config, device); !problem.empty()) return problem;
  if (uses_quantized_activations(config) && reduction != 0) {
    return legality::kUnreadParameter(
        "X_QUANT=1 reduces with subgroup shuffles only (the integer templates read no REDUCTION: pinned to 0)");
  }
  if (auto problem = staged_violation(config, shape); !problem.empty()) return problem;
  const bool layout = uses_layout(config);
  if (auto problem = layout_violation(config, shape); !problem.empty()) return problem;
  if (reduction == 1) {
    if (auto problem = tree_reduction_violation(reduction, sg); !problem.empty()) return problem;
  } else {
    if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle")) {
      return legality::kSubgroupOperations("REDUCTION=0 needs subgroup shuffles in compute shaders");
    }
    const std::uint32_t smallest = smallest_subgroup(sg, device);
    // The dedicated layouts shuffle over the 4 (Q4_K's exact one: 8)
    // invocations of a group of blocks or a super-block only (the slots side
    // by side meet in shared memory). The staged template's subgroup
    // barriers need a row group inside one subgroup, which this rule ensures
    // as well.
    const int shuffled = uses_exact_layout(config) ? 8 : layout ? 4 : t;
    if (smallest < static_cast<std::uint32_t>(shuffled)) {
      return legality::kSubgroupSmallest("REDUCTION=0 sums " + std::to_string(shuffled) +
                                         " invocations (THREADS_PER_ROW=" + std::to_string(t) +
                                         ") with subgroup shuffles, more than the " + std::to_string(smallest) +
                                         " invocations of the smallest subgroup the variant may get");
    }
  }
  if (layout && config.at("X_SCOPE") == 1) {
    // A slot's invocations synchronise with subgroup barriers.
    const int slot = wg / (t / 4);
    const std::uint32_t smallest = smallest_subgroup(sg, device);
    if (static_cast<std::uint32_t>(slot) > smallest) {
      return legality::kSubgroupSmallest("X_SCOPE=1: a slot's " + std::to_string(slot) +
                                         " invocations (WG_SIZE/(THREADS_PER_ROW/4)) must lie in one subgroup, and "
                                         "the smallest subgroup the variant may get has " +
                                         std::to_string(smallest));
    }
  }
  return rowops::subgroup_size_violation(sg, static_cast<std::uint32_t>(wg), device);
}

// BLOCK_PAIRS=1 (templates/matvec_q4_0_q8.comp) and SUPER_BLOCK=1
// (templates/matvec_q5k_q8.comp, matvec_q6k_q8.comp, matvec_q4k_q8.comp),
// where the format has them: 4 invocations on 256 weights (a group of 8
// blocks, a super-block), on the walk of templates/include/matvec_q8_walk.glsl.
// Q4_K's SUPER_BLOCK=1 also serves X_QUANT=0 (matvec_q4k.comp: 8 invocations
// per super-block). What the templates need; what won on an H200 is pruning.
Violation QuantMatmul::layout_violation(const Config& config, const Shape& shape) const {
  if (split_layout() && !uses_layout(config)) {
    return kSplitReader("the split layout's W is read by matvec_q6k_q8.comp alone (SUPER_BLOCK=1)");
  }
  if (!uses_layout(config)) {
    const auto scope = config.find("X_SCOPE");
    if (scope == config.end() || scope->second == 0) return {};
    return legality::kUnreadParameter("X_SCOPE is read by the dedicated layouts only (pinned to 0 with " +
                                      layout_parameter() + "=0)");
  }
  const std::string p = layout_parameter() + "=1";
  if (uses_exact_layout(config) && config.at("THREADS_PER_ROW") % 8 != 0) {
    return kLayoutThreads(p + " with X_QUANT=0 (matvec_q4k.comp) takes THREADS_PER_ROW a multiple of 8 (8 invocations "
                              "per super-block)");
  }
  if (!uses_quantized_activations(config) && !uses_exact_layout(config)) {
    return legality::kUnreadParameter(p + " is an integer-dot path: it takes X_QUANT=1");
  }
  if (config.at("W_STAGE") != 0) {
    return legality::kUnreadParameter(p + " reads its rows itself (its template reads no W_STAGE: pinned to 0)");
  }
  if (uses_exact_layout(config) && config.at("X_SCOPE") != 0) {
    return legality::kUnreadParameter("X_SCOPE is read by the integer-dot templates only (pinned to 0 with X_QUANT=0)");
  }
  if (config.at("X_SCOPE") == 1 && config.at("X_SEGMENT") != kSlotScopeSegment) {
    return legality::kUnreadParameter(
        "X_SEGMENT is not read with X_SCOPE=1 (each slot quantizes its own units; pinned to 4096)");
  }
  const std::uint32_t k = shape[2];
  const std::uint32_t blocks = k / format_.block_weights;
  if (k % 256 != 0) {
    const std::uint64_t row = static_cast<std::uint64_t>(blocks) * format_.block_bytes;
    return kRowAlignment(p + " reads groups of 8 blocks as 16-byte vectors, but a row of K=" + std::to_string(k) + " " +
                         format_.type_name + " weights is " + std::to_string(row) +
                         " bytes, not a multiple of 16 (K must be a multiple of 256); " + layout_parameter() +
                         "=0 serves it");
  }
  return {};
}

// W_STAGE > 0 (templates/matvec_quant_q8_staged.comp): rows 16-byte aligned,
// runs of whole 16-byte-aligned groups of blocks within one x segment. Its
// subgroup barriers need a row group inside one subgroup: the shuffle
// reduction's rule (REDUCTION pinned to 0) ensures it.
Violation QuantMatmul::staged_violation(const Config& config, const Shape& shape) const {
  const int stage = config.at("W_STAGE");
  if (stage == 0) return {};
  if (!uses_quantized_activations(config)) {
    return legality::kUnreadParameter(
        "W_STAGE is only read with X_QUANT=1 (the staged template is an integer-dot path; pinned to 0)");
  }
  const std::uint32_t k = shape[2];
  const std::uint64_t row = static_cast<std::uint64_t>(k / format_.block_weights) * format_.block_bytes;
  if (row % 16 != 0) {
    return kRowAlignment("W_STAGE > 0 reads rows as 16-byte vectors, but a row of K=" + std::to_string(k) + " " +
                         format_.type_name + " weights is " + std::to_string(row) +
                         " bytes, not a multiple of 16 (K must be a multiple of " +
                         std::to_string(aligned_run_blocks() * format_.block_weights) + "); W_STAGE=0 serves it");
  }
  const std::uint32_t run_bytes = aligned_run_blocks() * format_.block_bytes;
  const std::uint32_t blocks = stage_blocks(config);
  if (blocks == 0) {
    return kStageRuns("W_STAGE=" + std::to_string(stage) + " bytes hold no 16-byte-aligned run of " +
                      format_.type_name + " blocks (" + std::to_string(aligned_run_blocks()) + " blocks, " +
                      std::to_string(run_bytes) + " bytes)");
  }
  // Runs never cross an x segment (the shortest, 4096 values, holds the
  // longest run, 112 Q4_0 blocks); a row shorter than a run is one shorter run.
  if (blocks * format_.block_weights > static_cast<std::uint32_t>(config.at("X_SEGMENT"))) {
    return kStageRuns("W_STAGE=" + std::to_string(stage) + " runs of " + std::to_string(blocks) +
                      " blocks exceed X_SEGMENT");
  }
  return {};
}

Violation QuantMatmul::prefill_violation(const Config& config, const Shape& shape,
                                           const vk::DeviceInfo& device) const {
  if (auto problem = quant_coopmat::idle_violation(config, spaces()[kPrefill]); !problem.empty()) return problem;
  if (quant_coopmat::uses_coopmat(config)) return quant_coopmat::violation(config, shape, device);
  const int wg = (config.at("TILE_M") / config.at("THREAD_M")) * (config.at("TILE_N") / config.at("THREAD_N"));
  if (wg > 1024) {
    return legality::kTiledInvocations("(TILE_M/THREAD_M)*(TILE_N/THREAD_N) = " + std::to_string(wg) +
                                       " invocations exceed 1024");
  }
  return rowops::subgroup_size_violation(config.at("SUBGROUP_SIZE"), static_cast<std::uint32_t>(wg), device);
}

}  // namespace vktune::kernels
