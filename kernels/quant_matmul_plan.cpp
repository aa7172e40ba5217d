// How a quantized matmul config becomes its shaders (kernels/quant_matmul.hpp):
// the template each path reads, its defines, workgroup, dispatch and shared
// memory, and the defines each activation kind and epilogue adds. What the
// spaces hold is quant_matmul.cpp's; legality and pruning have files of
// their own.
#include <algorithm>
#include <numeric>

#include "kernels/half_activations.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/quant_matmul.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/rms_norm_eps.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {

std::uint32_t QuantMatmul::aligned_run_blocks() const { return 16 / std::gcd(format_.block_bytes, 16u); }

std::uint32_t QuantMatmul::stage_blocks(const Config& config) const {
  const auto bytes = static_cast<std::uint32_t>(config.at("W_STAGE"));
  const std::uint32_t run = aligned_run_blocks();
  return bytes / (run * format_.block_bytes) * run;
}

ShaderPlan QuantMatmul::plan(const Config& config, const Shape& shape) const { return stages(config, shape).front(); }

ShaderPlan QuantMatmul::single_stage(const Config& config, const Shape& shape) const {
  const auto space = space_index(shape);
  if (space == kPrefill && quant_coopmat::uses_coopmat(config)) {
    return quant_coopmat::plan(config, spaces()[kPrefill], format_.qtype);
  }
  ShaderPlan plan;
  plan.template_file = spaces()[space].template_file;
  const bool staged = space == kDecode && config.at("W_STAGE") != 0;
  const bool layout = space == kDecode && uses_layout(config);
  if (space == kDecode && uses_exact_layout(config)) plan.template_file = "matvec_q4k.comp";
  if (space == kDecode && uses_quantized_activations(config)) {
    plan.template_file = staged ? "matvec_quant_q8_staged.comp" : "matvec_quant_q8.comp";
    if (layout) {
      plan.template_file = format_.block_pairs                    ? "matvec_q4_0_q8.comp"
                           : format_.type == ref::GgmlType::Q6_K ? "matvec_q6k_q8.comp"
                           : format_.type == ref::GgmlType::Q4_K ? "matvec_q4k_q8.comp"
                                                                 : "matvec_q5k_q8.comp";
    }
  }
  plan.defines = rowops::config_defines(config, spaces()[space]);
  std::erase_if(plan.defines, [](const auto& d) { return quant_coopmat::is_dequant_parameter(d.first); });
  // X_SCOPE=0 is the template's default: its variants' shaders (and
  // hashes) stay those of before the parameter.
  std::erase_if(plan.defines, [](const auto& d) { return d.first == "X_SCOPE" && d.second == "0"; });
  plan.defines.emplace_back("QTYPE", std::to_string(format_.qtype));
  if (split_layout()) plan.defines.emplace_back("Q6K_SPLIT", "1");
  const std::uint32_t blocks = staged ? stage_blocks(config) : 0;
  if (staged) {
    plan.defines.emplace_back("STAGE_BLOCKS", std::to_string(blocks));
    plan.defines.emplace_back("STAGE_VEC4S", std::to_string(blocks * format_.block_bytes / 16));
  }
  plan.required_subgroup_size = static_cast<std::uint32_t>(config.at("SUBGROUP_SIZE"));
  if (space == kDecode) {
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto rows = static_cast<std::uint32_t>(config.at("ROWS_PER_WG"));
    const auto cols = static_cast<std::uint32_t>(config.at("COLS_PER_PASS"));
    const auto t = static_cast<std::uint32_t>(config.at("THREADS_PER_ROW"));
    plan.local_size = {wg, 1, 1};
    plan.dispatch = {DispatchAxis{1, rows}, DispatchAxis{0, cols}, DispatchAxis{}};
    if (config.at("REDUCTION") == 1) plan.shared_memory_bytes = 4 * (rows / std::max(1u, wg / t)) * cols * wg;
    if (uses_quantized_activations(config)) plan.shared_memory_bytes = quantized_activation_shared_bytes(config, cols);
    if (layout && config.at("X_SCOPE") == 1) {  // a region of UNROLL units per slot
      const std::uint32_t values = t / 4 * static_cast<std::uint32_t>(config.at("UNROLL")) * 256;
      plan.shared_memory_bytes = cols * (values + values / 32 * 8);
    }
    if (staged) plan.shared_memory_bytes += rows * (blocks * format_.block_bytes / 16 * 16);
    if (addnorm_activations()) plan.shared_memory_bytes += 4 * (wg + cols);  // x_partial, x_scale
    const std::uint32_t parts = uses_exact_layout(config) ? 8 : 4;
    if (layout && config.at("REDUCTION") == 0) {
      plan.shared_memory_bytes += 4 * (t / parts) * rows * cols;  // partial sums of the slots side by side
    }
  } else {
    const auto tm = static_cast<std::uint32_t>(config.at("TILE_M"));
    const auto tn = static_cast<std::uint32_t>(config.at("TILE_N"));
    const auto tk = static_cast<std::uint32_t>(config.at("TILE_K"));
    plan.local_size = {(tm / static_cast<std::uint32_t>(config.at("THREAD_M"))) *
                           (tn / static_cast<std::uint32_t>(config.at("THREAD_N"))),
                       1, 1};
    plan.dispatch = {DispatchAxis{1, tn}, DispatchAxis{0, tm}, DispatchAxis{}};
    plan.shared_memory_bytes = 4 * tk * ((tm + 1) + (tn + 1));
  }
  return plan;
}

std::vector<ShaderPlan> QuantMatmul::stages(const Config& config, const Shape& shape) const {
  auto stages = space_index(shape) == kPrefill && quant_coopmat::uses_dequant_stage(config)
                    ? quant_coopmat::dequant_stages(config, spaces()[kPrefill], format_.qtype)
                    : std::vector<ShaderPlan>{single_stage(config, shape)};
  if (fp16_activations()) half_activations::add_define(stages);
  if (swiglu_activations()) {
    for (auto& stage : stages) stage.defines.emplace_back("ACT_SWIGLU", "1");
  }
  if (addnorm_activations()) {
    for (auto& stage : stages) {
      stage.defines.emplace_back("ACT_ADDNORM", "1");
      stage.defines.emplace_back("EPS", std::to_string(kRmsNormEps));
    }
  }
  matmul_epilogue::add_defines(epilogue_, stages);
  return stages;
}

}  // namespace vktune::kernels
