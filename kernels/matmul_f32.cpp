// matmul_f32: y[M×N] = x[M×K]·Wᵀ, all fp32 row-major (W is N rows of K, the
// GGUF layout of a weight matrix). The tiled space: the shared-memory template
// with register blocking and vec4 loads (templates/matmul_f32.comp over
// templates/include/matmul_tiled.glsl), with the number of shared buffers
// (STAGES), a 64-deep K slice and the subgroup layout of the invocations
// (LANES_N) as parameters beyond matmul_f16's scalar path; shapes with M <= 8
// (decode) use the matrix-vector space of kernels/dense_matvec.hpp.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/matmul_contract.hpp"
#include "kernels/dense_matmul.hpp"
#include "kernels/dense_matvec.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {
namespace {

const std::vector<int> kVecWidths{4, 1};

// Floats an invocation holds across a K slice: its accumulators and the next
// slice's vec4 global loads (the register prefetch of the tiled body).
int tiled_register_floats(const Config& c) {
  const int wg = static_cast<int>(dense::tiled_invocations(c));
  const auto vec4_loads = [&](int rows) { return (rows * c.at("TILE_K") / 4 + wg - 1) / wg; };
  return c.at("THREAD_M") * c.at("THREAD_N") + 4 * (vec4_loads(c.at("TILE_M")) + vec4_loads(c.at("TILE_N")));
}

// The 8 × 4 subgroup layout (LANES_N=8) needs TILE_M/THREAD_M a multiple
// of 4 (the template's layout) and TILE_N/THREAD_N of at least 16: at 8 the
// default layout is already 8 × 4 per subgroup, the same variant.
constexpr RuleId kLanesLayout{"tiled.lanes_layout"};

Violation lanes_violation(const Config& c) {
  if (c.at("LANES_N") != 8) return {};
  const int tnt = c.at("TILE_N") / c.at("THREAD_N"), tmt = c.at("TILE_M") / c.at("THREAD_M");
  if (tnt < 16) {
    return legality::kDuplicate("LANES_N=8 with TILE_N/THREAD_N = " + std::to_string(tnt) +
                                ": the default layout is already 8 invocations wide per subgroup");
  }
  if (tmt % 4 != 0) return kLanesLayout("LANES_N=8 needs TILE_M/THREAD_M a multiple of 4, not " + std::to_string(tmt));
  return {};
}

// TILE_K=64, double-buffered 32-deep slices (STAGES=2) and the 8 × 4
// subgroup layout (LANES_N=8) were aimed at the H200's fastest tiles: vec4
// loads, at least 32 accumulators per invocation and slices of 32 k or more
// (every variant within 20% of the best at 4096³ had the first two, the best
// seven all three). On NVIDIA they are varied only there; a 64-deep slice,
// which also doubles the prefetched loads, only where those and the
// accumulators fit in 128 floats (the register file holds two workgroups of
// 256 at 128 registers each; past that occupancy halves or registers spill).
bool outside_h200_fast_path(const Config& c) {
  const bool deep = c.at("TILE_K") == 64 || (c.at("TILE_K") == 32 && c.at("STAGES") == 2);
  const bool lanes = c.at("LANES_N") == 8;
  if (!deep && !lanes) return false;
  if (c.at("VEC") != 4 || c.at("THREAD_M") * c.at("THREAD_N") < 32) return true;
  if (lanes && c.at("TILE_K") < 32) return true;
  return c.at("TILE_K") == 64 && tiled_register_floats(c) > 128;
}

class MatmulF32 final : public Kernel {
  static constexpr std::size_t kTiled = 0, kDecode = 1;

 public:
  std::string name() const override { return "matmul_f32"; }

  std::string description() const override {
    return "y[M×N] = x[M×K]·Wᵀ, all fp32; shared-memory tiles, register blocking, vec4 loads; a matrix-vector "
           "template for M <= 8";
  }

  std::vector<std::string> shape_dims() const override { return {"M", "N", "K"}; }
  void validate_shape(const Shape& shape) const override { dense::validate_mnk(name(), shape); }
  std::vector<Shape> default_shapes() const override { return dense::default_shapes(); }
  std::vector<Shape> check_shapes() const override { return dense_matvec::check_shapes(dense::check_shapes()); }

  std::vector<Space> build_spaces() const override {
    Space space{"tiled", "matmul_f32.comp", dense::tiled_parameters()};
    space.parameters[2].values.push_back(64);  // TILE_K
    space.parameters.push_back({"VEC", {1, 4}, "floats per global load (float, vec4 when K % 4 == 0)"});
    space.parameters.push_back(dense::tiled_stages_parameter());
    space.parameters.push_back({"LANES_N", {32, 8},
                                "invocations along N in each group of 32 (a subgroup on NVIDIA): 32 = whole rows "
                                "of the invocation grid; 8 = 8×4 blocks, half the shared-memory wavefronts per k"});
    space.pruning.push_back(PruningRule{
        "tiled.h200-fast-path",
        "TILE_K=64, STAGES=2 at TILE_K=32 and LANES_N=8 only with VEC=4 and at least 32 accumulators (LANES_N=8: "
        "TILE_K >= 32; TILE_K=64: at most 128 register floats): every variant within 20% of the H200's best at "
        "4096^3 had them",
        DeviceFilter{kVendorNvidia, ""}, [](const Config& c, const Shape&) { return outside_h200_fast_path(c); }});
    Space decode{"decode", "matvec_dense.comp", dense_matvec::parameters(false)};
    space.shape_class = matmul::prefill_shapes();
    decode.shape_class = matmul::decode_shapes();
    space.bindings = decode.bindings = matmul::bindings(4, size_rule(4, {1, 2}));
    return {space, decode};
  }

  // The textbook 64×64 tile with 4×4 outputs per invocation (256
  // invocations), a 16-deep K slice (8.7 KB of shared memory), vec4 loads
  // where K allows, double-buffered; 32-wide tiles along a dimension below 64.
  Config baseline(const Shape& shape) const override {
    if (space_index(shape) == kDecode) return dense_matvec::baseline(shape, false);
    return {{"TILE_M", shape[0] <= 32 ? 32 : 64},
            {"TILE_N", shape[1] <= 32 ? 32 : 64},
            {"TILE_K", 16},
            {"THREAD_M", 4},
            {"THREAD_N", 4},
            {"VEC", shape[2] % 4 == 0 ? 4 : 1},
            {"STAGES", 2},
            {"LANES_N", 32}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (space_index(shape) == kDecode) {
      if (auto p = rowops::parameter_violation(config, spaces()[kDecode]); !p.empty()) return p;
      if (auto p = dense_matvec::violation(config, shape, device, false); !p.empty()) return p;
      return dense::limits_violation(plan(config, shape), shape, device);
    }
    if (auto p = rowops::parameter_violation(config, spaces()[0]); !p.empty()) return p;
    if (auto p = dense::vec_violation(config.at("VEC"), shape[2], kVecWidths); !p.empty()) return p;
    if (auto p = dense::tiled_violation(config, shape); !p.empty()) return p;
    if (auto p = lanes_violation(config); !p.empty()) return p;
    return dense::limits_violation(plan(config, shape), shape, device);
  }

  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    if (space_index(shape) == kDecode) return dense_matvec::plan(config, false);
    ShaderPlan plan;
    plan.template_file = "matmul_f32.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    dense::tiled_plan(config, shape, plan);
    return plan;
  }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t m = shape[0], n = shape[1], k = shape[2];
    const auto x = rowops::random_values(m * k, seed ^ 0x9e3779b97f4a7c15ull, -1.0f, 1.0f, inputs.kind);
    const auto w = rowops::random_values(n * k, seed, -1.0f, 1.0f, inputs.kind);
    auto expected = dense::reference(x, w, m, n, k, inputs.full_reference);
    HostBuffer xb = rowops::input_buffer("x", x);
    xb.is_weights = false;
    return rowops::problem_of(shape, {std::move(xb), rowops::input_buffer("W", w), rowops::output_buffer("y", m * n)},
                              std::move(expected));
  }

  Tolerance tolerance(const Shape&) const override { return dense::tolerance(); }
  Metrics metrics(const Shape& shape) const override { return dense::metrics(shape, 4); }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t m = shape.at(0), n = shape.at(1), k = shape.at(2);
    return (m * k + n * k + m * n) * 4;
  }
};

const KernelRegistration matmul_f32_registration([] { return std::make_unique<MatmulF32>(); });

}  // namespace
}  // namespace vktune::kernels
