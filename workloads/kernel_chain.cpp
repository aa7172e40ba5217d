#include "workloads/kernel_chain.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <set>

#include "common/error.hpp"
#include "harness/buffer.hpp"
#include "harness/commands.hpp"
#include "harness/phase_timer.hpp"
#include "harness/pipeline.hpp"
#include "kernels/registry.hpp"
#include "engine/device_identity.hpp"
#include "engine/stale_config.hpp"
#include "engine/variant.hpp"
#include "tuner/device_baseline.hpp"

namespace vktune::chain {

std::vector<std::int64_t> winner_device_rows(const results::Store& store, const vk::DeviceInfo& device) {
  std::vector<std::int64_t> rows;
  const auto self = identity_of(device);
  if (const auto row = store.find_device(self)) rows.push_back(*row);
  for (const auto& [id, identity] : store.devices()) {
    const bool same_model =
        identity.vendor_id == self.vendor_id && identity.device_id == self.device_id && identity.name == self.name;
    if (same_model && std::find(rows.begin(), rows.end(), id) == rows.end()) rows.push_back(id);
  }
  return rows;
}

struct KernelChain::Impl {
  std::map<std::string, std::vector<std::uint8_t>> contents;  // buffer -> bytes before the chain runs
  std::map<std::string, std::uint64_t> buffer_bytes;          // buffer -> size
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

KernelChain::KernelChain(VariantSource source, const vk::DeviceInfo& device)
    : impl_(new Impl), source_(std::move(source)), device_(device) {}

KernelChain::~KernelChain() { delete impl_; }

KernelChain::Choice KernelChain::choose(const kernels::Kernel& kernel, const kernels::Shape& shape) const {
  const auto& only = source_.tuned_kernels;
  const bool wanted = only.empty() || std::find(only.begin(), only.end(), kernel.name()) != only.end();
  const auto* store = source_.store;
  if (!source_.tuned) return {};
  if (!store) return {std::nullopt, std::nullopt, "no database of winners"};
  if (!wanted) return {std::nullopt, std::nullopt, "not among --tuned-kernels"};
  const auto text = kernels::shape_to_string(shape);
  const auto mode = source_.cache_mode;
  // Of the GPUs of this model (this one among them), the most recently
  // measured winner: a re-tuned table imported beside an older one serves
  // its fresher winners, whichever GPU of the model tuned them. The cache
  // mode asked for first, then the other.
  std::optional<results::Winner> winner;
  for (const auto m : {mode, other_cache_mode(mode)}) {
    for (const auto row : source_.device_rows) {
      auto found = store->find_winner(row, kernel.name(), text, m);
      if (found && (!winner || found->updated_at > winner->updated_at)) winner = std::move(found);
    }
    if (winner) break;
  }
  if (!winner) return {std::nullopt, std::nullopt, "no stored winner"};
  // Stored under an earlier space of the kernel: brought up to date (engine/stale_config.hpp).
  const auto update = update_config(kernel, shape, kernels::config_from_json(winner->config_json));
  const auto why = update.config ? kernel.constraint_violation(*update.config, shape, device_).detail : update.note;
  if (!why.empty()) return {std::nullopt, std::nullopt, "the stored winner is not legal here: " + why};
  return {*update.config, winner->median_ns, {}};
}

std::optional<double> KernelChain::winner_ns(const std::string& kernel_name, const kernels::Shape& shape) const {
  const auto& kernel = kernels::find_kernel(kernel_name);
  kernel.validate_shape(shape);
  return choose(kernel, shape).ns;
}

ChainOp& KernelChain::add(const std::string& kernel_name, const kernels::Shape& shape, const std::string& role,
                          const std::map<std::string, std::string>& by_name,
                          const std::map<std::string, std::uint64_t>& offsets) {
  const auto& kernel = kernels::find_kernel(kernel_name);
  kernel.validate_shape(shape);
  ChainOp op{kernel_name, shape, device_baseline(kernel, shape, device_), false, {}, std::nullopt, role, {}, {}, {}};
  auto choice = choose(kernel, shape);
  if (choice.config) {
    op.config = std::move(*choice.config), op.tuned = true, op.winner_ns = choice.ns;
  } else {
    op.why_baseline = std::move(choice.why_baseline);
  }
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  for (const auto& b : space.bindings) {
    std::string buffer;
    if (b.role == kernels::BindingRole::uniform) {
      throw Error(ErrorKind::usage, kernel_name + "'s binding " + b.name + " is a uniform buffer, which a chain does not bind");
    }
    if (b.alias_of >= 0) {
      // The target's buffer and offset, filled in once every binding has its own.
      op.buffers.emplace_back();
      op.offsets.push_back(0);
      continue;
    }
    if (const auto it = by_name.find(b.name); it != by_name.end()) {
      buffer = it->second;
    } else if (b.role == kernels::BindingRole::scratch) {
      buffer = "scratch:" + kernel_name + ":" + kernels::shape_to_string(shape);  // zeroed once, the kernel's own
    } else {
      throw Error(ErrorKind::internal, kernel_name + "'s binding " + b.name + " has no buffer in the chain");
    }
    const auto at = offsets.find(b.name);
    const std::uint64_t offset = at == offsets.end() ? 0 : at->second;
    auto& size = impl_->buffer_bytes[buffer];
    size = std::max(size, offset + b.size.bytes(shape));
    op.buffers.push_back(buffer);
    op.offsets.push_back(offset);
  }
  for (std::size_t b = 0; b < space.bindings.size(); ++b) {
    const int target = space.bindings[b].alias_of;
    if (target < 0) continue;
    op.buffers[b] = op.buffers.at(static_cast<std::size_t>(target));
    op.offsets[b] = op.offsets.at(static_cast<std::size_t>(target));
  }
  for (const auto& [name, offset] : offsets) {
    const bool bound = std::any_of(space.bindings.begin(), space.bindings.end(),
                                   [&](const kernels::Binding& b) { return b.name == name; });
    if (!bound) throw Error(ErrorKind::internal, kernel_name + " has no binding " + name + " to offset");
  }
  ops_.push_back(std::move(op));
  return ops_.back();
}

void KernelChain::require_fits() const {
  std::uint64_t total = 0;
  for (const auto& [name, bytes] : impl_->buffer_bytes) total += bytes;
  if (total > device_.device_local_bytes()) {
    throw Error(ErrorKind::usage, "the chain's " + std::to_string(impl_->buffer_bytes.size()) + " buffers need " +
                                      std::to_string(total >> 20) + " MiB, more than " + device_.name + "'s " +
                                      std::to_string(device_.device_local_bytes() >> 20) + " MiB of device memory");
  }
}

void KernelChain::place_barriers(bool every_op) {
  std::set<std::string> read, written;  // since the last barrier
  // The first op waits too, for the run before it when runs are recorded back to back.
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    auto& op = ops_[i];
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto& bindings = kernel.spaces().at(kernel.space_index(op.shape)).bindings;
    bool wait = i == 0 || every_op;
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      const auto& buffer = op.buffers[b];
      const bool writes =
          bindings[b].role == kernels::BindingRole::output || bindings[b].role == kernels::BindingRole::scratch;
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

std::size_t KernelChain::barriers() const {
  std::size_t count = 0;
  for (const auto& op : impl_->recorded) count += op.barrier_before + (op.stages.size() - 1);
  return count;
}

void KernelChain::set_contents(const std::string& buffer, std::vector<std::uint8_t> bytes) {
  impl_->contents[buffer] = std::move(bytes);
}

bool KernelChain::has_contents(const std::string& buffer) const { return impl_->contents.count(buffer) > 0; }

const std::vector<std::uint8_t>& KernelChain::contents(const std::string& buffer) const {
  const auto it = impl_->contents.find(buffer);
  if (it == impl_->contents.end()) throw Error(ErrorKind::internal, "the chain holds no contents for " + buffer);
  return it->second;
}

void KernelChain::prepare(vk::Device& device, const TemplateLibrary& templates) {
  auto& im = *impl_;
  // Buffers: every one sized for its largest use, zeroed (scratch is zeroed once).
  for (const auto& [name, bytes] : im.buffer_bytes) {
    const auto size = std::max<std::uint64_t>(bytes, 16);
    im.buffers[name] = std::make_unique<vk::Buffer>(device, size);
    im.buffers[name]->upload(std::vector<std::uint8_t>(size, 0));
  }
  for (const auto& [name, bytes] : im.contents) {
    if (im.buffers.count(name)) im.buffers[name]->upload(bytes);
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
        // A chain hands buffers from op to op; an image binding (a spec's
        // "image") would need its texels copied in and out between them.
        if (!stage.plan.images.empty()) {
          throw Error(ErrorKind::usage, op.kernel + " binds images (binding " +
                                            std::to_string(stage.plan.images.front().binding) +
                                            "), which a chain of kernels cannot run yet");
        }
        vk::PipelineDesc desc;
        desc.label = op.kernel + " [" + kernels::config_to_string(op.config) + "]";
        desc.storage_buffers = static_cast<std::uint32_t>(op.buffers.size());
        desc.uniform_buffers = stage.plan.uniform_buffers;
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
    const std::vector<VkDeviceSize> offsets(op.offsets.begin(), op.offsets.end());
    const auto alignment = device.info().min_storage_buffer_offset_alignment;
    for (std::size_t b = 0; b < offsets.size(); ++b) {
      if (alignment > 0 && offsets[b] % alignment != 0) {
        throw Error(ErrorKind::usage, op.role + ": " + op.kernel + " would bind " + op.buffers[b] + " from byte " +
                                          std::to_string(offsets[b]) + ", not a multiple of " + device.info().name +
                                          "'s minStorageBufferOffsetAlignment of " + std::to_string(alignment));
      }
    }
    // The op's own plan: ops of other shapes share a variant (its hash covers
    // what is compiled, not the push constants, which carry the shape).
    const auto plans = kernels::find_kernel(op.kernel).stages(op.config, op.shape);
    for (std::size_t s = 0; s < variant.stages.size(); ++s) {
      r.stages.push_back(pipelines[s].get());
      r.sets.push_back(pipelines[s]->make_descriptor_set(bound, offsets));
      r.groups.push_back(kernels::workgroup_counts(plans.at(s).dispatch, op.shape));
      const auto& own = plans.at(s).push_constants;
      r.push.push_back(own.empty() ? std::vector<std::uint32_t>(op.shape.begin(), op.shape.end()) : own);
    }
    im.recorded.push_back(std::move(r));
  }
}

void KernelChain::upload(const std::string& buffer, std::span<const std::uint8_t> bytes) {
  impl_->buffers.at(buffer)->upload(bytes);
}

std::vector<std::uint8_t> KernelChain::download(const std::string& buffer, std::uint64_t bytes) const {
  const auto& b = *impl_->buffers.at(buffer);
  return bytes == 0 ? b.download() : b.download(0, bytes);
}

void KernelChain::run_once(vk::Device& device) {
  vk::run_commands(device, [&](VkCommandBuffer cmd) { impl_->record(cmd); });
}

void KernelChain::run_op_by_op(
    vk::Device& device,
    const std::function<void(std::size_t op, const Contents& before, const Contents& after)>& visit) {
  auto& im = *impl_;
  // A binding's contents: its buffer from the binding's offset on.
  auto download_from = [&](const ChainOp& op, std::size_t b) {
    const auto& buffer = *im.buffers.at(op.buffers[b]);
    return buffer.download(op.offsets[b], buffer.size() - op.offsets[b]);
  };
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const auto& op = ops_[i];
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto& bindings = kernel.spaces().at(kernel.space_index(op.shape)).bindings;
    Contents before, after;
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      const auto role = bindings[b].role;
      if (role == kernels::BindingRole::weights || role == kernels::BindingRole::scratch) continue;
      before[bindings[b].name] = download_from(op, b);
    }
    vk::run_commands(device, [&](VkCommandBuffer cmd) { Impl::record_op(cmd, im.recorded[i], false); });
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      if (bindings[b].role == kernels::BindingRole::output)
        after[bindings[b].name] = download_from(op, b);
    }
    visit(i, before, after);
  }
}

KernelChain::Profile KernelChain::profile(vk::Device& device, int samples) {
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

vk::TimingResult KernelChain::time(vk::Device& device, int samples) {
  vk::TimerOptions options;
  options.samples = samples;
  options.dispatches_per_sample = 1;  // a chain is many dispatches already
  return vk::time_dispatches(
      device, [&](VkCommandBuffer cmd, std::uint64_t) { impl_->record(cmd); }, options);
}

}  // namespace vktune::chain
