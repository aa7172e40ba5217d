// rope's kernels described without a device (layouts and storages, the
// cache-writing rope's problem and legality), and on the test device
// (VKTUNE_TEST_DEVICE, else 0) a cache store to the wrong row caught.
// Every valid variant of each at every check shape runs in
// decode_ops_test.cpp with the other decode-step ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "reference/fp16.hpp"

namespace vktune {
namespace {

using kernels::Shape;
using testing_support::h200;
using testing_support::WrongReference;

TEST(Rope, LayoutsAndStoragesAreKernelsOfTheirOwn) {
  const Shape shape{2, 3, 64};
  const auto normal = kernels::find_kernel("rope").make_problem(shape, 1);
  const auto neox = kernels::find_kernel("rope_neox").make_problem(shape, 1);
  const auto f16 = kernels::find_kernel("rope_f16").make_problem(shape, 1);
  EXPECT_NE(normal.expected, neox.expected);
  EXPECT_EQ(f16.buffers[0].bytes.size() * 2, normal.buffers[0].bytes.size());  // fp16 x
  EXPECT_EQ(f16.buffers[3].bytes.size(), normal.buffers[3].bytes.size());      // fp32 y
  EXPECT_NE(f16.expected, normal.expected);  // the reference reads the rounded x
}

// The cache kernels' problem, recomputed here from its inputs without
// ref::rope: every element of the row at pos[t] is token t's rotation
// rounded to fp16 (ties to even), every other row untouched(); the positions
// are distinct, within the cache, include its last row (the largest angle)
// and are not the tokens' own indices.
TEST(Rope, CacheProblemIsTheRoundedRotationAtThePositions) {
  const Shape shape{5, 2, 12, 9};  // tokens, heads, head_dim, kv_len
  const std::size_t tokens = 5, row = 2 * 12, half = 6, kv_len = 9;
  for (const std::string name : {"rope_cache", "rope_neox_cache"}) {
    const bool neox = name == "rope_neox_cache";
    const auto problem = kernels::find_kernel(name).make_problem(shape, 3);
    ASSERT_EQ(problem.buffers.size(), 4u) << name;
    EXPECT_TRUE(problem.output_f16);
    EXPECT_EQ(problem.output_index, 3u);
    ASSERT_EQ(problem.buffers[0].bytes.size(), tokens * row * sizeof(float));
    ASSERT_EQ(problem.buffers[1].bytes.size(), tokens * sizeof(std::int32_t));
    ASSERT_EQ(problem.buffers[2].bytes.size(), sizeof(float));
    ASSERT_EQ(problem.buffers[3].bytes.size(), kv_len * row * 2);
    ASSERT_EQ(problem.expected.size(), kv_len * row);
    std::vector<float> x(tokens * row);
    std::vector<std::int32_t> pos(tokens);
    float base = 0;
    std::memcpy(x.data(), problem.buffers[0].bytes.data(), problem.buffers[0].bytes.size());
    std::memcpy(pos.data(), problem.buffers[1].bytes.data(), problem.buffers[1].bytes.size());
    std::memcpy(&base, problem.buffers[2].bytes.data(), sizeof base);
    EXPECT_EQ(base, 500000.0f);

    EXPECT_EQ(std::set<std::int32_t>(pos.begin(), pos.end()).size(), tokens) << name;
    EXPECT_TRUE(std::all_of(pos.begin(), pos.end(), [&](std::int32_t p) { return p >= 0 && p < 9; })) << name;
    EXPECT_NE(std::find(pos.begin(), pos.end(), 8), pos.end()) << name;
    bool moved = false;
    for (std::size_t t = 0; t < tokens; ++t) moved = moved || pos[t] != static_cast<std::int32_t>(t);
    EXPECT_TRUE(moved) << name;

    std::vector<double> want(kv_len * row, kernels::untouched());
    for (std::size_t t = 0; t < tokens; ++t) {
      for (std::size_t h = 0; h < 2; ++h) {
        const float* in = x.data() + t * row + h * 12;
        double* out = want.data() + static_cast<std::size_t>(pos[t]) * row + h * 12;
        for (std::size_t i = 0; i < half; ++i) {
          const double theta = pos[t] * std::pow(500000.0, -2.0 * static_cast<double>(i) / 12.0);
          const std::size_t ia = neox ? i : 2 * i, ib = neox ? i + half : 2 * i + 1;
          const double a = in[ia], b = in[ib];
          const auto fp16 = [](double v) { return ref::fp16_to_fp32(ref::fp32_to_fp16(static_cast<float>(v))); };
          out[ia] = fp16(a * std::cos(theta) - b * std::sin(theta));
          out[ib] = fp16(a * std::sin(theta) + b * std::cos(theta));
        }
      }
    }
    std::size_t untouched = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (kernels::is_untouched(want[i])) {
        EXPECT_TRUE(kernels::is_untouched(problem.expected[i])) << name << " element " << i;
        ++untouched;
      } else {
        EXPECT_EQ(problem.expected[i], want[i]) << name << " element " << i;
      }
    }
    EXPECT_EQ(untouched, (kv_len - tokens) * row) << name;
  }
}

// NeoX into the cache packs outputs i and i+1 of a half into one 32-bit
// word, which one invocation must write whole: VEC=1 is refused there (and
// only there), the baseline takes two pairs, and a head_dim whose pairs do
// not come in twos is refused as a shape. The cache shapes' own checks:
// tokens within the cache, positions within the tolerance's 8192, the cache
// within 32-bit indexing.
TEST(Rope, CacheLegalityAndShapes) {
  const auto device = h200();
  const auto& neox = kernels::find_kernel("rope_neox_cache");
  const auto& normal = kernels::find_kernel("rope_cache");
  const Shape shape{3, 5, 80, 17};
  auto config = neox.baseline(shape);
  EXPECT_EQ(config.at("VEC"), 2);
  EXPECT_EQ(neox.constraint_violation(config, shape, device).detail, "");
  config["VEC"] = 1;
  EXPECT_NE(neox.constraint_violation(config, shape, device).detail.find("VEC >= 2"), std::string::npos);
  EXPECT_EQ(normal.baseline(shape).at("VEC"), 1);
  EXPECT_EQ(normal.constraint_violation(config, shape, device).detail, "");
  EXPECT_EQ(kernels::find_kernel("rope_neox").constraint_violation(config, {3, 5, 80}, device).detail, "");
  for (const auto& s : neox.check_shapes()) {
    const auto space = enumerate_space(neox, s, device);
    EXPECT_FALSE(space.valid.empty()) << kernels::shape_to_string(s);
    for (const auto& c : space.valid) EXPECT_GE(c.at("VEC"), 2) << kernels::shape_to_string(s);
  }

  EXPECT_THROW(neox.validate_shape({1, 8, 6, 16}), Error);  // 3 pairs: not in twos
  EXPECT_NO_THROW(normal.validate_shape({1, 8, 6, 16}));
  for (const auto* k : {&neox, &normal}) {
    EXPECT_NO_THROW(k->validate_shape({8, 8, 128, 8}));
    EXPECT_THROW(k->validate_shape({9, 8, 128, 8}), Error);         // more tokens than rows
    EXPECT_THROW(k->validate_shape({1, 8, 128, 8193}), Error);      // beyond the tolerance's positions
    EXPECT_THROW(k->validate_shape({1, 1024, 1024, 4096}), Error);  // 2^32 cache values
    EXPECT_THROW(k->validate_shape({1, 8, 128}), Error);            // no kv_len
  }
}

// ---- on the device ----

// The cache kernels must leave every row no token goes to as it was: given
// a first position other than the one the reference expects (a row no other
// token takes), the baseline writes a row that must stay untouched.
class RopeCacheDevice : public testing_support::DeviceSuite<int> {};

TEST_F(RopeCacheDevice, AStoreToAnotherRowIsCaught) {
  for (const std::string name : {"rope_cache", "rope_neox_cache"}) {
    const WrongReference moved(kernels::find_kernel(name), [](kernels::Problem& p) {
      const auto kv_len = static_cast<std::int32_t>(p.shape.at(3));
      std::vector<std::int32_t> pos(p.shape.at(0));
      std::memcpy(pos.data(), p.buffers.at(1).bytes.data(), pos.size() * sizeof(std::int32_t));
      do {
        pos[0] = (pos[0] + 1) % kv_len;
      } while (std::find(pos.begin() + 1, pos.end(), pos[0]) != pos.end());
      std::memcpy(p.buffers.at(1).bytes.data(), pos.data(), pos.size() * sizeof(std::int32_t));
    });
    const Shape shape = moved.check_shapes().back();
    const auto failures = testing_support::failing_variants(*instance_, moved, shape, {moved.baseline(shape)}, 5);
    ASSERT_EQ(failures.size(), 1u) << name;
    EXPECT_NE(failures[0].find("must leave untouched were written"), std::string::npos) << name << ": " << failures[0];
  }
}

}  // namespace
}  // namespace vktune
