// The arithmetic of timing on synthetic counter values: wrap-around, masking
// of bits beyond timestampValidBits, scaling, and the statistics.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "common/error.hpp"
#include "harness/timing_stats.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t k2p36 = std::uint64_t{1} << 36;

TEST(TimestampDelta, PlainDifference) {
  EXPECT_EQ(vk::timestamp_delta(10, 25, 64), 15u);
  EXPECT_EQ(vk::timestamp_delta(10, 25, 36), 15u);
  EXPECT_EQ(vk::timestamp_delta(1000, 1000, 64), 0u);
  EXPECT_EQ(vk::timestamp_delta(0, k2p36 - 1, 36), k2p36 - 1);
}

TEST(TimestampDelta, WrapsAt36Bits) {
  EXPECT_EQ(vk::timestamp_delta(k2p36 - 5, 10, 36), 15u);
  EXPECT_EQ(vk::timestamp_delta(k2p36 - 1, 0, 36), 1u);
}

TEST(TimestampDelta, WrapsAt64Bits) {
  EXPECT_EQ(vk::timestamp_delta(kMax64 - 4, 10, 64), 15u);
  EXPECT_EQ(vk::timestamp_delta(kMax64, 0, 64), 1u);
  EXPECT_EQ(vk::timestamp_delta(0, kMax64, 64), kMax64);
}

TEST(TimestampDelta, MasksBitsBeyondTheValidOnes) {
  const std::uint64_t begin = (std::uint64_t{0xabc} << 36) | 100;
  const std::uint64_t end = (std::uint64_t{0x123} << 36) | 150;
  EXPECT_EQ(vk::timestamp_delta(begin, end, 36), 50u);
  // Garbage high bits and a wrap together.
  const std::uint64_t late = (std::uint64_t{0xfff} << 36) | (k2p36 - 3);
  const std::uint64_t early = (std::uint64_t{0x001} << 36) | 4;
  EXPECT_EQ(vk::timestamp_delta(late, early, 36), 7u);
  // One valid bit: the counter is 0 or 1.
  EXPECT_EQ(vk::timestamp_delta(1, 0, 1), 1u);
  EXPECT_EQ(vk::timestamp_delta(0b10, 0b11, 1), 1u);
}

TEST(TimestampDelta, InvalidBitCountsAreRefused) {
  EXPECT_EQ(capture_error([] { vk::timestamp_delta(0, 1, 0); }).kind(), ErrorKind::internal);
  EXPECT_EQ(capture_error([] { vk::timestamp_delta(0, 1, 65); }).kind(), ErrorKind::internal);
}

TEST(TicksToNs, ScalesByFractionalPeriods) {
  EXPECT_DOUBLE_EQ(vk::ticks_to_ns(0, 52.08), 0.0);
  EXPECT_DOUBLE_EQ(vk::ticks_to_ns(1000, 1.0), 1000.0);
  EXPECT_DOUBLE_EQ(vk::ticks_to_ns(1000, 52.08), 52080.0);
  EXPECT_DOUBLE_EQ(vk::ticks_to_ns(3, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(vk::ticks_to_ns(7, 83.333), 583.331);
  // Large counts stay in double, not in a 32-bit product.
  EXPECT_DOUBLE_EQ(vk::ticks_to_ns(std::uint64_t{1} << 40, 2.5), 2.5 * 1099511627776.0);
}

TEST(ComputeStats, OneToTen) {
  const auto s = vk::compute_stats({7, 3, 10, 1, 5, 2, 9, 4, 8, 6});  // order must not matter
  EXPECT_EQ(s.count, 10u);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 10.0);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.p10, 1.9);  // position 0.9 between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90, 9.1);  // position 8.1 between 9 and 10
  // |x - 5.5| = 0.5 0.5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 4.5
  EXPECT_DOUBLE_EQ(s.mad, 2.5);
}

TEST(ComputeStats, OddCountAndOutlier) {
  const auto s = vk::compute_stats({1, 2, 3, 4, 100});
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 22.0);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);   // position 0.4
  EXPECT_DOUBLE_EQ(s.p90, 61.6);  // position 3.6: 4 + 0.6 * 96
  // |x - 3| = 2 1 0 1 97 -> 0 1 1 2 97
  EXPECT_DOUBLE_EQ(s.mad, 1.0);
  EXPECT_LE(s.min, s.p10);
  EXPECT_LE(s.p10, s.median);
  EXPECT_LE(s.median, s.p90);
  EXPECT_LE(s.p90, s.max);
}

TEST(ComputeStats, SingleSample) {
  const auto s = vk::compute_stats({42.5});
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.min, 42.5);
  EXPECT_DOUBLE_EQ(s.max, 42.5);
  EXPECT_DOUBLE_EQ(s.median, 42.5);
  EXPECT_DOUBLE_EQ(s.p10, 42.5);
  EXPECT_DOUBLE_EQ(s.p90, 42.5);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
}

TEST(ComputeStats, EmptySampleThrows) {
  const Error error = capture_error([] { vk::compute_stats({}); });
  EXPECT_EQ(error.kind(), ErrorKind::internal);
}

}  // namespace
}  // namespace vktune::test
