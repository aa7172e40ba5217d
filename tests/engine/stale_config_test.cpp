// Configs stored before a kernel gained a parameter: completed with the value
// pinned on their path (the same shader as before), or reported as stale;
// never planned with a parameter missing.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernels/registry.hpp"
#include "tests/kernels/kernel_test_support.hpp"
#include "tuner/space.hpp"
#include "engine/stale_config.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;

// The H200-like device with tensor cores: every attention_decode path has
// valid configs on it.
vk::DeviceInfo device() { return testing_support::h200_like_tensor_cores(); }

const kernels::Kernel& attention() { return kernels::find_kernel("attention_decode"); }

TEST(StaleConfig, ACurrentConfigIsUnchanged) {
  const Shape shape{32, 8, 128, 4096};
  const auto config = attention().baseline(shape);
  const auto update = update_config(attention(), shape, config);
  ASSERT_TRUE(update.config);
  EXPECT_EQ(*update.config, config);
  EXPECT_EQ(update.note, "");
}

// matmul_f16's and the quantized x16 GEMM's tensor-core configs from before
// CM_PREFETCH: completed with one slice in flight, the shader they were.
TEST(StaleConfig, ConfigsFromBeforeSlicesInFlightCompleteWithOne) {
  const Shape shape{512, 4096, 4096};
  Config f16{{"CM_SHAPE", 0}, {"CM_STAGES", 1}, {"THREAD_M", 4}, {"THREAD_N", 4}, {"TILE_K", 32}, {"TILE_M", 128},
             {"TILE_N", 128}, {"USE_COOPMAT", 1}, {"VEC", 8},     {"WARPS_M", 2},   {"WARPS_N", 2}};
  const auto& matmul_f16 = kernels::find_kernel("matmul_f16");
  auto update = update_config(matmul_f16, shape, f16);
  ASSERT_TRUE(update.config) << update.note;
  EXPECT_EQ(update.config->at("CM_PREFETCH"), 1);
  EXPECT_NE(update.note.find("CM_PREFETCH=1 (the tensor-cores path"), std::string::npos) << update.note;
  Config q4k{{"CM_SHAPE", 1}, {"DEQUANT_STAGE", 2}, {"DQ_RUN", 8},   {"DQ_WG", 256},   {"SUBGROUP_SIZE", 0},
             {"THREAD_M", 2}, {"THREAD_N", 2},      {"TILE_K", 64},  {"TILE_M", 128},  {"TILE_N", 128},
             {"USE_COOPMAT", 1}, {"WARPS_M", 4},    {"WARPS_N", 2}};
  update = update_config(kernels::find_kernel("matmul_q4k"), shape, q4k);
  ASSERT_TRUE(update.config) << update.note;
  EXPECT_EQ(update.config->at("CM_PREFETCH"), 1);
  EXPECT_NE(update.note.find("tensor-cores-dequant-x16 path"), std::string::npos) << update.note;
}

// Configs from before STREAM and ENTRIES existed, drawn at random from the
// walk and tensor-core paths: completed to the very config (and shader) they
// were.
TEST(StaleConfig, ParametersAddedLaterAreCompletedFromThePath) {
  const Shape shape{32, 8, 128, 4096};
  const auto space = enumerate_space(attention(), shape, device(), SpaceScope::full);
  const auto rng_seed = std::random_device{}();  // printed: a failure is reproducible
  SCOPED_TRACE("seed " + std::to_string(rng_seed));
  std::mt19937_64 rng(rng_seed);
  std::size_t tried = 0;
  for (int i = 0; i < 200; ++i) {
    const auto& current = space.valid[rng() % space.valid.size()];
    if (current.at("STREAM") == 1) continue;  // the streaming path came with them
    auto old = current;
    old.erase("STREAM");
    old.erase("ENTRIES");
    const auto update = update_config(attention(), shape, old);
    ASSERT_TRUE(update.config) << update.note;
    EXPECT_EQ(*update.config, current) << kernels::config_to_string(current);
    EXPECT_EQ(attention().plan(*update.config, shape).defines, attention().plan(current, shape).defines);
    EXPECT_NE(update.note.find("ENTRIES=4"), std::string::npos) << update.note;
    ++tried;
  }
  EXPECT_GT(tried, 0u);
}

TEST(StaleConfig, WhatNoPathFixesIsStaleAndSaysWhy) {
  const Shape shape{32, 8, 128, 4096};
  auto varied = attention().baseline(shape);
  varied.erase("WG_SIZE");  // every path varies it: no value reproduces the old shader
  auto update = update_config(attention(), shape, varied);
  EXPECT_FALSE(update.config);
  EXPECT_NE(update.note.find("WG_SIZE"), std::string::npos) << update.note;

  auto removed = attention().baseline(shape);
  removed["GONE"] = 1;
  update = update_config(attention(), shape, removed);
  EXPECT_FALSE(update.config);
  EXPECT_NE(update.note.find("no parameter GONE"), std::string::npos) << update.note;

  auto dropped_value = attention().baseline(shape);
  dropped_value["KV_CHUNK"] = 3;
  update = update_config(attention(), shape, dropped_value);
  EXPECT_FALSE(update.config);
  EXPECT_NE(update.note.find("KV_CHUNK=3"), std::string::npos) << update.note;
  EXPECT_EQ(update.note.find('\n'), std::string::npos);
}

// matmul_q4k's configs from before it joined the quantized family (session
// 13): its integer path with 4 threads per super-block (the H200 winner
// below, from measurements/nvidia-h200/table.json) becomes SUPER_BLOCK=1 with the same
// walk, legal and planned on matvec_q4k_q8.comp; its exact path with 8
// threads likewise on matvec_q4k.comp; DEQUANT=1 and 8-thread integer
// configs have no counterpart and are stale.
TEST(StaleConfig, Q4KConfigsOfTheEarlierVocabularyAreTranslated) {
  const auto& q4k = kernels::find_kernel("matmul_q4k");
  const Shape shape{1, 14336, 4096};
  const auto old = kernels::config_from_json(
      R"({"BLOCK_SLOTS":4,"BLOCK_UNROLL":2,"COLS_PER_PASS":1,"DEQUANT":0,"LOAD_WIDTH":4,"REDUCTION":0,)"
      R"("ROWS_PER_WG":32,"SUBGROUP_SIZE":0,"THREADS_PER_BLOCK":4,"WG_SIZE":256,"X_QUANT":1,"X_SEGMENT":16384})");
  const auto update = update_config(q4k, shape, old);
  ASSERT_TRUE(update.config) << update.note;
  const Config expected{{"WG_SIZE", 256},     {"ROWS_PER_WG", 32}, {"THREADS_PER_ROW", 16}, {"UNROLL", 2},
                        {"REDUCTION", 0},     {"COLS_PER_PASS", 1}, {"SUBGROUP_SIZE", 0},   {"X_QUANT", 1},
                        {"X_SEGMENT", 16384}, {"W_STAGE", 0},       {"SUPER_BLOCK", 1},       {"X_SCOPE", 0}};
  EXPECT_EQ(*update.config, expected) << kernels::config_to_string(*update.config);
  EXPECT_NE(update.note.find("translated"), std::string::npos) << update.note;
  EXPECT_EQ(q4k.constraint_violation(*update.config, shape, testing_support::h200_like()).detail, "");
  EXPECT_EQ(q4k.plan(*update.config, shape).template_file, "matvec_q4k_q8.comp");

  // The exact path of 8 threads per super-block and 16-byte loads: matvec_q4k.comp still.
  auto fp32 = old;
  fp32["X_QUANT"] = 0;
  fp32["THREADS_PER_BLOCK"] = 8;
  fp32["BLOCK_SLOTS"] = 8;
  fp32["BLOCK_UNROLL"] = 1;
  fp32["ROWS_PER_WG"] = 16;
  fp32["WG_SIZE"] = 128;
  fp32["X_SEGMENT"] = 4096;
  const auto exact = update_config(q4k, shape, fp32);
  ASSERT_TRUE(exact.config) << exact.note;
  EXPECT_EQ(exact.config->at("THREADS_PER_ROW"), 64);
  EXPECT_EQ(exact.config->at("SUPER_BLOCK"), 1);
  EXPECT_EQ(q4k.constraint_violation(*exact.config, shape, testing_support::h200_like()).detail, "");
  EXPECT_EQ(q4k.plan(*exact.config, shape).template_file, "matvec_q4k.comp");
  fp32["DEQUANT"] = 1;  // no counterpart
  EXPECT_FALSE(update_config(q4k, shape, fp32).config);
  auto eight = old;
  eight["THREADS_PER_BLOCK"] = 8;
  const auto stale = update_config(q4k, shape, eight);
  EXPECT_FALSE(stale.config);
  EXPECT_NE(stale.note.find("no parameter"), std::string::npos) << stale.note;
}

}  // namespace
}  // namespace vktune
