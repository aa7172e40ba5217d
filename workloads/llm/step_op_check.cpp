#include "workloads/llm/step_op_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <utility>

#include "common/error.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/registry.hpp"
#include "kernels/rms_norm_eps.hpp"
#include "reference/activation_q8.hpp"
#include "reference/dequantize.hpp"
#include "reference/fp16.hpp"
#include "reference/matmul.hpp"
#include "reference/ops.hpp"
#include "engine/validation.hpp"

namespace vktune::step {

namespace {

template <class T>
std::vector<T> values(const std::vector<std::uint8_t>& bytes, std::size_t count) {
  if (bytes.size() < count * sizeof(T)) throw Error(ErrorKind::internal, "vktune step: a buffer is too short");
  std::vector<T> v(count);
  std::memcpy(v.data(), bytes.data(), count * sizeof(T));
  return v;
}

std::vector<float> halves(const std::vector<std::uint8_t>& bytes, std::size_t count) {
  const auto bits = values<std::uint16_t>(bytes, count);
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = ref::fp16_to_fp32(bits[i]);
  return v;
}

// silu(gate)·up of `rows` rows of 2k values side by side (gate's k, then
// up's): the stacked gate and up product's output as SwiGLU reads it.
std::vector<double> swiglu_side_by_side(const std::vector<float>& pairs, std::size_t rows, std::size_t k) {
  std::vector<double> out;
  out.reserve(rows * k);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto row = ref::swiglu(std::span<const float>(pairs.data() + 2 * r * k, k),
                                 std::span<const float>(pairs.data() + (2 * r + 1) * k, k));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

// The op's reference output on the inputs it was given, and the outputs it
// wrote.
struct Expected {
  Expected(std::vector<double> w, std::vector<float> g) : want(std::move(w)), got(std::move(g)) {}
  std::vector<double> want;
  std::vector<float> got;
  std::vector<double> modeled{};  // 8-bit-activation products: the CPU model of their arithmetic
  // An output computed from another output of the op in fp32 (a _resnorm
  // product's norm xn of its own y): judged against that computation on
  // the op's own output, within kDerivedTolerance, whatever the op's
  // tolerance (an 8-bit product's 3e-2 would hide a norm 1% off).
  std::vector<double> derived_want{};
  std::vector<float> derived_got{};
  double input_crest = 0;
  std::string changed_elsewhere{};  // a cache op that changed a row no position names
};

// A cache op's rows (kv_store, rope_cache, the products' cache epilogues):
// want the rows it was to write at `positions` (`rows` of `width` values,
// already as fp16 would round them), got the cache's rows there after it.
// Only those rows are compared: a cache of `cache_rows` would hide a wrong
// row among the others in a relative error over all of them. Every other
// row must be as it was, bit for bit.
Expected cache_rows(const std::vector<std::uint8_t>& before, const std::vector<std::uint8_t>& after,
                    std::size_t width, std::size_t cache_rows, const std::vector<std::int32_t>& positions,
                    std::vector<double> written) {
  const auto cache = halves(after, width * cache_rows);
  std::vector<float> got;
  got.reserve(positions.size() * width);
  std::vector<bool> named(cache_rows, false);
  for (const auto p : positions) {
    named.at(static_cast<std::size_t>(p)) = true;
    got.insert(got.end(), cache.begin() + static_cast<std::ptrdiff_t>(p * width),
               cache.begin() + static_cast<std::ptrdiff_t>((p + 1) * width));
  }
  Expected e(std::move(written), std::move(got));
  const std::size_t row_bytes = width * 2;
  for (std::size_t r = 0; r < cache_rows && e.changed_elsewhere.empty(); ++r) {
    if (!named[r] && std::memcmp(before.data() + r * row_bytes, after.data() + r * row_bytes, row_bytes) != 0) {
      e.changed_elsewhere = "cache row " + std::to_string(r) + " changed, which no position names";
    }
  }
  return e;
}

// `values` as fp16 stores round them.
std::vector<double> fp16_rounded(const std::vector<double>& values) {
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = ref::fp16_to_fp32(ref::fp32_to_fp16(static_cast<float>(values[i])));
  return out;
}

double crest(const std::vector<float>& x) {
  double peak = 0, squares = 0;
  for (const float v : x) peak = std::max(peak, std::fabs(static_cast<double>(v))), squares += double{v} * v;
  return squares > 0 ? peak / std::sqrt(squares / static_cast<double>(x.size())) : 0;
}

// fp32 arithmetic on a few thousand values (a norm): rounding near 1e-7.
constexpr kernels::Tolerance kDerivedTolerance{1e-5, 1e-4};

Expected reference_of(const StepOp& op, const ModelStep& step, const model::ModelDescription& m,
                      const ModelStep::Contents& in, const ModelStep::Contents& out) {
  const auto& kernel = kernels::find_kernel(op.kernel);
  const auto& bindings = kernel.spaces().at(kernel.space_index(op.shape)).bindings;
  auto weight = [&](const std::string& binding) -> const std::vector<std::uint8_t>& {
    for (std::size_t b = 0; b < bindings.size(); ++b)
      if (bindings[b].name == binding) return step.weight_bytes(op.buffers[b]);
    throw Error(ErrorKind::internal, op.kernel + " has no binding " + binding);
  };
  auto type_of = [&](const std::string& binding) {
    // Stacked weights ("blk.3.ffn_gate.weight+blk.3.ffn_up.weight") are of their first tensor's type.
    for (std::size_t b = 0; b < bindings.size(); ++b)
      if (bindings[b].name == binding) {
        const auto tensor = laid_out_tensor(op.buffers[b]);
        return m.tensors.at(tensor.substr(0, tensor.find('+'))).type;
      }
    throw Error(ErrorKind::internal, op.kernel + " has no binding " + binding);
  };
  auto floats = [&](const ModelStep::Contents& c, const std::string& name, std::size_t n) {
    return values<float>(c.at(name), n);
  };
  auto as_doubles = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  const auto& s = op.shape;
  // Shapes lead with the step's rows (tokens), but for attention_decode's.
  const std::size_t rows = s[0];
  if (op.kernel.rfind("get_rows", 0) == 0) {
    const auto ids = values<std::int32_t>(in.at("ids"), rows);
    const auto type = type_of("table");
    std::vector<float> table_rows(rows * s[2]);
    for (std::size_t t = 0; t < rows; ++t) {
      ref::dequantize_row(type, weight("table").data() + static_cast<std::size_t>(ids[t]) * ref::row_bytes(type, s[2]),
                          table_rows.data() + t * s[2], s[2]);
    }
    return {as_doubles(table_rows), floats(out, "out", rows * s[2])};
  }
  if (op.kernel.rfind("matmul_", 0) == 0) {
    auto x = floats(in, "x", std::size_t{s[0]} * s[2]);
    const bool resnorm = op.kernel.ends_with("_resnorm");
    if (op.kernel.ends_with("_swiglu") || op.kernel.ends_with("_swiglu_resnorm")) {  // x is silu(gate)·up of the two rows side by side
      const auto act = swiglu_side_by_side(floats(in, "x", std::size_t{s[0]} * 2 * s[2]), s[0], s[2]);
      std::transform(act.begin(), act.end(), x.begin(), [](double v) { return static_cast<float>(v); });
    }
    std::vector<float> sums;  // _addnorm: x is the norm of the stream plus b, and s their sum
    if (op.kernel.ends_with("_addnorm")) {
      const auto b = floats(in, "b", x.size());
      sums.resize(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) sums[i] = x[i] + b[i];
      const auto normed = ref::rmsnorm(sums, s[2], kernels::kRmsNormEps, values<float>(weight("w"), s[2]));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(normed[i]);
    }
    // The epilogues (kernels/quant_matmul_epilogue.hpp): y turned by the
    // rope, and/or stored as fp16 into the cache at the positions' rows,
    // every other row as it was; or each pair of rows (gate, up) as their
    // SwiGLU.
    const bool turned = op.kernel.ends_with("_rope") || op.kernel.ends_with("_rope_cache");
    const bool cached = op.kernel.ends_with("_cache");
    const bool glu = op.kernel.ends_with("_glu");
    const std::size_t n = s[1];
    const auto positions = turned || cached ? values<std::int32_t>(in.at("pos"), rows) : std::vector<std::int32_t>{};
    auto epilogue = [&](std::vector<double> y) {
      if (turned) {
        y = ref::rope(std::span<const double>(y), s[3], positions, ref::RopeLayout::normal,
                      values<float>(in.at("base"), 1)[0]);
      }
      if (glu) {
        std::vector<double> gate(y.size() / 2), up(y.size() / 2);
        for (std::size_t i = 0; i < gate.size(); ++i) gate[i] = y[2 * i], up[i] = y[2 * i + 1];
        return ref::swiglu(std::span<const double>(gate), std::span<const double>(up));
      }
      return cached ? fp16_rounded(y) : y;
    };
    auto y = epilogue(ref::matmul_quantized(x.data(), s[0], weight("W").data(), type_of("W"), s[1], s[2]));
    Expected e = cached ? cache_rows(in.at("cache"), out.at("cache"), n, s[turned ? 4 : 3], positions, std::move(y))
                        : Expected(std::move(y), floats(out, "y", std::size_t{s[0]} * (glu ? s[1] / 2 : s[1])));
    e.input_crest = crest(x);
    if (kernels::uses_quantized_activations(op.config)) {
      e.modeled = epilogue(
          ref::matmul_quantized_q8_activations(x.data(), s[0], weight("W").data(), type_of("W"), s[1], s[2]));
    }
    if (!sums.empty()) {  // y, then s (the kernel's outputs in that order)
      const auto got_sums = floats(out, "s", sums.size());
      e.want.insert(e.want.end(), sums.begin(), sums.end());
      e.got.insert(e.got.end(), got_sums.begin(), got_sums.end());
      if (!e.modeled.empty()) e.modeled.insert(e.modeled.end(), sums.begin(), sums.end());
    }
    if (resnorm) {  // y plus the stream r; xn the norm of the y it wrote
      const auto r = floats(in, "r", std::size_t{s[0]} * n);
      for (std::size_t i = 0; i < r.size(); ++i) e.want[i] += r[i];
      for (std::size_t i = 0; i < r.size() && !e.modeled.empty(); ++i) e.modeled[i] += r[i];
      e.derived_want = ref::rmsnorm(e.got, n, kernels::kRmsNormEps, values<float>(weight("w"), n));
      e.derived_got = floats(out, "xn", r.size());
    }
    return e;
  }
  if (op.kernel == "rmsnorm_mul") {
    const auto w = values<float>(weight("w"), s[1]);
    return {ref::rmsnorm(floats(in, "x", rows * s[1]), s[1], kernels::kRmsNormEps, w), floats(out, "y", rows * s[1])};
  }
  if (op.kernel == "add_rmsnorm_mul") {  // y, then the sum s (the kernel's outputs in that order)
    const std::size_t n = rows * s[1];
    const auto a = floats(in, "a", n), b = floats(in, "b", n);
    std::vector<float> sum(n);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = a[i] + b[i];
    auto want = ref::rmsnorm(sum, s[1], kernels::kRmsNormEps, values<float>(weight("w"), s[1]));
    want.insert(want.end(), sum.begin(), sum.end());
    auto got = floats(out, "y", n);
    const auto got_sum = floats(out, "s", n);
    got.insert(got.end(), got_sum.begin(), got_sum.end());
    return {want, got};
  }
  if (op.kernel == "rope_cache" || op.kernel == "rope_neox_cache") {  // the positions' rows, rotated
    const std::size_t row = std::size_t{s[1]} * s[2];
    const auto positions = values<std::int32_t>(in.at("pos"), rows);
    const auto rotated = ref::rope(floats(in, "x", rows * row), s[2], positions,
                                   op.kernel == "rope_neox_cache" ? ref::RopeLayout::neox : ref::RopeLayout::normal,
                                   values<float>(in.at("base"), 1)[0]);
    return cache_rows(in.at("cache"), out.at("cache"), row, s[3], positions, fp16_rounded(rotated));
  }
  if (op.kernel == "rope" || op.kernel == "rope_neox") {
    const std::size_t n = rows * s[1] * s[2];
    const auto positions = values<std::int32_t>(in.at("pos"), rows);
    const double base = values<float>(in.at("base"), 1)[0];
    return {ref::rope(floats(in, "x", n), s[2], positions,
                      op.kernel == "rope_neox" ? ref::RopeLayout::neox : ref::RopeLayout::normal, base),
            floats(out, "y", n)};
  }
  if (op.kernel == "kv_store") {  // the positions' rows replaced, every other one as it was
    const std::size_t row = s[1];
    const auto src = floats(in, "src", rows * row);
    return cache_rows(in.at("cache"), out.at("cache"), row, s[2], values<std::int32_t>(in.at("positions"), rows),
                      fp16_rounded(std::vector<double>(src.begin(), src.end())));
  }
  if (op.kernel == "attention_decode") {
    const std::size_t heads = s[0], kv_heads = s[1], dim = s[2], context = s[3];
    const auto q = floats(in, "q", heads * dim);
    return {ref::attention(q, halves(in.at("k"), context * kv_heads * dim),
                           halves(in.at("v"), context * kv_heads * dim), {heads, kv_heads, dim, context}),
            floats(out, "out", heads * dim)};
  }
  if (op.kernel == "attention_prefill") {  // the prompt's queries, the last of the cache's kv_len entries
    const std::size_t heads = s[1], kv_heads = s[2], dim = s[3], kv_len = s[4];
    const auto q = floats(in, "q", rows * heads * dim);
    return {ref::causal_attention(q, halves(in.at("k"), kv_len * kv_heads * dim),
                                  halves(in.at("v"), kv_len * kv_heads * dim), {heads, kv_heads, dim, kv_len}, rows),
            floats(out, "out", rows * heads * dim)};
  }
  if (op.kernel == "add" || op.kernel == "swiglu") {
    const std::size_t n = rows * s[1];
    const auto a = floats(in, "a", n), b = floats(in, "b", n);
    return {op.kernel == "add" ? ref::add(a, b) : ref::swiglu(a, b), floats(out, "y", n)};
  }
  if (op.kernel == "swiglu_stacked") {
    return {swiglu_side_by_side(floats(in, "gu", rows * 2 * s[1]), rows, s[1]), floats(out, "y", rows * s[1])};
  }
  if (op.kernel == "argmax") {
    return {std::vector<double>{static_cast<double>(ref::argmax(floats(in, "x", s[1])))}, floats(out, "y", 1)};
  }
  throw Error(ErrorKind::internal, "vktune step: no op-by-op reference for " + op.kernel);
}

OpVerdict judge(std::size_t index, const Expected& e, const kernels::Tolerance& tolerance) {
  const auto v = compare_output(e.got, e.want, tolerance);
  OpVerdict verdict;
  verdict.op = index, verdict.tolerance = tolerance;
  verdict.rel_l2 = v.rel_l2, verdict.max_rel = v.max_rel;
  verdict.passed = v.passed, verdict.why = v.reason;
  if (!e.changed_elsewhere.empty()) verdict.passed = false, verdict.why = e.changed_elsewhere;
  if (!e.derived_want.empty() && verdict.passed) {
    const auto d = compare_output(e.derived_got, e.derived_want, kDerivedTolerance);
    if (!d.passed) verdict.passed = false, verdict.why = "its norm of its own output: " + d.reason;
  }
  return verdict;
}

}  // namespace

OpByOpCheck check_op_by_op(ModelStep& step, vk::Device& device, const model::ModelDescription& model) {
  OpByOpCheck check;
  check.logits = step.run_op_by_op(device, [&](std::size_t i, const auto& before, const auto& after) {
    const auto& op = step.ops()[i];
    const auto& kernel = kernels::find_kernel(op.kernel);
    // kv_store must write its row bit for bit and leave the others alone.
    const auto tolerance = op.kernel == "kv_store" || op.kernel == "argmax"
                               ? kernels::Tolerance{0, 0}
                               : kernel.variant_tolerance(op.config, op.shape);
    const auto expected = reference_of(op, step, model, before, after);
    auto verdict = judge(i, expected, tolerance);
    verdict.input_crest = expected.input_crest;
    if (!expected.modeled.empty()) verdict.model_rel_l2 = compare_output(expected.got, expected.modeled, {}).rel_l2;
    check.failed += !verdict.passed;
    if (tolerance.rel_l2 > 0) check.worst_share = std::max(check.worst_share, verdict.rel_l2 / tolerance.rel_l2);
    check.ops.push_back(std::move(verdict));
  });
  return check;
}

}  // namespace vktune::step
