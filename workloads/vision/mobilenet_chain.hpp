#pragma once
// The MobileNet V2 chain on the GPU: each layer of the network
// (workloads/vision/mobilenet_layers) as an op of a chain::KernelChain, whose
// buffers are the image, one activation per layer (so that a run leaves
// every layer's input and output for the layer-by-layer check) and each
// layer's weights and bias. Every op depends on the one before, so each
// waits at a barrier.
#include "workloads/kernel_chain.hpp"
#include "workloads/vision/mobilenet_layers.hpp"
#include "workloads/vision/mobilenet_weights.hpp"

namespace vktune::vision {

// Adds the layers as ops (variants as `chain`'s source chooses them) and the
// image and weights as contents. A layer whose variant the device cannot
// run (its baseline past the device's limits at a large batch or
// resolution) is an Error(usage) naming it.
void add_mobilenet_ops(chain::KernelChain& chain, const Network& network, const Weights& weights,
                       const vk::DeviceInfo& device);

// The buffer of a layer's weights and bias.
std::string weight_buffer(std::size_t layer);
std::string bias_buffer(std::size_t layer);

}  // namespace vktune::vision
