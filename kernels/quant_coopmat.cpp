#include "kernels/quant_coopmat.hpp"

#include <algorithm>

#include "kernels/coopmat.hpp"
#include "kernels/matvec_rules.hpp"

namespace vktune::kernels::quant_coopmat {
namespace {

const std::vector<std::string> kFp32PathNames{"THREAD_M", "THREAD_N", "SUBGROUP_SIZE"};
const std::vector<std::string> kCoopmatNames{"CM_SHAPE", "WARPS_M", "WARPS_N"};
const std::vector<std::string> kDequantNames{"DEQUANT_STAGE", "DQ_WG", "DQ_RUN", "CM_PREFETCH"};

// Staged runs of 4 values per invocation and slice (x and W together): their
// loads are all in flight at once, in registers.
constexpr std::uint32_t kMaxRunsPerInvocation = 16;

// Invocations per workgroup of DEQUANT_STAGE=2's rounding of x.
constexpr std::uint32_t kRoundWg = 256;

// DEQUANT_STAGE=3: x values a workgroup of quantize_x_q8.comp quantizes (8
// an invocation), and 32-weight groups a workgroup of requant_w_q8.comp
// writes (one an invocation).
constexpr std::uint32_t kQuantizeSegment = 2048;
constexpr std::uint32_t kRequantWg = 64;

// What DEQUANT_STAGE=3 does not read: pinned at their first values.
const std::vector<std::string> kInt8IdleNames{"CM_SHAPE", "DQ_WG", "DQ_RUN", "CM_PREFETCH"};

std::uint32_t shared_bytes(const coopmat::Tile& t) {
  return 2 * (t.bm + t.bn) * (t.bk + 8) + 4 * t.warps * t.cm.m * t.cm.n;
}

bool named(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The path that pins `idle` at their first values and `pins` at theirs;
// `unused` bindings it never touches.
Path path(const Space& space, const char* name, const std::vector<std::string>& idle, const Config& pins,
              std::vector<std::string> unused) {
  Path p{name, {}, pins};
  p.unused_bindings = std::move(unused);
  p.tensor_cores = uses_coopmat(pins);
  for (const auto& q : space.parameters) {
    if (pins.count(q.name) != 0) continue;
    if (named(idle, q.name)) {
      p.pinned[q.name] = q.values.front();
    } else {
      p.parameters.push_back(q);
    }
  }
  return p;
}

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::vector<Parameter> parameters() {
  return {{"USE_COOPMAT", {0, 1}, "0 = fp32 tiles on CUDA cores (THREAD_M × THREAD_N per invocation); 1 = fp16 "
                                  "tensor cores through cooperative matrices (CM_SHAPE, WARPS_M × WARPS_N subgroups; "
                                  "x and dequantized W rounded to fp16)"},
          coopmat::shape_parameter(), coopmat::warps_m_parameter(), coopmat::warps_n_parameter()};
}

std::vector<Parameter> dequant_parameters(bool fp32_x) {
  std::vector<int> stages{0, 1};
  std::string help =
      "0 = W dequantized while staged in the GEMM (fused); 1 = a first dispatch dequantizes all of W to fp16 "
      "(scratch W16), the GEMM reads fp16 (USE_COOPMAT=1)";
  if (fp32_x) {
    stages.push_back(2);
    help += "; 2 = as 1, and a second one rounds x to fp16 behind W16, so the GEMM stages 16-byte chunks of both "
            "with the next slice in flight, as matmul_f16 does";
    stages.push_back(3);
    help += "; 3 = int8 tensor cores: x quantized to 8 bits per 32 values and W written as 8-bit codes per 32 "
            "(two first dispatches, into W16), multiplied on int8 cooperative matrices with each group's scales "
            "(relative error about 0.5%, as X_QUANT=1's)";
  }
  return {{"DEQUANT_STAGE", std::move(stages), std::move(help)},
          {"DQ_WG", {64, 128, 256}, "DEQUANT_STAGE=1: invocations per workgroup of the dequantizing dispatch"},
          {"DQ_RUN", {8, 16, 32}, "DEQUANT_STAGE=1: consecutive weights of a row each invocation dequantizes "
                                  "(written as 16-byte vectors of fp16)"},
          {"CM_PREFETCH", {1, 2}, "DEQUANT_STAGE=2: slices whose global loads are in flight while one multiplies "
                                  "(as matmul_f16's CM_PREFETCH)"}};
}

Binding w16_binding(bool fp32_x) {
  // DEQUANT_STAGE=2 puts x's halves (M*K) after W's.
  auto size = fp32_x ? size_rule(2, {1, 2}) + size_rule(2, {0, 2}) : size_rule(2, {1, 2});
  size.align = 16;
  return {"W16", BindingRole::scratch, size};
}

bool is_dequant_parameter(const std::string& name) { return named(kDequantNames, name); }

// The dequant path follows the fused one, so that a stored config without
// DEQUANT_STAGE completes on the tensor-cores path (DEQUANT_STAGE=0, the
// shader it was measured as).
std::vector<Path> paths(const Space& space) {
  std::vector<Path> all{
      path(space, "fp32-tiles", joined(kCoopmatNames, kDequantNames), {{"USE_COOPMAT", 0}}, {"W16"}),
      path(space, "tensor-cores", joined(kFp32PathNames, kDequantNames), {{"USE_COOPMAT", 1}}, {"W16"}),
      path(space, "tensor-cores-dequant", joined(kFp32PathNames, {"CM_PREFETCH"}),
           {{"USE_COOPMAT", 1}, {"DEQUANT_STAGE", 1}}, {})};
  const auto stage = std::find_if(space.parameters.begin(), space.parameters.end(),
                                  [](const Parameter& p) { return p.name == "DEQUANT_STAGE"; });
  if (stage != space.parameters.end() && std::ranges::find(stage->values, 2) != stage->values.end()) {
    // CM_PREFETCH is read by the x16 GEMM alone (pinned to 1 on the other
    // paths): one x16 path per value, so that configs stored before it
    // complete on the first.
    for (const int prefetch : {1, 2}) {
      all.push_back(path(space, prefetch == 1 ? "tensor-cores-dequant-x16" : "tensor-cores-dequant-x16-prefetch2",
                         kFp32PathNames, {{"USE_COOPMAT", 1}, {"DEQUANT_STAGE", 2}, {"CM_PREFETCH", prefetch}}, {}));
    }
  }
  if (stage != space.parameters.end() && std::ranges::find(stage->values, 3) != stage->values.end()) {
    all.push_back(path(space, "tensor-cores-int8", joined(kFp32PathNames, kInt8IdleNames),
                       {{"USE_COOPMAT", 1}, {"DEQUANT_STAGE", 3}}, {}));
  }
  return all;
}

bool uses_coopmat(const Config& config) {
  const auto it = config.find("USE_COOPMAT");
  return it != config.end() && it->second == 1;
}

bool uses_dequant_stage(const Config& config) {
  const auto it = config.find("DEQUANT_STAGE");
  return it != config.end() && it->second >= 1;
}

bool rounds_x_first(const Config& config) {
  const auto it = config.find("DEQUANT_STAGE");
  return it != config.end() && it->second == 2;
}

bool multiplies_int8(const Config& config) {
  const auto it = config.find("DEQUANT_STAGE");
  return it != config.end() && it->second == 3;
}

Violation idle_violation(const Config& config, const Space& space) {
  const bool coopmat = uses_coopmat(config);
  const bool dequant = uses_dequant_stage(config);
  if (dequant && !coopmat) {
    return legality::kUnreadParameter("DEQUANT_STAGE=1 feeds the tensor-core GEMM: it takes USE_COOPMAT=1");
  }
  const auto& idle = coopmat ? kFp32PathNames : kCoopmatNames;
  for (const auto& p : space.parameters) {
    if (named(idle, p.name) && config.at(p.name) != p.values.front()) {
      return legality::kUnreadParameter(p.name + " is only read with USE_COOPMAT=" + (coopmat ? "0" : "1") +
                                        " (pinned to " + std::to_string(p.values.front()) + " on the other path)");
    }
    if (p.name == "CM_PREFETCH" && !rounds_x_first(config) && config.at(p.name) != p.values.front()) {
      return legality::kUnreadParameter("CM_PREFETCH is only read with DEQUANT_STAGE=2 (pinned to " +
                                        std::to_string(p.values.front()) + " on the other paths)");
    }
    if (multiplies_int8(config) && named(kInt8IdleNames, p.name) && config.at(p.name) != p.values.front()) {
      return legality::kUnreadParameter(p.name + " is not read with DEQUANT_STAGE=3 (pinned to " +
                                        std::to_string(p.values.front()) + ")");
    }
    if (!dequant && named(kDequantNames, p.name) && config.at(p.name) != p.values.front()) {
      return legality::kUnreadParameter(p.name + " is only read with DEQUANT_STAGE=1 (pinned to " +
                                        std::to_string(p.values.front()) + " on the other paths)");
    }
  }
  return {};
}

namespace {

// DEQUANT_STAGE=3 on `device` for `shape`: int8 cooperative matrices and the
// integer dot product (x's quantization), the tile split into whole 16×16
// blocks per subgroup, TILE_K whole 32-groups, the 16-byte chunks of a slice
// split evenly, the scratch indexed in 32 bits.
Violation int8_violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) {
  if (auto p = coopmat::device_violation(coopmat::kInt8Shape, device, "DEQUANT_STAGE=3", coopmat::kInt8);
      !p.empty()) {
    return p;
  }
  if (!device.features.integer_dot_product) {
    return legality::kIntegerDot("DEQUANT_STAGE=3 quantizes x with shaderIntegerDotProduct");
  }
  auto t = coopmat::tile_of(config);
  t.cm = coopmat::kInt8Shape;
  if (t.warps > 8) return coopmat::kSubgroups("WARPS_M*WARPS_N = " + std::to_string(t.warps) + " subgroups is more than 8");
  if (t.wm % t.cm.m != 0 || t.wn % t.cm.n != 0 || t.bk % t.cm.k != 0) {
    return kInt8Tile("a subgroup's " + std::to_string(t.wm) + "×" + std::to_string(t.wn) +
                     " part of the tile is not made of 16×16 blocks, or TILE_K=" + std::to_string(t.bk) +
                     " is not a multiple of 32");
  }
  if (t.wm * t.wn / coopmat::kWarp > 128) {
    return coopmat::kAccumulators("a subgroup's accumulators hold " + std::to_string(t.wm * t.wn / coopmat::kWarp) +
                                  " floats per invocation, more than 128");
  }
  const std::uint32_t wg = t.warps * coopmat::kWarp;
  const std::uint32_t chunks_x = t.bm * t.bk / 16, chunks_w = t.bn * t.bk / 16;
  if (chunks_x % wg != 0 || chunks_w % wg != 0) {
    return kStagingRuns("the " + std::to_string(wg) + " invocations do not split the " + std::to_string(chunks_x) +
                        " + " + std::to_string(chunks_w) + " 16-byte chunks of a slice evenly");
  }
  // W's codes, x's at 2*N*K bytes, then x's scales: byte offsets in 32 bits.
  const std::uint64_t bytes = 2 * std::uint64_t{shape.at(1)} * shape.at(2) + 2 * std::uint64_t{shape.at(0)} * shape.at(2);
  if (bytes >= (1ull << 32)) {
    return kIndexing("DEQUANT_STAGE=3: a scratch of " + std::to_string(bytes) + " bytes exceeds 32-bit indexing");
  }
  return {};
}

}  // namespace

Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device) {
  if (multiplies_int8(config)) return int8_violation(config, shape, device);
  if (auto p = coopmat::violation(config, device); !p.empty()) return p;
  // dequant_f16.comp, round_x_f16.comp and matmul_quant_cm_f16w.comp index W16 in halves with 32-bit integers.
  const std::uint64_t halves = std::uint64_t{shape.at(1)} * shape.at(2) +
                               (rounds_x_first(config) ? std::uint64_t{shape.at(0)} * shape.at(2) : 0);
  if (uses_dequant_stage(config) && 2 * halves >= (1ull << 32)) {
    return kIndexing("DEQUANT_STAGE=" + std::to_string(config.at("DEQUANT_STAGE")) + ": W16 of " +
                     std::to_string(halves) + " fp16 values exceeds 32-bit indexing");
  }
  const auto t = coopmat::tile_of(config);
  if (t.bk % 16 != 0) return coopmat::kTileShape("TILE_K=" + std::to_string(t.bk) + " is not a multiple of 16");
  const std::uint32_t wg = t.warps * coopmat::kWarp;
  const std::uint32_t runs_x = t.bm * t.bk / 4, runs_w = t.bn * t.bk / 4;
  if (runs_x % wg != 0 || runs_w % wg != 0) {
    return kStagingRuns("the " + std::to_string(wg) + " invocations do not split the " + std::to_string(runs_x) +
                        " + " + std::to_string(runs_w) + " staged runs of a slice evenly");
  }
  return {};
}

std::vector<PruningRule> pruning() {
  return {
      {"coopmat.staging-runs",
       "staging a slice in more than " + std::to_string(kMaxRunsPerInvocation) +
           " runs of 4 per invocation holds them all in registers at once",
       DeviceFilter{},
       [](const Config& c, const Shape&) {
         if (!uses_coopmat(c) || multiplies_int8(c)) return false;  // DEQUANT_STAGE=3 stages 16-byte chunks
         const auto t = coopmat::tile_of(c);
         const std::uint32_t wg = t.warps * coopmat::kWarp;
         return wg != 0 && (t.bm * t.bk / 4 + t.bn * t.bk / 4) / wg > kMaxRunsPerInvocation;
       }},
      {"quant_coopmat.int8-on-nvidia",
       "the int8 path (DEQUANT_STAGE=3) ran 0.65-0.74x as fast as the fp16 path's winners at 512,4096,4096 and "
       "0.60x at 512,14336,4096 and 512,4096,14336 on H200s (149.5, 578.0, 484.9 us against 96.7, 346, 297 for "
       "Q4_K): W's requantization every call and each 32-group's scaling outweigh its faster products "
       "(measurements/nvidia-h200/session40/)",
       DeviceFilter{kVendorNvidia, ""}, [](const Config& c, const Shape&) { return multiplies_int8(c); }},
      {"coopmat.tile-past-shape", "a tile past M or N rounded up to a power of two (at least 32) only adds idle work",
       DeviceFilter{},
       [](const Config& c, const Shape& shape) {
         if (!uses_coopmat(c)) return false;
         const auto t = coopmat::tile_of(c);
         return t.bm > std::max(32u, matvec::next_pow2(shape[0])) || t.bn > std::max(32u, matvec::next_pow2(shape[1]));
       }},
  };
}

ShaderPlan plan(const Config& config, const Space& space, int qtype) {
  ShaderPlan plan;
  plan.template_file = "matmul_quant_cm.comp";
  for (const auto& p : space.parameters) {
    if (!is_dequant_parameter(p.name)) plan.defines.emplace_back(p.name, std::to_string(config.at(p.name)));
  }
  plan.defines.emplace_back("QTYPE", std::to_string(qtype));
  const auto t = coopmat::tile_of(config);
  plan.local_size = {t.warps * coopmat::kWarp, 1, 1};
  plan.dispatch = {DispatchAxis{1, t.bn}, DispatchAxis{0, t.bm}, DispatchAxis{}};
  plan.shared_memory_bytes = shared_bytes(t);
  return plan;
}

namespace {

// DEQUANT_STAGE=3's three dispatches.
std::vector<ShaderPlan> int8_stages(const Config& config, int qtype) {
  ShaderPlan quantize;
  quantize.template_file = "quantize_x_q8.comp";
  quantize.defines = {{"XQ_SEG", std::to_string(kQuantizeSegment)}};
  quantize.local_size = {kQuantizeSegment / 8, 1, 1};
  quantize.dispatch = {DispatchAxis{0, 1}, DispatchAxis{2, kQuantizeSegment}, DispatchAxis{}};
  quantize.shared_memory_bytes = kQuantizeSegment + kQuantizeSegment / 32 * 8;  // include/x_q8.glsl's xq, xds
  ShaderPlan requant;
  requant.template_file = "requant_w_q8.comp";
  requant.defines = {{"QTYPE", std::to_string(qtype)}, {"RQ_WG", std::to_string(kRequantWg)}};
  requant.local_size = {kRequantWg, 1, 1};
  requant.dispatch = {DispatchAxis{1, 1}, DispatchAxis{2, kRequantWg * 32}, DispatchAxis{}};
  ShaderPlan gemm;
  gemm.template_file = "matmul_quant_cm_i8.comp";
  for (const char* name : {"TILE_M", "TILE_N", "TILE_K", "WARPS_M", "WARPS_N"}) {
    gemm.defines.emplace_back(name, std::to_string(config.at(name)));
  }
  gemm.defines.emplace_back("QTYPE", std::to_string(qtype));  // whether W's groups carry an offset
  const auto t = coopmat::tile_of(config);
  gemm.local_size = {t.warps * coopmat::kWarp, 1, 1};
  gemm.dispatch = {DispatchAxis{1, t.bn}, DispatchAxis{0, t.bm}, DispatchAxis{}};
  // Codes (rows padded by 16 bytes), two floats per row and group, the output scratch.
  gemm.shared_memory_bytes = (t.bm + t.bn) * (t.bk + 16) + 8 * (t.bm + t.bn) * (t.bk / 32) +
                             4 * t.warps * coopmat::kInt8Shape.m * coopmat::kInt8Shape.n;
  return {quantize, requant, gemm};
}

}  // namespace

std::vector<ShaderPlan> dequant_stages(const Config& config, const Space& space, int qtype) {
  if (multiplies_int8(config)) return int8_stages(config, qtype);
  ShaderPlan dequant;
  dequant.template_file = "dequant_f16.comp";
  dequant.defines = {{"QTYPE", std::to_string(qtype)},
                     {"DQ_WG", std::to_string(config.at("DQ_WG"))},
                     {"DQ_RUN", std::to_string(config.at("DQ_RUN"))}};
  const auto wg = static_cast<std::uint32_t>(config.at("DQ_WG"));
  dequant.local_size = {wg, 1, 1};
  // A workgroup per row of W (N on x, whose count limit is the largest),
  // DQ_WG*DQ_RUN weights of it.
  dequant.dispatch = {DispatchAxis{1, 1}, DispatchAxis{2, wg * static_cast<std::uint32_t>(config.at("DQ_RUN"))},
                      DispatchAxis{}};
  auto gemm = plan(config, space, qtype);
  gemm.template_file = "matmul_quant_cm_f16w.comp";
  std::erase_if(gemm.defines, [](const auto& d) { return d.first == "QTYPE"; });
  if (!rounds_x_first(config)) return {dequant, gemm};
  // x's halves after W's: a workgroup of kRoundWg per row of x, 8 values an invocation.
  ShaderPlan round;
  round.template_file = "round_x_f16.comp";
  round.defines = {{"ROUND_WG", std::to_string(kRoundWg)}};
  round.local_size = {kRoundWg, 1, 1};
  round.dispatch = {DispatchAxis{0, 1}, DispatchAxis{2, kRoundWg * 8}, DispatchAxis{}};
  gemm.defines.emplace_back("X16", "1");
  gemm.defines.emplace_back("CM_PREFETCH", std::to_string(config.at("CM_PREFETCH")));
  return {dequant, round, gemm};
}

}  // namespace vktune::kernels::quant_coopmat
