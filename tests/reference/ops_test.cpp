// Reference ops against closed-form cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "common/error.hpp"
#include "reference/ops.hpp"

namespace vktune::ref {
namespace {

using Floats = std::vector<float>;

TEST(RmsNorm, ClosedForm) {
  // Row (3, 4): mean of squares 12.5; eps 0 -> y = x / sqrt(12.5).
  const Floats x = {3, 4, -1, -1};
  const auto y = rmsnorm(x, 2, 0.0);
  EXPECT_DOUBLE_EQ(y[0], 3 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(y[1], 4 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(y[2], -1.0);
  // eps goes inside the square root, added to the mean: (1 + 3) -> 1/2.
  const Floats ones = {1, 1};
  const Floats w = {2, -4};
  EXPECT_EQ(rmsnorm(ones, 2, 3.0, w), (std::vector<double>{1.0, -2.0}));
  EXPECT_THROW((void)rmsnorm(x, 3, 0.0), Error);
  EXPECT_THROW((void)rmsnorm(x, 2, 0.0, Floats{1}), Error);
}

TEST(LayerNorm, ClosedForm) {
  // Row (1, 3): mean 2, biased variance 1 -> (-1, 1); eps 3 -> (-1/2, 1/2).
  const Floats x = {1, 3};
  EXPECT_EQ(layernorm(x, 2, 0.0), (std::vector<double>{-1.0, 1.0}));
  EXPECT_EQ(layernorm(x, 2, 3.0, Floats{2, 2}, Floats{10, 20}), (std::vector<double>{9.0, 21.0}));
  const Floats constant = {5, 5, 5};
  EXPECT_EQ(layernorm(constant, 3, 1.0), (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(Softmax, OneHotUniformAndStable) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(softmax(Floats{-inf, 0.0f, -inf}, 3), (std::vector<double>{0.0, 1.0, 0.0}));
  EXPECT_EQ(softmax(Floats{7, 7, 7, 7}, 4), (std::vector<double>{0.25, 0.25, 0.25, 0.25}));
  // Large inputs do not overflow: (1000, 1000 + ln 3) -> (1/4, 3/4).
  const auto y = softmax(Floats{1000.0f, 1001.0f}, 2);
  EXPECT_NEAR(y[0], 1.0 / (1.0 + std::exp(1.0)), 1e-15);
  EXPECT_NEAR(y[0] + y[1], 1.0, 1e-15);
  // Two rows are independent.
  const auto rows = softmax(Floats{0, 0, 5, -inf}, 2);
  EXPECT_EQ(rows, (std::vector<double>{0.5, 0.5, 1.0, 0.0}));
}

TEST(Rope, PositionZeroIsIdentity) {
  const Floats x = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::int32_t zero[] = {0};
  for (const RopeLayout layout : {RopeLayout::normal, RopeLayout::neox}) {
    const auto y = rope(x, 4, zero, layout);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i]);
  }
}

TEST(Rope, LayoutsPairDifferentElements) {
  // head_dim 4, base 10000: pair 0 has theta = p, pair 1 theta = p / 100.
  const Floats x = {1, 0, 0, 0};
  const std::int32_t position[] = {1};
  const auto normal = rope(x, 4, position, RopeLayout::normal);
  // Normal: pair 0 is (x0, x1) -> (cos 1, sin 1).
  EXPECT_DOUBLE_EQ(normal[0], std::cos(1.0));
  EXPECT_DOUBLE_EQ(normal[1], std::sin(1.0));
  EXPECT_EQ(normal[2], 0.0);
  const auto neox = rope(x, 4, position, RopeLayout::neox);
  // NeoX: pair 0 is (x0, x2).
  EXPECT_DOUBLE_EQ(neox[0], std::cos(1.0));
  EXPECT_EQ(neox[1], 0.0);
  EXPECT_DOUBLE_EQ(neox[2], std::sin(1.0));
  // The second pair turns by p * 10000^(-1/2) = 1/100.
  const auto second = rope(Floats{0, 0, 1, 0}, 4, position, RopeLayout::normal);
  EXPECT_DOUBLE_EQ(second[2], std::cos(0.01));
  EXPECT_DOUBLE_EQ(second[3], std::sin(0.01));
}

TEST(Rope, PerTokenPositionsAndAllHeads) {
  // Two tokens of two heads of 2; position 0 then pi/2 with base 1 (theta = p).
  const Floats x = {1, 0, 0, 1, 1, 0, 0, 1};
  const std::int32_t positions[] = {0, 2};
  const auto y = rope(x, 2, positions, RopeLayout::normal, 1.0);
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y[3], 1.0);
  EXPECT_DOUBLE_EQ(y[4], std::cos(2.0));
  EXPECT_DOUBLE_EQ(y[5], std::sin(2.0));
  EXPECT_DOUBLE_EQ(y[6], -std::sin(2.0));
  EXPECT_DOUBLE_EQ(y[7], std::cos(2.0));
  EXPECT_THROW((void)rope(x, 3, positions, RopeLayout::normal), Error);
}

TEST(Activations, ClosedForms) {
  const auto s = swiglu(Floats{0, 1, -1}, Floats{5, 2, 2});
  EXPECT_EQ(s[0], 0.0);
  EXPECT_DOUBLE_EQ(s[1], 2.0 / (1.0 + std::exp(-1.0)));
  EXPECT_DOUBLE_EQ(s[2], -2.0 / (1.0 + std::exp(1.0)));
  EXPECT_THROW((void)swiglu(Floats{1}, Floats{1, 2}), Error);

  const auto erf_form = gelu_erf(Floats{0, 1, -1});
  EXPECT_EQ(erf_form[0], 0.0);
  EXPECT_DOUBLE_EQ(erf_form[1], 0.5 * (1.0 + std::erf(1.0 / std::numbers::sqrt2)));
  EXPECT_NEAR(erf_form[1], 0.8413447460685429, 1e-15);  // Phi(1)
  EXPECT_NEAR(erf_form[1] - erf_form[2], 1.0, 1e-15);    // gelu(x) - gelu(-x) = x
  const auto tanh_form = gelu_tanh(Floats{0, 1, 3});
  EXPECT_EQ(tanh_form[0], 0.0);
  EXPECT_DOUBLE_EQ(tanh_form[1], 0.5 * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * 1.044715)));
  EXPECT_NEAR(tanh_form[1], erf_form[1], 2e-4);  // the two forms agree closely
  EXPECT_NEAR(tanh_form[2], 3.0, 0.01);
}

TEST(Elementwise, AddAndMul) {
  EXPECT_EQ(add(Floats{1, 2}, Floats{0.5f, -2}), (std::vector<double>{1.5, 0.0}));
  EXPECT_EQ(mul(Floats{3, -2}, Floats{0.5f, 4}), (std::vector<double>{1.5, -8.0}));
  // Exact in double where float would round.
  EXPECT_EQ(add(Floats{16777216.0f}, Floats{1.0f})[0], 16777217.0);
  EXPECT_THROW((void)mul(Floats{1}, Floats{}), Error);
}

TEST(Argmax, LowestIndexOnTiesAndNaN) {
  EXPECT_EQ(argmax(Floats{1, 3, 2}), 1u);
  EXPECT_EQ(argmax(Floats{5, 1, 5, 5}), 0u);
  EXPECT_EQ(argmax(Floats{-1, 2, 2}), 1u);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(argmax(Floats{nan, -3, -2}), 2u);
  EXPECT_EQ(argmax(Floats{nan, nan}), 0u);
  EXPECT_EQ(argmax(Floats{-std::numeric_limits<float>::infinity()}), 0u);
  EXPECT_THROW((void)argmax(Floats{}), Error);
}

TEST(Attention, SingleTokenReturnsItsValue) {
  // One cached token: softmax of one score is 1, so the output is v.
  const AttentionShape shape{2, 1, 2, 1};
  const auto out = attention(Floats{1, 2, 3, 4}, Floats{9, 9}, Floats{0.5f, -1}, shape);
  EXPECT_EQ(out, (std::vector<double>{0.5, -1.0, 0.5, -1.0}));
}

TEST(Attention, OrthogonalKeysAndGroupedHeads) {
  // head_dim 2, 2 tokens, 2 KV heads, 4 query heads (group of 2).
  // Query heads 0,1 read KV head 0; heads 2,3 read KV head 1.
  const AttentionShape shape{4, 2, 2, 2};
  const float big = 100.0f;
  // k[t, kvh]: token 0 keys (1,0), token 1 keys (0,1), for both KV heads.
  const Floats k = {1, 0, 1, 0, 0, 1, 0, 1};
  // v[t, kvh]: distinct per token and KV head.
  const Floats v = {1, 2, 10, 20, 3, 4, 30, 40};
  // Head 0 looks at token 0, head 1 at token 1, heads 2 and 3 score both equally.
  const Floats q = {big, 0, 0, big, 0, 0, 1, 1};
  const auto out = attention(q, k, v, shape, 1.0);
  EXPECT_NEAR(out[0], 1.0, 1e-12);
  EXPECT_NEAR(out[1], 2.0, 1e-12);
  EXPECT_NEAR(out[2], 3.0, 1e-12);
  EXPECT_NEAR(out[3], 4.0, 1e-12);
  EXPECT_DOUBLE_EQ(out[4], 20.0);  // uniform over tokens of KV head 1: (10 + 30) / 2
  EXPECT_DOUBLE_EQ(out[5], 30.0);
  EXPECT_DOUBLE_EQ(out[6], 20.0);
  EXPECT_DOUBLE_EQ(out[7], 30.0);
}

TEST(Attention, DefaultScaleAndValidation) {
  // Scores 2*scale and 0; with head_dim 4, scale 1/2: weights e^1/(e^1 + 1).
  const AttentionShape shape{1, 1, 4, 2};
  const Floats q = {1, 1, 1, 1};
  const Floats k = {0.5f, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0};
  const Floats v = {1, 1, 1, 1, 0, 0, 0, 0};
  const double p = std::exp(1.0) / (std::exp(1.0) + 1.0);
  EXPECT_NEAR(attention(q, k, v, shape)[0], p, 1e-15);
  EXPECT_THROW((void)attention(q, k, v, AttentionShape{3, 2, 4, 2}), Error);
  EXPECT_THROW((void)attention(q, k, Floats{1}, shape), Error);
}

TEST(CausalAttention, EachQuerySeesItsPrefix) {
  // One head of head_dim 4 (scale 1/2), three cache entries, the last two
  // the prompt's queries. Query 0 (position 1) sees entries 0 and 1, query
  // 1 (position 2) all three; q·k = 2 on entry 0 and 0 elsewhere.
  const AttentionShape shape{1, 1, 4, 3};
  const Floats q = {1, 1, 1, 1, 1, 1, 1, 1};
  const Floats k = {0.5f, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0};
  const Floats v = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  const auto out = causal_attention(q, k, v, shape, 2);
  const double e = std::exp(1.0);
  const std::vector<double> want = {e / (e + 1), 1 / (e + 1), 0, 0, e / (e + 2), 1 / (e + 2), 1 / (e + 2), 0};
  ASSERT_EQ(out.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-15) << i;
}

TEST(CausalAttention, PromptFromAnEmptyCacheGroupedHeadsAndASample) {
  // Four queries of 2 heads on 1 KV head, head_dim 2: query 0 sees entry 0
  // alone (its value, for both heads); a sample computes only its queries.
  const AttentionShape shape{2, 1, 2, 4};
  Floats q(4 * 2 * 2), k(4 * 2), v(4 * 2);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = 0.5f - 0.125f * static_cast<float>(i), v[i] = static_cast<float>(i);
  const auto all = causal_attention(q, k, v, shape, 4);
  for (std::size_t h = 0; h < 2; ++h) {
    EXPECT_DOUBLE_EQ(all[h * 2], v[0]);
    EXPECT_DOUBLE_EQ(all[h * 2 + 1], v[1]);
  }
  const std::vector<std::size_t> only = {2};
  const auto sample = causal_attention(q, k, v, shape, 4, only);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i / 4 == 2) {
      EXPECT_EQ(sample[i], all[i]) << i;
    } else {
      EXPECT_TRUE(std::isnan(sample[i])) << i;
    }
  }
  EXPECT_THROW((void)causal_attention(q, k, v, shape, 5), Error);  // more queries than cache entries
  EXPECT_THROW((void)causal_attention(Floats(3), k, v, shape, 1), Error);
  const std::vector<std::size_t> past = {4};
  EXPECT_THROW((void)causal_attention(q, k, v, shape, 4, past), Error);
}

}  // namespace
}  // namespace vktune::ref
