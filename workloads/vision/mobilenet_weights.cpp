#include "workloads/vision/mobilenet_weights.hpp"

#include <cmath>
#include <random>

namespace vktune::vision {

namespace {

std::vector<float> uniform(std::size_t count, double bound, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> value(static_cast<float>(-bound), static_cast<float>(bound));
  std::vector<float> v(count);
  for (auto& x : v) x = value(rng);
  return v;
}

}  // namespace

Weights random_weights(const Network& net, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Weights weights;
  weights.image = uniform(std::size_t{net.batch} * net.resolution * net.resolution * 3, 1.0, rng);
  for (const auto& layer : net.layers) {
    LayerWeights lw;
    if (layer.has_weights()) {
      const double gain = layer.relu6 ? 6.0 : 3.0;
      lw.w = uniform(layer.weight_count(), std::sqrt(gain / static_cast<double>(layer.fan_in())), rng);
      lw.b = uniform(layer.out_channels, 0.1, rng);
    }
    weights.layers.push_back(std::move(lw));
  }
  return weights;
}

}  // namespace vktune::vision
