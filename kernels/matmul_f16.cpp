// matmul_f16: y[M×N] = x[M×K]·Wᵀ with x and W fp16 (W is N rows of K, the
// GGUF layout), products accumulated in fp32 and y written as fp32; all
// row-major. One space, templates/matmul_f16.comp, with two paths chosen by
// USE_COOPMAT:
//   0: the scalar tiled body shared with matmul_f32 (halves widened to fp32
//      while staged in shared memory);
//   1: tensor cores through GL_NV_cooperative_matrix, fp16 A/B and fp32
//      accumulators: TILE_M × TILE_N × TILE_K is the workgroup's tile as on
//      the scalar path, split over WARPS_M × WARPS_N subgroups, each holding
//      the accumulators of its part; the matrix shape (CM_SHAPE) and the
//      shared-memory staging depth (CM_STAGES) are parameters. Allowed only
//      where the device reports the extension and that shape with fp16
//      inputs and fp32 accumulators (an fp16 accumulator would not meet the
//      tolerance at K = 4096).
// The parameters of the path not taken are held at their first value, so
// each variant is counted once.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kernels/dense_matmul.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {
namespace {

struct CmShape {
  std::uint32_t m, n, k;
};
// CM_SHAPE indexes this list; the constraint keeps those the device reports.
constexpr std::array<CmShape, 3> kCmShapes{{{16, 16, 16}, {16, 8, 16}, {16, 8, 8}}};
constexpr std::uint32_t kWarp = 32;

const std::vector<int> kTiledVec{4, 1};
const std::vector<int> kCoopmatVec{8, 4, 1};
const std::vector<std::string> kTiledNames{"THREAD_M", "THREAD_N"};
const std::vector<std::string> kCoopmatNames{"CM_SHAPE", "WARPS_M", "WARPS_N", "CM_STAGES"};

// fp16 bytes of `count` halves, padded to 16 bytes (the templates read words
// and vectors of up to 8 halves).
std::uint64_t half_bytes(std::uint64_t count) { return (count * 2 + 15) / 16 * 16; }

struct CoopmatTile {
  CmShape cm;
  std::uint32_t warps, bm, bn, bk, stages;
  std::uint32_t wm, wn;  // rows and columns of one subgroup's part
};

CoopmatTile coopmat_tile(const Config& c) {
  CoopmatTile t{};
  t.cm = kCmShapes.at(static_cast<std::size_t>(c.at("CM_SHAPE")));
  t.warps = static_cast<std::uint32_t>(c.at("WARPS_M") * c.at("WARPS_N"));
  t.bm = static_cast<std::uint32_t>(c.at("TILE_M"));
  t.bn = static_cast<std::uint32_t>(c.at("TILE_N"));
  t.bk = static_cast<std::uint32_t>(c.at("TILE_K"));
  t.stages = static_cast<std::uint32_t>(c.at("CM_STAGES"));
  t.wm = t.bm / static_cast<std::uint32_t>(c.at("WARPS_M"));
  t.wn = t.bn / static_cast<std::uint32_t>(c.at("WARPS_N"));
  return t;
}

class MatmulF16 final : public Kernel {
 public:
  std::string name() const override { return "matmul_f16"; }

  std::string description() const override {
    return "y[M×N] = x[M×K]·Wᵀ, x and W fp16, fp32 accumulation and output; shared-memory tiles on CUDA cores, "
           "or tensor cores through GL_NV_cooperative_matrix (USE_COOPMAT=1)";
  }

  std::vector<std::string> shape_dims() const override { return {"M", "N", "K"}; }
  void validate_shape(const Shape& shape) const override { dense::validate_mnk(name(), shape); }
  std::vector<Shape> default_shapes() const override { return dense::default_shapes(); }
  std::vector<Shape> check_shapes() const override { return dense::check_shapes(); }

  std::vector<Space> spaces() const override {
    Space space{"dense", "matmul_f16.comp", dense::tiled_parameters()};
    // TILE_M, TILE_N: 256 and TILE_K: 64 only with USE_COOPMAT=1.
    space.parameters[0].values.push_back(256);
    space.parameters[1].values.push_back(256);
    space.parameters[2].values = {8, 16, 32, 64};
    space.parameters.insert(space.parameters.end(), {
        {"VEC", {1, 4, 8}, "halves per global load (one, 8 bytes, 16 bytes; K a multiple of it; 8 only with "
                           "USE_COOPMAT=1)"},
        {"USE_COOPMAT", {0, 1}, "0 = scalar tiles (THREAD_M × THREAD_N per invocation); 1 = cooperative "
                                "matrices (CM_SHAPE, WARPS_M × WARPS_N subgroups)"},
        {"CM_SHAPE", {0, 1, 2}, "cooperative matrix M×N×K: 0 = 16×16×16, 1 = 16×8×16, 2 = 16×8×8"},
        {"WARPS_M", {1, 2, 4}, "subgroups of 32 along M per workgroup (each takes TILE_M/WARPS_M rows)"},
        {"WARPS_N", {1, 2, 4}, "subgroups of 32 along N per workgroup (each takes TILE_N/WARPS_N columns)"},
        {"CM_STAGES", {1, 2}, "shared-memory buffers (the next slice's global loads are in flight while this one "
                              "multiplies either way): 1 = two barriers per slice; 2 = one"},
    });
    return {space};
  }

  std::size_t space_index(const Shape&) const override { return 0; }

  // The scalar tiled path with matmul_f32's baseline (64×64 tiles, 4×4 per
  // invocation, 16-deep K slice), even on tensor-core devices: the speedup of
  // a cooperative-matrix winner then shows the tensor cores' gain.
  Config baseline(const Shape& shape) const override {
    Config c;
    const auto space = spaces()[0];
    for (const auto& p : space.parameters) c[p.name] = p.values.front();
    c["TILE_M"] = shape[0] <= 32 ? 32 : 64;
    c["TILE_N"] = shape[1] <= 32 ? 32 : 64;
    c["TILE_K"] = 16;
    c["VEC"] = shape[2] % 4 == 0 ? 4 : 1;
    return c;
  }

  std::string constraint_violation(const Config& config, const Shape& shape,
                                   const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    const auto space = spaces()[0];
    if (auto p = rowops::parameter_violation(config, space); !p.empty()) return p;
    const bool coopmat = config.at("USE_COOPMAT") == 1;
    // The other path's parameters stay at their first value.
    for (const auto& p : space.parameters) {
      const auto& idle = coopmat ? kTiledNames : kCoopmatNames;
      if (std::find(idle.begin(), idle.end(), p.name) != idle.end() && config.at(p.name) != p.values.front()) {
        return p.name + " is only varied with USE_COOPMAT=" + (coopmat ? "0" : "1");
      }
    }
    if (auto p = dense::vec_violation(config.at("VEC"), shape[2], coopmat ? kCoopmatVec : kTiledVec); !p.empty()) {
      return p;
    }
    if (!coopmat) {
      if (config.at("TILE_K") > 32) return "TILE_K=64 is only varied with USE_COOPMAT=1";
      if (config.at("TILE_M") > 128 || config.at("TILE_N") > 128) {
        return "TILE_M, TILE_N = 256 are only varied with USE_COOPMAT=1";
      }
      if (auto p = dense::tiled_violation(config, shape); !p.empty()) return p;
    } else if (auto p = coopmat_violation(config, shape, device); !p.empty()) {
      return p;
    }
    return dense::limits_violation(plan(config, shape), shape, device);
  }

  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    ShaderPlan plan;
    plan.template_file = "matmul_f16.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    if (config.at("USE_COOPMAT") == 0) {
      dense::tiled_plan(config, shape, plan);
      return plan;
    }
    const auto t = coopmat_tile(config);
    plan.local_size = {t.warps * kWarp, 1, 1};
    plan.dispatch = {DispatchAxis{1, t.bn}, DispatchAxis{0, t.bm}, DispatchAxis{}};
    plan.shared_memory_bytes = 2 * t.stages * (t.bm + t.bn) * (t.bk + 8) + 4 * t.warps * t.cm.m * t.cm.n;
    return plan;
  }

  Problem make_problem(const Shape& shape, std::uint64_t seed) const override {
    validate_shape(shape);
    const std::size_t m = shape[0], n = shape[1], k = shape[2];
    auto x = rowops::random_values(m * k, seed ^ 0x9e3779b97f4a7c15ull);
    auto w = rowops::random_values(n * k, seed);
    HostBuffer xb = half::rounded_buffer("x", x, false);
    HostBuffer wb = half::rounded_buffer("W", w, true);
    xb.bytes.resize(half_bytes(m * k));
    wb.bytes.resize(half_bytes(n * k));
    // x and w now hold the fp16 values the device reads.
    auto expected = dense::reference(x, w, m, n, k);
    return rowops::problem_of(shape, {std::move(xb), std::move(wb), rowops::output_buffer("y", m * n)},
                              std::move(expected));
  }

  Tolerance tolerance(const Shape&) const override { return dense::tolerance(); }
  Metrics metrics(const Shape& shape) const override { return dense::metrics(shape, 2); }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t m = shape.at(0), n = shape.at(1), k = shape.at(2);
    return half_bytes(m * k) + half_bytes(n * k) + m * n * 4;
  }

 private:
  static std::string coopmat_violation(const Config& c, const Shape& shape, const vk::DeviceInfo& device) {
    if (!device.features.cooperative_matrix_nv) return "USE_COOPMAT=1 needs VK_NV_cooperative_matrix";
    if (!device.features.shader_float16) return "USE_COOPMAT=1 needs shaderFloat16 (fp16 staging in shared memory)";
    const auto t = coopmat_tile(c);
    bool reported = false;
    for (const auto& s : device.cooperative_matrix_shapes) {
      reported = reported || (s.m == t.cm.m && s.n == t.cm.n && s.k == t.cm.k && s.a_type == "f16" &&
                              s.b_type == "f16" && s.c_type == "f32" && s.d_type == "f32" && s.scope == "subgroup");
    }
    const std::string cm = std::to_string(t.cm.m) + "x" + std::to_string(t.cm.n) + "x" + std::to_string(t.cm.k);
    if (!reported) return "the device reports no " + cm + " cooperative matrix with f16 inputs and f32 accumulators";
    const bool only32 = device.subgroup_size == kWarp && (device.min_subgroup_size == 0 || device.min_subgroup_size == kWarp) &&
                        (device.max_subgroup_size == 0 || device.max_subgroup_size == kWarp);
    if (!only32) return "USE_COOPMAT=1 assumes subgroups of exactly 32 invocations";
    if (t.warps > 8) return "WARPS_M*WARPS_N = " + std::to_string(t.warps) + " subgroups is more than 8";
    if (t.wm % t.cm.m != 0 || t.wn % t.cm.n != 0) {
      return "a subgroup's " + std::to_string(t.wm) + "×" + std::to_string(t.wn) + " part of the tile is not made of " +
             cm + " matrices";
    }
    if (t.bk < 16 || t.bk % t.cm.k != 0) return "TILE_K=" + std::to_string(t.bk) + " is below 16 or not a multiple of " + std::to_string(t.cm.k);
    // Up to 64×64 of C per subgroup (sixteen 16×16 accumulators): the
    // larger the subgroup's part, the more matrix products per fragment
    // loaded from shared memory; past 128 floats the registers spill.
    const std::uint32_t acc_floats = t.wm * t.wn / kWarp;
    if (acc_floats > 128) {
      return "a subgroup's accumulators hold " + std::to_string(acc_floats) + " floats per invocation, more than 128";
    }
    // Global loads held in registers per invocation, in 32-bit words.
    const auto vec = static_cast<std::uint32_t>(c.at("VEC"));
    const std::uint32_t wg = t.warps * kWarp;
    const std::uint32_t chunks = (t.bm * t.bk / vec + wg - 1) / wg + (t.bn * t.bk / vec + wg - 1) / wg;
    if (chunks * std::max(1u, vec / 2) > 32) {
      return "staging a " + std::to_string(t.bk) + "-deep slice takes " + std::to_string(chunks * std::max(1u, vec / 2)) +
             " registers per invocation, more than 32";
    }
    if (auto p = dense::tile_violation("TILE_M", static_cast<int>(t.bm), shape[0], 32); !p.empty()) return p;
    if (auto p = dense::tile_violation("TILE_N", static_cast<int>(t.bn), shape[1], 32); !p.empty()) return p;
    return {};
  }
};

const KernelRegistration registration([] { return std::make_unique<MatmulF16>(); });

}  // namespace
}  // namespace vktune::kernels
