// A table exported by `vktune export` on an NVIDIA H200 (matmul_q4k, decode
// 1,4096,4096 and prefill 512,4096,4096, short tuning budgets): the real
// format from a real GPU, looked up as several other devices.
#include <gtest/gtest.h>

#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;

namespace {

const rt::DeviceIdentity kH200{0x10de, 0x2335, 2435301632u, "NVIDIA H200", "8d2818ef0303af41c6db3473ca84cb01"};

rt::Table h200_table() { return rt::Table::open(VKTUNE_RT_DATA_DIR "/h200_matmul_q4k.json"); }

rt::LookupResult find(const rt::DeviceIdentity& device, std::vector<std::uint32_t> shape) {
  rt::Contract baseline;
  baseline.stages.emplace_back();
  baseline.stages[0].spirv = {0x07230203u, 0x00010000u, 0, 1, 0};
  return h200_table().lookup(rt::Query{device, "matmul_q4k", std::move(shape), ""}, baseline);
}

}  // namespace

TEST(RuntimeH200Table, Loads) {
  const auto table = h200_table();
  ASSERT_EQ(table.devices().size(), 1u);
  EXPECT_EQ(table.devices()[0].identity, kH200);
  ASSERT_EQ(table.entries().size(), 2u);
  EXPECT_EQ(table.entries()[0].shape, (std::vector<std::uint32_t>{1, 4096, 4096}));
  EXPECT_EQ(table.entries()[1].shape, (std::vector<std::uint32_t>{512, 4096, 4096}));
  EXPECT_EQ(table.entries()[1].contract.stages[0].local_size, (std::array<std::uint32_t, 3>{256, 1, 1}));
}

TEST(RuntimeH200Table, LookupsAsOtherDevices) {
  auto r = find(kH200, {1, 4096, 4096});
  EXPECT_EQ(r.match, rt::Match::device_and_driver);
  EXPECT_EQ(r.workgroups[0], (std::array<std::uint32_t, 3>{2048, 1, 1}));
  r = find(kH200, {256, 14336, 4096});
  EXPECT_EQ(r.tuned_shape, (std::vector<std::uint32_t>{512, 4096, 4096}));
  EXPECT_EQ(r.workgroups[0], (std::array<std::uint32_t, 3>{224, 4, 1}));

  auto newer = kH200;
  newer.driver_version += 1 << 14;
  EXPECT_EQ(find(newer, {1, 4096, 4096}).match, rt::Match::device);
  EXPECT_EQ(find({0x10de, 0x2330, 1, "NVIDIA H100 80GB HBM3"}, {1, 4096, 4096}).match, rt::Match::architecture);
  EXPECT_EQ(find({0x10de, 0x2684, 1, "NVIDIA GeForce RTX 4090"}, {1, 4096, 4096}).match, rt::Match::vendor);
  EXPECT_EQ(find({0x1002, 0x744c, 1, "AMD Radeon RX 7900 XTX"}, {1, 4096, 4096}).match, rt::Match::baseline);
}
