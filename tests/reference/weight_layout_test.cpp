// reference/weight_layout.hpp: where each byte of a Q6_K matrix lies in the
// split layout, checked against the layout's definition byte by byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "reference/random_blocks.hpp"
#include "reference/weight_layout.hpp"

namespace vktune::ref {
namespace {

std::uint64_t fresh_seed() {
  const std::uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

// Block i's 208 bytes of ql, qh and scales at 208*i, its 2 bytes of d at
// 208*B + 2*i, every byte of them as GGUF's block i holds it at 210*i; the
// padding after the blocks as it was.
TEST(WeightLayout, TheSplitLayoutPutsEveryBlocksBodyThenEveryDInBlockOrder) {
  const auto seed = fresh_seed();
  for (const std::size_t rows : {1u, 3u, 7u}) {
    const std::size_t k = 256 * (rows + 2);  // 3 to 9 blocks a row: odd and even counts
    auto gguf = random_quantized_rows(GgmlType::Q6_K, rows, k, seed + rows);
    const std::size_t blocks = rows * (k / 256);
    ASSERT_EQ(gguf.size(), 210 * blocks);
    const std::size_t pad = (16 - gguf.size() % 16) % 16;
    gguf.resize(gguf.size() + pad, 0);
    const auto split = to_layout(WeightLayout::q6_k_split, gguf);
    ASSERT_EQ(split.size(), gguf.size());
    for (std::size_t i = 0; i < blocks; ++i) {
      for (std::size_t b = 0; b < 208; ++b) ASSERT_EQ(split[208 * i + b], gguf[210 * i + b]) << "block " << i;
      ASSERT_EQ(split[208 * blocks + 2 * i], gguf[210 * i + 208]) << "block " << i;
      ASSERT_EQ(split[208 * blocks + 2 * i + 1], gguf[210 * i + 209]) << "block " << i;
    }
    for (std::size_t p = 210 * blocks; p < split.size(); ++p) EXPECT_EQ(split[p], 0);
    EXPECT_NE(split, gguf);
    EXPECT_EQ(from_layout(WeightLayout::q6_k_split, split), gguf);
    EXPECT_EQ(to_layout(WeightLayout::gguf, gguf), gguf);
  }
}

TEST(WeightLayout, BytesThatAreNotWholeBlocksAreRefusedWithTheirCount) {
  const std::vector<std::uint8_t> bytes(210 * 2 + 16, 0);
  try {
    (void)to_layout(WeightLayout::q6_k_split, bytes);
    FAIL() << "436 bytes were split";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("436 bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(layout_name(WeightLayout::q6_k_split), "q6_k_split");
}

}  // namespace
}  // namespace vktune::ref
