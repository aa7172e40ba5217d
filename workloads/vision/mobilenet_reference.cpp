#include "workloads/vision/mobilenet_reference.hpp"

#include <map>
#include <string>

#include "common/error.hpp"
#include "reference/conv2d.hpp"
#include "reference/depthwise_conv.hpp"
#include "reference/ops.hpp"

namespace vktune::vision {

std::vector<double> reference_layer(const Layer& layer, std::uint32_t batch, std::span<const float> input,
                                    std::span<const float> shortcut, const LayerWeights& weights) {
  switch (layer.kind) {
    case LayerKind::stem:
      return ref::conv2d(input, weights.w, weights.b,
                         {batch, layer.height, layer.width, layer.in_channels, layer.out_channels, 3, layer.stride, 1},
                         layer.relu6);
    case LayerKind::depthwise:
      return ref::depthwise_conv2d_3x3(input, weights.w, weights.b,
                                       {batch, layer.height, layer.width, layer.in_channels, layer.stride},
                                       layer.relu6);
    case LayerKind::residual:
      return ref::add(input, shortcut);
    case LayerKind::expand:
    case LayerKind::project:
    case LayerKind::final_1x1:
      // A 1×1 convolution: every pixel of the batch alike.
      return ref::conv2d(
          input, weights.w, weights.b,
          {std::size_t{batch} * layer.height * layer.width, 1, 1, layer.in_channels, layer.out_channels, 1, 1, 0},
          layer.relu6);
  }
  throw Error(ErrorKind::internal, "a MobileNet layer of no known kind");
}

std::vector<double> reference_chain(const Network& net, const Weights& weights) {
  std::map<std::string, std::vector<float>> activations{{net.image, weights.image}};
  std::vector<double> out;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto& layer = net.layers[i];
    const std::span<const float> shortcut =
        layer.shortcut.empty() ? std::span<const float>() : std::span<const float>(activations.at(layer.shortcut));
    out = reference_layer(layer, net.batch, activations.at(layer.input), shortcut, weights.layers[i]);
    activations[layer.output] = std::vector<float>(out.begin(), out.end());
  }
  return out;
}

}  // namespace vktune::vision
