// The roofline of the HTML report with and without a tensor-core ceiling:
// a rate above the FMA roof (a tensor-core variant) is drawn under the
// tensor cores' roof, which only a device that has them gets.
#include "tuner/report_plots.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <random>
#include <string>

namespace vktune {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The roofline of one variant at `variant_gflops` on a device with the
// given tensor-core ceiling.
std::string draw(double variant_gflops, std::optional<double> tensor_gflops) {
  results::ShapeRecord record;
  results::StoredDevice device;
  record.key = {1, "matmul_f16", "4096,4096,4096", "cold"};
  const kernels::Metrics metrics{1e8, 1e11};  // 1000 FLOP per byte: compute-bound on any device
  const results::StoredRow row{.variant_hash = "v1",
                               .config_json = "{}",
                               .status = "ok",
                               .reason = "",
                               .median_ns = metrics.flops / variant_gflops,
                               .gflops = variant_gflops,
                               .created_at = ""};
  record.per_variant = {row};
  record.search_order = {row};
  device.read_gbps = 3000.0;
  device.fp32_gflops = 60000.0;
  device.tensor_gflops = tensor_gflops;
  return roofline_plot({&record, &device, metrics, "s1"});
}

TEST(RooflinePlot, TheTensorCoresRoofIsDrawnWhereTheDeviceHasThem) {
  std::mt19937 random{std::random_device{}()};
  const double tensor = std::uniform_real_distribution<double>(200000.0, 500000.0)(random);
  const double rate = std::uniform_real_distribution<double>(61000.0, 190000.0)(random);  // above FMA, below tensor
  const auto with = draw(rate, tensor);
  EXPECT_EQ(count(with, "class=\"roof\""), 1u) << with;
  EXPECT_EQ(count(with, "class=\"roof-tensor\""), 1u) << with;
  // The title gives both roofs at the kernel's intensity (3000 GB/s x 1000 FLOP/B caps neither).
  char want[64];
  std::snprintf(want, sizeof want, "(tensor cores %.2f)", tensor);
  EXPECT_NE(with.find(want), std::string::npos) << with;

  const auto without = draw(rate, std::nullopt);  // a device with no tensor-core ceiling measured
  EXPECT_EQ(count(without, "class=\"roof-tensor\""), 0u);
  EXPECT_EQ(without.find("tensor cores"), std::string::npos);
  const auto none = draw(rate, 0.0);  // measured: none
  EXPECT_EQ(count(none, "class=\"roof-tensor\""), 0u);
}

}  // namespace
}  // namespace vktune
