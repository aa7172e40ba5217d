#include "workloads/llm/step_reference.hpp"

#include <cstring>
#include <span>
#include <set>

#include "kernels/quantized_activations.hpp"
#include "kernels/rms_norm_eps.hpp"
#include "reference/activation_q8.hpp"
#include "reference/dequantize.hpp"
#include "reference/fp16.hpp"
#include "reference/matmul.hpp"
#include "reference/ops.hpp"

namespace vktune::step {

namespace {

std::vector<float> as_floats(const std::vector<double>& v) { return {v.begin(), v.end()}; }

std::vector<float> f32_weights(const std::vector<std::uint8_t>& bytes) {
  std::vector<float> w(bytes.size() / 4);
  std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

}  // namespace

std::vector<double> reference_logits(const model::ModelDescription& m, const ModelStep& step, Activations activations,
                                     int position_shift) {
  std::set<std::string> quantized_x;  // weights of the products with 8-bit activations
  for (const auto& op : step.ops()) {
    if (activations == Activations::as_variants && !op.weight.empty() && kernels::uses_quantized_activations(op.config)) {
      // Stacked weights ("blk.3.ffn_gate.weight+blk.3.ffn_up.weight", and
      // with ":interleaved" their rows alternating): each tensor's product.
      const auto weights = op.weight.substr(0, op.weight.find(':'));
      for (std::size_t start = 0;;) {
        const auto plus = weights.find('+', start);
        quantized_x.insert(weights.substr(start, plus - start));  // to the end where no '+' follows
        if (plus == std::string::npos) break;
        start = plus + 1;
      }
    }
  }
  // Every token's row, or the last one's alone (the output head).
  auto product = [&](const std::string& tensor, const std::vector<float>& x) {
    const auto& t = m.tensors.at(tensor);
    const auto* w = step.weight_bytes(tensor).data();
    const auto rows = x.size() / t.row_length();
    return quantized_x.count(tensor) ? ref::matmul_quantized_q8_activations(x.data(), rows, w, t.type, t.rows(), t.row_length())
                                     : ref::matmul_quantized(x.data(), rows, w, t.type, t.rows(), t.row_length());
  };
  auto norm = [&](const std::vector<float>& x, const std::string& tensor) {
    return as_floats(ref::rmsnorm(x, m.embedding, kernels::kRmsNormEps, f32_weights(step.weight_bytes(tensor))));
  };
  const auto& embd = m.tensors.at("token_embd.weight");
  const auto& tokens = step.tokens();
  auto positions = step.positions();
  for (auto& p : positions) p += position_shift;
  const std::size_t rows = tokens.size(), context = step.context();
  std::vector<float> x(rows * m.embedding);
  for (std::size_t t = 0; t < rows; ++t) {
    ref::dequantize_row(embd.type,
                        step.weight_bytes("token_embd.weight").data() +
                            static_cast<std::size_t>(tokens[t]) * ref::row_bytes(embd.type, m.embedding),
                        x.data() + t * m.embedding, m.embedding);
  }
  const auto layout = m.rope_neox ? ref::RopeLayout::neox : ref::RopeLayout::normal;
  const std::size_t kv = std::size_t{m.kv_heads} * m.head_dim;
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    auto xn = norm(x, blk + "attn_norm.weight");
    // Each product, plus its bias (qwen2; the chain's bias buffer holds it
    // once per token), then each head of q and k normed (qwen3), as the
    // chain has them.
    auto projection = [&](const std::string& which, bool head_norm) {
      const std::string tensor = blk + "attn_" + which;
      auto y = as_floats(product(tensor + ".weight", xn));
      if (m.tensors.count(tensor + ".bias")) y = as_floats(ref::add(y, f32_weights(step.weight_bytes(tensor + ".bias"))));
      if (m.qk_norm && head_norm) {
        y = as_floats(ref::rmsnorm(y, m.head_dim, kernels::kRmsNormEps, f32_weights(step.weight_bytes(tensor + "_norm.weight"))));
      }
      return y;
    };
    const auto q = as_floats(ref::rope(projection("q", true), m.head_dim, positions, layout, step.rope_base()));
    const auto k = as_floats(ref::rope(projection("k", true), m.head_dim, positions, layout, step.rope_base()));
    const auto v = projection("v", false);
    // The caches as fp32, the step's rows as the store rounds them.
    std::vector<float> k_cache(context * kv), v_cache(k_cache.size());
    for (std::size_t i = 0; i < k_cache.size(); ++i) {
      k_cache[i] = ref::fp16_to_fp32(step.cache(layer, false)[i]);
      v_cache[i] = ref::fp16_to_fp32(step.cache(layer, true)[i]);
    }
    for (std::size_t t = 0; t < rows; ++t) {
      for (std::size_t i = 0; i < kv; ++i) {
        const auto at = static_cast<std::size_t>(positions[t]) * kv + i;
        k_cache[at] = ref::fp16_to_fp32(ref::fp32_to_fp16(k[t * kv + i]));
        v_cache[at] = ref::fp16_to_fp32(ref::fp32_to_fp16(v[t * kv + i]));
      }
    }
    // The entries up to the last token's: a decode token over the whole
    // cache, a prompt causally over its own rows (positions 0..P-1).
    const bool prefill = step.prompt() > 0;
    const auto entries = static_cast<std::size_t>(positions.back()) + 1;
    const std::span<const float> keys(k_cache.data(), entries * kv), values(v_cache.data(), entries * kv);
    const ref::AttentionShape shape{m.heads, m.kv_heads, m.head_dim, entries};
    const auto attn = as_floats(prefill ? ref::causal_attention(q, keys, values, shape, rows)
                                        : ref::attention(q, keys, values, shape));
    x = as_floats(ref::add(x, as_floats(product(blk + "attn_output.weight", attn))));
    xn = norm(x, blk + "ffn_norm.weight");
    const auto s = as_floats(
        ref::swiglu(as_floats(product(blk + "ffn_gate.weight", xn)), as_floats(product(blk + "ffn_up.weight", xn))));
    x = as_floats(ref::add(x, as_floats(product(blk + "ffn_down.weight", s))));
  }
  // The last token's row.
  const std::vector<float> last(x.end() - m.embedding, x.end());
  const auto xn = norm(last, "output_norm.weight");
  return product(m.tensors.count("output.weight") ? "output.weight" : "token_embd.weight", xn);
}

}  // namespace vktune::step
