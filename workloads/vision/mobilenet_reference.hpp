#pragma once
// The CPU reference of the MobileNet V2 chain: each layer in double
// precision (reference/conv2d, depthwise_conv, ops), its output stored as
// fp32 before the next layer reads it, as the GPU chain stores it, so that
// the two differ only by the kernels' own rounding.
#include <span>
#include <vector>

#include "workloads/vision/mobilenet_layers.hpp"
#include "workloads/vision/mobilenet_weights.hpp"

namespace vktune::vision {

// One layer on the given input (and, for a residual add, the block's input
// in `shortcut`): its output, NHWC.
std::vector<double> reference_layer(const Layer& layer, std::uint32_t batch, std::span<const float> input,
                                    std::span<const float> shortcut, const LayerWeights& weights);

// The whole chain from the weights' image: the last layer's output.
std::vector<double> reference_chain(const Network& network, const Weights& weights);

}  // namespace vktune::vision
