#include "kernels/dense_matvec.hpp"

#include <algorithm>

#include "kernels/dense_matmul.hpp"
#include "kernels/matvec_rules.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels::dense_matvec {
namespace {

// A step's loads are all in registers before its arithmetic; past this many
// 32-bit words per invocation they would crowd out the accumulators (or
// spill).
constexpr int kMaxLoadWords = 64;

// 32-bit words of one chunk of `vec` elements.
int load_words(int vec, bool f16) { return f16 ? std::max(1, vec / 2) : vec; }

}  // namespace

std::vector<int> vec_widths(bool f16) { return f16 ? std::vector<int>{8, 4, 1} : std::vector<int>{4, 1}; }

std::vector<Parameter> parameters(bool f16) {
  return {
      {"WG_SIZE", {64, 128, 256}, "invocations per workgroup"},
      {"ROWS_PER_WG", {1, 2, 4, 8, 16, 32}, "rows of W (outputs along N) per workgroup"},
      {"THREADS_PER_ROW", {4, 8, 16, 32}, "invocations sharing a row of W, neighbours reading neighbouring chunks "
                                          "(WG_SIZE/THREADS_PER_ROW row groups)"},
      {"UNROLL", {1, 2, 4, 8}, "chunks per row per invocation per loop step, loads of all issued together"},
      {"COLS_PER_PASS", {1, 2, 4, 8}, "rows of x (outputs along M) per workgroup"},
      {"VEC", vec_widths(f16), "elements per load (the widest dividing K)"},
      {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
  };
}

std::vector<Shape> check_shapes(std::vector<Shape> tiled) {
  tiled.push_back({1, 29, 72});
  tiled.push_back({5, 37, 43});
  return tiled;
}

Config baseline(const Shape& shape, bool f16) {
  int vec = 1;
  for (int w : vec_widths(f16)) {
    if (shape[2] % static_cast<std::uint32_t>(w) == 0) {
      vec = w;
      break;
    }
  }
  const std::uint32_t chunks = shape[2] / static_cast<std::uint32_t>(vec);
  const int cols = static_cast<int>(dense::next_pow2(shape[0]));
  // Two chunks per step where the row has them and the loads fit the
  // registers (see load_words).
  const bool unroll = chunks >= 16 && 2 * (1 + cols) * load_words(vec, f16) <= kMaxLoadWords;
  return {{"WG_SIZE", 64},
          {"ROWS_PER_WG", 8},
          {"THREADS_PER_ROW", 8},
          {"UNROLL", unroll ? 2 : 1},
          {"COLS_PER_PASS", cols},
          {"VEC", vec},
          {"SUBGROUP_SIZE", 0}};
}

Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device, bool f16) {
  const int wg = config.at("WG_SIZE"), rows = config.at("ROWS_PER_WG"), t = config.at("THREADS_PER_ROW");
  const int unroll = config.at("UNROLL"), cols = config.at("COLS_PER_PASS"), vec = config.at("VEC");
  const int sg = config.at("SUBGROUP_SIZE");
  if (auto p = dense::vec_violation(vec, shape[2], vec_widths(f16)); !p.empty()) return p;
  int rows_per_thread = 0;
  if (auto p = matvec::row_group_violation(wg, rows, t, rows_per_thread); !p.empty()) return p;
  if (static_cast<std::uint32_t>(rows) > std::max(8u, matvec::next_pow2(shape[1]))) {
    return legality::kIdleLanes("ROWS_PER_WG=" + std::to_string(rows) + " exceeds N=" + std::to_string(shape[1]) +
                                " rounded up to a power of two (the extra rows would be idle)");
  }
  const std::uint32_t chunks = shape[2] / static_cast<std::uint32_t>(vec);
  if (auto p = matvec::row_steps_violation(t, unroll, chunks, "chunks", "the unrolled loads would never all be used");
      !p.empty()) {
    return p;
  }
  if (auto p = matvec::column_violation(cols, shape[0], rows_per_thread); !p.empty()) return p;
  const int words = load_words(vec, f16);
  if (unroll * (rows_per_thread + cols) * words > kMaxLoadWords) {
    return legality::kRegisters("UNROLL * (rows per invocation + COLS_PER_PASS) loads of " + std::to_string(words) +
                                " words = more than " + std::to_string(kMaxLoadWords) +
                                " registers of loads in flight per invocation");
  }
  if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle")) {
    return legality::kSubgroupOperations("the row sums need subgroup shuffles in compute shaders");
  }
  const std::uint32_t smallest =
      sg != 0 ? static_cast<std::uint32_t>(sg)
              : (device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size);
  if (smallest < static_cast<std::uint32_t>(t)) {
    return legality::kSubgroupSmallest("THREADS_PER_ROW=" + std::to_string(t) +
                                       " invocations are summed with subgroup shuffles, more than the " +
                                       std::to_string(smallest) +
                                       " invocations of the smallest subgroup the variant may get");
  }
  return rowops::subgroup_size_violation(sg, static_cast<std::uint32_t>(wg), device);
}

ShaderPlan plan(const Config& config, bool f16) {
  ShaderPlan plan;
  plan.template_file = "matvec_dense.comp";
  for (const auto& p : parameters(f16)) plan.defines.emplace_back(p.name, std::to_string(config.at(p.name)));
  plan.defines.emplace_back("ELEM_F16", f16 ? "1" : "0");
  plan.required_subgroup_size = static_cast<std::uint32_t>(config.at("SUBGROUP_SIZE"));
  plan.local_size = {static_cast<std::uint32_t>(config.at("WG_SIZE")), 1, 1};
  plan.dispatch = {DispatchAxis{1, static_cast<std::uint32_t>(config.at("ROWS_PER_WG"))},
                   DispatchAxis{0, static_cast<std::uint32_t>(config.at("COLS_PER_PASS"))}, DispatchAxis{}};
  return plan;
}

}  // namespace vktune::kernels::dense_matvec
