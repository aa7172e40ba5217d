#pragma once
// Random weights for the MobileNet V2 chain (workloads/vision/mobilenet_layers),
// fixed by a seed, scaled so that activations stay O(1) through its 60-odd
// layers: He uniform for the layers followed by ReLU6 (U(±sqrt(6 / fan_in)),
// variance 2 / fan_in, which keeps the mean square of a rectified signal),
// LeCun uniform for the linear projections (U(±sqrt(3 / fan_in)), variance
// 1 / fan_in, which keeps it through a linear map), biases U(±0.1), and an
// image U(-1, 1), as a normalised one is. The residual adds grow the mean
// square by at most their number in a stage (3), and every later ReLU6
// bounds it again.
#include <cstdint>
#include <vector>

#include "workloads/vision/mobilenet_layers.hpp"

namespace vktune::vision {

struct LayerWeights {
  std::vector<float> w, b;  // empty for a residual add
};

struct Weights {
  std::vector<float> image;          // batch × resolution × resolution × 3
  std::vector<LayerWeights> layers;  // one per layer of the network
};

Weights random_weights(const Network& network, std::uint64_t seed);

}  // namespace vktune::vision
