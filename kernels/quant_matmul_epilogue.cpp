#include "kernels/quant_matmul_epilogue.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "common/error.hpp"
#include "kernels/half_activations.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/legality.hpp"
#include "kernels/rms_norm_eps.hpp"
#include "kernels/rope_angle.hpp"
#include "kernels/row_ops.hpp"
#include "reference/fp16.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels::matmul_epilogue {
namespace {

constexpr std::uint32_t kMaxHeadDim = 1024;
// fp16 values of a cache, indexed in 32 bits (as rope_cache's).
constexpr std::uint64_t kMaxCacheValues = 1ull << 31;
// h = silu(a)·b from products a and b, each within the product's tolerance:
// |Δh| <= max|silu'|·|b|·|Δa| + |silu(a)|·|Δb| with max|silu'| < 1.1, each
// product's error weighted by the other's value: about twice a product's
// relative error against h's own scale. Measured on lavapipe at the check
// shapes (tests/kernels/glu_test.cpp prints them): 8-bit x 3.5e-3 to 5.2e-3
// rel_l2 and 4.4e-3 to 8.6e-3 max_rel against the product's 2e-2; exact x
// 2.7e-7 to 3.6e-7.
constexpr double kGluErrorGrowth = 2;

}  // namespace

std::string suffix(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::rope:
      return "_rope";
    case Epilogue::rope_cache:
      return "_rope_cache";
    case Epilogue::cache:
      return "_cache";
    case Epilogue::residual_norm:
      return "_resnorm";
    case Epilogue::glu:
      return "_glu";
    case Epilogue::none:
      break;
  }
  return "";
}

std::string description(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::rope:
      return "; y turned by the rotary position embedding (normal layout: pairs 2i, 2i+1 of each head of head_dim) "
             "at each x row's position, frequency base as an input: a query product and its rope in one dispatch";
    case Epilogue::rope_cache:
      return "; y turned by the rotary position embedding (normal layout) and stored as fp16 into the KV cache's "
             "row at each x row's position (kv_len rows of N), the other rows untouched: a key product, its rope "
             "and its cache store in one dispatch";
    case Epilogue::cache:
      return "; y stored as fp16 into the KV cache's row at each x row's position (kv_len rows of N), the other rows "
             "untouched: a value product and its cache store in one dispatch";
    case Epilogue::residual_norm:
      return "; y = x·Wᵀ + r (the residual stream r, M×N fp32, added), and xn = y / sqrt(mean(y^2) + 1e-5) * w per "
             "row (w fp32 N) written by the workgroup that finishes last: a block's last product, its residual add "
             "and the next block's norm in one dispatch";
    case Epilogue::glu:
      return "; W's rows gate's and up's interleaved (gate row i at 2i, up row i at 2i+1) and y = silu(x·W[2i]ᵀ) · "
             "x·W[2i+1]ᵀ, N/2 values per x row: a feed-forward block's gate and up products and their SwiGLU in "
             "one dispatch";
    case Epilogue::none:
      break;
  }
  return "";
}

bool rotates(Epilogue epilogue) { return epilogue == Epilogue::rope || epilogue == Epilogue::rope_cache; }
bool caches(Epilogue epilogue) { return epilogue == Epilogue::rope_cache || epilogue == Epilogue::cache; }
bool stores_pairs(Epilogue epilogue) { return rotates(epilogue) || caches(epilogue) || epilogue == Epilogue::glu; }

std::vector<std::string> extra_dims(Epilogue epilogue) {
  std::vector<std::string> dims;
  if (rotates(epilogue)) dims.emplace_back("head_dim");
  if (caches(epilogue)) dims.emplace_back("kv_len");
  return dims;
}

std::size_t kv_len_dim(Epilogue epilogue) { return rotates(epilogue) ? 4 : 3; }

void validate_shape(Epilogue epilogue, const std::string& kernel, const Shape& shape) {
  if (!stores_pairs(epilogue)) return;
  const std::uint32_t m = shape[0], n = shape[1];
  if (n % 2 != 0) {
    throw Error(ErrorKind::usage, kernel + ": N=" + std::to_string(n) + " must be even (outputs are stored in pairs)");
  }
  if (rotates(epilogue)) {
    const std::uint32_t head_dim = shape[3];
    if (head_dim == 0 || head_dim % 2 != 0 || head_dim > kMaxHeadDim || n % head_dim != 0) {
      throw Error(ErrorKind::usage, kernel + ": head_dim " + std::to_string(head_dim) + " must be even, at most " +
                                        std::to_string(kMaxHeadDim) + " and divide N=" + std::to_string(n));
    }
  }
  if (!caches(epilogue)) return;
  const std::uint32_t kv_len = shape[kv_len_dim(epilogue)];
  if (m > kv_len) {
    throw Error(ErrorKind::usage, kernel + ": " + std::to_string(m) + " x rows (tokens) do not fit a cache of " +
                                      std::to_string(kv_len) + " rows");
  }
  // The tolerance (kernels/rope_angle.hpp) is argued for positions below this.
  if (kv_len > static_cast<std::uint32_t>(rope_angle::kMaxPosition)) {
    throw Error(ErrorKind::usage, kernel + ": kv_len " + std::to_string(kv_len) + " is above " +
                                      std::to_string(rope_angle::kMaxPosition) +
                                      ", the largest position whose angle the tolerance covers");
  }
  if (std::uint64_t{kv_len} * n > kMaxCacheValues) {
    throw Error(ErrorKind::usage, kernel + ": a cache of " + std::to_string(std::uint64_t{kv_len} * n) +
                                      " values is too large for 32-bit indexing");
  }
}

std::vector<Shape> default_shapes(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::rope:
      return {{1, 4096, 4096, 128}};
    case Epilogue::rope_cache:
      return {{1, 1024, 4096, 128, 4096}};
    case Epilogue::cache:
      return {{1, 1024, 4096, 4096}};
    case Epilogue::residual_norm:  // attn_output's (kernels/quant_matmul.cpp gives ffn_down's with the SwiGLU)
      return {{1, 4096, 4096}};
    case Epilogue::glu:  // Llama-3-8B's gate and up, 14336 rows each
      return {{1, 28672, 4096}};
    case Epilogue::none:
      break;
  }
  return {};
}

std::vector<Shape> check_shapes(Epilogue epilogue, std::uint32_t aligned_k, std::uint32_t block_weights) {
  // N = 60 (3 heads of 20) and 20 (5 heads of 4): multiples of 2 and 4 only.
  switch (epilogue) {
    case Epilogue::rope:
      return {{1, 60, aligned_k, 20}, {3, 20, block_weights, 4}};
    case Epilogue::rope_cache:
      return {{1, 60, aligned_k, 20, 5}, {3, 20, block_weights, 4, 7}};
    case Epilogue::cache:
      return {{1, 60, aligned_k, 5}, {3, 20, block_weights, 7}};
    case Epilogue::residual_norm:  // N odd: rows one by one, a tail in every workgroup's rows
      return {{1, 37, aligned_k}, {3, 19, block_weights}};
    case Epilogue::glu:
      return {{1, 60, aligned_k}, {3, 20, block_weights}};
    case Epilogue::none:
      break;
  }
  return {};
}

void adapt_bindings(Epilogue epilogue, std::vector<Binding>& bindings) {
  if (epilogue == Epilogue::none) return;
  if (epilogue == Epilogue::residual_norm) {  // templates/include/residual_norm.glsl's bindings 3 to 6
    bindings.push_back({"r", BindingRole::input, size_rule(4, {0, 1})});
    bindings.push_back({"w", BindingRole::weights, size_rule(4, {1})});
    bindings.push_back({"xn", BindingRole::output, size_rule(4, {0, 1})});
    bindings.push_back({"counter", BindingRole::scratch, size_rule(4, {})});
    return;
  }
  if (epilogue == Epilogue::glu) {  // N/2 values an x row
    bindings.at(2) = {"y", BindingRole::output, size_rule(4, {0, 1}, 2)};
    return;
  }
  if (caches(epilogue)) {
    bindings.at(2) = {"cache", BindingRole::output, size_rule(2, {static_cast<int>(kv_len_dim(epilogue)), 1})};
  }
  bindings.push_back({"pos", BindingRole::input, size_rule(4, {0})});
  if (rotates(epilogue)) bindings.push_back({"base", BindingRole::input, size_rule(4, {})});
}

void adapt_paths(Epilogue epilogue, const std::string& layout_parameter, std::vector<Path>& paths) {
  if (epilogue == Epilogue::none) return;
  std::erase_if(paths, [&](const Path& path) {
    const auto it = path.pinned.find(layout_parameter);
    return layout_parameter.empty() || it == path.pinned.end() || it->second != 1;
  });
  if (paths.empty()) throw Error(ErrorKind::internal, "the epilogues need a format with a dedicated layout");
  for (auto& path : paths) {
    for (auto& p : path.parameters) {
      if (p.name == "ROWS_PER_WG" && stores_pairs(epilogue)) std::erase_if(p.values, [](int v) { return v % 2 != 0; });
      if (p.name == "REDUCTION") p.values = {0};
    }
  }
}

void add_defines(Epilogue epilogue, std::vector<ShaderPlan>& stages) {
  if (epilogue == Epilogue::none) return;
  if (epilogue == Epilogue::residual_norm) {
    for (auto& stage : stages) {
      stage.defines.emplace_back("Y_RESNORM", "1");
      stage.defines.emplace_back("EPS", std::to_string(kRmsNormEps));
    }
    return;
  }
  for (auto& stage : stages) {
    stage.defines.emplace_back("Y_ROPE", rotates(epilogue) ? "1" : "0");
    stage.defines.emplace_back("Y_CACHE", caches(epilogue) ? "1" : "0");
    stage.defines.emplace_back("Y_GLU", epilogue == Epilogue::glu ? "1" : "0");
  }
}

Violation violation(Epilogue epilogue, const Config& config, bool layout) {
  if (epilogue == Epilogue::none) return {};
  if (epilogue == Epilogue::residual_norm) {
    if (!layout || config.at("REDUCTION") != 0) {
      return kSlotReduce(
          "the residual and norm are stored by the dedicated layouts' reduction (SUPER_BLOCK=1 or BLOCK_PAIRS=1, "
          "REDUCTION=0)");
    }
    return {};
  }
  if (!layout || config.at("REDUCTION") != 0) {
    return kPairTemplate(
        "outputs are stored in pairs of rows by the dedicated layouts' reduction (SUPER_BLOCK=1 or BLOCK_PAIRS=1, "
        "REDUCTION=0)");
  }
  if (config.at("ROWS_PER_WG") % 2 != 0) return kPairRows("outputs are stored in pairs of rows: ROWS_PER_WG even");
  return {};
}

// Positions: the cache epilogues' distinct, drawn at random from [0, kv_len)
// in shuffled order (a kernel that writes row m for x row m is caught), the
// first at kv_len - 1; the rope's uniform in [0, 8192), the first at 8191
// (the largest angle either checks).
void adapt_problem(Epilogue epilogue, const Shape& shape, std::uint64_t seed, Problem& problem) {
  if (epilogue == Epilogue::none) return;
  const std::size_t m = shape[0], n = shape[1];
  if (epilogue == Epilogue::residual_norm) {
    // A stream of the product's scale and a norm weight around 1, drawn
    // from the seed; y's reference plus the stream, then its norm (xn,
    // Problem::more_outputs). The counter starts at zero.
    std::mt19937_64 draw(seed ^ 0x6a09e667f3bcc909ull);
    std::uniform_real_distribution<float> stream(-1.0f, 1.0f), weight(0.5f, 1.5f);
    std::vector<float> r(m * n), g(n);
    for (auto& v : r) v = stream(draw);
    for (auto& v : g) v = weight(draw);
    problem.expected.resize(m * n);
    for (std::size_t i = 0; i < m * n; ++i) problem.expected[i] += r[i];
    const std::vector<double> weights(g.begin(), g.end());
    const auto normed = ref::rmsnorm(std::span<const double>(problem.expected), n, kRmsNormEps, weights);
    problem.expected.insert(problem.expected.end(), normed.begin(), normed.end());
    problem.buffers.push_back(rowops::input_buffer("r", r));
    auto w = rowops::input_buffer("w", g);
    w.is_weights = true;
    problem.buffers.push_back(std::move(w));
    problem.buffers.push_back(HostBuffer{"xn", std::vector<std::uint8_t>(m * n * 4), true, false});
    problem.more_outputs = {problem.buffers.size() - 1};
    problem.buffers.push_back(HostBuffer{"counter", std::vector<std::uint8_t>(4), false, false});
    return;
  }
  if (epilogue == Epilogue::glu) {
    // Each pair of rows of y's reference (gate, up) made their SwiGLU.
    std::vector<double> gate(m * n / 2), up(m * n / 2);
    for (std::size_t i = 0; i < gate.size(); ++i) gate[i] = problem.expected[2 * i], up[i] = problem.expected[2 * i + 1];
    problem.expected = ref::swiglu(std::span<const double>(gate), std::span<const double>(up));
    problem.buffers.at(2) = HostBuffer{"y", std::vector<std::uint8_t>(m * n / 2 * 4), true, false};
    return;
  }
  std::mt19937_64 rng(seed ^ 0x2545f4914f6cdd1dull);
  std::vector<std::int32_t> positions(m);
  if (caches(epilogue)) {
    std::vector<std::int32_t> all(shape[kv_len_dim(epilogue)]);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::iter_swap(all.begin(), std::max_element(all.begin(), all.end()));
    std::copy_n(all.begin(), m, positions.begin());
  } else {
    std::uniform_int_distribution<std::int32_t> dist(0, rope_angle::kMaxPosition - 1);
    for (auto& p : positions) p = dist(rng);
    positions[0] = rope_angle::kMaxPosition - 1;
  }
  std::vector<double> y(problem.expected.begin(), problem.expected.begin() + static_cast<std::ptrdiff_t>(m * n));
  if (rotates(epilogue)) {
    y = ref::rope(std::span<const double>(y), shape[3], positions, ref::RopeLayout::normal,
                  static_cast<double>(rope_angle::kFreqBase));
  }
  problem.expected = y;
  if (caches(epilogue)) {
    // The fp16 rounding (ties to even, as packHalf2x16) of each value of a
    // written row, untouched() elsewhere.
    const std::size_t kv_len = shape[kv_len_dim(epilogue)];
    problem.expected.assign(kv_len * n, untouched());
    for (std::size_t r = 0; r < m; ++r) {
      for (std::size_t i = 0; i < n; ++i) {
        problem.expected[static_cast<std::size_t>(positions[r]) * n + i] =
            ref::fp16_to_fp32(ref::fp32_to_fp16(static_cast<float>(y[r * n + i])));
      }
    }
    problem.buffers.at(2) = HostBuffer{"cache", std::vector<std::uint8_t>(kv_len * n * 2), true, false};
    problem.output_f16 = true;
  }
  problem.buffers.push_back(half::int32_buffer("pos", positions));
  if (rotates(epilogue)) problem.buffers.push_back(rowops::input_buffer("base", {rope_angle::kFreqBase}));
}

Tolerance tolerance(Epilogue epilogue, const Tolerance& product) {
  if (rotates(epilogue)) {
    return {product.rel_l2 + rope_angle::kTolerance.rel_l2, product.max_rel + rope_angle::kTolerance.max_rel};
  }
  if (caches(epilogue)) return half_activations::tolerance(product);
  if (epilogue == Epilogue::glu) return {product.rel_l2 * kGluErrorGrowth, product.max_rel * kGluErrorGrowth};
  return product;
}

double extra_bytes(Epilogue epilogue, const Shape& shape) {
  if (epilogue == Epilogue::none) return 0;
  const double m = shape.at(0), n = shape.at(1);
  if (epilogue == Epilogue::residual_norm) return (2 * m * n + n) * 4;  // r and w read, xn written
  if (epilogue == Epilogue::glu) return -m * n / 2 * 4;                   // half of y written
  return m * 4 - (caches(epilogue) ? m * n * 2 : 0);
}

std::uint64_t extra_device_bytes(Epilogue epilogue, const Shape& shape) {
  if (epilogue == Epilogue::none) return 0;
  const std::uint64_t m = shape.at(0), n = shape.at(1);
  if (epilogue == Epilogue::residual_norm) return (2 * m * n + n) * 4 + 4;  // r, w, xn, the counter
  if (epilogue == Epilogue::glu) return 0;  // y's half is within the product's y
  std::uint64_t bytes = m * 4 + (rotates(epilogue) ? 4 : 0);
  if (caches(epilogue)) bytes += std::uint64_t{shape.at(kv_len_dim(epilogue))} * n * 2 - m * n * 4;
  return bytes;
}

}  // namespace vktune::kernels::matmul_epilogue
