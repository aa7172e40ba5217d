#include "tuner/step/decode_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "common/error.hpp"
#include "harness/buffer.hpp"
#include "harness/commands.hpp"
#include "harness/pipeline.hpp"
#include "kernels/registry.hpp"
#include "reference/fp16.hpp"
#include "tuner/model/model_ops.hpp"
#include "tuner/model/random_model.hpp"
#include "tuner/stale_config.hpp"
#include "tuner/variant.hpp"

namespace vktune::step {

namespace {

// Marks the ops that must wait for the dispatches before them: one that
// reads a buffer written since the last barrier, or writes one read or
// written since then. The first op waits too, for the step before it when
// steps are recorded back to back. `every_op`: every op waits.
void place_barriers(std::vector<StepOp>& ops, bool every_op) {
  std::set<std::string> read, written;  // since the last barrier
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto& op = ops[i];
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto& bindings = kernel.spaces().at(kernel.space_index(op.shape)).bindings;
    bool wait = i == 0 || every_op;
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      const auto& buffer = op.buffers[b];
      const bool writes = bindings[b].role == kernels::BindingRole::output ||
                          bindings[b].role == kernels::BindingRole::scratch;
      const bool reads = bindings[b].role != kernels::BindingRole::output;
      if ((reads && written.count(buffer)) || (writes && (read.count(buffer) || written.count(buffer)))) wait = true;
    }
    if (wait) read.clear(), written.clear();
    op.barrier_before = wait;
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      if (bindings[b].role != kernels::BindingRole::output) read.insert(op.buffers[b]);
      if (bindings[b].role == kernels::BindingRole::output || bindings[b].role == kernels::BindingRole::scratch)
        written.insert(op.buffers[b]);
    }
  }
}

}  // namespace

struct DecodeStep::Impl {
  std::map<std::string, std::vector<std::uint8_t>> weights;  // tensor name -> bytes as uploaded
  std::vector<std::vector<std::uint16_t>> k_cache, v_cache;  // per layer, fp16 bits
  std::map<std::string, std::uint64_t> buffer_bytes;         // chain buffer -> size
  std::map<std::string, std::unique_ptr<vk::Buffer>> buffers;
  std::map<std::string, CompiledVariant> variants;                                     // by variant hash
  std::map<std::string, std::vector<std::unique_ptr<vk::ComputePipeline>>> pipelines;  // by variant hash, per stage
  struct Recorded {
    std::vector<vk::ComputePipeline*> stages;
    std::vector<VkDescriptorSet> sets;
    std::vector<std::array<std::uint32_t, 3>> groups;
    std::vector<std::vector<std::uint32_t>> push;
    bool barrier_before = true;
  };
  std::vector<Recorded> recorded;
  std::uint32_t vocab = 0;

  // One op's stages, with a barrier between them and, if asked, before the first.
  static void record_op(VkCommandBuffer cmd, const Recorded& op, bool barrier_first) {
    for (std::size_t s = 0; s < op.stages.size(); ++s) {
      if (s > 0 || barrier_first) vk::compute_barrier(cmd);
      const std::span<const std::uint8_t> push{reinterpret_cast<const std::uint8_t*>(op.push[s].data()),
                                               op.push[s].size() * sizeof(std::uint32_t)};
      op.stages[s]->record_dispatch(cmd, op.sets[s], op.groups[s], push);
    }
  }

  void record(VkCommandBuffer cmd) const {
    for (const auto& op : recorded) record_op(cmd, op, op.barrier_before);
  }
};

DecodeStep::DecodeStep(const model::ModelDescription& m, const ref::GgufFile& file, const StepOptions& options,
                       const results::Store* store, const std::vector<std::int64_t>& device_rows,
                       const vk::DeviceInfo& device)
    : impl_(new Impl) {
  auto& im = *impl_;
  im.vocab = m.vocab;
  if (const auto* base = file.contents().find(m.architecture + ".rope.freq_base")) {
    if (const auto* f = std::get_if<float>(&base->data)) rope_base_ = *f;
  }
  std::mt19937_64 rng(options.seed);
  token_ = static_cast<std::int32_t>(rng() % m.vocab);
  const std::uint32_t context = options.context;
  const std::uint32_t kv = m.kv_heads * m.head_dim;

  // The weights, from the file or random of the file's shapes and types.
  auto weight = [&](const std::string& name) -> const ref::GgufTensorInfo& {
    const auto& t = m.tensors.at(name);
    if (!im.weights.count(name)) {
      // Norms (1-D) around 1; matrices with a root mean square of 1/sqrt(K), as random_model makes them.
      const bool norm = t.shape.size() == 1;
      const float bound = norm ? 0.5f : static_cast<float>(std::sqrt(3.0 / static_cast<double>(t.row_length())));
      im.weights[name] = options.random_weights
                             ? model::random_tensor_bytes(t.type, t.row_length(), t.rows(), rng(),
                                                          norm ? 1 - bound : -bound, norm ? 1 + bound : bound)
                             : file.tensor_data(t);
    }
    return t;
  };
  // An op: its variant, and its bindings by name -> chain buffer.
  auto add = [&](const std::string& kernel_name, kernels::Shape shape, const std::string& role,
                 const std::map<std::string, std::string>& by_name) {
    if (kernel_name.empty()) throw Error(ErrorKind::usage, m.source + ": no kernel serves " + role);
    const auto& kernel = kernels::find_kernel(kernel_name);
    kernel.validate_shape(shape);
    StepOp op{kernel_name, shape, kernel.baseline(shape), false, {}, role, {}, {}};
    const bool wanted = options.tuned_kernels.empty() ||
                        std::find(options.tuned_kernels.begin(), options.tuned_kernels.end(), kernel_name) !=
                            options.tuned_kernels.end();
    if (options.tuned && !store) op.why_baseline = "no database of winners";
    if (options.tuned && store && !wanted) op.why_baseline = "not among --tuned-kernels";
    if (options.tuned && store && wanted) {
      const auto text = kernels::shape_to_string(shape);
      std::optional<results::Winner> winner;
      for (const auto row : device_rows) {
        for (const auto& mode : {options.cache_mode, std::string(options.cache_mode == "cold" ? "hot" : "cold")}) {
          if (!winner) winner = store->find_winner(row, kernel_name, text, mode);
        }
      }
      if (winner) {
        // Stored under an earlier space of the kernel: brought up to date (tuner/stale_config.hpp).
        const auto update = update_config(kernel, shape, kernels::config_from_json(winner->config_json));
        const auto why = update.config ? kernel.constraint_violation(*update.config, shape, device) : update.note;
        if (why.empty()) {
          op.config = *update.config, op.tuned = true;
        } else {
          op.why_baseline = "the stored winner is not legal here: " + why;
        }
      } else {
        op.why_baseline = "no stored winner";
      }
    }
    const auto& space = kernel.spaces().at(kernel.space_index(shape));
    for (const auto& b : space.bindings) {
      std::string buffer;
      if (const auto it = by_name.find(b.name); it != by_name.end()) {
        buffer = it->second;
      } else if (b.role == kernels::BindingRole::scratch) {
        buffer = "scratch:" + kernel_name + ":" + kernels::shape_to_string(shape);  // zeroed once, the kernel's own
      } else {
        throw Error(ErrorKind::internal, kernel_name + "'s binding " + b.name + " has no buffer in the step");
      }
      auto& size = im.buffer_bytes[buffer];
      size = std::max(size, b.size.bytes(shape));
      op.buffers.push_back(buffer);
    }
    ops_.push_back(std::move(op));
  };

  const auto& embd = weight("token_embd.weight");
  add(model::get_rows_kernel(embd.type), {1, m.vocab, m.embedding}, "token_embd",
      {{"ids", "ids"}, {"table", "token_embd.weight"}, {"out", "xa"}});
  const std::string rope = m.rope_neox ? "rope_neox" : "rope";
  auto product = [&](const std::string& tensor, const std::string& in, const std::string& out,
                     const std::string& role) {
    const auto& t = weight(tensor);
    add(model::matmul_kernel(t.type),
        {1, static_cast<std::uint32_t>(t.rows()), static_cast<std::uint32_t>(t.row_length())},
        role + " (" + std::string(ref::type_name(t.type)) + ")", {{"x", in}, {"W", tensor}, {"y", out}});
    ops_.back().weight = tensor;
  };
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::string blk = "blk." + std::to_string(layer) + ".";
    weight(blk + "attn_norm.weight");
    add("rmsnorm_mul", {1, m.embedding}, blk + "attn_norm",
        {{"x", "xa"}, {"w", blk + "attn_norm.weight"}, {"y", "xn"}});
    product(blk + "attn_q.weight", "xn", "q", blk + "attn_q");
    product(blk + "attn_k.weight", "xn", "k", blk + "attn_k");
    product(blk + "attn_v.weight", "xn", "v", blk + "attn_v");
    add(rope, {1, m.heads, m.head_dim}, blk + "rope_q", {{"x", "q"}, {"pos", "pos"}, {"base", "base"}, {"y", "qr"}});
    add(rope, {1, m.kv_heads, m.head_dim}, blk + "rope_k", {{"x", "k"}, {"pos", "pos"}, {"base", "base"}, {"y", "kr"}});
    const std::string kc = "k_cache." + std::to_string(layer), vc = "v_cache." + std::to_string(layer);
    add("kv_store", {1, kv, context}, blk + "store_k", {{"src", "kr"}, {"positions", "pos"}, {"cache", kc}});
    add("kv_store", {1, kv, context}, blk + "store_v", {{"src", "v"}, {"positions", "pos"}, {"cache", vc}});
    add("attention_decode", {m.heads, m.kv_heads, m.head_dim, context}, blk + "attention",
        {{"q", "qr"}, {"k", kc}, {"v", vc}, {"out", "attn"}});
    product(blk + "attn_output.weight", "attn", "o", blk + "attn_output");
    add("add", {1, m.embedding}, blk + "attn_residual", {{"a", "xa"}, {"b", "o"}, {"y", "xb"}});
    weight(blk + "ffn_norm.weight");
    add("rmsnorm_mul", {1, m.embedding}, blk + "ffn_norm", {{"x", "xb"}, {"w", blk + "ffn_norm.weight"}, {"y", "xn"}});
    product(blk + "ffn_gate.weight", "xn", "g", blk + "ffn_gate");
    product(blk + "ffn_up.weight", "xn", "u", blk + "ffn_up");
    add("swiglu", {1, m.feed_forward}, blk + "swiglu", {{"a", "g"}, {"b", "u"}, {"y", "s"}});
    product(blk + "ffn_down.weight", "s", "d", blk + "ffn_down");
    add("add", {1, m.embedding}, blk + "ffn_residual", {{"a", "xb"}, {"b", "d"}, {"y", "xa"}});
    // The cache's earlier entries; row context - 1 is the new token's. Of
    // the new token's scale (root mean square about 1 with weights of
    // 1/sqrt(K)), so that attention spreads over the cache rather than
    // settling on the token's own entry, whose score rope leaves unchanged
    // at any position.
    for (auto* cache : {&im.k_cache, &im.v_cache}) {
      std::vector<std::uint16_t> bits(std::size_t{context} * kv);
      std::uniform_real_distribution<float> value(-1.5f, 1.5f);
      for (auto& b : bits) b = ref::fp32_to_fp16(value(rng));
      cache->push_back(std::move(bits));
    }
  }
  weight("output_norm.weight");
  add("rmsnorm_mul", {1, m.embedding}, "output_norm", {{"x", "xa"}, {"w", "output_norm.weight"}, {"y", "xn"}});
  product(m.tensors.count("output.weight") ? "output.weight" : "token_embd.weight", "xn", "logits", "output");
  add("argmax", {1, m.vocab}, "argmax", {{"x", "logits"}, {"y", "argmax"}});
  place_barriers(ops_, options.barrier_every_op);
}

DecodeStep::~DecodeStep() { delete impl_; }

std::size_t DecodeStep::barriers() const {
  std::size_t count = 0;
  for (const auto& op : impl_->recorded) count += op.barrier_before + (op.stages.size() - 1);
  return count;
}

const std::vector<std::uint8_t>& DecodeStep::weight_bytes(const std::string& tensor) const {
  return impl_->weights.at(tensor);
}

const std::vector<std::uint16_t>& DecodeStep::cache(std::uint32_t layer, bool values) const {
  return (values ? impl_->v_cache : impl_->k_cache).at(layer);
}

void DecodeStep::prepare(vk::Device& device, const TemplateLibrary& templates) {
  auto& im = *impl_;
  // Buffers: every one sized for its largest use, zeroed (scratch is zeroed once).
  for (const auto& [name, bytes] : im.buffer_bytes) {
    const auto size = std::max<std::uint64_t>(bytes, 16);
    im.buffers[name] = std::make_unique<vk::Buffer>(device, size);
    im.buffers[name]->upload(std::vector<std::uint8_t>(size, 0));
  }
  for (const auto& [name, bytes] : im.weights) {
    if (im.buffers.count(name)) im.buffers[name]->upload(bytes);
  }
  auto upload_value = [&](const std::string& name, const void* data) {
    if (!im.buffers.count(name)) return;
    std::vector<std::uint8_t> bytes(4);
    std::memcpy(bytes.data(), data, 4);
    im.buffers[name]->upload(bytes);
  };
  std::uint32_t context = 0;
  for (const auto& op : ops_)
    if (op.kernel == "attention_decode") context = op.shape[3];
  const std::int32_t position = static_cast<std::int32_t>(context) - 1;
  upload_value("ids", &token_);
  upload_value("pos", &position);
  upload_value("base", &rope_base_);
  for (std::size_t l = 0; l < im.k_cache.size(); ++l) {
    for (const auto& [name, cache] : {std::pair{"k_cache." + std::to_string(l), &im.k_cache[l]},
                                      std::pair{"v_cache." + std::to_string(l), &im.v_cache[l]}}) {
      std::vector<std::uint8_t> bytes(cache->size() * 2);
      std::memcpy(bytes.data(), cache->data(), bytes.size());
      im.buffers.at(name)->upload(bytes);
    }
  }
  // Variants: each distinct one compiled once, its pipelines shared by its ops.
  std::map<std::string, std::uint32_t> uses;
  std::vector<std::string> hashes;
  for (const auto& op : ops_) {
    const auto& kernel = kernels::find_kernel(op.kernel);
    auto variant = describe_variant(kernel, op.config, op.shape, templates);
    hashes.push_back(variant.variant_hash);
    ++uses[variant.variant_hash];
    if (!im.variants.count(variant.variant_hash)) {
      compile_variant(variant, templates);
      im.variants.emplace(variant.variant_hash, std::move(variant));
    }
  }
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const auto& op = ops_[i];
    const auto& variant = im.variants.at(hashes[i]);
    auto& pipelines = im.pipelines[hashes[i]];
    if (pipelines.empty()) {
      for (const auto& stage : variant.stages) {
        vk::PipelineDesc desc;
        desc.label = op.kernel + " [" + kernels::config_to_string(op.config) + "]";
        desc.storage_buffers = static_cast<std::uint32_t>(op.buffers.size());
        const auto words = stage.plan.push_constants.empty() ? op.shape.size() : stage.plan.push_constants.size();
        desc.push_constant_bytes = static_cast<std::uint32_t>(words * 4);
        desc.local_size = stage.plan.local_size;
        desc.required_subgroup_size = stage.plan.required_subgroup_size;
        desc.require_full_subgroups = stage.plan.require_full_subgroups;
        desc.specialization = stage.plan.specialization;
        desc.max_descriptor_sets = uses[hashes[i]];
        pipelines.push_back(std::make_unique<vk::ComputePipeline>(device, stage.spirv, desc));
      }
    }
    Impl::Recorded r;
    r.barrier_before = op.barrier_before;
    std::vector<const vk::Buffer*> bound;
    for (const auto& name : op.buffers) bound.push_back(im.buffers.at(name).get());
    for (std::size_t s = 0; s < variant.stages.size(); ++s) {
      r.stages.push_back(pipelines[s].get());
      r.sets.push_back(pipelines[s]->make_descriptor_set(bound));
      r.groups.push_back(kernels::workgroup_counts(variant.stages[s].plan.dispatch, op.shape));
      const auto& own = variant.stages[s].plan.push_constants;
      r.push.push_back(own.empty() ? std::vector<std::uint32_t>(op.shape.begin(), op.shape.end()) : own);
    }
    im.recorded.push_back(std::move(r));
  }
}

std::vector<float> DecodeStep::run_once(vk::Device& device) {
  vk::run_commands(device, [&](VkCommandBuffer cmd) { impl_->record(cmd); });
  const auto bytes = impl_->buffers.at("logits")->download(0, std::uint64_t{impl_->vocab} * 4);
  std::vector<float> logits(impl_->vocab);
  std::memcpy(logits.data(), bytes.data(), bytes.size());
  return logits;
}

std::vector<float> DecodeStep::run_op_by_op(
    vk::Device& device,
    const std::function<void(std::size_t op, const Contents& before, const Contents& after)>& visit) {
  auto& im = *impl_;
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const auto& op = ops_[i];
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto& bindings = kernel.spaces().at(kernel.space_index(op.shape)).bindings;
    Contents before, after;
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      const auto role = bindings[b].role;
      if (role == kernels::BindingRole::weights || role == kernels::BindingRole::scratch) continue;
      before[bindings[b].name] = im.buffers.at(op.buffers[b])->download();
    }
    vk::run_commands(device, [&](VkCommandBuffer cmd) { Impl::record_op(cmd, im.recorded[i], false); });
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      if (bindings[b].role == kernels::BindingRole::output)
        after[bindings[b].name] = im.buffers.at(op.buffers[b])->download();
    }
    visit(i, before, after);
  }
  const auto bytes = im.buffers.at("logits")->download(0, std::uint64_t{im.vocab} * 4);
  std::vector<float> logits(im.vocab);
  std::memcpy(logits.data(), bytes.data(), bytes.size());
  return logits;
}

DecodeStep::Profile DecodeStep::profile(vk::Device& device, int samples) {
  const auto& recorded = impl_->recorded;
  Profile profile;
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    if (i == 0 || recorded[i].barrier_before) profile.phases.push_back({i, i, 0});
    profile.phases.back().end_op = i + 1;
  }
  const auto timing = vk::time_phases(
      device,
      [&](VkCommandBuffer cmd, const std::function<void(VkCommandBuffer)>& mark) {
        for (std::size_t i = 0; i < recorded.size(); ++i) {
          if (i > 0 && recorded[i].barrier_before) mark(cmd);
          Impl::record_op(cmd, recorded[i], recorded[i].barrier_before);
        }
        mark(cmd);
      },
      static_cast<std::uint32_t>(profile.phases.size()), samples);
  for (std::size_t p = 0; p < profile.phases.size(); ++p) profile.phases[p].median_ns = timing.median_ns[p];
  profile.total_ns = timing.total_ns;
  return profile;
}

vk::TimingResult DecodeStep::time(vk::Device& device, int samples) {
  vk::TimerOptions options;
  options.samples = samples;
  options.dispatches_per_sample = 1;  // a step is hundreds of dispatches already
  return vk::time_dispatches(
      device, [&](VkCommandBuffer cmd, std::uint64_t) { impl_->record(cmd); }, options);
}

}  // namespace vktune::step
