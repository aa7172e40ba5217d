// The plain-C example (runtime/example/lookup.c) on the committed H200 table:
// a contract's stages and binding sizes for a shape that was never tuned,
// sizes computed here from the kernel's layout, not read from the table.
#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace {

std::string lookup(const std::string& args) {
  const auto r = rt_test::run(std::string(VKTUNE_RUNTIME_LOOKUP) + " " + VKTUNE_H200_TABLE + " " + args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

TEST(RuntimeLookupTool, AttentionScratchAndCacheSizesFollowTheShape) {
  // 32 heads on 8 KV heads of 128, a cache of 2048 entries (tuned: 512..8192).
  const std::uint64_t heads = 32, kv_heads = 8, head_dim = 128, kv_len = 2048;
  const auto out = lookup("attention_decode 0x10de 0x2335 \"NVIDIA H200\" 32 8 128 2048");
  // Scratch: the split counters, then per head 256 splits of (m, l, head_dim accumulators).
  const auto scratch = 4 * (256 + heads * 256 * (head_dim + 4));
  EXPECT_NE(out.find("binding 3: scratch (scratch), " + std::to_string(scratch) + " bytes"), std::string::npos) << out;
  EXPECT_NE(out.find("binding 1: k (input), " + std::to_string(2 * kv_len * kv_heads * head_dim) + " bytes"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("stage 0:"), std::string::npos) << out;
  // A built-in kernel pushes the shape.
  EXPECT_NE(out.find("push constants: 32 8 128 2048\n"), std::string::npos) << out;
  // Another head layout: its SPIR-V is specialised to 32 heads on 8 KV heads, so nothing fits.
  const auto other = lookup("attention_decode 0x10de 0x2335 \"NVIDIA H200\" 64 8 128 2048");
  EXPECT_NE(other.find("no tuned entry fits"), std::string::npos) << other;
}

TEST(RuntimeLookupTool, QuantizedWeightsByBlocks) {
  // Q4_K at a prefill shape: 144 bytes per 256 weights of W; M >= 9 takes a prefill entry.
  const auto out = lookup("matmul_q4k 0x10de 0x2335 \"NVIDIA H200\" 100 4096 4096");
  EXPECT_NE(out.find("binding 1: W (weights), " + std::to_string(4096ull * 4096 / 256 * 144) + " bytes"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("binding 2: y (output), " + std::to_string(100ull * 4096 * 4) + " bytes"), std::string::npos) << out;
}

}  // namespace
