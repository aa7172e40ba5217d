// matmul_f16: y[M×N] = x[M×K]·Wᵀ with x and W fp16 (W is N rows of K, the
// GGUF layout), products accumulated in fp32 and y written as fp32; all
// row-major. One space, templates/matmul_f16.comp, with two paths chosen by
// USE_COOPMAT:
//   0: the scalar tiled body shared with matmul_f32 (halves widened to fp32
//      while staged in shared memory);
//   1: tensor cores through GL_NV_cooperative_matrix, fp16 A/B and fp32
//      accumulators: TILE_M × TILE_N × TILE_K is the workgroup's tile as on
//      the scalar path, split over WARPS_M × WARPS_N subgroups, each holding
//      the accumulators of its part; the matrix shape (CM_SHAPE), the
//      shared-memory staging depth (CM_STAGES) and the slices whose loads
//      are in flight (CM_PREFETCH) are parameters. Allowed only
//      where the device reports the extension and that shape with fp16
//      inputs and fp32 accumulators (an fp16 accumulator would not meet the
//      tolerance at K = 4096).
// The parameters of the path not taken are held at their first value, so
// each variant is counted once. Shapes with M <= 8 (decode) use the
// matrix-vector space of kernels/dense_matvec.hpp instead.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/matmul_contract.hpp"
#include "kernels/dense_matmul.hpp"
#include "kernels/dense_matvec.hpp"
#include "kernels/coopmat.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/kernel.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {
namespace {

const std::vector<int> kTiledVec{4, 1};
const std::vector<int> kCoopmatVec{8, 4, 1};
const std::vector<std::string> kTiledNames{"THREAD_M", "THREAD_N"};
const std::vector<std::string> kCoopmatNames{"CM_SHAPE", "WARPS_M", "WARPS_N", "CM_STAGES", "CM_PREFETCH"};

class MatmulF16 final : public Kernel {
  static constexpr std::size_t kTiled = 0, kDecode = 1;

 public:
  std::string name() const override { return "matmul_f16"; }

  std::string description() const override {
    return "y[M×N] = x[M×K]·Wᵀ, x and W fp16, fp32 accumulation and output; shared-memory tiles on CUDA cores, "
           "or tensor cores through GL_NV_cooperative_matrix (USE_COOPMAT=1); a matrix-vector template for M <= 8";
  }

  std::vector<std::string> shape_dims() const override { return {"M", "N", "K"}; }
  void validate_shape(const Shape& shape) const override { dense::validate_mnk(name(), shape); }
  std::vector<Shape> default_shapes() const override { return dense::default_shapes(); }
  std::vector<Shape> check_shapes() const override { return dense_matvec::check_shapes(dense::check_shapes()); }

  std::vector<Space> build_spaces() const override {
    Space space{"dense", "matmul_f16.comp", dense::tiled_parameters()};
    space.parameters[0].values.push_back(256);
    space.parameters[1].values.push_back(256);
    space.parameters[2].values = {8, 16, 32, 64};
    space.parameters.insert(space.parameters.end(), {
        {"VEC", {1, 4, 8}, "halves per global load (one, 8 bytes, 16 bytes; K a multiple of it; 8 only with "
                           "USE_COOPMAT=1)"},
        {"USE_COOPMAT", {0, 1}, "0 = scalar tiles (THREAD_M × THREAD_N per invocation); 1 = cooperative "
                                "matrices (CM_SHAPE, WARPS_M × WARPS_N subgroups)"},
        coopmat::shape_parameter(),
        coopmat::warps_m_parameter(),
        coopmat::warps_n_parameter(),
        {"CM_STAGES", {1, 2}, "shared-memory buffers (the next slice's global loads are in flight while this one "
                              "multiplies either way): 1 = two barriers per slice; 2 = one"},
        {"CM_PREFETCH", {1, 2}, "slices whose global loads are in flight while one multiplies (a register set "
                                "each; one leaves a workgroup waiting on their latency when few fit an SM)"},
    });
    // Each path varies what its half of the template reads; the other
    // half's parameters stay at their first value. Two tensor-core paths,
    // one per CM_PREFETCH: configs stored before the parameter complete on
    // the first (one slice in flight, the shader they were measured as).
    Path tiled{"tiled", {}, {{"USE_COOPMAT", 0}}}, cores{"tensor-cores", {}, {{"USE_COOPMAT", 1}, {"CM_PREFETCH", 1}}};
    cores.tensor_cores = true;
    for (const auto& p : space.parameters) {
      if (p.name == "USE_COOPMAT") continue;
      const bool cm_only = std::find(kCoopmatNames.begin(), kCoopmatNames.end(), p.name) != kCoopmatNames.end();
      const bool tiled_only = std::find(kTiledNames.begin(), kTiledNames.end(), p.name) != kTiledNames.end();
      if (cm_only) tiled.pinned[p.name] = p.values.front();
      if (tiled_only) cores.pinned[p.name] = p.values.front();
      if (!cm_only) tiled.parameters.push_back(p.name == "VEC" ? Parameter{p.name, kTiledVec, p.help} : p);
      if (!tiled_only && p.name != "CM_PREFETCH") cores.parameters.push_back(p);
    }
    Path deeper = cores;
    deeper.name = "tensor-cores-prefetch2";
    deeper.pinned["CM_PREFETCH"] = 2;
    space.paths = {tiled, cores, deeper};
    space.pruning.push_back(PruningRule{
        "tiled.coopmat-sized-tiles",
        "256-wide tiles and 64-deep slices are varied on tensor cores only: on the H200 the CUDA-core path's "
        "winners have tiles of at most 128 and slices of at most 32",
        DeviceFilter{kVendorNvidia, ""},
        [](const Config& c, const Shape&) {
          return c.at("USE_COOPMAT") == 0 && (c.at("TILE_K") > 32 || c.at("TILE_M") > 128 || c.at("TILE_N") > 128);
        }});
    Space decode{"decode", "matvec_dense.comp", dense_matvec::parameters(true)};
    space.shape_class = matmul::prefill_shapes();
    decode.shape_class = matmul::decode_shapes();
    space.bindings = decode.bindings = matmul::bindings(2, size_rule(2, {1, 2}));
    // Whole 16-byte vectors: a VEC=8 load of the last halves reads up to 14 bytes past them.
    for (auto* s : {&space, &decode}) s->bindings[0].size.align = s->bindings[1].size.align = 16;
    return {space, decode};
  }

  // The scalar tiled path with matmul_f32's baseline (64×64 tiles, 4×4 per
  // invocation, 16-deep K slice), even on tensor-core devices: the speedup of
  // a cooperative-matrix winner then shows the tensor cores' gain.
  Config baseline(const Shape& shape) const override {
    if (space_index(shape) == kDecode) return dense_matvec::baseline(shape, true);
    Config c;
    const auto& space = spaces()[0];
    for (const auto& p : space.parameters) c[p.name] = p.values.front();
    c["TILE_M"] = shape[0] <= 32 ? 32 : 64;
    c["TILE_N"] = shape[1] <= 32 ? 32 : 64;
    c["TILE_K"] = 16;
    c["VEC"] = shape[2] % 4 == 0 ? 4 : 1;
    return c;
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (space_index(shape) == kDecode) {
      if (auto p = rowops::parameter_violation(config, spaces()[kDecode]); !p.empty()) return p;
      if (auto p = dense_matvec::violation(config, shape, device, true); !p.empty()) return p;
      return dense::limits_violation(plan(config, shape), shape, device);
    }
    const auto& space = spaces()[0];
    if (auto p = rowops::parameter_violation(config, space); !p.empty()) return p;
    const bool coopmat = config.at("USE_COOPMAT") == 1;
    // The other path's parameters stay at their first value.
    for (const auto& p : space.parameters) {
      const auto& idle = coopmat ? kTiledNames : kCoopmatNames;
      if (std::find(idle.begin(), idle.end(), p.name) != idle.end() && config.at(p.name) != p.values.front()) {
        return legality::kUnreadParameter(p.name + " is not read with USE_COOPMAT=" + std::string(coopmat ? "1" : "0") +
                                          " (it stays at its first value)");
      }
    }
    if (auto p = dense::vec_violation(config.at("VEC"), shape[2], coopmat ? kCoopmatVec : kTiledVec); !p.empty()) {
      return p;
    }
    if (!coopmat) {
      if (auto p = dense::tiled_violation(config, shape); !p.empty()) return p;
    } else if (auto p = coopmat_violation(config, shape, device); !p.empty()) {
      return p;
    }
    return dense::limits_violation(plan(config, shape), shape, device);
  }

  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    if (space_index(shape) == kDecode) return dense_matvec::plan(config, true);
    ShaderPlan plan;
    plan.template_file = "matmul_f16.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    if (config.at("USE_COOPMAT") == 0) {
      dense::tiled_plan(config, shape, plan);
      return plan;
    }
    const auto t = coopmat::tile_of(config);
    const auto stages = static_cast<std::uint32_t>(config.at("CM_STAGES"));
    plan.local_size = {t.warps * coopmat::kWarp, 1, 1};
    plan.dispatch = {DispatchAxis{1, t.bn}, DispatchAxis{0, t.bm}, DispatchAxis{}};
    plan.shared_memory_bytes = 2 * stages * (t.bm + t.bn) * (t.bk + 8) + 4 * t.warps * t.cm.m * t.cm.n;
    return plan;
  }

  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t m = shape[0], n = shape[1], k = shape[2];
    auto x = rowops::random_values(m * k, seed ^ 0x9e3779b97f4a7c15ull, -1.0f, 1.0f, inputs.kind);
    auto w = rowops::random_values(n * k, seed, -1.0f, 1.0f, inputs.kind);
    HostBuffer xb = half::rounded_buffer("x", x, false);
    HostBuffer wb = half::rounded_buffer("W", w, true);
    const auto& bindings = spaces().at(space_index(shape)).bindings;
    xb.bytes.resize(bindings[0].size.bytes(shape));
    wb.bytes.resize(bindings[1].size.bytes(shape));
    // x and w now hold the fp16 values the device reads.
    auto expected = dense::reference(x, w, m, n, k, inputs.full_reference);
    return rowops::problem_of(shape, {std::move(xb), std::move(wb), rowops::output_buffer("y", m * n)},
                              std::move(expected));
  }

  Tolerance tolerance(const Shape&) const override { return dense::tolerance(); }
  Metrics metrics(const Shape& shape) const override { return dense::metrics(shape, 2); }

  std::uint64_t device_bytes(const Shape& shape) const override {
    std::uint64_t bytes = 0;
    for (const auto& b : spaces().at(space_index(shape)).bindings) bytes += b.size.bytes(shape);
    return bytes;
  }

 private:
  static Violation coopmat_violation(const Config& c, const Shape& shape, const vk::DeviceInfo& device) {
    if (auto p = coopmat::violation(c, device); !p.empty()) return p;
    const auto t = coopmat::tile_of(c);
    // Global loads held in registers per invocation, in 32-bit words.
    const auto vec = static_cast<std::uint32_t>(c.at("VEC"));
    const std::uint32_t wg = t.warps * coopmat::kWarp;
    const std::uint32_t chunks = (t.bm * t.bk / vec + wg - 1) / wg + (t.bn * t.bk / vec + wg - 1) / wg;
    if (chunks * std::max(1u, vec / 2) > 32) {
      return legality::kRegisters("staging a " + std::to_string(t.bk) + "-deep slice takes " +
                                  std::to_string(chunks * std::max(1u, vec / 2)) +
                                  " registers per invocation, more than 32");
    }
    if (auto p = dense::tile_violation("TILE_M", static_cast<int>(t.bm), shape[0], 32); !p.empty()) return p;
    if (auto p = dense::tile_violation("TILE_N", static_cast<int>(t.bn), shape[1], 32); !p.empty()) return p;
    return {};
  }
};

const KernelRegistration matmul_f16_registration([] { return std::make_unique<MatmulF16>(); });

}  // namespace
}  // namespace vktune::kernels
