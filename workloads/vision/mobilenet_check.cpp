#include "workloads/vision/mobilenet_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "kernels/registry.hpp"
#include "engine/validation.hpp"
#include "workloads/vision/mobilenet_reference.hpp"

namespace vktune::vision {

namespace {

std::vector<float> floats_of(const std::vector<std::uint8_t>& bytes, std::size_t count) {
  std::vector<float> v(count);
  std::memcpy(v.data(), bytes.data(), std::min(bytes.size(), count * sizeof(float)));
  return v;
}

std::size_t elements(std::uint32_t batch, std::uint32_t h, std::uint32_t w, std::uint32_t c) {
  return std::size_t{batch} * h * w * c;
}

}  // namespace

ChainCheck check_mobilenet(const Network& net, const Weights& weights, const chain::KernelChain& chain) {
  ChainCheck check;
  std::map<std::string, std::vector<float>> device{{net.image, weights.image}};
  auto read = [&](const std::string& buffer, std::size_t count) -> const std::vector<float>& {
    auto it = device.find(buffer);
    if (it == device.end()) it = device.emplace(buffer, floats_of(chain.download(buffer), count)).first;
    return it->second;
  };
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const auto& layer = net.layers[i];
    const auto& op = chain.ops()[i];
    const auto in_count = elements(net.batch, layer.height, layer.width, layer.in_channels);
    const auto& input = read(layer.input, in_count);
    const std::span<const float> shortcut =
        layer.shortcut.empty() ? std::span<const float>() : std::span<const float>(read(layer.shortcut, in_count));
    const auto want = reference_layer(layer, net.batch, input, shortcut, weights.layers[i]);
    const auto& got = read(layer.output, elements(net.batch, layer.out_height, layer.out_width, layer.out_channels));
    LayerCheck verdict;
    verdict.layer = i;
    verdict.tolerance = kernels::find_kernel(op.kernel).variant_tolerance(op.config, op.shape);
    const auto v = compare_output(got, want, verdict.tolerance);
    verdict.rel_l2 = v.rel_l2, verdict.max_rel = v.max_rel, verdict.passed = v.passed, verdict.why = v.reason;
    check.failed += !verdict.passed;
    if (verdict.tolerance.rel_l2 > 0) check.worst_share = std::max(check.worst_share, v.rel_l2 / verdict.tolerance.rel_l2);
    check.layers.push_back(std::move(verdict));
  }
  const auto& last = net.last();
  const auto& map = read(last.output, elements(net.batch, last.out_height, last.out_width, last.out_channels));
  const auto final_check = compare_output(map, reference_chain(net, weights), {kFinalMapTolerance, 1.0});
  check.final_rel_l2 = final_check.non_finite > 0 ? std::nan("") : final_check.rel_l2;
  check.final_max_rel = final_check.max_rel;
  check.final_passed = check.final_rel_l2 <= kFinalMapTolerance;  // NaN fails
  check.passed = check.failed == 0 && check.final_passed;
  double squares = 0;
  std::size_t zeros = 0, sixes = 0;
  for (const float v : map) squares += double{v} * v, zeros += v == 0.0f, sixes += v == 6.0f;
  const auto n = static_cast<double>(map.size());
  check.final_rms = std::sqrt(squares / n);
  check.final_share_zero = static_cast<double>(zeros) / n, check.final_share_six = static_cast<double>(sixes) / n;
  return check;
}

}  // namespace vktune::vision
