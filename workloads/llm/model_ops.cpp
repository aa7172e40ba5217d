#include "workloads/llm/model_ops.hpp"

#include <algorithm>
#include <optional>

#include "common/error.hpp"
#include "kernels/matmul_contract.hpp"
#include "kernels/registry.hpp"

namespace vktune::model {

namespace {

class Builder {
 public:
  Builder(const ModelDescription& m, bool prefill) : m_(m), prefill_(prefill) {}

  void add(std::string kernel, kernels::Shape shape, const std::string& role, ModelOps& out) {
    if (auto twin = prefill_ ? std::nullopt : layout_twin(kernel, shape)) kernel = std::move(twin->kernel);
    auto it = std::find_if(out.ops.begin(), out.ops.end(),
                           [&](const ModelOp& op) { return op.kernel == kernel && op.shape == shape; });
    if (it == out.ops.end()) {
      out.ops.push_back({kernel, std::move(shape), 0, 0, {}});
      it = out.ops.end() - 1;
    }
    ++(prefill_ ? it->per_prefill : it->per_token);
    if (std::find(it->roles.begin(), it->roles.end(), role) == it->roles.end()) it->roles.push_back(role);
  }

  void unserved(const std::string& what, ModelOps& out) {
    const std::string phase = prefill_ ? "prefill" : "decode";
    auto it = std::find_if(out.unserved.begin(), out.unserved.end(),
                           [&](const Unserved& u) { return u.what == what && u.phase == phase; });
    if (it == out.unserved.end()) {
      out.unserved.push_back({what, phase, 0});
      it = out.unserved.end() - 1;
    }
    ++it->count;
  }

  // A tensor of a type no kernel reads: left out of the phase, and listed once.
  void unsupported(const ref::GgufTensorInfo& t, const std::string& role, ModelOps& out) {
    const std::string type(ref::type_name(t.type));
    unserved(role + " (" + type + " weights)", out);
    const bool listed = std::any_of(out.unsupported.begin(), out.unsupported.end(),
                                    [&](const Unsupported& u) { return u.tensor == t.name; });
    if (!listed) out.unsupported.push_back({t.name, type});
  }

  // y (rows × N) = x (rows × K) · Wᵀ for the tensor `name` (K wide, N rows;
  // describe_model has checked that it exists).
  void product(const std::string& name, const std::string& role, std::uint32_t rows, ModelOps& out) {
    const auto& t = m_.tensors.at(name);
    const auto kernel = matmul_kernel(t.type);
    if (kernel.empty()) {
      unsupported(t, role, out);
      return;
    }
    add(kernel, {rows, static_cast<std::uint32_t>(t.rows()), static_cast<std::uint32_t>(t.row_length())}, role, out);
  }

  bool has(const std::string& name) const { return m_.tensors.count(name) > 0; }

 private:
  const ModelDescription& m_;
  bool prefill_;
};

// A layer's q, k and v products apart from their rope and cache stores:
// each product (and its bias, qwen2), the q/k norms (qwen3), rope of q, and
// k rotated into its cache row (rope_cache) or rotated and stored, v stored.
void qkv_apart(Builder& b, const ModelDescription& m, const std::string& blk, std::uint32_t tokens,
               std::uint32_t context, std::uint32_t kv_width, const std::string& rope, const std::string& rope_cache,
               ModelOps& out) {
  for (const char* qkv : {"attn_q", "attn_k", "attn_v"}) {
    b.product(blk + qkv + ".weight", qkv, tokens, out);
    if (b.has(blk + qkv + ".bias")) {  // qwen2
      const auto n = static_cast<std::uint32_t>(m.tensors.at(blk + qkv + ".weight").rows());
      b.add("add", {tokens, n}, std::string(qkv) + "_bias", out);
    }
  }
  if (m.qk_norm) {
    b.add("rmsnorm_mul", {checked_dimension(m.source, "tokens x head_count", std::uint64_t{tokens} * m.heads), m.head_dim},
          "attn_q_norm", out);
    b.add("rmsnorm_mul",
          {checked_dimension(m.source, "tokens x head_count_kv", std::uint64_t{tokens} * m.kv_heads), m.head_dim},
          "attn_k_norm", out);
  }
  b.add(rope, {tokens, m.heads, m.head_dim}, "rope_q", out);
  // k and v, each into its fp16 cache of `context` rows.
  if (!rope_cache.empty()) {
    b.add(rope_cache, {tokens, m.kv_heads, m.head_dim, context}, "rope_k+kv_store_k", out);
  } else {
    b.add(rope, {tokens, m.kv_heads, m.head_dim}, "rope_k", out);
    b.add("kv_store", {tokens, kv_width, context}, "kv_store_k", out);
  }
  b.add("kv_store", {tokens, kv_width, context}, "kv_store_v", out);
}

// The ops as `vktune step` chains them (workloads/llm/model_step.cpp): each
// residual add fused with the norm after it (add_rmsnorm_mul), or in a
// decode step taken with it into the product before it where a _resnorm
// kernel serves (ends_with_norm; the step takes it where the stored winners
// say it pays, and runs add_rmsnorm_mul after the plain product otherwise:
// those are not listed), q, k and v
// with their rope and cache stores in the products' epilogues where those
// serve (qkv_epilogues), else k rotated straight into its cache row
// (rope_cache) where that kernel serves the context, and gate and up as one product: in a decode step of their
// rows interleaved storing their SwiGLU, which ffn_down reads (glu_matmul_kernel; the step runs it where the
// stored winners say it pays, and otherwise the stacked product whose SwiGLU ffn_down computes: not listed), or
// stacked with that SwiGLU in ffn_down's product (fuses_swiglu); swiglu_stacked elsewhere.
void phase_ops(const ModelDescription& m, std::uint32_t tokens, std::uint32_t context, bool prefill, ModelOps& out) {
  Builder b(m, prefill);
  // 64-bit products, refused above 2^32-1 (describe_model checked them too).
  const auto kv_width = checked_dimension(m.source, "head_count_kv x key_length", std::uint64_t{m.kv_heads} * m.head_dim);
  const auto gate_up_rows = checked_dimension(m.source, "2 x feed_forward_length", 2 * std::uint64_t{m.feed_forward});
  const auto& embd = m.tensors.at("token_embd.weight");
  if (const auto k = get_rows_kernel(embd.type); !k.empty()) {
    b.add(k, {tokens, m.vocab, m.embedding}, "token_embd", out);
  } else {
    b.unsupported(embd, "token_embd", out);
  }
  const std::string rope = m.rope_neox ? "rope_neox" : "rope";
  const std::string rope_cache = rope_cache_kernel(m, tokens, context);
  b.add("rmsnorm_mul", {tokens, m.embedding}, "attn_norm", out);
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    // q, k and v with their rope and cache stores in the products' epilogues where those serve.
    if (const auto e = qkv_epilogues(m, blk, tokens, context)) {
      b.add(e->q, e->q_shape, "attn_q+rope_q", out);
      b.add(e->k, e->k_shape, "attn_k+rope_k+kv_store_k", out);
      b.add(e->v, e->v_shape, "attn_v+kv_store_v", out);
    } else {
      qkv_apart(b, m, blk, tokens, context, kv_width, rope, rope_cache, out);
    }
    if (prefill) {
      // The prompt's queries against the cache its k and v went to (a
      // prompt from an empty cache: kv_len = tokens).
      b.add("attention_prefill", {tokens, m.heads, m.kv_heads, m.head_dim, tokens}, "attention", out);
    } else {
      b.add("attention_decode", {m.heads, m.kv_heads, m.head_dim, context}, "attention", out);
    }
    const auto& attn_output = m.tensors.at(blk + "attn_output.weight");
    if (!prefill && ends_with_norm(m, layer, BlockEnd::attention, tokens)) {
      b.add(resnorm_matmul_kernel(attn_output.type, false),
            {tokens, static_cast<std::uint32_t>(attn_output.rows()), static_cast<std::uint32_t>(attn_output.row_length())},
            "attn_output+residual+ffn_norm", out);
    } else {
      b.product(blk + "attn_output.weight", "attn_output", tokens, out);
      b.add("add_rmsnorm_mul", {tokens, m.embedding}, "residual+ffn_norm", out);
    }
    // ffn_down ends the layer with the residual add and the next norm where it can.
    const std::string next_norm = layer + 1 < m.layers ? "attn_norm" : "output_norm";
    const auto& down = m.tensors.at(blk + "ffn_down.weight");
    const std::string glu = prefill ? std::string() : glu_matmul_kernel(m, blk, tokens);
    const bool down_ends =
        !prefill && ends_with_norm(m, layer, glu.empty() ? BlockEnd::feed_forward : BlockEnd::feed_forward_glu, tokens);
    if (!glu.empty()) {  // gate and up interleaved in one product that stores their SwiGLU, ffn_down reading it
      b.add(glu, {tokens, gate_up_rows, m.embedding}, "ffn_gate+ffn_up+swiglu", out);
      if (down_ends) {
        b.add(resnorm_matmul_kernel(down.type, false), {tokens, m.embedding, m.feed_forward},
              "ffn_down+residual+" + next_norm, out);
      } else {
        b.product(blk + "ffn_down.weight", "ffn_down", tokens, out);
      }
    } else if (stacks_gate_up(m, blk)) {  // gate and up stacked in one product, whose two halves SwiGLU reads
      b.add(matmul_kernel(m.tensors.at(blk + "ffn_gate.weight").type), {tokens, gate_up_rows, m.embedding},
            "ffn_gate+ffn_up", out);
      if (down_ends) {
        b.add(resnorm_matmul_kernel(down.type, true), {tokens, m.embedding, m.feed_forward},
              "swiglu+ffn_down+residual+" + next_norm, out);
      } else if (fuses_swiglu(m, blk, tokens)) {  // in ffn_down's product
        b.add(swiglu_matmul_kernel(m.tensors.at(blk + "ffn_down.weight").type), {tokens, m.embedding, m.feed_forward},
              "swiglu+ffn_down", out);
      } else {
        b.add("swiglu_stacked", {tokens, m.feed_forward}, "swiglu", out);
        b.product(blk + "ffn_down.weight", "ffn_down", tokens, out);
      }
    } else {
      b.product(blk + "ffn_gate.weight", "ffn_gate", tokens, out);
      b.product(blk + "ffn_up.weight", "ffn_up", tokens, out);
      b.add("swiglu", {tokens, m.feed_forward}, "swiglu", out);
      b.product(blk + "ffn_down.weight", "ffn_down", tokens, out);
    }
    if (down_ends) {
      // the residual add and the norm in ffn_down's product
    } else if (layer + 1 < m.layers) {
      b.add("add_rmsnorm_mul", {tokens, m.embedding}, "residual+attn_norm", out);
    } else {  // logits for the last token only, in a prefill as in a decode step: its row alone
      b.add("add_rmsnorm_mul", {1, m.embedding}, "residual+output_norm", out);
    }
  }
  b.product(b.has("output.weight") ? "output.weight" : "token_embd.weight", "output", 1, out);
  b.add("argmax", {1, m.vocab}, "argmax", out);
}

}  // namespace

// The matrix-product kernel for a weight type, or "" when vktune has none.
std::string matmul_kernel(ref::GgmlType type) {
  switch (type) {
    case ref::GgmlType::F32:
      return "matmul_f32";
    case ref::GgmlType::F16:
      return "matmul_f16";
    case ref::GgmlType::Q4_0:
      return "matmul_q4_0";
    case ref::GgmlType::Q8_0:
      return "matmul_q8_0";
    case ref::GgmlType::Q4_K:
      return "matmul_q4k";
    case ref::GgmlType::Q5_K:
      return "matmul_q5k";
    case ref::GgmlType::Q6_K:
      return "matmul_q6k";
    default:
      return {};
  }
}

// The embedding lookup for the table's type, or "".
std::string get_rows_kernel(ref::GgmlType type) {
  switch (type) {
    case ref::GgmlType::F16:
      return "get_rows_f16";
    case ref::GgmlType::Q4_K:
      return "get_rows_q4k";
    case ref::GgmlType::Q8_0:
      return "get_rows_q8_0";
    default:
      return {};
  }
}

std::string rope_cache_kernel(const ModelDescription& model, std::uint32_t tokens, std::uint32_t context) {
  const std::string name = model.rope_neox ? "rope_neox_cache" : "rope_cache";
  try {
    kernels::find_kernel(name).validate_shape({tokens, model.kv_heads, model.head_dim, context});
  } catch (const Error&) {
    return {};
  }
  return name;
}

std::string swiglu_matmul_kernel(ref::GgmlType type) {
  const auto product = matmul_kernel(type);
  if (product.empty() || !kernels::find_kernel_or_null(product + "_swiglu")) return {};
  return product + "_swiglu";
}

bool stacks_gate_up(const ModelDescription& model, const std::string& blk) {
  const auto& gate = model.tensors.at(blk + "ffn_gate.weight");
  const auto& up = model.tensors.at(blk + "ffn_up.weight");
  return gate.type == up.type && !matmul_kernel(gate.type).empty();
}

bool fuses_swiglu(const ModelDescription& model, const std::string& blk, std::uint32_t tokens) {
  return tokens <= kernels::matmul::kMaxDecodeM && stacks_gate_up(model, blk) &&
         !swiglu_matmul_kernel(model.tensors.at(blk + "ffn_down.weight").type).empty();
}

std::string stacked_gate_up(const std::string& blk) { return blk + "ffn_gate.weight+" + blk + "ffn_up.weight"; }

std::string glu_matmul_kernel(const ModelDescription& model, const std::string& blk, std::uint32_t tokens) {
  if (tokens > kernels::matmul::kMaxDecodeM || !stacks_gate_up(model, blk)) return {};
  if (matmul_kernel(model.tensors.at(blk + "ffn_down.weight").type).empty()) return {};
  const auto name = matmul_kernel(model.tensors.at(blk + "ffn_gate.weight").type) + "_glu";
  return kernels::find_kernel_or_null(name) ? name : std::string();
}

std::string interleaved_gate_up(const std::string& blk) { return stacked_gate_up(blk) + ":interleaved"; }

std::optional<LayoutTwin> layout_twin(const std::string& kernel, const kernels::Shape& shape) {
  // Each layout's product family: the GGUF kernels' name prefix and the twins'.
  struct Family {
    ref::GgmlType type;
    const char* twins;
    ref::WeightLayout layout;
  };
  static const Family families[] = {{ref::GgmlType::Q6_K, "matmul_q6k_split", ref::WeightLayout::q6_k_split}};
  for (const auto& f : families) {
    const auto prefix = matmul_kernel(f.type);
    const auto rest = kernel.substr(std::min(kernel.size(), prefix.size()));
    if (!kernel.starts_with(prefix) || (!rest.empty() && rest[0] != '_')) continue;
    const auto* twin = kernels::find_kernel_or_null(f.twins + rest);
    if (!twin) return std::nullopt;
    try {
      twin->validate_shape(shape);
    } catch (const Error&) {
      return std::nullopt;
    }
    return LayoutTwin{twin->name(), f.layout};
  }
  return std::nullopt;
}

std::string addnorm_matmul_kernel(ref::GgmlType type) {
  const auto product = matmul_kernel(type);
  if (product.empty() || !kernels::find_kernel_or_null(product + "_addnorm")) return {};
  return product + "_addnorm";
}

std::string resnorm_matmul_kernel(ref::GgmlType type, bool swiglu) {
  const auto product = matmul_kernel(type);
  const std::string name = product + (swiglu ? "_swiglu" : "") + "_resnorm";
  if (product.empty() || !kernels::find_kernel_or_null(name)) return {};
  return name;
}

bool ends_with_norm(const ModelDescription& model, std::uint32_t layer, BlockEnd which, std::uint32_t tokens) {
  if (tokens > kernels::matmul::kMaxDecodeM) return false;
  const std::string blk = "blk." + std::to_string(layer) + ".";
  if (which == BlockEnd::attention) {
    return !resnorm_matmul_kernel(model.tensors.at(blk + "attn_output.weight").type, false).empty();
  }
  const auto down = model.tensors.at(blk + "ffn_down.weight").type;
  if (which == BlockEnd::feed_forward_glu) {
    return !glu_matmul_kernel(model, blk, tokens).empty() && !resnorm_matmul_kernel(down, false).empty();
  }
  return fuses_swiglu(model, blk, tokens) && !resnorm_matmul_kernel(down, true).empty();
}

std::vector<std::string> norm_readers(const ModelDescription& model, std::uint32_t layer, NormReaders which) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  switch (which) {
    case NormReaders::attention:
      return {blk + "attn_q.weight", blk + "attn_k.weight", blk + "attn_v.weight"};
    case NormReaders::feed_forward:
      return {blk + "ffn_gate.weight", blk + "ffn_up.weight"};
    case NormReaders::output_head:
      break;
  }
  return {model.tensors.count("output.weight") ? "output.weight" : "token_embd.weight"};
}

bool fuses_norm(const ModelDescription& model, std::uint32_t layer, NormReaders which, std::uint32_t tokens) {
  if (tokens > kernels::matmul::kMaxDecodeM) return false;
  const auto readers = norm_readers(model, layer, which);
  return std::all_of(readers.begin(), readers.end(), [&](const std::string& tensor) {
    return !addnorm_matmul_kernel(model.tensors.at(tensor).type).empty();
  });
}

std::optional<QkvEpilogues> qkv_epilogues(const ModelDescription& model, const std::string& blk,
                                          std::uint32_t tokens, std::uint32_t context) {
  if (model.rope_neox || model.qk_norm) return std::nullopt;
  QkvEpilogues e;
  // The kernel for a tensor's type with an epilogue, if it serves the shape.
  auto serve = [&](const char* which, const std::string& suffix, std::vector<std::uint32_t> more, std::string& kernel,
                   kernels::Shape& shape) {
    const std::string tensor = blk + "attn_" + which;
    if (model.tensors.count(tensor + ".bias")) return false;
    const auto& t = model.tensors.at(tensor + ".weight");
    const auto product = matmul_kernel(t.type);
    const auto* k = product.empty() ? nullptr : kernels::find_kernel_or_null(product + suffix);
    if (!k) return false;
    shape = {tokens, static_cast<std::uint32_t>(t.rows()), static_cast<std::uint32_t>(t.row_length())};
    shape.insert(shape.end(), more.begin(), more.end());
    try {
      k->validate_shape(shape);
    } catch (const Error&) {
      return false;
    }
    kernel = product + suffix;
    return true;
  };
  if (serve("q", "_rope", {model.head_dim}, e.q, e.q_shape) &&
      serve("k", "_rope_cache", {model.head_dim, context}, e.k, e.k_shape) &&
      serve("v", "_cache", {context}, e.v, e.v_shape)) {
    return e;
  }
  return std::nullopt;
}

bool ModelOps::complete(const std::string& phase) const {
  return std::none_of(unserved.begin(), unserved.end(), [&](const Unserved& u) { return u.phase == phase; });
}

ModelOps model_ops(const ModelDescription& model, std::uint32_t context, std::uint32_t prompt) {
  ModelOps out;
  phase_ops(model, 1, context, false, out);
  if (prompt > 0) phase_ops(model, prompt, context, true, out);
  return out;
}

}  // namespace vktune::model
