// X_SCOPE=1 of the quantized matmuls' dedicated layouts (kernels/quant_matmul.cpp,
// templates/include/matvec_q8_walk.glsl): each slot quantizes the x of its
// own units, synchronised by subgroup barriers, so a slot's invocations must
// lie in one subgroup. Its legality, path, plan and shared memory here; its
// numbers are the gate's (quant_matmul_device_test.cpp's covering arrays
// take the path).
#include <gtest/gtest.h>

#include <string>

#include "kernels/registry.hpp"
#include "tuner/space.hpp"
#include "kernel_test_support.hpp"
#include "quant_formats.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;
using quant_matmul_testing::Format;
using testing_support::define_value;

class SlotScopeX : public ::testing::TestWithParam<Format> {
 protected:
  const kernels::Kernel& kernel() const { return kernels::find_kernel(GetParam().kernel); }
  std::string layout() const { return GetParam().block_weights == 32 ? "BLOCK_PAIRS" : "SUPER_BLOCK"; }
  // The dedicated layout's integer path at 256 invocations, 16 rows, 32 per
  // row (8 slots of 32 invocations), one unit per step.
  Config slot_config(const Shape& shape) const {
    auto config = kernel().baseline(shape);
    config["WG_SIZE"] = 256;
    config["ROWS_PER_WG"] = 16;
    config["THREADS_PER_ROW"] = 32;
    config["UNROLL"] = 1;
    config["COLS_PER_PASS"] = 1;
    config["X_QUANT"] = 1;
    config["X_SEGMENT"] = 4096;
    config[layout()] = 1;
    config["X_SCOPE"] = 1;
    return config;
  }
};

TEST_P(SlotScopeX, ASlotMustLieInOneSubgroup) {
  const auto device = testing_support::h200_like();  // subgroups of 32
  const Shape decode{1, 4096, 14336};
  auto config = slot_config(decode);
  ASSERT_EQ(kernel().constraint_violation(config, decode, device).detail, "");
  auto wide = config;  // 4 slots of 64 invocations
  wide["THREADS_PER_ROW"] = 16;
  EXPECT_NE(kernel().constraint_violation(wide, decode, device).detail.find("one subgroup"), std::string::npos);
  auto half = wide;  // 4 slots of 32 at 128 invocations
  half["WG_SIZE"] = 128;
  EXPECT_EQ(kernel().constraint_violation(half, decode, device).detail, "");
  // Workgroup scope has no such rule.
  wide["X_SCOPE"] = 0;
  EXPECT_EQ(kernel().constraint_violation(wide, decode, device).detail, "");
  // A device whose subgroups may be 16 wide: 32-invocation slots may span two.
  auto narrow = device;
  narrow.min_subgroup_size = 16;
  EXPECT_NE(kernel().constraint_violation(config, decode, narrow).detail.find("one subgroup"), std::string::npos);
}

TEST_P(SlotScopeX, OnlyTheIntegerLayoutReadsIt) {
  const auto device = testing_support::h200_like();
  const Shape decode{1, 4096, 14336};
  const auto config = slot_config(decode);
  auto segment = config;  // each slot quantizes its own units: no segment
  segment["X_SEGMENT"] = 16384;
  EXPECT_NE(kernel().constraint_violation(segment, decode, device).detail.find("X_SEGMENT"), std::string::npos);
  auto generic = config;
  generic[layout()] = 0;
  EXPECT_NE(kernel().constraint_violation(generic, decode, device).detail.find("X_SCOPE"), std::string::npos);
  // The path: the layout's integer path with X_SCOPE=1 and X_SEGMENT pinned;
  // a config stored before X_SCOPE existed completes to X_SCOPE=0.
  const auto space = enumerate_space(kernel(), decode, testing_support::h200_like_other_vendor(), SpaceScope::full);
  bool found = false;
  for (const auto& c : space.valid) {
    if (c.at("X_SCOPE") != 1) continue;
    found = true;
    EXPECT_EQ(c.at(layout()), 1) << kernels::config_to_string(c);
    EXPECT_EQ(c.at("X_QUANT"), 1) << kernels::config_to_string(c);
    EXPECT_EQ(c.at("X_SEGMENT"), 4096) << kernels::config_to_string(c);
  }
  EXPECT_TRUE(found);
}

TEST_P(SlotScopeX, PlanDefinesItAndSizesOneRegionPerSlot) {
  const Shape decode{2, 4096, 14336};
  auto config = slot_config(decode);
  config["COLS_PER_PASS"] = 2;
  config["UNROLL"] = 2;
  const auto plan = kernel().plan(config, decode);
  EXPECT_EQ(define_value(plan, "X_SCOPE"), "1");
  // 8 slots × 2 units × 256 values of 2 x rows, a byte each, and a (dx, sum)
  // pair of floats per 32; then the 8 slots' partial sums of 16 rows × 2.
  const std::uint32_t values = 8 * 2 * 256;
  EXPECT_EQ(plan.shared_memory_bytes, 2 * (values + values / 32 * 8) + 4 * 8 * 16 * 2);
  config["X_SCOPE"] = 0;
  config["X_SEGMENT"] = 16384;
  const auto before = kernel().plan(config, decode);
  EXPECT_EQ(define_value(before, "X_SCOPE"), "");  // undefined: the template's default
  EXPECT_EQ(before.shared_memory_bytes, 2 * (16384 + 16384 / 32 * 8) + 4 * 8 * 16 * 2);
}

INSTANTIATE_TEST_SUITE_P(Kernels, SlotScopeX, ::testing::ValuesIn(quant_matmul_testing::kFormats),
                         [](const auto& info) { return info.param.kernel; });

}  // namespace
}  // namespace vktune
