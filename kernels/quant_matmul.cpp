#include "kernels/quant_matmul.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/row_ops.hpp"
#include "reference/dequantize.hpp"
#include "reference/matmul.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::kernels {
namespace {

constexpr std::size_t kDecode = 0;
constexpr std::size_t kPrefill = 1;
constexpr std::uint32_t kMaxDecodeM = 8;

// Above this many multiply-adds the CPU reference is computed for a sample of
// outputs only (see Problem::expected).
constexpr double kFullReferenceMacs = 3.0e8;

std::uint32_t next_pow2(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

std::uint32_t round_up4(std::uint64_t bytes) { return static_cast<std::uint32_t>((bytes + 3) / 4 * 4); }

// The smallest subgroup the device may run a variant with.
std::uint32_t smallest_subgroup(int required, const vk::DeviceInfo& device) {
  if (required != 0) return static_cast<std::uint32_t>(required);
  return device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
}

std::vector<std::size_t> spread(std::size_t count, std::size_t want) {
  std::vector<std::size_t> picks;
  const std::size_t take = std::min(count, want);
  for (std::size_t i = 0; i < take; ++i) picks.push_back(take == 1 ? 0 : i * (count - 1) / (take - 1));
  return picks;
}

}  // namespace

std::vector<double> quantized_matmul_reference(const std::vector<float>& x, std::size_t m,
                                               const std::vector<std::uint8_t>& w, ref::GgmlType type,
                                               std::size_t n, std::size_t k) {
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kFullReferenceMacs) {
    return ref::matmul_quantized(x.data(), m, w.data(), type, n, k);
  }
  std::vector<double> expected(m * n, std::nan(""));
  const std::size_t row_bytes = ref::row_bytes(type, k);
  std::vector<float> row(k);
  const auto cols = spread(m, 24);
  for (const auto j : spread(n, 96)) {
    ref::dequantize_row(type, w.data() + j * row_bytes, row.data(), k);
    for (const auto i : cols) {
      double sum = 0;
      for (std::size_t t = 0; t < k; ++t) sum += static_cast<double>(x[i * k + t]) * static_cast<double>(row[t]);
      expected[i * n + j] = sum;
    }
  }
  return expected;
}

std::string QuantMatmul::description() const {
  return "y[M×N] = x[M×K]·Wᵀ, W in GGUF " + format_.type_name +
         " rows, x and y fp32; matrix-vector template for M <= 8 (decode), tiled template for M > 8 (prefill), "
         "both generic over the block type";
}

void QuantMatmul::validate_shape(const Shape& shape) const {
  const auto& name = format_.kernel_name;
  if (shape.size() != 3) {
    throw Error(ErrorKind::usage, name + " takes shapes M,N,K; got " + std::to_string(shape.size()) + " dimensions");
  }
  for (std::size_t i = 0; i < 3; ++i) {
    if (shape[i] == 0) throw Error(ErrorKind::usage, name + ": " + shape_dims()[i] + " must be positive");
  }
  if (shape[2] % format_.block_weights != 0) {
    throw Error(ErrorKind::usage, name + ": K=" + std::to_string(shape[2]) + " is not a multiple of " +
                                      std::to_string(format_.block_weights) + " (the weights of a " +
                                      format_.type_name + " block)");
  }
  // Indices inside the shaders are 32-bit: bytes of W, vec4s of x, floats of y.
  const std::uint64_t m = shape[0], n = shape[1], k = shape[2];
  if (m * n >= (1ull << 32) || m * k >= (1ull << 32) || weight_bytes(shape) + 4 >= (1ull << 32)) {
    throw Error(ErrorKind::usage, name + ": shape " + shape_to_string(shape) + " is too large for 32-bit indexing");
  }
}

std::vector<Shape> QuantMatmul::default_shapes() const {
  std::vector<Shape> shapes;
  for (std::uint32_t m : {1u, 512u}) {
    shapes.push_back({m, 4096, 4096});
    shapes.push_back({m, 14336, 4096});
    shapes.push_back({m, 4096, 14336});
  }
  return shapes;
}

// Small odd shapes, N never a multiple of the rows per workgroup or the tile.
// Decode: one x row on a row whose unit count leaves a remainder after the
// unrolled loop and admits 16 invocations per row (5 blocks of 32 or 3
// super-blocks), and M=3 (a tail of COLS_PER_PASS=2) on a single block.
// Prefill: M=40 (tails of TILE_M 32 and 64, two tiles of 32) on N=30 (one
// tile of 32) with K a tail of TILE_K=64 for the 32-weight blocks and several
// super-blocks for the K-quants, and M=9 (one row past decode) on N=60 (tails
// of TILE_N 32 and 64) over a single block.
std::vector<Shape> QuantMatmul::check_shapes() const {
  const bool small = format_.block_weights == 32;
  return {{1, 37, small ? 160u : 768u}, {3, 19, format_.block_weights}, {40, 30, small ? 96u : 512u},
          {9, 60, format_.block_weights}};
}

std::vector<Space> QuantMatmul::spaces() const {
  Space decode{"decode", "matvec_quant.comp", {}};
  decode.parameters = {
      {"WG_SIZE", {64, 128, 256}, "invocations per workgroup"},
      {"ROWS_PER_WG", {1, 2, 4, 8, 16}, "rows of W (outputs along N) per workgroup"},
      {"THREADS_PER_ROW", {4, 8, 16, 32, 64}, "invocations sharing a row of W, each taking every T-th unit of the row "
                                              "(WG_SIZE/THREADS_PER_ROW row groups)"},
      {"UNROLL", {1, 2, 4}, "units per invocation per loop step, loads of all issued together"},
      {"REDUCTION", {0, 1}, "0 = subgroup shuffle butterfly over a row's invocations; 1 = shared-memory tree"},
      {"COLS_PER_PASS", {1, 2, 4, 8}, "rows of x (outputs along M) per workgroup"},
      {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
  };
  for (auto& p : quantized_activation_parameters()) decode.parameters.push_back(std::move(p));
  Space prefill{"prefill", "matmul_quant.comp", {}};
  prefill.parameters = {
      {"TILE_M", {32, 64, 128}, "output rows (along M) per workgroup"},
      {"TILE_N", {32, 64, 128}, "output columns (along N) per workgroup"},
      {"TILE_K", {16, 32, 64}, "K slice staged (x and dequantized W) in shared memory per step"},
      {"THREAD_M", {2, 4, 8}, "register tile rows per invocation"},
      {"THREAD_N", {2, 4, 8}, "register tile columns per invocation"},
      {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
  };
  return {decode, prefill};
}

std::size_t QuantMatmul::space_index(const Shape& shape) const {
  return shape.at(0) <= kMaxDecodeM ? kDecode : kPrefill;
}

Config QuantMatmul::baseline(const Shape& shape) const {
  if (space_index(shape) == kDecode) {
    // A plain, portable matrix-vector kernel: 64 invocations, eight per row
    // (eight fit every subgroup size the shuffle reduction allows), one row
    // per row group, two units per step where the row has enough, all x rows
    // at once.
    const std::uint32_t units = shape[2] / format_.block_weights * format_.units;
    const int t = units >= 8 ? 8 : 4;
    const int unroll = units >= 16 ? 2 : 1;
    return {{"WG_SIZE", 64},           {"ROWS_PER_WG", 64 / t},
            {"THREADS_PER_ROW", t},    {"UNROLL", unroll},
            {"REDUCTION", 0},          {"COLS_PER_PASS", static_cast<int>(next_pow2(shape[0]))},
            {"SUBGROUP_SIZE", 0},      {"X_QUANT", 0},
            {"X_SEGMENT", 4096}};
  }
  // The textbook 64×64 tile, 4×4 per invocation, K in 32-weight slices
  // (16.6 KB of shared memory); 32 along M or N where the shape is that small.
  const int tm = next_pow2(shape[0]) <= 32 ? 32 : 64;
  const int tn = next_pow2(shape[1]) <= 32 ? 32 : 64;
  return {{"TILE_M", tm}, {"TILE_N", tn}, {"TILE_K", 32}, {"THREAD_M", 4}, {"THREAD_N", 4}, {"SUBGROUP_SIZE", 0}};
}

std::string QuantMatmul::constraint_violation(const Config& config, const Shape& shape,
                                              const vk::DeviceInfo& device) const {
  validate_shape(shape);
  const auto space = space_index(shape);
  if (auto problem = rowops::parameter_violation(config, spaces()[space]); !problem.empty()) return problem;
  auto problem = space == kDecode ? decode_violation(config, shape, device) : prefill_violation(config, shape, device);
  if (!problem.empty()) return problem;
  return plan_limits_violation(plan(config, shape), shape, 3, device);
}

std::string QuantMatmul::decode_violation(const Config& config, const Shape& shape,
                                          const vk::DeviceInfo& device) const {
  const int wg = config.at("WG_SIZE"), rows = config.at("ROWS_PER_WG"), t = config.at("THREADS_PER_ROW");
  const int unroll = config.at("UNROLL"), reduction = config.at("REDUCTION"), cols = config.at("COLS_PER_PASS");
  const int sg = config.at("SUBGROUP_SIZE");
  const std::uint32_t m = shape[0];
  const std::uint32_t units = shape[2] / format_.block_weights * format_.units;
  if (wg % t != 0) return "THREADS_PER_ROW must divide WG_SIZE";
  const int groups = wg / t;
  if (rows % groups != 0) {
    return "the " + std::to_string(groups) + " row groups (WG_SIZE/THREADS_PER_ROW) do not divide ROWS_PER_WG=" +
           std::to_string(rows);
  }
  const int rows_per_thread = rows / groups;
  if (static_cast<std::uint32_t>(t) > units) {
    return "THREADS_PER_ROW=" + std::to_string(t) + " exceeds the " + std::to_string(units) +
           " units of a row (some invocations would never work)";
  }
  if (unroll > 1 && static_cast<std::uint32_t>(t * unroll) > units) {
    return "THREADS_PER_ROW*UNROLL = " + std::to_string(t * unroll) + " exceeds the " + std::to_string(units) +
           " units of a row (the unrolled loop would never run)";
  }
  if (static_cast<std::uint32_t>(cols) > next_pow2(m)) {
    return "COLS_PER_PASS " + std::to_string(cols) + " exceeds M=" + std::to_string(m) +
           " rounded up to a power of two (the extra columns would be idle)";
  }
  if (static_cast<std::uint32_t>(cols) * 4 <= next_pow2(m)) {
    return "COLS_PER_PASS " + std::to_string(cols) + " takes more than two passes over the weights for M=" +
           std::to_string(m);
  }
  if (rows_per_thread * cols > 16) return "more than 16 sums (rows per invocation * COLS_PER_PASS) per invocation";
  if (auto problem = quantized_activation_violation(config, shape[2], device); !problem.empty()) return problem;
  if (uses_quantized_activations(config)) {
    if (reduction != 0) return "X_QUANT=1 reduces with subgroup shuffles only (REDUCTION pinned to 0)";
    // Each workgroup quantizes its x rows, so few rows per workgroup waste
    // it; UNROLL=4 was never among the best on an H200. Both keep the CI
    // gate within its budget.
    if (rows < 4) return "X_QUANT=1 takes ROWS_PER_WG >= 4 (quantizing x is per workgroup)";
    if (unroll > 2) return "X_QUANT=1 takes UNROLL 1 or 2";
  }
  const std::uint32_t unit_weights = format_.block_weights / format_.units;
  if (static_cast<std::uint32_t>(rows_per_thread * unroll) * unit_weights > 64) {
    return "rows per invocation * UNROLL * " + std::to_string(unit_weights) +
           " weights per unit = more than 64 weights in flight per invocation";
  }
  if (reduction == 1) {
    if (rows_per_thread * cols > 4) {
      return "REDUCTION=1 reduces rows per invocation * COLS_PER_PASS = " + std::to_string(rows_per_thread * cols) +
             " sums in one shared-memory tree; more than 4 is never worth it";
    }
    if (sg != 0) return "REDUCTION=1 uses no subgroup operations; SUBGROUP_SIZE is only varied with REDUCTION=0";
    if (t < 16) return "REDUCTION=1 only from THREADS_PER_ROW=16 (fewer are summed by shuffles on every device)";
  } else {
    if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle")) {
      return "REDUCTION=0 needs subgroup shuffles in compute shaders";
    }
    const std::uint32_t smallest = smallest_subgroup(sg, device);
    if (smallest < static_cast<std::uint32_t>(t)) {
      return "REDUCTION=0 sums THREADS_PER_ROW=" + std::to_string(t) + " invocations with subgroup shuffles, more "
             "than the " + std::to_string(smallest) + " invocations of the smallest subgroup the variant may get";
    }
  }
  return rowops::subgroup_size_violation(sg, static_cast<std::uint32_t>(wg), device);
}

std::string QuantMatmul::prefill_violation(const Config& config, const Shape& shape,
                                           const vk::DeviceInfo& device) const {
  const int tm = config.at("TILE_M"), tn = config.at("TILE_N"), tk = config.at("TILE_K");
  const int thm = config.at("THREAD_M"), thn = config.at("THREAD_N");
  const int wg = (tm / thm) * (tn / thn);
  if (wg < 32 || wg > 1024) {
    return "(TILE_M/THREAD_M)*(TILE_N/THREAD_N) = " + std::to_string(wg) + " invocations is outside 32..1024";
  }
  if (thm * thn < 8) return "a 2×2 register tile (one FMA per shared-memory load) is never competitive";
  // Tiles larger than the shape (rounded up, at least the smallest tile) only
  // add idle work.
  if (static_cast<std::uint32_t>(tm) > std::max(32u, next_pow2(shape[0]))) {
    return "TILE_M=" + std::to_string(tm) + " exceeds M=" + std::to_string(shape[0]) + " rounded up";
  }
  if (static_cast<std::uint32_t>(tn) > std::max(32u, next_pow2(shape[1]))) {
    return "TILE_N=" + std::to_string(tn) + " exceeds N=" + std::to_string(shape[1]) + " rounded up";
  }
  if (static_cast<std::uint32_t>(tk) > next_pow2(shape[2])) {
    return "TILE_K=" + std::to_string(tk) + " exceeds K=" + std::to_string(shape[2]) + " rounded up";
  }
  return rowops::subgroup_size_violation(config.at("SUBGROUP_SIZE"), static_cast<std::uint32_t>(wg), device);
}

ShaderPlan QuantMatmul::plan(const Config& config, const Shape& shape) const {
  const auto space = space_index(shape);
  ShaderPlan plan;
  plan.template_file = spaces()[space].template_file;
  if (space == kDecode && uses_quantized_activations(config)) plan.template_file = "matvec_quant_q8.comp";
  plan.defines = rowops::config_defines(config, spaces()[space]);
  plan.defines.emplace_back("QTYPE", std::to_string(format_.qtype));
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

Problem QuantMatmul::make_problem(const Shape& shape, std::uint64_t seed) const {
  validate_shape(shape);
  const std::size_t m = shape[0], n = shape[1], k = shape[2];
  auto weights = ref::random_quantized_rows(format_.type, n, k, seed);
  const auto x = ref::random_floats(m * k, seed ^ 0x9e3779b97f4a7c15ull);
  Problem problem;
  problem.shape = shape;
  problem.expected = quantized_matmul_reference(x, m, weights, format_.type, n, k);
  weights.resize(round_up4(weights.size()), 0);  // whole words (see quant_matmul.hpp)

  HostBuffer xb{"x", std::vector<std::uint8_t>(x.size() * sizeof(float)), false, false};
  std::memcpy(xb.bytes.data(), x.data(), xb.bytes.size());
  HostBuffer wb{"W", std::move(weights), false, true};
  HostBuffer yb{"y", std::vector<std::uint8_t>(m * n * sizeof(float)), true, false};
  problem.buffers = {std::move(xb), std::move(wb), std::move(yb)};
  problem.output_index = 2;
  return problem;
}

// Both templates accumulate in fp32 (per invocation over its share of K, then
// a shuffle or shared-memory sum) against a double reference; the prefill
// template dequantizes bit-exactly, the decode template factors each run of 4
// weights as a*dot(x, q) - b*sum(x). For random signs the rounding error of a
// K-term fp32 dot product grows like eps*sqrt(K) relative to the result (eps =
// 6e-8; K = 14336 gives about 1e-5 at worst); typical errors are 1e-7 to
// 1e-6, while a wrong scale, nibble or block gives errors above 1e-2.
Tolerance QuantMatmul::tolerance(const Shape&) const { return Tolerance{1e-4, 1e-3}; }

// X_QUANT=1: see kernels/quantized_activations.hpp.
Tolerance QuantMatmul::variant_tolerance(const Config& config, const Shape& shape) const {
  if (space_index(shape) == kDecode && uses_quantized_activations(config)) return kQuantizedActivationTolerance;
  return tolerance(shape);
}

std::uint64_t QuantMatmul::weight_bytes(const Shape& shape) const {
  return static_cast<std::uint64_t>(shape.at(1)) * (shape.at(2) / format_.block_weights) * format_.block_bytes;
}

Metrics QuantMatmul::metrics(const Shape& shape) const {
  const double m = shape.at(0), n = shape.at(1), k = shape.at(2);
  Metrics metrics;
  metrics.bytes = static_cast<double>(weight_bytes(shape)) + m * k * 4 + m * n * 4;
  metrics.flops = 2 * m * n * k;
  return metrics;
}

std::uint64_t QuantMatmul::device_bytes(const Shape& shape) const {
  const std::uint64_t m = shape.at(0), n = shape.at(1), k = shape.at(2);
  return round_up4(weight_bytes(shape)) + m * k * 4 + m * n * 4;
}

}  // namespace vktune::kernels
