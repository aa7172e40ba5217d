#pragma once
// `vktune mobilenet --check`: the GPU chain's run held to the CPU, two ways.
// - Layer by layer: each layer's output against its CPU reference on the
//   input the chain gave it (every activation stays in its own buffer), within
//   the tolerance its variant was validated to. This does not depend on how
//   the network amplifies small differences, and names a wrong layer.
// - The final feature map against the CPU chain in double precision (the
//   same weights and image, fp32 between layers), by relative L2.
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "workloads/kernel_chain.hpp"
#include "workloads/vision/mobilenet_layers.hpp"
#include "workloads/vision/mobilenet_weights.hpp"

namespace vktune::vision {

// The final map's bound. On lavapipe, every layer its spec's baseline, the
// map was 8.6e-7 to 2.7e-6 from the CPU chain (relative L2; 32×32 to 224×224,
// batch 1 and 8, three seeds; growing with the resolution, as the 1×1 sums
// and the number of outputs do), each layer within 7% of its own tolerance:
// fp32 rounding passed on through 62 layers. 1e-4 leaves a margin of over 30
// at 224 for other devices' summation orders and fused multiply-adds, and is
// far below a wrong layer's error (of the order of the values: a bias off by
// one in one layer moves the map by more than 1e-1).
inline constexpr double kFinalMapTolerance = 1e-4;

struct LayerCheck {
  std::size_t layer = 0;  // index into the network's layers
  double rel_l2 = 0, max_rel = 0;
  kernels::Tolerance tolerance;
  bool passed = false;
  std::string why;  // when failed
};

struct ChainCheck {
  std::vector<LayerCheck> layers;
  std::size_t failed = 0;
  double worst_share = 0;  // the largest rel_l2 / tolerance.rel_l2 over the layers
  double final_rel_l2 = 0, final_max_rel = 0;
  bool final_passed = false;
  bool passed = false;
  // The final map as the GPU left it: its root mean square and the shares of
  // values ReLU6 clamped to 0 and to 6 (a check of a map of zeros or of
  // sixes would say little).
  double final_rms = 0, final_share_zero = 0, final_share_six = 0;
};

// Call after chain.run_once(): reads every activation back from the device.
ChainCheck check_mobilenet(const Network& network, const Weights& weights, const chain::KernelChain& chain);

}  // namespace vktune::vision
