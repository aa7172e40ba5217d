#pragma once
// What the dense matmuls y[M×N] = x[M×K]·Wᵀ share (matmul_f32, matmul_f16):
// shape checks, the scalar tiled space of templates/include/matmul_tiled.glsl
// (parameters, constraints, plan), the reference (full, or sampled for large
// shapes) and the metrics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/kernel.hpp"
#include "kernels/row_ops.hpp"
#include "reference/matmul.hpp"
#include "reference/parallel_rows.hpp"

namespace vktune::kernels::dense {

// The dense matmuls' legality rules.
inline constexpr RuleId kTileWidth{"tiled.tile_past_shape"};        // a tile past its dimension's power of two
inline constexpr RuleId kVecWidth{"dense.vec_width"};               // VEC the widest load that divides K

// Above this many multiply-adds the CPU reference is computed for a sample of
// outputs only (see Problem::expected).
constexpr double kFullReferenceMacs = 3.0e8;

inline std::uint32_t next_pow2(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// M, N, K positive, and every element index 32-bit.
inline void validate_mnk(const std::string& kernel, const Shape& shape) {
  if (shape.size() != 3) {
    throw Error(ErrorKind::usage, kernel + " takes shapes M,N,K; got " + std::to_string(shape.size()) + " dimensions");
  }
  static const char* dims[] = {"M", "N", "K"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (shape[i] == 0) throw Error(ErrorKind::usage, kernel + ": " + dims[i] + " must be positive");
  }
  const std::uint64_t m = shape[0], n = shape[1], k = shape[2];
  if (m * k >= (1ull << 32) || n * k >= (1ull << 32) || m * n >= (1ull << 32)) {
    throw Error(ErrorKind::usage, kernel + ": shape " + shape_to_string(shape) + " is too large for 32-bit indexing");
  }
}

// 4096³, the 7-8B model prefill projections (512 tokens) and one decode row.
inline std::vector<Shape> default_shapes() {
  return {{4096, 4096, 4096}, {512, 4096, 4096}, {512, 14336, 4096}, {512, 4096, 14336}, {1, 4096, 4096}};
}

// Check shapes of the tiled spaces (M > 8; kernels/dense_matvec.hpp adds the
// decode ones). Odd sizes, no dimension a multiple of any tile: K a multiple
// of 4 but not 8 with a tail in every TILE_K (vec4 loads), K odd (scalar
// loads), and K a multiple of 8 (8-half loads of the coopmat path) with M
// below any tile. M and N stay below 64 so the gate's variant count stays
// small.
inline std::vector<Shape> check_shapes() { return {{37, 45, 100}, {61, 50, 33}, {9, 29, 72}}; }

// A tile along a dimension is at most the dimension rounded up to a power of
// two (or the smallest candidate): larger tiles only add idle invocations.
inline Violation tile_violation(const char* name, int tile, std::uint32_t dim, int smallest) {
  const auto limit = std::max<std::uint32_t>(static_cast<std::uint32_t>(smallest), next_pow2(dim));
  if (static_cast<std::uint32_t>(tile) > limit) {
    return kTileWidth(std::string(name) + "=" + std::to_string(tile) + " exceeds " + std::to_string(limit) +
                      " (the dimension rounded up to a power of two): the rest of the tile would be idle");
  }
  return {};
}

// The scalar tiled parameters (templates/include/matmul_tiled.glsl).
inline std::vector<Parameter> tiled_parameters() {
  return {
      {"TILE_M", {32, 64, 128}, "output rows (along M) per workgroup"},
      {"TILE_N", {32, 64, 128}, "output columns (along N) per workgroup"},
      {"TILE_K", {8, 16, 32}, "K slice staged in shared memory per step"},
      {"THREAD_M", {4, 8}, "register tile rows per invocation (groups of 4, read as vec4 from shared memory)"},
      {"THREAD_N", {4, 8}, "register tile columns per invocation (groups of 4)"},
  };
}

// The widest global load that divides K, among `widths` (widest first): a
// narrower one is never faster, so it is not a separate variant.
inline Violation vec_violation(int vec, std::uint32_t k, const std::vector<int>& widths) {
  for (int w : widths) {
    if (k % static_cast<std::uint32_t>(w) == 0) {
      if (vec == w) return {};
      return kVecWidth("VEC=" + std::to_string(vec) + ": loads of " + std::to_string(w) + " elements divide K=" +
                       std::to_string(k) + " and are never slower (only the widest dividing width is varied)");
    }
  }
  return kVecWidth("VEC=" + std::to_string(vec) + " does not divide K=" + std::to_string(k));
}

inline std::uint32_t tiled_invocations(const Config& c) {
  return static_cast<std::uint32_t>((c.at("TILE_M") / c.at("THREAD_M")) * (c.at("TILE_N") / c.at("THREAD_N")));
}

inline Violation tiled_violation(const Config& c, const Shape& shape) {
  const auto wg = tiled_invocations(c);
  if (wg < 32 || wg > 512) {
    return legality::kTiledInvocations("(TILE_M/THREAD_M)*(TILE_N/THREAD_N) = " + std::to_string(wg) +
                             " invocations is outside 32..512");
  }
  // matmul_tiled.glsl lays invocations out LANES_N wide: more along N than
  // that is its #error unless LANES_N=8 (whose layout matmul_f32's
  // lanes_violation checks). Seen on an H200 with --space full: 9-11 such
  // matmul_f16 configs a 90-s tune at 512,4096,14336 failed to compile.
  const auto lanes = c.count("LANES_N") ? c.at("LANES_N") : 32;
  if (const auto tnt = c.at("TILE_N") / c.at("THREAD_N"); lanes != 8 && tnt > lanes) {
    return legality::kTiledLanes("TILE_N/THREAD_N = " + std::to_string(tnt) + " invocations along N, more than a row of " +
                                 std::to_string(lanes) + " lanes (LANES_N) of the template's layout");
  }
  if (auto p = tile_violation("TILE_M", c.at("TILE_M"), shape[0], 32); !p.empty()) return p;
  if (auto p = tile_violation("TILE_N", c.at("TILE_N"), shape[1], 32); !p.empty()) return p;
  return {};
}

// The number of shared buffers of the tiled body (TILED_STAGES): 2 = double
// buffering, one barrier per K slice; 1 = two barriers per slice.
// matmul_f32 tunes it (parameter STAGES: any slice with either, where the
// buffers fit the device's shared memory, which the plan's size checks);
// matmul_f16's scalar path has no STAGES parameter and keeps this rule:
// double-buffered for slices of at most 16 k whose two buffers fit in 32
// KiB, the least that the devices of interest offer (lavapipe; 48 KiB on
// NVIDIA): 128×128×16 tiles just fit.
constexpr std::uint32_t kTiledDoubleBufferBytes = 32 * 1024;

inline std::uint32_t tiled_stage_bytes(const Config& c) {
  return 4 * static_cast<std::uint32_t>(c.at("TILE_K") * (c.at("TILE_M") + c.at("TILE_N")));
}

inline std::uint32_t tiled_stages(const Config& c) {
  if (const auto it = c.find("STAGES"); it != c.end()) return static_cast<std::uint32_t>(it->second);
  return c.at("TILE_K") <= 16 && 2 * tiled_stage_bytes(c) <= kTiledDoubleBufferBytes ? 2 : 1;
}

// The STAGES parameter of a kernel that tunes it (values 1 and 2).
inline Parameter tiled_stages_parameter() {
  return {"STAGES", {1, 2},
          "shared-memory buffers: 2 = double buffering (one barrier per K slice, where two fit in the device's "
          "shared memory), 1 = two barriers per slice"};
}

// From this K on the tiled body's K loop is unrolled in SPIR-V
// (TILED_UNROLL_K): 15% faster on NVIDIA, but several times the compile time
// on the CPU driver of the CI gate, whose check shapes (K <= 100) run the
// same loop rolled. Every variant is still validated at the tuned shape
// before it is timed.
constexpr std::uint32_t kTiledUnrollMinK = 256;

// Local size, dispatch (x over N, y over M), shared memory and the
// TILED_STAGES (tiled_stages) and TILED_UNROLL_K defines of the tiled body.
inline void tiled_plan(const Config& c, const Shape& shape, ShaderPlan& plan) {
  const auto tm = static_cast<std::uint32_t>(c.at("TILE_M"));
  const auto tn = static_cast<std::uint32_t>(c.at("TILE_N"));
  const auto stages = tiled_stages(c);
  plan.local_size = {tiled_invocations(c), 1, 1};
  plan.dispatch = {DispatchAxis{1, tn}, DispatchAxis{0, tm}, DispatchAxis{}};
  plan.shared_memory_bytes = stages * tiled_stage_bytes(c);
  plan.defines.emplace_back("TILED_STAGES", std::to_string(stages));
  if (shape.at(2) >= kTiledUnrollMinK) plan.defines.emplace_back("TILED_UNROLL_K", "1");
}

// Device limits for a plan with three buffers and three push-constant words.
inline Violation limits_violation(const ShaderPlan& plan, const Shape& shape, const vk::DeviceInfo& device) {
  return plan_limits_violation(plan, shape, 3, device);
}

// The double-precision reference of x (m×k) · wᵀ (w n×k): all of it for small
// shapes or when `full` (in parallel), else a sample (first, last and evenly
// spread rows and columns, each accumulated in double in K order like
// ref::matmul_f32) with NaN elsewhere.
inline std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w, std::size_t m,
                                     std::size_t n, std::size_t k, bool full) {
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kFullReferenceMacs && !full) {
    return ref::matmul_f32(x.data(), w.data(), m, n, k);
  }
  std::vector<double> expected(m * n, std::nan(""));
  const auto spread = [](std::size_t count, std::size_t want) {
    std::vector<std::size_t> picks;
    const std::size_t take = std::min(count, want);
    for (std::size_t i = 0; i < take; ++i) picks.push_back(take == 1 ? 0 : i * (count - 1) / (take - 1));
    return picks;
  };
  const auto rows = spread(m, full ? m : 24), cols = spread(n, full ? n : 96);
  ref::parallel_rows(rows.size(), [&](std::size_t begin, std::size_t end) {  // each thread owns output rows
    for (std::size_t r = begin; r < end; ++r) {
      const auto i = rows[r];
      for (const auto j : cols) {
        double sum = 0;
        for (std::size_t t = 0; t < k; ++t) sum += static_cast<double>(x[i * k + t]) * static_cast<double>(w[j * k + t]);
        expected[i * n + j] = sum;
      }
    }
  });
  return expected;
}

// Both paths accumulate in fp32 against a double reference (fp16 inputs are
// rounded first, and a product of two halves is exact in fp32). For random
// signs the rounding error of a K-term fp32 sum grows like eps*sqrt(K)
// relative to the result (eps = 6e-8; K = 14336 gives about 1e-5 at worst);
// typical errors are 1e-7 to 1e-6. An fp16 accumulator (eps = 1e-3) or a
// wrong tile, index or padding gives errors far above these bounds.
inline Tolerance tolerance() { return Tolerance{1e-4, 1e-3}; }

// Minimal traffic: x and W read once, y written once.
inline Metrics metrics(const Shape& shape, double element_bytes) {
  const double m = shape.at(0), n = shape.at(1), k = shape.at(2);
  Metrics metrics;
  metrics.bytes = (m * k + n * k) * element_bytes + m * n * 4;
  metrics.flops = 2 * m * n * k;
  return metrics;
}

}  // namespace vktune::kernels::dense
