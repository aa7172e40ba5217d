#include "kernels/quant_coopmat.hpp"

#include <algorithm>

#include "kernels/coopmat.hpp"
#include "kernels/matvec_rules.hpp"

namespace vktune::kernels::quant_coopmat {
namespace {

const std::vector<std::string> kFp32PathNames{"THREAD_M", "THREAD_N", "SUBGROUP_SIZE"};
const std::vector<std::string> kCoopmatNames{"CM_SHAPE", "WARPS_M", "WARPS_N"};

// Staged runs of 4 values per invocation and slice (x and W together): their
// loads are all in flight at once, in registers.
constexpr std::uint32_t kMaxRunsPerInvocation = 16;

std::uint32_t shared_bytes(const coopmat::Tile& t) {
  return 2 * (t.bm + t.bn) * (t.bk + 8) + 4 * t.warps * t.cm.m * t.cm.n;
}

bool named(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The path that pins `idle` at their first values and USE_COOPMAT at `use`.
SubSpace path(const Space& space, const char* name, const std::vector<std::string>& idle, int use) {
  SubSpace p{name, {}, {{"USE_COOPMAT", use}}};
  for (const auto& q : space.parameters) {
    if (q.name == "USE_COOPMAT") continue;
    if (named(idle, q.name)) {
      p.pinned[q.name] = q.values.front();
    } else {
      p.parameters.push_back(q);
    }
  }
  return p;
}

}  // namespace

std::vector<Parameter> parameters() {
  return {{"USE_COOPMAT", {0, 1}, "0 = fp32 tiles on CUDA cores (THREAD_M × THREAD_N per invocation); 1 = fp16 "
                                  "tensor cores through cooperative matrices (CM_SHAPE, WARPS_M × WARPS_N subgroups; "
                                  "x and dequantized W rounded to fp16)"},
          coopmat::shape_parameter(), coopmat::warps_m_parameter(), coopmat::warps_n_parameter()};
}

std::vector<SubSpace> paths(const Space& space) {
  return {path(space, "fp32-tiles", kCoopmatNames, 0), path(space, "tensor-cores", kFp32PathNames, 1)};
}

bool uses_coopmat(const Config& config) {
  const auto it = config.find("USE_COOPMAT");
  return it != config.end() && it->second == 1;
}

std::string idle_violation(const Config& config, const Space& space) {
  const bool coopmat = uses_coopmat(config);
  const auto& idle = coopmat ? kFp32PathNames : kCoopmatNames;
  for (const auto& p : space.parameters) {
    if (named(idle, p.name) && config.at(p.name) != p.values.front()) {
      return p.name + " is only read with USE_COOPMAT=" + (coopmat ? "0" : "1") + " (pinned to " +
             std::to_string(p.values.front()) + " on the other path)";
    }
  }
  return {};
}

std::string violation(const Config& config, const Shape&, const vk::DeviceInfo& device) {
  if (auto p = coopmat::violation(config, device); !p.empty()) return p;
  const auto t = coopmat::tile_of(config);
  if (t.bk % 16 != 0) return "TILE_K=" + std::to_string(t.bk) + " is not a multiple of 16";
  const std::uint32_t wg = t.warps * coopmat::kWarp;
  const std::uint32_t runs_x = t.bm * t.bk / 4, runs_w = t.bn * t.bk / 4;
  if (runs_x % wg != 0 || runs_w % wg != 0) {
    return "the " + std::to_string(wg) + " invocations do not split the " + std::to_string(runs_x) + " + " +
           std::to_string(runs_w) + " staged runs of a slice evenly";
  }
  return {};
}

std::vector<PruningRule> pruning() {
  return {
      {"coopmat.staging-runs",
       "staging a slice in more than " + std::to_string(kMaxRunsPerInvocation) +
           " runs of 4 per invocation holds them all in registers at once",
       DeviceKey{},
       [](const Config& c, const Shape&) {
         if (!uses_coopmat(c)) return false;
         const auto t = coopmat::tile_of(c);
         const std::uint32_t wg = t.warps * coopmat::kWarp;
         return wg != 0 && (t.bm * t.bk / 4 + t.bn * t.bk / 4) / wg > kMaxRunsPerInvocation;
       }},
      {"coopmat.tile-past-shape", "a tile past M or N rounded up to a power of two (at least 32) only adds idle work",
       DeviceKey{},
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
  for (const auto& p : space.parameters) plan.defines.emplace_back(p.name, std::to_string(config.at(p.name)));
  plan.defines.emplace_back("QTYPE", std::to_string(qtype));
  const auto t = coopmat::tile_of(config);
  plan.local_size = {t.warps * coopmat::kWarp, 1, 1};
  plan.dispatch = {DispatchAxis{1, t.bn}, DispatchAxis{0, t.bm}, DispatchAxis{}};
  plan.shared_memory_bytes = shared_bytes(t);
  return plan;
}

}  // namespace vktune::kernels::quant_coopmat
