#pragma once
// A chain of registered kernels run on the GPU as one command buffer: what
// `vktune step` (a decode token, workloads/llm/) and `vktune mobilenet` (a
// convolution network, workloads/vision/) build their chains from. Each op is a
// kernel at a shape with its bindings mapped by name to the chain's buffers;
// its variant is the most recently measured stored winner at that shape of
// this GPU or another of its model, or the kernel's baseline, with the
// reason. A
// compute-to-compute barrier precedes each op that reads what an earlier one
// since the last barrier wrote, or writes what it read or wrote (independent
// ops run side by side). Every buffer is sized for its largest use and zeroed,
// then given its contents (weights, inputs) before the chain runs.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/cache_mode.hpp"
#include "harness/device.hpp"
#include "harness/timer.hpp"
#include "harness/timing_stats.hpp"
#include "kernels/kernel.hpp"
#include "results/store.hpp"
#include "engine/template_library.hpp"

namespace vktune::chain {

// Where the ops' variants come from.
struct VariantSource {
  bool tuned = true;                       // stored winners where there are; else baselines
  const results::Store* store = nullptr;   // none: every op runs its baseline
  std::vector<std::int64_t> device_rows;   // the store's devices whose winners serve (the latest of theirs)
  CacheMode cache_mode = CacheMode::cold;  // which stored winners (this mode, then the other)
  std::vector<std::string> tuned_kernels;  // non-empty: stored winners only for these kernels
};

// The store's devices whose winners may serve `device`: this GPU first, then
// other GPUs of its model (vendor, device id and name; any driver), as
// `vktune bench` finds them.
std::vector<std::int64_t> winner_device_rows(const results::Store& store, const vk::DeviceInfo& device);

// One dispatch (or one multi-stage op) of the chain.
struct ChainOp {
  std::string kernel;
  kernels::Shape shape;
  kernels::Config config;
  bool tuned = false;                // a stored winner (else the baseline)
  std::string why_baseline;          // in a tuned chain, why this op runs its baseline
  std::optional<double> winner_ns;   // the stored winner's median time at this shape, when it runs
  std::string role;                  // what the op is in its network: "blk.3.ffn_down", "block 4 expand"
  std::string weight;                // the op's main weight buffer, where its network names one
  std::vector<std::string> buffers;  // the chain's buffers, in the kernel's binding order
  std::vector<std::uint64_t> offsets;  // where each binding starts in its buffer, in bytes
  // A barrier precedes the op's first stage (later stages of a multi-stage
  // op always wait for the one before).
  bool barrier_before = true;
};

class KernelChain {
 public:
  KernelChain(VariantSource source, const vk::DeviceInfo& device);
  ~KernelChain();
  KernelChain(const KernelChain&) = delete;
  KernelChain& operator=(const KernelChain&) = delete;

  // Appends an op and chooses its variant; `by_name` maps the kernel's
  // bindings to chain buffers (a scratch binding left out gets a buffer of
  // its own), `offsets` binds some from a byte offset into their buffer (a
  // row of a larger one; a multiple of the device's
  // minStorageBufferOffsetAlignment, else prepare() refuses it). Throws
  // Error(usage) for a shape the kernel refuses.
  ChainOp& add(const std::string& kernel, const kernels::Shape& shape, const std::string& role,
               const std::map<std::string, std::string>& by_name,
               const std::map<std::string, std::uint64_t>& offsets = {});
  // The stored median of the winner add() would run for the kernel at the
  // shape, or none where it would run the baseline (to choose between two
  // ways of chaining before adding either).
  std::optional<double> winner_ns(const std::string& kernel, const kernels::Shape& shape) const;
  // Throws Error(usage) when the chain's buffers, summed, exceed the
  // device's largest device-local heap: before any contents are read or made.
  void require_fits() const;
  // Marks the ops that wait (see above); `every_op`: all of them. Call once
  // every op is added.
  void place_barriers(bool every_op);
  const std::vector<ChainOp>& ops() const { return ops_; }
  // Barriers recorded per run (one before each op that waits, and one
  // between the stages of a multi-stage op), known after prepare().
  std::size_t barriers() const;

  // What a buffer holds before the chain runs (kept on the host for the CPU
  // reference); buffers without contents start zeroed.
  void set_contents(const std::string& buffer, std::vector<std::uint8_t> bytes);
  bool has_contents(const std::string& buffer) const;
  const std::vector<std::uint8_t>& contents(const std::string& buffer) const;

  // Creates and fills the buffers, compiles every distinct variant once and
  // records the chain.
  void prepare(vk::Device& device, const TemplateLibrary& templates);
  // After prepare(): replaces the start of a buffer on the device (large
  // inputs the caller does not need to keep twice).
  void upload(const std::string& buffer, std::span<const std::uint8_t> bytes);
  // A buffer's bytes on the device (after a run: what the chain left there).
  std::vector<std::uint8_t> download(const std::string& buffer, std::uint64_t bytes = 0) const;

  // Runs the chain once, as one submission.
  void run_once(vk::Device& device);
  // Runs the chain one op at a time, each in a submission of its own (so
  // nothing overlaps), and calls `visit` for each op with the contents of
  // its buffers other than weights and scratch, by binding name: `before`
  // it ran, and its outputs `after`.
  using Contents = std::map<std::string, std::vector<std::uint8_t>>;
  void run_op_by_op(vk::Device& device,
                    const std::function<void(std::size_t op, const Contents& before, const Contents& after)>& visit);
  // Where a run's time goes: one phase per run of ops between barriers
  // (ops side by side share one), `samples` runs back to back; call after
  // time(), which warms the clocks. A timestamp at every barrier costs a
  // little, so the phases add up to a bit more than time()'s run.
  struct Phase {
    std::size_t first_op = 0, end_op = 0;  // ops [first_op, end_op)
    double median_ns = 0;
  };
  struct Profile {
    std::vector<Phase> phases;
    vk::TimingStats total_ns;
  };
  Profile profile(vk::Device& device, int samples);
  // Times runs back to back (warm-up to steady clocks, then the median of
  // `samples`), ns per run.
  vk::TimingResult time(vk::Device& device, int samples);

 private:
  // The variant add() runs: the stored winner's config and median, or why
  // the baseline (nothing where baselines were asked for).
  struct Choice {
    std::optional<kernels::Config> config;
    std::optional<double> ns;
    std::string why_baseline;
  };
  Choice choose(const kernels::Kernel& kernel, const kernels::Shape& shape) const;

  struct Impl;
  Impl* impl_;
  VariantSource source_;
  const vk::DeviceInfo& device_;
  std::vector<ChainOp> ops_;
};

}  // namespace vktune::chain
