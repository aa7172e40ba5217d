#include "workloads/vision/mobilenet_chain.hpp"

#include <cstring>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "engine/test_hooks.hpp"

namespace vktune::vision {

namespace {

std::vector<std::uint8_t> bytes_of(const std::vector<float>& values) {
  std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

std::string weight_buffer(std::size_t layer) { return "w." + std::to_string(layer + 1); }
std::string bias_buffer(std::size_t layer) { return "b." + std::to_string(layer + 1); }

void add_mobilenet_ops(chain::KernelChain& chain, const Network& net, const Weights& weights,
                       const vk::DeviceInfo& device) {
  chain.set_contents(net.image, bytes_of(weights.image));
  const auto wrong = test_hooks::wrong_chain_layer();
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto& layer = net.layers[i];
    const auto role = std::to_string(i + 1) + " " + layer.role;
    const auto& op =
        layer.has_weights()
            ? chain.add(layer.kernel, layer.shape, role,
                        {{"x", layer.input}, {"w", weight_buffer(i)}, {"b", bias_buffer(i)}, {"y", layer.output}})
            : chain.add(layer.kernel, layer.shape, role,
                        {{"a", layer.input}, {"b", layer.shortcut}, {"y", layer.output}});
    const auto why = kernels::find_kernel(op.kernel).constraint_violation(op.config, op.shape, device);
    if (!why.empty()) {
      throw Error(ErrorKind::usage, "layer " + role + ": " + op.kernel + " at " + kernels::shape_to_string(op.shape) +
                                        " cannot run on this device (" + why.detail +
                                        "): try a smaller --batch or --resolution");
    }
    if (!layer.has_weights()) continue;
    chain.set_contents(weight_buffer(i), bytes_of(weights.layers[i].w));
    auto bias = weights.layers[i].b;
    // The test suite's wrong layer (engine/test_hooks.hpp): its bias on the
    // device is off by one, which the reference does not know.
    if (wrong && *wrong == i + 1)
      for (auto& b : bias) b += 1.0f;
    chain.set_contents(bias_buffer(i), bytes_of(bias));
  }
  chain.place_barriers(false);
}

}  // namespace vktune::vision
