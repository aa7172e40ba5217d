#include "workloads/vision/mobilenet_layers.hpp"

#include <array>

#include "common/error.hpp"
#include "workloads/vision/mobilenet_specs.hpp"

namespace vktune::vision {

std::size_t Layer::weight_count() const {
  switch (kind) {
    case LayerKind::stem:
      return std::size_t{9} * in_channels * out_channels;
    case LayerKind::depthwise:
      return std::size_t{9} * in_channels;
    case LayerKind::residual:
      return 0;
    default:
      return std::size_t{in_channels} * out_channels;
  }
}

std::size_t Layer::fan_in() const {
  switch (kind) {
    case LayerKind::stem:
      return std::size_t{9} * in_channels;
    case LayerKind::depthwise:
      return 9;
    case LayerKind::residual:
      return 2;
    default:
      return in_channels;
  }
}

namespace {

// A layer from `in` (h × w × c) to `out` (ho × wo × co).
Layer make_layer(LayerKind kind, std::string role, std::string kernel, kernels::Shape shape,
                 std::array<std::uint32_t, 3> in, std::array<std::uint32_t, 3> out, std::uint32_t stride, bool relu6) {
  Layer l;
  l.kind = kind, l.role = std::move(role), l.kernel = std::move(kernel), l.shape = std::move(shape);
  l.height = in[0], l.width = in[1], l.in_channels = in[2];
  l.out_height = out[0], l.out_width = out[1], l.out_channels = out[2];
  l.stride = stride, l.relu6 = relu6;
  return l;
}

}  // namespace

Network mobilenet_v2(std::uint32_t batch, std::uint32_t resolution) {
  if (resolution < kMinResolution || resolution > kMaxResolution || resolution % 32 != 0) {
    throw Error(ErrorKind::usage, "--resolution " + std::to_string(resolution) + ": MobileNet V2's chain takes " +
                                      std::to_string(kMinResolution) + " to " + std::to_string(kMaxResolution) +
                                      " in steps of 32 (five stride-2 layers halve it to the final map)");
  }
  if (batch < 1 || batch > kMaxBatch) {
    throw Error(ErrorKind::usage, "--batch " + std::to_string(batch) + ": 1 to " + std::to_string(kMaxBatch));
  }
  Network net;
  net.batch = batch, net.resolution = resolution;
  std::uint32_t h = resolution, w = resolution, c = 3;
  std::string current = net.image;
  auto next = [&](Layer layer) {
    layer.input = current;
    layer.output = "act." + std::to_string(net.layers.size());
    current = layer.output;
    net.layers.push_back(std::move(layer));
  };
  auto pointwise = [&](LayerKind kind, const std::string& role, std::uint32_t out, bool relu6) {
    next(make_layer(kind, role, kPointwiseKernel, {batch * h * w, c, out, relu6 ? 2u : 1u}, {h, w, c}, {h, w, out}, 1,
                    relu6));
    c = out;
  };
  // Stem: 3×3 stride 2, padding 1, 3 → 32, ReLU6.
  {
    const std::uint32_t ho = (h - 1) / 2 + 1, wo = (w - 1) / 2 + 1;
    next(make_layer(LayerKind::stem, "stem", kStemKernel, {batch, h, w, c, 32, 2, ho, wo}, {h, w, c}, {ho, wo, 32}, 2,
                    true));
    h = ho, w = wo, c = 32;
  }
  struct Stage {
    std::uint32_t t, c, n, s;
  };
  constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                               {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int block = 0;
  for (const auto& stage : kStages) {
    for (std::uint32_t i = 0; i < stage.n; ++i, ++block) {
      const std::string name = "block " + std::to_string(block) + " ";
      const std::string block_input = current;
      const std::uint32_t in_c = c, stride = i == 0 ? stage.s : 1;
      if (stage.t != 1) pointwise(LayerKind::expand, name + "expand", stage.t * c, true);
      const std::uint32_t ho = (h - 1) / stride + 1, wo = (w - 1) / stride + 1;
      next(make_layer(LayerKind::depthwise, name + "depthwise", kDepthwiseKernel, {batch, h, w, c, stride, ho, wo},
                      {h, w, c}, {ho, wo, c}, stride, true));
      h = ho, w = wo;
      pointwise(LayerKind::project, name + "project", stage.c, false);
      if (stride == 1 && in_c == stage.c) {
        auto add = make_layer(LayerKind::residual, name + "residual", "add", {batch * h * w, c}, {h, w, c}, {h, w, c},
                              1, false);
        add.shortcut = block_input;
        next(std::move(add));
      }
    }
  }
  pointwise(LayerKind::final_1x1, "final 1x1", 1280, true);
  return net;
}

}  // namespace vktune::vision
