#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "reference/fp16.hpp"

namespace vktune::ref {
namespace {

TEST(Fp16, ToFp32NamedValues) {
  EXPECT_EQ(fp16_to_fp32(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(fp16_to_fp32(0x8000)));
  EXPECT_EQ(fp16_to_fp32(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_fp32(0xc000), -2.0f);
  EXPECT_EQ(fp16_to_fp32(0x3555), 0.333251953125f);
  EXPECT_EQ(fp16_to_fp32(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_fp32(0x0400), 6.103515625e-05f);          // smallest normal, 2^-14
  EXPECT_EQ(fp16_to_fp32(0x0001), 5.9604644775390625e-08f);   // smallest subnormal, 2^-24
  EXPECT_EQ(fp16_to_fp32(0x03ff), 6.097555160522461e-05f);    // largest subnormal
  EXPECT_EQ(fp16_to_fp32(0x8001), -5.9604644775390625e-08f);
  EXPECT_EQ(fp16_to_fp32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(fp16_to_fp32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(fp16_to_fp32(0x7e00)));
  EXPECT_TRUE(std::isnan(fp16_to_fp32(0x7c01)));  // signalling NaN stays NaN
  EXPECT_EQ(std::bit_cast<std::uint32_t>(fp16_to_fp32(0x7c01)), 0x7f802000u);
}

TEST(Fp16, EveryValueRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = fp16_to_fp32(bits);
    if (std::isnan(f)) {
      const std::uint16_t back = fp32_to_fp16(f);
      EXPECT_EQ(back & 0x7c00, 0x7c00);
      EXPECT_NE(back & 0x03ff, 0);
      EXPECT_EQ(back & 0x8000, bits & 0x8000);
    } else {
      ASSERT_EQ(fp32_to_fp16(f), bits) << "fp16 bits " << h;
    }
  }
}

TEST(Fp16, RoundsToNearestEven) {
  // Between 1 and the next fp16 (1 + 2^-10): the midpoint ties to even (1.0).
  EXPECT_EQ(fp32_to_fp16(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(fp32_to_fp16(1.0f + 0x1p-11f + 0x1p-23f), 0x3c01);
  // Midpoint between 1+2^-10 (odd) and 1+2^-9 (even) rounds up to even.
  EXPECT_EQ(fp32_to_fp16(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(fp32_to_fp16(-(1.0f + 3 * 0x1p-11f)), 0xbc02);
  // A carry out of the mantissa moves to the next binade.
  EXPECT_EQ(fp32_to_fp16(2.0f - 0x1p-12f), 0x4000);
}

TEST(Fp16, OverflowAndInfinity) {
  EXPECT_EQ(fp32_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(fp32_to_fp16(65519.99f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7c00);   // the midpoint ties to "even" infinity
  EXPECT_EQ(fp32_to_fp16(1e10f), 0x7c00);
  EXPECT_EQ(fp32_to_fp16(-1e10f), 0xfc00);
  EXPECT_EQ(fp32_to_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(fp32_to_fp16(-std::numeric_limits<float>::infinity()), 0xfc00);
  const std::uint16_t nan = fp32_to_fp16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A NaN whose payload lives only in the low bits must not become infinity.
  const std::uint16_t low_nan = fp32_to_fp16(std::bit_cast<float>(0x7f800001u));
  EXPECT_NE(low_nan & 0x03ff, 0);
}

TEST(Fp16, SubnormalsAndUnderflow) {
  EXPECT_EQ(fp32_to_fp16(0x1p-24f), 0x0001);
  EXPECT_EQ(fp32_to_fp16(0x1p-25f), 0x0000);              // tie to even: 0
  EXPECT_EQ(fp32_to_fp16(0x1p-25f + 0x1p-35f), 0x0001);   // just above the tie
  EXPECT_EQ(fp32_to_fp16(3 * 0x1p-25f), 0x0002);          // 1.5 units ties to 2
  EXPECT_EQ(fp32_to_fp16(5 * 0x1p-25f), 0x0002);          // 2.5 units ties to 2
  EXPECT_EQ(fp32_to_fp16(0x1p-14f - 0x1p-25f), 0x0400);   // rounds up into the normals
  EXPECT_EQ(fp32_to_fp16(0x1p-30f), 0x0000);
  EXPECT_EQ(fp32_to_fp16(-0x1p-30f), 0x8000);
  EXPECT_EQ(fp32_to_fp16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(fp32_to_fp16(-0.0f), 0x8000);
}

}  // namespace
}  // namespace vktune::ref
