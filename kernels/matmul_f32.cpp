// matmul_f32: y[M×N] = x[M×K]·Wᵀ, all fp32 row-major (W is N rows of K, the
// GGUF layout of a weight matrix). One space, the shared-memory tiled template
// with register blocking and vec4 loads (templates/matmul_f32.comp over
// templates/include/matmul_tiled.glsl).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/dense_matmul.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {
namespace {

const std::vector<int> kVecWidths{4, 1};

class MatmulF32 final : public Kernel {
 public:
  std::string name() const override { return "matmul_f32"; }

  std::string description() const override {
    return "y[M×N] = x[M×K]·Wᵀ, all fp32; shared-memory tiles, register blocking, vec4 loads";
  }

  std::vector<std::string> shape_dims() const override { return {"M", "N", "K"}; }
  void validate_shape(const Shape& shape) const override { dense::validate_mnk(name(), shape); }
  std::vector<Shape> default_shapes() const override { return dense::default_shapes(); }
  std::vector<Shape> check_shapes() const override { return dense::check_shapes(); }

  std::vector<Space> spaces() const override {
    Space space{"tiled", "matmul_f32.comp", dense::tiled_parameters()};
    space.parameters.push_back({"VEC", {1, 4}, "floats per global load (float, vec4 when K % 4 == 0)"});
    return {space};
  }

  std::size_t space_index(const Shape&) const override { return 0; }

  // The textbook 64×64 tile with 4×4 outputs per invocation (256
  // invocations), a 16-deep K slice (8.7 KB of shared memory), vec4 loads
  // where K allows; 32-wide tiles along a dimension below 64.
  Config baseline(const Shape& shape) const override {
    return {{"TILE_M", shape[0] <= 32 ? 32 : 64},
            {"TILE_N", shape[1] <= 32 ? 32 : 64},
            {"TILE_K", 16},
            {"THREAD_M", 4},
            {"THREAD_N", 4},
            {"VEC", shape[2] % 4 == 0 ? 4 : 1}};
  }

  std::string constraint_violation(const Config& config, const Shape& shape,
                                   const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto p = rowops::parameter_violation(config, spaces()[0]); !p.empty()) return p;
    if (auto p = dense::vec_violation(config.at("VEC"), shape[2], kVecWidths); !p.empty()) return p;
    if (auto p = dense::tiled_violation(config, shape); !p.empty()) return p;
    return dense::limits_violation(plan(config, shape), shape, device);
  }

  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    ShaderPlan plan;
    plan.template_file = "matmul_f32.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    dense::tiled_plan(config, shape, plan);
    return plan;
  }

  Problem make_problem(const Shape& shape, std::uint64_t seed) const override {
    validate_shape(shape);
    const std::size_t m = shape[0], n = shape[1], k = shape[2];
    const auto x = rowops::random_values(m * k, seed ^ 0x9e3779b97f4a7c15ull);
    const auto w = rowops::random_values(n * k, seed);
    auto expected = dense::reference(x, w, m, n, k);
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

const KernelRegistration registration([] { return std::make_unique<MatmulF32>(); });

}  // namespace
}  // namespace vktune::kernels
