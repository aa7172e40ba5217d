// attention_prefill without a device: the tensor-core path's grouped-query
// workgroups (HPW) and its template compiling. lavapipe has no cooperative
// matrices, so nothing else on CI compiles attention_prefill_mma.comp.
#include <gtest/gtest.h>

#include <string>

#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;

Config tensor_core_config(const kernels::Kernel& k, const Shape& shape) {
  auto config = k.baseline(shape);
  config["MMA"] = 1, config["TEAM"] = 4, config["MT"] = 1, config["PREFETCH"] = 1, config["BC"] = 32;
  config["WG_SIZE"] = 128;
  return config;
}

// HPW query heads of one KV head share a workgroup: the dispatch's y axis
// counts groups of HPW heads, x the tiles of 16*MT*(subgroups/HPW) tokens,
// and the row maxima in shared memory are every subgroup's rows.
TEST(AttentionPrefill, GroupedHeadsShareAWorkgroup) {
  const auto& k = kernels::find_kernel("attention_prefill");
  const auto device = testing_support::h200_like_tensor_cores();
  const Shape llama{2048, 32, 8, 128, 2048};  // 4 query heads per KV head
  auto config = tensor_core_config(k, llama);
  const auto one_head = k.plan(config, llama);
  config["HPW"] = 4;
  ASSERT_EQ(k.constraint_violation(config, llama, device).detail, "");
  const auto grouped = k.plan(config, llama);
  EXPECT_EQ(kernels::workgroup_counts(one_head.dispatch, llama), (std::array<std::uint32_t, 3>{32, 32, 1}));
  EXPECT_EQ(kernels::workgroup_counts(grouped.dispatch, llama), (std::array<std::uint32_t, 3>{128, 8, 1}));
  EXPECT_EQ(grouped.shared_memory_bytes, one_head.shared_memory_bytes);

  // Two subgroups cannot hold four heads; a group of two query heads per KV
  // head cannot be split in four.
  auto narrow = config;
  narrow["WG_SIZE"] = 64;
  EXPECT_NE(k.constraint_violation(narrow, llama, device).detail.find("not a multiple of HPW"), std::string::npos);
  const Shape pairs{37, 4, 2, 64, 37};
  EXPECT_NE(k.constraint_violation(config, pairs, device).detail.find("does not divide the 2 query heads per KV head"),
            std::string::npos);
  config["HPW"] = 2;
  EXPECT_EQ(k.constraint_violation(config, pairs, device).detail, "");

  // The CUDA-core walk takes one head a workgroup.
  auto walk = k.baseline(llama);
  walk["HPW"] = 2;
  EXPECT_NE(k.constraint_violation(walk, llama, device).detail.find("MMA=0 does not use HPW"), std::string::npos);
}

// A covering array of the tensor-core path's configs at both check shapes
// (head_dim 64 and 128, two and four query heads per KV head) compiles.
TEST(AttentionPrefill, TensorCoreVariantsCompile) {
  const auto& k = kernels::find_kernel("attention_prefill");
  const auto device = testing_support::h200_like_tensor_cores();
  const auto templates = TemplateLibrary::embedded();
  for (const auto& shape : k.check_shapes()) {
    const auto configs =
        testing_support::covering_of(k, shape, device, [](const Config& c) { return c.at("MMA") == 1; });
    EXPECT_GE(configs.size(), 4u) << kernels::shape_to_string(shape);
    for (const auto& c : configs) {
      auto variant = describe_variant(k, c, shape, templates);
      EXPECT_NO_THROW(compile_variant(variant, templates)) << kernels::config_to_string(c);
    }
  }
}

}  // namespace
}  // namespace vktune
