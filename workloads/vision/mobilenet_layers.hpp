#pragma once
// MobileNet V2's convolution chain as data (Sandler et al. 2018, table 2):
// the stem 3×3 stride 2 → 32 channels (ReLU6); 17 inverted-residual blocks
// in 7 stages (t, c, n, s) = (1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
// (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1), each block an
// expansion 1×1 to t·c_in channels (ReLU6; none where t = 1), a depthwise 3×3
// (ReLU6; the stage's stride in its first block), a projection 1×1 to c
// (linear) and, where the stride is 1 and c_in == c, the residual add of the
// block's input; then the final 1×1 320 → 1280 (ReLU6). NHWC fp32 throughout,
// each layer one of the MobileNet spec kernels (workloads/vision/mobilenet_specs)
// or `add`. No pooling or classifier: the chain ends at the feature map.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::vision {

enum class LayerKind { stem, expand, depthwise, project, residual, final_1x1 };

struct Layer {
  LayerKind kind = LayerKind::stem;
  std::string role;      // "stem", "block 3 expand", "block 3 residual", "final 1x1"
  std::string kernel;    // the kernel that runs it
  kernels::Shape shape;  // at that kernel's dimensions
  // Activations in and out, N × H × W × C (NHWC), by buffer name.
  std::string input, output;
  std::string shortcut;                                           // residual: the block's input, added to `input`
  std::uint32_t height = 0, width = 0, in_channels = 0;           // of the input
  std::uint32_t out_height = 0, out_width = 0, out_channels = 0;  // of the output
  std::uint32_t stride = 1;
  bool relu6 = false;
  bool has_weights() const { return kind != LayerKind::residual; }
  // Weights per layer (OHWI for the stem and 1×1s, [3][3][C] for the depthwise) and biases.
  std::size_t weight_count() const;
  std::size_t fan_in() const;  // inputs that each output sums
};

struct Network {
  std::uint32_t batch = 1, resolution = 224;
  std::vector<Layer> layers;
  std::string image = "image";  // the input buffer, batch × resolution² × 3
  const Layer& last() const { return layers.back(); }
};

// The input resolutions and batches the chain is built for. (A kernel's
// baseline may still not fit a device's limits at the largest: the chain
// refuses such a layer by name.)
inline constexpr std::uint32_t kMinResolution = 32, kMaxResolution = 1024, kMaxBatch = 8;

// The chain for `batch` images of resolution × resolution × 3; a resolution
// that is not a multiple of 32 in [32, 1024] (five stride-2 layers halve it
// exactly to the final map of resolution / 32), or a batch outside [1, 8],
// is an Error(usage).
Network mobilenet_v2(std::uint32_t batch, std::uint32_t resolution);

}  // namespace vktune::vision
