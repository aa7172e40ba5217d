#pragma once
// Transfer between shapes: what was learned at one shape of a kernel is the
// best first guess at a near one. Shapes are near when they share the
// kernel's space (the same templates and parameters) and their dimensions
// differ little in ratio.
//
// The seeds a tune evaluates first are chosen here, from a TransferSource: a
// tune reads one over its store (tuner/session_transfer.cpp), a replay one
// over the stored measurements it replays (tuner/search/replay.cpp), so that
// a replay seeds its searches exactly as a tune does.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune {

// log2 distance between two shapes of the same kernel: sum over dimensions
// of |log2(a/b)|.
double shape_distance(const kernels::Shape& a, const kernels::Shape& b);

// Of `tuned`, the shapes in `target`'s space, nearest first (ties by
// order); at most `count`, and never `target` itself.
std::vector<kernels::Shape> nearest_shapes(const kernels::Kernel& kernel, const kernels::Shape& target,
                                           const std::vector<kernels::Shape>& tuned, std::size_t count);

// How many of a near shape's best configs a search evaluates first.
inline constexpr std::size_t kTransferTop = 3;

// What transfer seeding reads, for one kernel and cache mode.
class TransferSource {
 public:
  virtual ~TransferSource() = default;
  // The devices to learn from: this one first, then others of the same
  // model (vendor and device id). Ids are the source's own.
  virtual std::vector<std::int64_t> devices() const = 0;
  // The shapes tuned on `device` (those with a stored winner).
  virtual std::vector<kernels::Shape> tuned_shapes(std::int64_t device) const = 0;
  // The config of the winner stored for `shape` on `device`, as stored.
  virtual std::optional<kernels::Config> winner(std::int64_t device, const kernels::Shape& shape) const = 0;
  // Hands the successfully measured configs of `shape` on `device` to
  // `take`, fastest first, as stored, until `take` returns false.
  virtual void fastest(std::int64_t device, const kernels::Shape& shape,
                       const std::function<bool(const kernels::Config&)>& take) const = 0;
};

struct TransferSeeds {
  std::vector<kernels::Config> configs;  // in the order to evaluate them; may repeat
  std::vector<std::string> from;         // "1,4096,4096", "1,4096,4096 (device #2)"
};

// The tune's transfer seeds for `shape`: the stored winner and the fastest
// measured configs (kTransferTop + 1 in all per shape) of the two nearest
// tuned shapes on this device, and of the nearest shape (or the same shape)
// on each other device of the same model. Configs stored before the kernel
// gained a parameter are completed where a path fixes it, else left out
// (engine/stale_config.hpp).
TransferSeeds transfer_seeds(const kernels::Kernel& kernel, const kernels::Shape& shape, const TransferSource& source);

}  // namespace vktune
