// vktune::runtime::to_q6_k_split: where each byte of a weight lies in the
// layout the matmul_q6k_split winners read, checked byte by byte against
// the layout's definition (runtime/vktune_runtime.hpp), on random bytes
// (printed seed).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "vktune_runtime.h"
#include "vktune_runtime.hpp"

namespace {

TEST(WeightLayout, EveryBlocksBodyThenEveryDInBlockOrderThePaddingKept) {
  const std::uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (const std::size_t blocks : {1u, 5u, 16u}) {
    const std::size_t pad = (16 - blocks * 210 % 16) % 16;
    std::vector<std::uint8_t> gguf(blocks * 210 + pad);
    for (auto& b : gguf) b = static_cast<std::uint8_t>(rng());
    const auto split = vktune::runtime::to_q6_k_split(gguf.data(), gguf.size());
    ASSERT_EQ(split.size(), gguf.size());
    for (std::size_t i = 0; i < blocks; ++i) {
      for (std::size_t b = 0; b < 208; ++b) ASSERT_EQ(split[208 * i + b], gguf[210 * i + b]) << "block " << i;
      ASSERT_EQ(split[208 * blocks + 2 * i], gguf[210 * i + 208]) << "block " << i;
      ASSERT_EQ(split[208 * blocks + 2 * i + 1], gguf[210 * i + 209]) << "block " << i;
    }
    for (std::size_t p = 210 * blocks; p < gguf.size(); ++p) EXPECT_EQ(split[p], gguf[p]);
  }
}

TEST(WeightLayout, BytesThatAreNotWholeBlocksAreAUsageError) {
  const std::vector<std::uint8_t> bytes(210 * 2 + 16, 0);
  try {
    (void)vktune::runtime::to_q6_k_split(bytes.data(), bytes.size());
    FAIL() << "436 bytes were split";
  } catch (const vktune::runtime::Error& e) {
    EXPECT_EQ(e.kind(), vktune::runtime::Error::Kind::usage);
    EXPECT_NE(std::string(e.what()).find("436 bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)vktune::runtime::to_q6_k_split(nullptr, 210), vktune::runtime::Error);
}

// The C API writes the same bytes, and says what is wrong in one line.
TEST(WeightLayout, TheCApiWritesTheSameBytes) {
  std::mt19937_64 rng(7);
  std::vector<std::uint8_t> gguf(210 * 8);
  for (auto& b : gguf) b = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> out(gguf.size());
  ASSERT_EQ(vktune_to_q6_k_split(gguf.data(), gguf.size(), out.data()), VKTUNE_OK) << vktune_last_error();
  EXPECT_EQ(out, vktune::runtime::to_q6_k_split(gguf.data(), gguf.size()));
  EXPECT_EQ(vktune_to_q6_k_split(gguf.data(), gguf.size() - 1, out.data()), VKTUNE_ERROR_USAGE);
  EXPECT_NE(std::string(vktune_last_error()).find("1679 bytes"), std::string::npos) << vktune_last_error();
  EXPECT_EQ(vktune_to_q6_k_split(nullptr, gguf.size(), out.data()), VKTUNE_ERROR_USAGE);
}

}  // namespace
