#include "workloads/llm/decode_step.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "reference/fp16.hpp"
#include "workloads/llm/model_ops.hpp"
#include "workloads/llm/random_model.hpp"

namespace vktune::step {

std::string op_kind(const std::string& role) {
  if (role.rfind("blk.", 0) != 0) return role;
  const auto dot = role.find('.', 4);
  return dot == std::string::npos ? role : role.substr(dot + 1);
}

DecodeStep::DecodeStep(const model::ModelDescription& m, const ref::GgufFile& file, const StepOptions& options,
                       const results::Store* store, const std::vector<std::int64_t>& device_rows,
                       const vk::DeviceInfo& device)
    : chain_({options.tuned, store, device_rows, options.cache_mode, options.tuned_kernels}, device) {
  vocab_ = m.vocab;
  if (const auto* base = file.contents().find(m.architecture + ".rope.freq_base")) {
    if (const auto* f = std::get_if<float>(&base->data)) rope_base_ = *f;
  }
  std::mt19937_64 rng(options.seed);
  token_ = static_cast<std::int32_t>(rng() % m.vocab);
  const std::uint32_t context = options.context;
  const std::uint32_t kv = m.kv_heads * m.head_dim;

  // The weights the ops read, named here and read (or made) only once every
  // op's shape is accepted and the chain fits the device: a shape error or
  // a model too large is refused before gigabytes are read.
  std::vector<std::string> weights;
  std::set<std::string> named;
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> stacks;  // stacked <- (first, second)
  auto weight = [&](const std::string& name) -> const ref::GgufTensorInfo& {
    const auto& t = m.tensors.at(name);
    if (named.insert(name).second) weights.push_back(name);
    return t;
  };
  // An op: its variant, and its bindings by name -> chain buffer.
  auto add = [&](const std::string& kernel_name, const kernels::Shape& shape, const std::string& role,
                 const std::map<std::string, std::string>& by_name) -> StepOp& {
    if (kernel_name.empty()) throw Error(ErrorKind::usage, m.source + ": no kernel serves " + role);
    return chain_.add(kernel_name, shape, role, by_name);
  };

  const auto& embd = weight("token_embd.weight");
  add(model::get_rows_kernel(embd.type), {1, m.vocab, m.embedding}, "token_embd",
      {{"ids", "ids"}, {"table", "token_embd.weight"}, {"out", "xa"}});
  const std::string rope = m.rope_neox ? "rope_neox" : "rope";
  auto product = [&](const std::string& tensor, const std::string& in, const std::string& out,
                     const std::string& role) {
    const auto& t = weight(tensor);
    auto& op = add(model::matmul_kernel(t.type),
                   {1, static_cast<std::uint32_t>(t.rows()), static_cast<std::uint32_t>(t.row_length())},
                   role + " (" + std::string(ref::type_name(t.type)) + ")", {{"x", in}, {"W", tensor}, {"y", out}});
    op.weight = tensor;
  };
  // The residual stream `stream` plus `added`, written to `sum`, and the
  // norm of that sum with `norm_weight` into xn: one add_rmsnorm_mul when
  // fused, else an add and an rmsnorm_mul with a barrier between.
  auto residual_and_norm = [&](const std::string& stream, const std::string& added, const std::string& sum,
                               const std::string& norm_weight, const std::string& add_role,
                               const std::string& norm_role) {
    weight(norm_weight);
    if (options.fused) {
      add("add_rmsnorm_mul", {1, m.embedding}, add_role + "+" + op_kind(norm_role),
          {{"a", stream}, {"b", added}, {"w", norm_weight}, {"s", sum}, {"y", "xn"}});
    } else {
      add("add", {1, m.embedding}, add_role, {{"a", stream}, {"b", added}, {"y", sum}});
      add("rmsnorm_mul", {1, m.embedding}, norm_role, {{"x", sum}, {"w", norm_weight}, {"y", "xn"}});
    }
  };
  // k rotated straight into its cache row where rope_cache serves the
  // context, else rotated, then stored.
  const std::string rope_cache = options.fused ? model::rope_cache_kernel(m, 1, context) : std::string();
  weight("blk.0.attn_norm.weight");
  add("rmsnorm_mul", {1, m.embedding}, "blk.0.attn_norm", {{"x", "xa"}, {"w", "blk.0.attn_norm.weight"}, {"y", "xn"}});
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    // q, k and v: each product, plus its bias where the model has one
    // (qwen2), then an rmsnorm over each head of q and k where it has those
    // (qwen3). Returns the buffer that holds the result.
    auto projection = [&](const std::string& which, std::uint32_t norm_heads) {
      const std::string tensor = blk + "attn_" + which, role = blk + "attn_" + which;
      std::string at = which;
      product(tensor + ".weight", "xn", at, role);
      if (m.tensors.count(tensor + ".bias")) {
        weight(tensor + ".bias");
        const auto width = static_cast<std::uint32_t>(m.tensors.at(tensor + ".weight").rows());
        add("add", {1, width}, role + "_bias", {{"a", at}, {"b", tensor + ".bias"}, {"y", which + "_biased"}});
        at = which + "_biased";
      }
      if (m.qk_norm && norm_heads > 0) {
        weight(tensor + "_norm.weight");
        add("rmsnorm_mul", {norm_heads, m.head_dim}, role + "_norm",
            {{"x", at}, {"w", tensor + "_norm.weight"}, {"y", which + "_normed"}});
        at = which + "_normed";
      }
      return at;
    };
    const auto q = projection("q", m.heads), k = projection("k", m.kv_heads), v = projection("v", 0);
    const std::string kc = "k_cache." + std::to_string(layer), vc = "v_cache." + std::to_string(layer);
    add(rope, {1, m.heads, m.head_dim}, blk + "rope_q", {{"x", q}, {"pos", "pos"}, {"base", "base"}, {"y", "qr"}});
    if (!rope_cache.empty()) {
      add(rope_cache, {1, m.kv_heads, m.head_dim, context}, blk + "rope_k+store_k",
          {{"x", k}, {"pos", "pos"}, {"base", "base"}, {"cache", kc}});
    } else {
      add(rope, {1, m.kv_heads, m.head_dim}, blk + "rope_k", {{"x", k}, {"pos", "pos"}, {"base", "base"}, {"y", "kr"}});
      add("kv_store", {1, kv, context}, blk + "store_k", {{"src", "kr"}, {"positions", "pos"}, {"cache", kc}});
    }
    add("kv_store", {1, kv, context}, blk + "store_v", {{"src", v}, {"positions", "pos"}, {"cache", vc}});
    add("attention_decode", {m.heads, m.kv_heads, m.head_dim, context}, blk + "attention",
        {{"q", "qr"}, {"k", kc}, {"v", vc}, {"out", "attn"}});
    product(blk + "attn_output.weight", "attn", "o", blk + "attn_output");
    residual_and_norm("xa", "o", "xb", blk + "ffn_norm.weight", blk + "attn_residual", blk + "ffn_norm");
    if (options.fused && model::fuses_swiglu(m, blk, 1)) {
      // Gate and up as one product of their weights stacked, its output the
      // two side by side; ffn_down reads their SwiGLU.
      const auto& gate = weight(blk + "ffn_gate.weight");
      const std::string stacked = model::stacked_gate_up(blk);
      stacks.push_back({stacked, {gate.name, weight(blk + "ffn_up.weight").name}});
      add(model::matmul_kernel(gate.type), {1, 2 * m.feed_forward, m.embedding},
          blk + "ffn_gate+ffn_up (" + std::string(ref::type_name(gate.type)) + ")",
          {{"x", "xn"}, {"W", stacked}, {"y", "gu"}})
          .weight = stacked;
      const auto& down = weight(blk + "ffn_down.weight");
      add(model::swiglu_matmul_kernel(down.type), {1, m.embedding, m.feed_forward},
          blk + "swiglu+ffn_down (" + std::string(ref::type_name(down.type)) + ")",
          {{"x", "gu"}, {"W", down.name}, {"y", "d"}})
          .weight = down.name;
    } else {
      product(blk + "ffn_gate.weight", "xn", "g", blk + "ffn_gate");
      product(blk + "ffn_up.weight", "xn", "u", blk + "ffn_up");
      add("swiglu", {1, m.feed_forward}, blk + "swiglu", {{"a", "g"}, {"b", "u"}, {"y", "s"}});
      product(blk + "ffn_down.weight", "s", "d", blk + "ffn_down");
    }
    const bool last = layer + 1 == m.layers;
    const std::string next = "blk." + std::to_string(layer + 1) + ".";
    residual_and_norm("xb", "d", "xa", last ? "output_norm.weight" : next + "attn_norm.weight",
                      blk + "ffn_residual", last ? "output_norm" : next + "attn_norm");
    // The cache's earlier entries; row context - 1 is the new token's. Of
    // the new token's scale (root mean square about 1 with weights of
    // 1/sqrt(K)), so that attention spreads over the cache rather than
    // settling on the token's own entry, whose score rope leaves unchanged
    // at any position.
    for (auto* cache : {&k_cache_, &v_cache_}) {
      std::vector<std::uint16_t> bits(std::size_t{context} * kv);
      std::uniform_real_distribution<float> value(-1.5f, 1.5f);
      for (auto& b : bits) b = ref::fp32_to_fp16(value(rng));
      cache->push_back(std::move(bits));
    }
  }
  product(m.tensors.count("output.weight") ? "output.weight" : "token_embd.weight", "xn", "logits", "output");
  add("argmax", {1, m.vocab}, "argmax", {{"x", "logits"}, {"y", "argmax"}});
  chain_.require_fits();
  for (const auto& name : weights) {
    const auto& t = m.tensors.at(name);
    // Norms (1-D) around 1; matrices with a root mean square of 1/sqrt(K), as random_model makes them.
    const bool norm = t.shape.size() == 1;
    const float bound = norm ? 0.5f : static_cast<float>(std::sqrt(3.0 / static_cast<double>(t.row_length())));
    chain_.set_contents(name, options.random_weights
                                  ? model::random_tensor_bytes(t.type, t.row_length(), t.rows(), rng(),
                                                               norm ? 1 - bound : -bound, norm ? 1 + bound : bound)
                                  : file.tensor_data(t));
  }
  for (const auto& [stacked, halves] : stacks) {
    auto bytes = chain_.contents(halves.first);
    const auto& second = chain_.contents(halves.second);
    bytes.insert(bytes.end(), second.begin(), second.end());
    chain_.set_contents(stacked, std::move(bytes));
  }
  chain_.place_barriers(options.barrier_every_op);
}

const std::vector<std::uint8_t>& DecodeStep::weight_bytes(const std::string& tensor) const {
  return chain_.contents(tensor);
}

const std::vector<std::uint16_t>& DecodeStep::cache(std::uint32_t layer, bool values) const {
  return (values ? v_cache_ : k_cache_).at(layer);
}

void DecodeStep::prepare(vk::Device& device, const TemplateLibrary& templates) {
  auto scalar = [&](const std::string& name, const void* data) {
    std::vector<std::uint8_t> bytes(4);
    std::memcpy(bytes.data(), data, 4);
    chain_.set_contents(name, std::move(bytes));
  };
  std::uint32_t context = 0;
  for (const auto& op : ops())
    if (op.kernel == "attention_decode") context = op.shape[3];
  const std::int32_t position = static_cast<std::int32_t>(context) - 1;
  scalar("ids", &token_);
  scalar("pos", &position);
  scalar("base", &rope_base_);
  chain_.prepare(device, templates);
  // The caches go straight to the device: the step keeps its fp16 copies for the reference.
  for (std::size_t l = 0; l < k_cache_.size(); ++l) {
    for (const auto& [name, cache] : {std::pair{"k_cache." + std::to_string(l), &k_cache_[l]},
                                      std::pair{"v_cache." + std::to_string(l), &v_cache_[l]}}) {
      chain_.upload(name, {reinterpret_cast<const std::uint8_t*>(cache->data()), cache->size() * 2});
    }
  }
}

std::vector<float> DecodeStep::logits() const {
  const auto bytes = chain_.download("logits", std::uint64_t{vocab_} * 4);
  std::vector<float> logits(vocab_);
  std::memcpy(logits.data(), bytes.data(), bytes.size());
  return logits;
}

std::vector<float> DecodeStep::run_once(vk::Device& device) {
  chain_.run_once(device);
  return logits();
}

std::vector<float> DecodeStep::run_op_by_op(
    vk::Device& device,
    const std::function<void(std::size_t op, const Contents& before, const Contents& after)>& visit) {
  chain_.run_op_by_op(device, visit);
  return logits();
}

}  // namespace vktune::step
