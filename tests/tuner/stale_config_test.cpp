// Configs stored before a kernel gained a parameter: completed with the value
// pinned on their path (the same shader as before), or reported as stale;
// never planned with a parameter missing.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernels/registry.hpp"
#include "tests/kernels/kernel_test_support.hpp"
#include "tuner/space.hpp"
#include "tuner/stale_config.hpp"

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

// Configs from before STREAM and ENTRIES existed, drawn at random from the
// walk and tensor-core paths: completed to the very config (and shader) they
// were.
TEST(StaleConfig, ParametersAddedLaterAreCompletedFromThePath) {
  const Shape shape{32, 8, 128, 4096};
  const auto space = enumerate_space(attention(), shape, device(), SpaceScope::full);
  std::mt19937_64 rng(std::random_device{}());
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

}  // namespace
}  // namespace vktune
