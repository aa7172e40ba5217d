#include "workloads/llm/model_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "engine/ceilings.hpp"
#include "reference/fp16.hpp"
#include "workloads/llm/model_ops.hpp"
#include "workloads/llm/random_model.hpp"
#include "workloads/llm/way_choice.hpp"

namespace vktune::step {

std::string op_kind(const std::string& role) {
  if (role.rfind("blk.", 0) != 0) return role;
  const auto dot = role.find('.', 4);
  return dot == std::string::npos ? role : role.substr(dot + 1);
}

ModelStep::ModelStep(const model::ModelDescription& m, const ref::GgufFile& file, const StepOptions& options,
                       const results::Store* store, const std::vector<std::int64_t>& device_rows,
                       const vk::DeviceInfo& device)
    : chain_({options.tuned, store, device_rows, options.cache_mode, options.tuned_kernels}, device) {
  vocab_ = m.vocab;
  if (const auto* base = file.contents().find(m.architecture + ".rope.freq_base")) {
    if (const auto* f = std::get_if<float>(&base->data)) rope_base_ = *f;
  }
  std::mt19937_64 rng(options.seed);
  const std::uint32_t context = options.context;
  if (options.prompt > context) {
    throw Error(ErrorKind::usage, "--prompt " + std::to_string(options.prompt) + " does not fit a KV cache of --context " +
                                      std::to_string(context));
  }
  // Every op's rows: the prompt's tokens, or the one decode token.
  const std::uint32_t tokens = options.prompt > 0 ? options.prompt : 1;
  context_ = context, prompt_ = options.prompt;
  for (std::uint32_t t = 0; t < tokens; ++t) {
    tokens_.push_back(static_cast<std::int32_t>(rng() % m.vocab));
    positions_.push_back(static_cast<std::int32_t>(options.prompt > 0 ? t : context - 1));
  }
  const std::uint32_t kv = m.kv_heads * m.head_dim;

  // The weights the ops read, named here and read (or made) only once every
  // op's shape is accepted and the chain fits the device: a shape error or
  // a model too large is refused before gigabytes are read.
  std::vector<std::string> weights;
  std::set<std::string> named;
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> stacks;  // stacked <- (first, second)
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> interleaves;  // rows alternating
  std::vector<std::string> biases;  // added to every token's row: repeated `tokens` times
  auto weight = [&](const std::string& name) -> const ref::GgufTensorInfo& {
    const auto& t = m.tensors.at(name);
    if (named.insert(name).second) weights.push_back(name);
    return t;
  };
  // The product a decode step runs for `kernel` at `shape`: its layout twin
  // (model::layout_twin, the weight rearranged) where fused_way_runs says
  // the twin runs (its stored winner faster, or the twin's alone or neither
  // stored); else `kernel` itself.
  auto twin_of = [&](const std::string& kernel, const kernels::Shape& shape) -> std::optional<model::LayoutTwin> {
    auto twin = options.device_layouts && options.prompt == 0 ? model::layout_twin(kernel, shape) : std::nullopt;
    if (!twin) return std::nullopt;
    if (!fused_way_runs(chain_.winner_ns(twin->kernel, shape), chain_.winner_ns(kernel, shape))) return std::nullopt;
    return twin;
  };
  // The stored median of what the step would run for `kernel` at `shape`.
  auto winner_ns = [&](const std::string& kernel, const kernels::Shape& shape) {
    const auto twin = twin_of(kernel, shape);
    return chain_.winner_ns(twin ? twin->kernel : kernel, shape);
  };
  // Weight buffers in a layout other than GGUF's: name <- (tensor, layout).
  std::map<std::string, std::pair<std::string, ref::WeightLayout>> laid_out;
  // An op: its variant, its bindings by name -> chain buffer, and those
  // bound from an offset into their buffer; a product with a layout twin
  // that pays binds its weight rearranged.
  auto add = [&](const std::string& kernel_name, const kernels::Shape& shape, const std::string& role,
                 const std::map<std::string, std::string>& by_name,
                 const std::map<std::string, std::uint64_t>& offsets = {}) -> StepOp& {
    if (kernel_name.empty()) throw Error(ErrorKind::usage, m.source + ": no kernel serves " + role);
    const auto twin = twin_of(kernel_name, shape);
    if (!twin) return chain_.add(kernel_name, shape, role, by_name, offsets);
    auto bound = by_name;
    const auto& tensor = by_name.at("W");
    bound["W"] = laid_out_name(tensor, twin->layout);
    laid_out[bound["W"]] = {tensor, twin->layout};
    return chain_.add(twin->kernel, shape, role, bound, offsets);
  };

  const auto& embd = weight("token_embd.weight");
  add(model::get_rows_kernel(embd.type), {tokens, m.vocab, m.embedding}, "token_embd",
      {{"ids", "ids"}, {"table", "token_embd.weight"}, {"out", "xe"}});
  const std::string rope = m.rope_neox ? "rope_neox" : "rope";
  auto product = [&](const std::string& tensor, const std::string& in, const std::string& out,
                     const std::string& role) {
    const auto& t = weight(tensor);
    auto& op = add(model::matmul_kernel(t.type),
                   {tokens, static_cast<std::uint32_t>(t.rows()), static_cast<std::uint32_t>(t.row_length())},
                   role + " (" + std::string(ref::type_name(t.type)) + ")", {{"x", in}, {"W", tensor}, {"y", out}});
    op.weight = tensor;
  };
  // The residual stream into a block and the norm the block's products
  // read: `stream` plus `added` ("" before layer 0: the embedding alone),
  // written to `sum`, normed with `norm_weight`; `last_row`: the last
  // token's row alone (the output head's, in a prefill); `normed`: the
  // block's last product wrote the stream and its norm (a _resnorm
  // product), so the norm's readers read xn and nothing runs before them.
  struct NormedInput {
    std::string stream, added, sum, norm_weight, add_role, norm_role;
    bool last_row = false;
    bool normed = false;
  };
  // The products that read one norm: weight tensor (or stacked weights),
  // its plain product's kernel, output buffer, role, shape.
  // An epilogue product (model::qkv_epilogues) binds its output as
  // `y_binding` (the cache) and binds `more` (positions, rope base) too.
  struct Reader {
    std::string weight, kernel, y, role;
    kernels::Shape shape;
    std::string y_binding = "y";
    std::map<std::string, std::string> more{};
  };
  // The norm into the products that read it, each an _addnorm product of
  // the stream and the added (the first of them writing the sum), where
  // every reader has one (model::fuses_norm); else one add_rmsnorm_mul
  // (rmsnorm_mul where nothing is added) into xn, or an add and an
  // rmsnorm_mul with a barrier between when unfused, and the plain
  // products. Returns the buffer that holds the stream after the block's
  // add: `sum`, or `stream` where nothing was added and nothing fused.
  auto normed_products = [&](const NormedInput& in, bool fuse, const std::vector<Reader>& readers) {
    weight(in.norm_weight);
    if (fuse && !in.normed) {
      for (std::size_t r = 0; r < readers.size(); ++r) {
        const auto& reader = readers[r];
        const auto type = m.tensors.at(reader.weight.substr(0, reader.weight.find('+'))).type;
        // The sum once; the others write theirs where nothing reads it
        // (a buffer each, so that no barrier separates them).
        const std::string sum = r == 0 ? in.sum : "unread_sum." + std::to_string(r);
        add(model::addnorm_matmul_kernel(type), reader.shape,
            reader.role + " (" + std::string(ref::type_name(type)) + ", " + (in.added.empty() ? "" : "residual+") +
                op_kind(in.norm_role) + ")",
            {{"x", in.stream}, {"b", in.added.empty() ? "zeros" : in.added}, {"w", in.norm_weight}, {"s", sum},
             {"W", reader.weight}, {"y", reader.y}})
            .weight = reader.weight;
      }
      return in.sum;
    }
    // The rows normed, and where the last token's row starts in the stream.
    const std::uint32_t rows = in.last_row ? 1 : tokens;
    const std::uint64_t last = in.last_row ? std::uint64_t{tokens - 1} * m.embedding * 4 : 0;
    if (in.normed) {
      // xn written by the product before
    } else if (in.added.empty()) {
      add("rmsnorm_mul", {rows, m.embedding}, in.norm_role, {{"x", in.stream}, {"w", in.norm_weight}, {"y", "xn"}},
          {{"x", last}});
    } else if (options.fused) {
      add("add_rmsnorm_mul", {rows, m.embedding}, in.add_role + "+" + op_kind(in.norm_role),
          {{"a", in.stream}, {"b", in.added}, {"w", in.norm_weight}, {"s", in.sum}, {"y", "xn"}},
          {{"a", last}, {"b", last}, {"s", last}});
    } else {
      add("add", {rows, m.embedding}, in.add_role, {{"a", in.stream}, {"b", in.added}, {"y", in.sum}},
          {{"a", last}, {"b", last}, {"y", last}});
      add("rmsnorm_mul", {rows, m.embedding}, in.norm_role, {{"x", in.sum}, {"w", in.norm_weight}, {"y", "xn"}},
          {{"x", last}});
    }
    for (const auto& reader : readers) {
      const auto type = ref::type_name(m.tensors.at(reader.weight.substr(0, reader.weight.find('+'))).type);
      std::map<std::string, std::string> bindings{{"x", "xn"}, {"W", reader.weight}, {reader.y_binding, reader.y}};
      bindings.insert(reader.more.begin(), reader.more.end());
      add(reader.kernel, reader.shape, reader.role + " (" + std::string(type) + ")", bindings).weight = reader.weight;
    }
    return in.added.empty() ? in.stream : in.sum;
  };
  // Whether taking a norm into its readers pays (workloads/llm/way_choice.hpp's
  // rule, as every choice below): the _addnorm products' medians against
  // the plain ones', the norm's and the dependent dispatch the norm adds
  // (the device's measured floor, where stored).
  std::optional<double> dispatch_floor_ns;
  if (store && !device_rows.empty()) dispatch_floor_ns = store->ceiling(device_rows.front(), kCeilingDispatchFloor);
  auto norm_in_pays = [&](const NormedInput& in, const std::vector<Reader>& readers) {
    WayNs fused = 0.0;
    WayNs apart = dispatch_floor_ns.value_or(0);
    add_to(apart, winner_ns(in.added.empty() ? "rmsnorm_mul" : "add_rmsnorm_mul", {tokens, m.embedding}));
    for (const auto& reader : readers) {
      const auto type = m.tensors.at(reader.weight.substr(0, reader.weight.find('+'))).type;
      add_to(fused, winner_ns(model::addnorm_matmul_kernel(type), reader.shape));
      add_to(apart, winner_ns(reader.kernel, reader.shape));
    }
    return fused_way_runs(fused, apart);
  };
  // Whether a block's last product pays taking in the residual add and the
  // next norm (`fused_kernel`, a _resnorm kernel) against the plain product
  // (`plain`), the add_rmsnorm_mul and the dependent dispatch it adds.
  auto resnorm_pays = [&](const std::string& plain, const std::string& fused_kernel, const kernels::Shape& shape) {
    const auto fused = winner_ns(fused_kernel, shape);
    WayNs apart = dispatch_floor_ns.value_or(0);
    add_to(apart, winner_ns("add_rmsnorm_mul", {tokens, m.embedding}));
    add_to(apart, winner_ns(plain, shape));
    return fused_way_runs(fused, apart);
  };
  auto reader = [&](const std::string& tensor, const std::string& y, const std::string& role, std::uint32_t rows) {
    const auto& t = weight(tensor);
    return Reader{tensor, model::matmul_kernel(t.type), y, role,
                  {rows, static_cast<std::uint32_t>(t.rows()), static_cast<std::uint32_t>(t.row_length())}};
  };
  // k rotated straight into its cache row where rope_cache serves the
  // context, else rotated, then stored.
  const std::string rope_cache = options.fused ? model::rope_cache_kernel(m, tokens, context) : std::string();
  // Whether q, k and v with their rope and cache stores in the products'
  // epilogues pay: the epilogue products' medians against the plain
  // products', rope's, the stores' and the dependent dispatch their phase
  // adds.
  // The epilogue products' medians (q, k and v), and the phase of rope and
  // the cache stores they take in, with the dependent dispatch it adds.
  auto epilogue_products_ns = [&](const model::QkvEpilogues& e) {
    WayNs sum = 0.0;
    add_to(sum, winner_ns(e.q, e.q_shape));
    add_to(sum, winner_ns(e.k, e.k_shape));
    add_to(sum, winner_ns(e.v, e.v_shape));
    return sum;
  };
  auto rope_and_stores_ns = [&] {
    WayNs sum = dispatch_floor_ns.value_or(0);
    add_to(sum, winner_ns(rope, {tokens, m.heads, m.head_dim}));
    if (!rope_cache.empty()) {
      add_to(sum, winner_ns(rope_cache, {tokens, m.kv_heads, m.head_dim, context}));
    } else {
      add_to(sum, winner_ns(rope, {tokens, m.kv_heads, m.head_dim}));
      add_to(sum, winner_ns("kv_store", {tokens, kv, context}));
    }
    add_to(sum, winner_ns("kv_store", {tokens, kv, context}));
    return sum;
  };
  auto epilogues_pay = [&](const model::QkvEpilogues& e, const std::vector<Reader>& plain) {
    const auto fused = epilogue_products_ns(e);
    auto apart = rope_and_stores_ns();
    for (const auto& reader : plain) add_to(apart, winner_ns(reader.kernel, reader.shape));
    return fused_way_runs(fused, apart);
  };
  // With --norm-into-products where the epilogues would run: the _addnorm
  // q, k and v with rope and the stores after them against the norm and
  // the epilogue products (no kernel takes both); the same rule on winners.
  auto norm_in_beats_epilogues = [&](const NormedInput& in, const std::vector<Reader>& readers,
                                     const model::QkvEpilogues& e) {
    auto fused = rope_and_stores_ns();
    WayNs apart = dispatch_floor_ns.value_or(0);
    add_to(apart, winner_ns(in.added.empty() ? "rmsnorm_mul" : "add_rmsnorm_mul", {tokens, m.embedding}));
    add_to(apart, epilogue_products_ns(e));
    for (const auto& reader : readers) {
      const auto type = m.tensors.at(reader.weight.substr(0, reader.weight.find('+'))).type;
      add_to(fused, winner_ns(model::addnorm_matmul_kernel(type), reader.shape));
    }
    return fused_way_runs(fused, apart);
  };
  // The stream after each block's add alternates between xa (read by the
  // feed-forward block) and xb (by the next layer's attention), starting
  // from the embedding (xe): a product that writes the sum never writes
  // what the products beside it read.
  std::string stream = "xe", added;
  const bool fuse_norm = options.fused && options.norm_into_products;
  // The _resnorm products: a decode step's fused chain, where the norm is
  // not taken into its readers instead (no kernel takes both).
  const bool end_with_norm = options.fused && !fuse_norm && options.norm_at_block_end && options.prompt == 0;
  bool normed = false;  // the stream's norm already in xn (the last block's _resnorm product)
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    const NormedInput attn_in{stream, added, "xa", blk + "attn_norm.weight",
                              layer == 0 ? "" : "blk." + std::to_string(layer - 1) + ".ffn_residual",
                              blk + "attn_norm", false, normed};
    normed = false;  // until this layer's ffn_down writes the next norm
    const std::vector<Reader> qkv{reader(blk + "attn_q.weight", "q", blk + "attn_q", tokens),
                                  reader(blk + "attn_k.weight", "k", blk + "attn_k", tokens),
                                  reader(blk + "attn_v.weight", "v", blk + "attn_v", tokens)};
    // The epilogue products where they serve and pay, unless the norm
    // taken into plain products pays more (no kernel takes both).
    auto epilogues = options.fused ? model::qkv_epilogues(m, blk, tokens, context) : std::nullopt;
    if (epilogues && !epilogues_pay(*epilogues, qkv)) epilogues.reset();
    const bool attn_norm_in = !normed && fuse_norm && model::fuses_norm(m, layer, model::NormReaders::attention, tokens) &&
                              (epilogues ? norm_in_beats_epilogues(attn_in, qkv, *epilogues)
                                         : norm_in_pays(attn_in, qkv));
    if (attn_norm_in) epilogues.reset();
    const std::string kc = "k_cache." + std::to_string(layer), vc = "v_cache." + std::to_string(layer);
    if (epilogues) {
      const auto& e = *epilogues;
      const std::map<std::string, std::string> turned{{"pos", "pos"}, {"base", "base"}};
      stream = normed_products(attn_in, false,
                               {{blk + "attn_q.weight", e.q, "qr", blk + "attn_q+rope_q", e.q_shape, "y", turned},
                                {blk + "attn_k.weight", e.k, kc, blk + "attn_k+rope_k+store_k", e.k_shape, "cache",
                                 turned},
                                {blk + "attn_v.weight", e.v, vc, blk + "attn_v+store_v", e.v_shape, "cache",
                                 {{"pos", "pos"}}}});
    } else {
      stream = normed_products(attn_in, attn_norm_in, qkv);
    }
    // q, k and v: each product's bias where the model has one (qwen2), then
    // an rmsnorm over each head of q and k where it has those (qwen3).
    // Returns the buffer that holds the result.
    auto projection = [&](const std::string& which, std::uint32_t norm_heads) {
      const std::string tensor = blk + "attn_" + which, role = blk + "attn_" + which;
      std::string at = which;
      if (m.tensors.count(tensor + ".bias")) {
        weight(tensor + ".bias");
        const auto width = static_cast<std::uint32_t>(m.tensors.at(tensor + ".weight").rows());
        // The bias buffer holds the bias once per token (below).
        add("add", {tokens, width}, role + "_bias", {{"a", at}, {"b", tensor + ".bias"}, {"y", which + "_biased"}});
        biases.push_back(tensor + ".bias");
        at = which + "_biased";
      }
      if (m.qk_norm && norm_heads > 0) {
        weight(tensor + "_norm.weight");
        add("rmsnorm_mul", {tokens * norm_heads, m.head_dim}, role + "_norm",
            {{"x", at}, {"w", tensor + "_norm.weight"}, {"y", which + "_normed"}});
        at = which + "_normed";
      }
      return at;
    };
    if (!epilogues) {
      const auto q = projection("q", m.heads), k = projection("k", m.kv_heads), v = projection("v", 0);
      add(rope, {tokens, m.heads, m.head_dim}, blk + "rope_q",
          {{"x", q}, {"pos", "pos"}, {"base", "base"}, {"y", "qr"}});
      if (!rope_cache.empty()) {
        add(rope_cache, {tokens, m.kv_heads, m.head_dim, context}, blk + "rope_k+store_k",
            {{"x", k}, {"pos", "pos"}, {"base", "base"}, {"cache", kc}});
      } else {
        add(rope, {tokens, m.kv_heads, m.head_dim}, blk + "rope_k",
            {{"x", k}, {"pos", "pos"}, {"base", "base"}, {"y", "kr"}});
        add("kv_store", {tokens, kv, context}, blk + "store_k", {{"src", "kr"}, {"positions", "pos"}, {"cache", kc}});
      }
      add("kv_store", {tokens, kv, context}, blk + "store_v", {{"src", v}, {"positions", "pos"}, {"cache", vc}});
    }
    if (options.prompt > 0) {  // the prompt's queries against its own entries, 0..P-1, causally
      add("attention_prefill", {tokens, m.heads, m.kv_heads, m.head_dim, tokens}, blk + "attention",
          {{"q", "qr"}, {"k", kc}, {"v", vc}, {"out", "attn"}});
    } else {
      add("attention_decode", {m.heads, m.kv_heads, m.head_dim, context}, blk + "attention",
          {{"q", "qr"}, {"k", kc}, {"v", vc}, {"out", "attn"}});
    }
    // attn_output with the residual add and ffn_norm after it, where that pays.
    const auto& wo = weight(blk + "attn_output.weight");
    const kernels::Shape wo_shape{tokens, static_cast<std::uint32_t>(wo.rows()),
                                  static_cast<std::uint32_t>(wo.row_length())};
    const std::string wo_resnorm = end_with_norm && model::ends_with_norm(m, layer, model::BlockEnd::attention, tokens)
                                       ? model::resnorm_matmul_kernel(wo.type, false)
                                       : std::string();
    const bool ffn_normed = !wo_resnorm.empty() && resnorm_pays(model::matmul_kernel(wo.type), wo_resnorm, wo_shape);
    if (ffn_normed) {
      add(wo_resnorm, wo_shape,
          blk + "attn_output+attn_residual+ffn_norm (" + std::string(ref::type_name(wo.type)) + ")",
          {{"x", "attn"}, {"W", wo.name}, {"y", "xb"}, {"r", stream}, {"w", weight(blk + "ffn_norm.weight").name},
           {"xn", "xn"}})
          .weight = wo.name;
      stream = "xb";
    } else {
      product(blk + "attn_output.weight", "attn", "o", blk + "attn_output");
    }
    const bool ffn_fusable =
        !ffn_normed && fuse_norm && model::fuses_norm(m, layer, model::NormReaders::feed_forward, tokens);
    const NormedInput ffn_in{stream,           ffn_normed ? "" : "o", "xb", blk + "ffn_norm.weight",
                             blk + "attn_residual", blk + "ffn_norm", false, ffn_normed};
    // Named (weight()) where an op binds it, so that random weights are drawn in the ops' order.
    const auto& down = m.tensors.at(blk + "ffn_down.weight");
    const kernels::Shape down_shape{tokens, m.embedding, m.feed_forward};
    const kernels::Shape gate_up_shape{tokens, 2 * m.feed_forward, m.embedding};
    // ffn_down's kernel reading the SwiGLU (of the stacked product's two
    // halves, or as the glu product stored it: `swiglu_x` false), with the
    // residual add and the next norm where that serves and pays.
    struct DownWay {
      std::string kernel;
      bool ends_with_norm = false;
    };
    auto down_way = [&](bool swiglu_x) {
      const auto plain = swiglu_x ? model::swiglu_matmul_kernel(down.type) : model::matmul_kernel(down.type);
      const auto end = swiglu_x ? model::BlockEnd::feed_forward : model::BlockEnd::feed_forward_glu;
      if (end_with_norm && model::ends_with_norm(m, layer, end, tokens)) {
        const auto fused_kernel = model::resnorm_matmul_kernel(down.type, swiglu_x);
        if (resnorm_pays(plain, fused_kernel, down_shape)) return DownWay{fused_kernel, true};
      }
      return DownWay{plain, false};
    };
    // What a feed-forward block's products cost by their stored winners:
    // gate and up, ffn_down, and where ffn_down does not end the block, the
    // add_rmsnorm_mul after it and its dependent dispatch.
    auto feed_forward_ns = [&](const std::string& gate_up, const DownWay& way) {
      WayNs sum = winner_ns(gate_up, gate_up_shape);
      add_to(sum, winner_ns(way.kernel, down_shape));
      if (!way.ends_with_norm && end_with_norm) {
        add_to(sum, dispatch_floor_ns);
        add_to(sum, winner_ns("add_rmsnorm_mul", {tokens, m.embedding}));
      }
      return sum;
    };
    // Gate and up as the glu product (their SwiGLU stored, ffn_down reading
    // it as plain x) where that pays against the stacked product and the
    // SwiGLU-reading ffn_down. Not with the norm taken into the products (no kernel takes both).
    std::string glu = options.fused && !fuse_norm && options.swiglu_in_gate_up && model::fuses_swiglu(m, blk, tokens)
                          ? model::glu_matmul_kernel(m, blk, tokens)
                          : std::string();
    if (!glu.empty()) {
      const auto with_glu = feed_forward_ns(glu, down_way(false));
      const auto stacked =
          feed_forward_ns(model::matmul_kernel(m.tensors.at(blk + "ffn_gate.weight").type), down_way(true));
      if (!fused_way_runs(with_glu, stacked)) glu.clear();
    }
    const std::string next_norm_role = layer + 1 < m.layers ? "attn_norm" : "output_norm";
    const std::string next_norm =
        layer + 1 < m.layers ? "blk." + std::to_string(layer + 1) + ".attn_norm.weight" : "output_norm.weight";
    if (!glu.empty()) {
      // Gate's and up's rows interleaved (built below), the SwiGLU in h.
      const auto& gate = weight(blk + "ffn_gate.weight");
      const std::string interleaved = model::interleaved_gate_up(blk);
      interleaves.push_back({interleaved, {gate.name, weight(blk + "ffn_up.weight").name}});
      stream = normed_products(ffn_in, false, {{interleaved, glu, "h", blk + "ffn_gate+ffn_up+swiglu", gate_up_shape}});
      const auto way = down_way(false);
      const std::string type = " (" + std::string(ref::type_name(down.type)) + ")";
      if (way.ends_with_norm) {
        add(way.kernel, down_shape, blk + "ffn_down+ffn_residual+" + next_norm_role + type,
            {{"x", "h"}, {"W", weight(down.name).name}, {"y", "xa"}, {"r", stream}, {"w", weight(next_norm).name}, {"xn", "xn"}})
            .weight = down.name;
        stream = "xa";
      } else {
        add(way.kernel, down_shape, blk + "ffn_down" + type, {{"x", "h"}, {"W", weight(down.name).name}, {"y", "d"}})
            .weight = down.name;
      }
      normed = way.ends_with_norm;
    } else if (options.fused && model::stacks_gate_up(m, blk)) {
      // Gate and up as one product of their weights stacked, its output the
      // two side by side (in a prefill too: one dispatch of twice the
      // columns fills the GPU better than two); ffn_down reads their SwiGLU
      // in a decode step, swiglu_stacked makes it elsewhere.
      const auto& gate = weight(blk + "ffn_gate.weight");
      const std::string stacked = model::stacked_gate_up(blk);
      stacks.push_back({stacked, {gate.name, weight(blk + "ffn_up.weight").name}});
      const std::vector<Reader> gate_up{
          {stacked, model::matmul_kernel(gate.type), "gu", blk + "ffn_gate+ffn_up", {tokens, 2 * m.feed_forward, m.embedding}}};
      stream = normed_products(ffn_in, ffn_fusable && norm_in_pays(ffn_in, gate_up), gate_up);
      // ffn_down with the residual add and the next norm after it, where that pays.
      const auto way = model::fuses_swiglu(m, blk, tokens) ? down_way(true) : DownWay{};
      normed = way.ends_with_norm;
      if (normed) {
        add(way.kernel, down_shape,
            blk + "swiglu+ffn_down+ffn_residual+" + next_norm_role + " (" + std::string(ref::type_name(down.type)) + ")",
            {{"x", "gu"}, {"W", weight(down.name).name}, {"y", "xa"}, {"r", stream}, {"w", weight(next_norm).name}, {"xn", "xn"}})
            .weight = down.name;
        stream = "xa";
      } else if (model::fuses_swiglu(m, blk, tokens)) {
        add(model::swiglu_matmul_kernel(down.type), {tokens, m.embedding, m.feed_forward},
            blk + "swiglu+ffn_down (" + std::string(ref::type_name(down.type)) + ")",
            {{"x", "gu"}, {"W", weight(down.name).name}, {"y", "d"}})
            .weight = down.name;
      } else {
        add("swiglu_stacked", {tokens, m.feed_forward}, blk + "swiglu", {{"gu", "gu"}, {"y", "s"}});
        product(down.name, "s", "d", blk + "ffn_down");
      }
    } else {
      const std::vector<Reader> gate_and_up{reader(blk + "ffn_gate.weight", "g", blk + "ffn_gate", tokens),
                                            reader(blk + "ffn_up.weight", "u", blk + "ffn_up", tokens)};
      stream = normed_products(ffn_in, ffn_fusable && norm_in_pays(ffn_in, gate_and_up), gate_and_up);
      add("swiglu", {tokens, m.feed_forward}, blk + "swiglu", {{"a", "g"}, {"b", "u"}, {"y", "s"}});
      product(blk + "ffn_down.weight", "s", "d", blk + "ffn_down");
    }
    added = normed ? "" : "d";
    // The cache's earlier entries (a decode step's token writes row context
    // - 1; a prompt rows 0..P-1, and its attention reads no others). Of
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
  const auto head = model::norm_readers(m, 0, model::NormReaders::output_head).front();
  // The logits of the last token only, in a prefill as in a decode step.
  const NormedInput head_in{stream, added, "xa", "output_norm.weight",
                            "blk." + std::to_string(m.layers - 1) + ".ffn_residual", "output_norm", tokens > 1,
                            normed};
  const std::vector<Reader> logits{reader(head, "logits", "output", 1)};
  normed_products(head_in,
                  !normed && fuse_norm && model::fuses_norm(m, 0, model::NormReaders::output_head, tokens) &&
                      norm_in_pays(head_in, logits),
                  logits);
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
  for (const auto& bias : biases) {
    auto bytes = chain_.contents(bias);
    const auto row = bytes.size();
    bytes.resize(row * tokens);
    for (std::uint32_t t = 1; t < tokens; ++t) std::copy_n(bytes.begin(), row, bytes.begin() + t * row);
    chain_.set_contents(bias, std::move(bytes));
  }
  for (const auto& [stacked, halves] : stacks) {
    auto bytes = chain_.contents(halves.first);
    const auto& second = chain_.contents(halves.second);
    bytes.insert(bytes.end(), second.begin(), second.end());
    chain_.set_contents(stacked, std::move(bytes));
  }
  for (const auto& [interleaved, halves] : interleaves) {  // gate's row i at 2i, up's at 2i + 1
    const auto& gate = chain_.contents(halves.first);
    const auto& up = chain_.contents(halves.second);
    const auto& t = m.tensors.at(halves.first);
    const auto row = ref::row_bytes(t.type, t.row_length());
    std::vector<std::uint8_t> bytes(gate.size() + up.size());
    for (std::size_t r = 0; r < gate.size() / row; ++r) {
      std::copy_n(gate.begin() + static_cast<std::ptrdiff_t>(r * row), row, bytes.begin() + static_cast<std::ptrdiff_t>(2 * r * row));
      std::copy_n(up.begin() + static_cast<std::ptrdiff_t>(r * row), row, bytes.begin() + static_cast<std::ptrdiff_t>((2 * r + 1) * row));
    }
    chain_.set_contents(interleaved, std::move(bytes));
  }
  for (const auto& [name, source] : laid_out) {
    chain_.set_contents(name, ref::to_layout(source.second, chain_.contents(source.first)));
  }
  chain_.place_barriers(options.barrier_every_op);
}

std::string laid_out_name(const std::string& tensor, ref::WeightLayout layout) {
  return tensor + "@" + std::string(ref::layout_name(layout));
}

std::string laid_out_tensor(const std::string& buffer) { return buffer.substr(0, buffer.find('@')); }

const std::vector<std::uint8_t>& ModelStep::weight_bytes(const std::string& buffer) const {
  return chain_.contents(laid_out_tensor(buffer));
}

const std::vector<std::uint16_t>& ModelStep::cache(std::uint32_t layer, bool values) const {
  return (values ? v_cache_ : k_cache_).at(layer);
}

void ModelStep::prepare(vk::Device& device, const TemplateLibrary& templates) {
  auto scalar = [&](const std::string& name, const void* data) {
    std::vector<std::uint8_t> bytes(4);
    std::memcpy(bytes.data(), data, 4);
    chain_.set_contents(name, std::move(bytes));
  };
  auto int32s = [&](const std::string& name, const std::vector<std::int32_t>& v) {
    std::vector<std::uint8_t> bytes(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    chain_.set_contents(name, std::move(bytes));
  };
  int32s("ids", tokens_);
  int32s("pos", positions_);
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

std::vector<float> ModelStep::logits() const {
  const auto bytes = chain_.download("logits", std::uint64_t{vocab_} * 4);
  std::vector<float> logits(vocab_);
  std::memcpy(logits.data(), bytes.data(), bytes.size());
  return logits;
}

std::vector<float> ModelStep::run_once(vk::Device& device) {
  chain_.run_once(device);
  return logits();
}

std::vector<float> ModelStep::run_op_by_op(
    vk::Device& device,
    const std::function<void(std::size_t op, const Contents& before, const Contents& after)>& visit) {
  chain_.run_op_by_op(device, visit);
  return logits();
}

}  // namespace vktune::step
