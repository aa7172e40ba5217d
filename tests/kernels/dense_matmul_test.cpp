// matmul_f32 and matmul_f16: shapes, spaces, plans, constraints (the
// cooperative-matrix path on an H200-like device with and without the
// extension and shapes), reference problems and, on the test device
// (VKTUNE_TEST_DEVICE, else 0), every valid variant at every check shape and a
// perturbed reference that must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "reference/fp16.hpp"
#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;
using testing_support::test_device_index;

const Kernel& f32() { return kernels::find_kernel("matmul_f32"); }
const Kernel& f16() { return kernels::find_kernel("matmul_f16"); }
std::vector<Config> all_configs(const Kernel& kernel, const Shape& shape) {
  const auto space = kernel.spaces().at(kernel.space_index(shape));
  std::vector<Config> configs{Config{}};
  for (const auto& p : space.parameters) {
    std::vector<Config> next;
    for (const auto& c : configs) {
      for (int v : p.values) {
        auto d = c;
        d[p.name] = v;
        next.push_back(d);
      }
    }
    configs = std::move(next);
  }
  return configs;
}

std::vector<Config> valid_configs(const Kernel& kernel, const Shape& shape, const vk::DeviceInfo& info) {
  std::vector<Config> valid;
  for (const auto& c : all_configs(kernel, shape)) {
    if (kernel.constraint_violation(c, shape, info).detail.empty()) valid.push_back(c);
  }
  return valid;
}

// NVIDIA's H200 as vktune sees it, with its cooperative-matrix shapes.
vk::DeviceInfo h200_like() { return testing_support::h200_like_tensor_cores(); }

std::size_t count_coopmat(const std::vector<Config>& configs) {
  return static_cast<std::size_t>(
      std::count_if(configs.begin(), configs.end(), [](const Config& c) { return c.at("USE_COOPMAT") == 1; }));
}

TEST(DenseMatmul, RegisteredWithShapeDims) {
  for (const Kernel* k : {&f32(), &f16()}) {
    EXPECT_EQ(k->shape_dims(), (std::vector<std::string>{"M", "N", "K"}));
    EXPECT_EQ(k->check_shapes().size(), 5u);  // three tiled, two decode (dense_matvec_test.cpp)
  }
}

TEST(DenseMatmul, RejectsBadShapes) {
  for (const Kernel* k : {&f32(), &f16()}) {
    EXPECT_THROW(k->validate_shape({4, 4}), Error);
    EXPECT_THROW(k->validate_shape({4, 0, 4}), Error);
    EXPECT_THROW(k->validate_shape({70000, 70000, 4}), Error);  // M*N past 32-bit indices
    EXPECT_NO_THROW(k->validate_shape({1, 7, 3}));
    try {
      k->validate_shape({0, 4, 4});
      FAIL() << "M=0 accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find("M must be positive"), std::string::npos) << e.what();
    }
  }
}

// The tensor-core variants (never run in CI) compile, partial tiles
// included (their stores go through the shared scratch).
TEST(DenseMatmul, TensorCoreVariantsCompile) {
  const auto compiled = testing_support::expect_variants_compile(
      f16(), {100, 77, 96}, [](const Config& c) { return c.at("USE_COOPMAT") == 1; }, 6);
  EXPECT_EQ(compiled, 6u);
}

// Every layout of the scalar tiled path that legality accepts at a wide
// prefill shape compiles: the template's #error conditions and the kernels'
// rules must agree. An H200 tune of matmul_f16 512,4096,14336 with --space
// full met 9-11 legal configs (TILE_N/THREAD_N = 64) that did not compile
// (measurements/nvidia-h200/session27/prefill_rate/). Without SPIR-V
// optimisation: the checks are the preprocessor's and the front end's.
TEST(DenseMatmul, EveryLegalTiledLayoutCompiles) {
  const auto templates = TemplateLibrary::embedded();
  const Shape shape{512, 4096, 14336};
  for (const Kernel* k : {&f32(), &f16()}) {
    std::set<std::vector<std::pair<std::string, std::string>>> seen;
    for (const auto& c : enumerate_space(*k, shape, h200_like(), SpaceScope::full).valid) {
      if (c.count("USE_COOPMAT") != 0 && c.at("USE_COOPMAT") != 0) continue;
      const auto plan = k->plan(c, shape);
      if (!seen.insert(plan.defines).second) continue;
      vk::CompileOptions options;
      options.defines = plan.defines;
      options.optimize = false;
      EXPECT_NO_THROW(
          vk::compile_compute_shader({plan.template_file, templates.text(plan.template_file)}, templates, options))
          << k->name() << " " << kernels::config_to_string(c);
    }
    EXPECT_GT(seen.size(), 10u) << k->name();
    std::cout << k->name() << ": " << seen.size() << " tiled layouts compiled\n";
  }
}

TEST(DenseMatmul, Metrics) {
  EXPECT_DOUBLE_EQ(f32().metrics({2, 8, 16}).bytes, (2.0 * 16 + 8 * 16) * 4 + 2 * 8 * 4);
  EXPECT_DOUBLE_EQ(f16().metrics({2, 8, 16}).bytes, (2.0 * 16 + 8 * 16) * 2 + 2 * 8 * 4);
  EXPECT_DOUBLE_EQ(f16().metrics({2, 8, 16}).flops, 2.0 * 2 * 8 * 16);
}

TEST(DenseMatmul, BaselinesValidOnAnH200LikeDevice) {
  const auto device = h200_like();
  for (const Kernel* k : {&f32(), &f16()}) {
    auto shapes = k->default_shapes();
    for (const auto& s : k->check_shapes()) shapes.push_back(s);
    for (const auto& shape : shapes) {
      EXPECT_EQ(k->constraint_violation(k->baseline(shape), shape, device).detail, "")
          << k->name() << " " << kernels::shape_to_string(shape);
    }
  }
  const Shape big{4096, 4096, 4096};
  const auto plan = f32().plan(f32().baseline(big), big);
  EXPECT_EQ(plan.local_size, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, {512, 14336, 4096}), (std::array<std::uint32_t, 3>{224, 8, 1}));
  EXPECT_EQ(f16().baseline(big).at("USE_COOPMAT"), 0);
}

TEST(DenseMatmul, CoopmatAllowedOnlyWithTheExtensionAndAnF32AccumulatorShape) {
  const Shape shape{512, 4096, 4096};
  auto device = h200_like();
  const auto valid = valid_configs(f16(), shape, device);
  const auto coopmat = count_coopmat(valid);
  EXPECT_GT(coopmat, 50u);
  EXPECT_GT(valid.size() - coopmat, 50u);
  // Every matrix shape appears; 16-byte loads only on the coopmat path.
  for (int s = 0; s < 3; ++s) {
    EXPECT_TRUE(std::any_of(valid.begin(), valid.end(), [&](const Config& c) { return c.at("CM_SHAPE") == s && c.at("USE_COOPMAT") == 1; }));
  }
  for (const auto& c : valid) EXPECT_TRUE(c.at("USE_COOPMAT") == 1 || c.at("VEC") == 4);

  auto config = f16().baseline(shape);
  config["USE_COOPMAT"] = 1;
  config["TILE_M"] = config["TILE_N"] = 64;
  config["TILE_K"] = 32;
  config["VEC"] = 8;
  config["WARPS_M"] = config["WARPS_N"] = 2;
  EXPECT_EQ(f16().constraint_violation(config, shape, device).detail, "");
  const auto plan = f16().plan(config, shape);
  EXPECT_EQ(plan.local_size, (std::array<std::uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(kernels::workgroup_counts(plan.dispatch, shape), (std::array<std::uint32_t, 3>{64, 8, 1}));
  // A scalar-path parameter away from its first value duplicates the variant.
  auto dup = config;
  dup["THREAD_M"] = 8;
  EXPECT_NE(f16().constraint_violation(dup, shape, device).detail.find("not read with USE_COOPMAT=1"), std::string::npos);

  // Shapes with only fp16 accumulators are not enough.
  auto f16_acc = device;
  f16_acc.cooperative_matrix_shapes.resize(3);
  EXPECT_NE(f16().constraint_violation(config, shape, f16_acc).detail.find("f32 accumulators"), std::string::npos);
  // One shape missing rejects only that shape.
  auto no_16x16 = device;
  no_16x16.cooperative_matrix_shapes.erase(no_16x16.cooperative_matrix_shapes.begin() + 3);
  EXPECT_NE(f16().constraint_violation(config, shape, no_16x16).detail, "");
  config["CM_SHAPE"] = 1;
  EXPECT_EQ(f16().constraint_violation(config, shape, no_16x16).detail, "");
  // Without the extension nothing of the coopmat path remains.
  auto plain = device;
  plain.features.cooperative_matrix_nv = false;
  plain.cooperative_matrix = vk::CooperativeMatrixExtension::none;
  plain.cooperative_matrix_shapes.clear();
  EXPECT_EQ(count_coopmat(valid_configs(f16(), shape, plain)), 0u);
  EXPECT_NE(f16().constraint_violation(config, shape, plain).detail.find("VK_NV_cooperative_matrix"), std::string::npos);
  // The same shapes through VK_KHR_cooperative_matrix alone (a device that
  // offers only it): the same configs, legality reading the KHR list.
  auto khr = plain;
  khr.features.cooperative_matrix_khr = true;
  khr.khr_cooperative_matrix_shapes = device.cooperative_matrix_shapes;
  khr.cooperative_matrix = vk::CooperativeMatrixExtension::khr;
  EXPECT_EQ(valid_configs(f16(), shape, khr), valid_configs(f16(), shape, device));
  khr.khr_cooperative_matrix_shapes.erase(khr.khr_cooperative_matrix_shapes.begin() + 4);  // 16×8×16, fp32
  EXPECT_NE(f16().constraint_violation(config, shape, khr).detail.find("through VK_KHR_cooperative_matrix"),
            std::string::npos);
}

// CM_PREFETCH, the slices whose loads are in flight, is the tensor-core
// paths' alone: one path per value (configs stored before it complete on
// the first), defined in the plan, read by the skeleton, and compiled.
TEST(DenseMatmul, SlicesInFlightArePathsOfTheirOwn) {
  const Shape shape{512, 4096, 4096};
  const auto device = h200_like();
  const auto& space = f16().spaces()[0];
  ASSERT_EQ(space.paths.size(), 3u);
  EXPECT_EQ(space.paths[1].name, "tensor-cores");
  EXPECT_EQ(space.paths[1].pinned.at("CM_PREFETCH"), 1);
  EXPECT_EQ(space.paths[2].name, "tensor-cores-prefetch2");
  EXPECT_EQ(space.paths[2].pinned.at("CM_PREFETCH"), 2);
  auto config = f16().baseline(shape);
  config["USE_COOPMAT"] = 1;
  config["TILE_M"] = config["TILE_N"] = 128;
  config["TILE_K"] = 32;
  config["VEC"] = 8;
  config["WARPS_M"] = config["WARPS_N"] = 2;
  config["CM_PREFETCH"] = 2;
  EXPECT_EQ(f16().constraint_violation(config, shape, device).detail, "");
  ASSERT_NE(space.path_of(config), nullptr);
  EXPECT_EQ(space.path_of(config)->name, "tensor-cores-prefetch2");
  const auto defines = f16().plan(config, shape).defines;
  EXPECT_NE(std::find(defines.begin(), defines.end(), std::pair<std::string, std::string>{"CM_PREFETCH", "2"}),
            defines.end());
  // Both values are searched; the scalar path reads none of it.
  const auto valid = valid_configs(f16(), shape, device);
  for (const int p : {1, 2}) {
    EXPECT_TRUE(std::any_of(valid.begin(), valid.end(),
                            [&](const Config& c) { return c.at("USE_COOPMAT") == 1 && c.at("CM_PREFETCH") == p; }));
  }
  auto tiled = f16().baseline(shape);
  tiled["CM_PREFETCH"] = 2;
  EXPECT_NE(f16().constraint_violation(tiled, shape, device).detail.find("CM_PREFETCH is not read with USE_COOPMAT=0"),
            std::string::npos);
  EXPECT_EQ(testing_support::expect_variants_compile(
                f16(), {100, 77, 96}, [](const Config& c) { return c.at("USE_COOPMAT") == 1 && c.at("CM_PREFETCH") == 2; },
                3),
            3u);
}

TEST(DenseMatmul, ConstraintsRejectWhatTheDeviceCannotRun) {
  const auto device = h200_like();
  const Shape shape{512, 4096, 4096};
  auto config = f32().baseline(shape);
  config["TILE_M"] = config["TILE_N"] = 128;
  config["TILE_K"] = 32;
  config["THREAD_M"] = config["THREAD_N"] = 8;
  config["STAGES"] = 1;
  EXPECT_EQ(f32().constraint_violation(config, shape, device).detail, "");
  config["THREAD_M"] = config["THREAD_N"] = 4;  // 1024 invocations
  EXPECT_NE(f32().constraint_violation(config, shape, device).detail, "");
  config = f32().baseline(shape);
  config["VEC"] = 1;  // vec4 divides K
  EXPECT_NE(f32().constraint_violation(config, shape, device).detail, "");
  config = f32().baseline({5, 64, 33});
  EXPECT_EQ(config.at("VEC"), 1);
  config["TILE_M"] = 64;  // 5 rows
  EXPECT_NE(f32().constraint_violation(config, {5, 64, 33}, device).detail, "");
  config.erase("TILE_K");
  EXPECT_NE(f32().constraint_violation(config, shape, device).detail, "");
}

std::string define_of(const kernels::ShaderPlan& plan, const std::string& name) {
  for (const auto& [n, v] : plan.defines) {
    if (n == name) return v;
  }
  return "";
}

TEST(DenseMatmul, TiledPlanStagesAndUnroll) {
  const Shape big{4096, 4096, 4096};
  const auto device = h200_like();
  auto config = f32().baseline(big);
  config["TILE_M"] = config["TILE_N"] = 128;
  config["THREAD_M"] = config["THREAD_N"] = 8;
  // STAGES becomes TILED_STAGES and sizes the shared memory.
  EXPECT_EQ(config.at("STAGES"), 2);
  auto plan = f32().plan(config, big);
  EXPECT_EQ(define_of(plan, "TILED_STAGES"), "2");
  EXPECT_EQ(plan.shared_memory_bytes, 2u * 4 * 16 * (128 + 128));
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  // Any slice takes either STAGES where its buffers fit: which is faster is
  // the search's to find (one buffer holds fewer registers in flight).
  config["STAGES"] = 1;
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  EXPECT_EQ(define_of(f32().plan(config, big), "TILED_STAGES"), "1");
  config["TILE_K"] = 32;
  plan = f32().plan(config, big);
  EXPECT_EQ(define_of(plan, "TILED_STAGES"), "1");
  EXPECT_EQ(plan.shared_memory_bytes, 4u * 32 * (128 + 128));
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  // Two 128×128×32 buffers (64 KiB) exceed the H200's 48 KiB.
  config["STAGES"] = 2;
  EXPECT_NE(f32().constraint_violation(config, big, device).detail.find("shared memory"), std::string::npos);
  // The K loop is unrolled for large K only: the check shapes run it rolled.
  EXPECT_EQ(define_of(plan, "TILED_UNROLL_K"), "1");
  for (const auto& shape : f32().check_shapes()) {
    EXPECT_EQ(define_of(f32().plan(f32().baseline(shape), shape), "TILED_UNROLL_K"), "");
  }
  // matmul_f16's scalar path has no STAGES: double-buffered up to 32 KiB for
  // slices of at most 16 k.
  auto half = f16().baseline(big);
  half["TILE_M"] = half["TILE_N"] = 128;
  half["THREAD_M"] = half["THREAD_N"] = 8;
  EXPECT_EQ(half.count("STAGES"), 0u);
  EXPECT_EQ(define_of(f16().plan(half, big), "TILED_STAGES"), "2");
  half["TILE_K"] = 32;
  EXPECT_EQ(define_of(f16().plan(half, big), "TILED_STAGES"), "1");
}

TEST(DenseMatmul, F32DeepSlices) {
  const Shape big{4096, 4096, 4096};
  const auto device = h200_like();
  // The winner's tile, 64×128×32 with 8×4 per invocation: one buffer or two
  // (exactly the H200's 48 KiB).
  auto config = f32().baseline(big);
  config["TILE_M"] = 64;
  config["TILE_N"] = 128;
  config["TILE_K"] = 32;
  config["THREAD_M"] = 8;
  config["THREAD_N"] = 4;
  config["STAGES"] = 1;
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  config["STAGES"] = 2;
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  EXPECT_EQ(f32().plan(config, big).shared_memory_bytes, 48u * 1024);
  auto small_device = device;
  small_device.max_shared_memory_bytes = 32 * 1024;
  EXPECT_NE(f32().constraint_violation(config, big, small_device).detail.find("shared memory"), std::string::npos);
  // A 64-deep slice: two buffers (96 KiB) exceed the device's shared memory;
  // one is 48 KiB, with 32 accumulators and 48 floats of prefetched loads
  // per invocation.
  config["TILE_K"] = 64;
  EXPECT_NE(f32().constraint_violation(config, big, device).detail.find("shared memory"), std::string::npos);
  config["STAGES"] = 1;
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  EXPECT_EQ(f32().plan(config, big).shared_memory_bytes, 48u * 1024);
  // On NVIDIA, deep slices are pruned to vec4 loads and at least 32
  // accumulators; legal everywhere, and searched elsewhere.
  EXPECT_EQ(testing_support::pruning_rule_for(f32(), config, big, device), "");
  auto thin = config;
  thin["THREAD_M"] = thin["THREAD_N"] = 4;
  EXPECT_EQ(f32().constraint_violation(thin, big, device).detail, "");
  EXPECT_EQ(testing_support::pruning_rule_for(f32(), thin, big, device), "tiled.h200-fast-path");
  auto elsewhere = device;
  elsewhere.vendor_id = 0x1002;
  EXPECT_EQ(testing_support::pruning_rule_for(f32(), thin, big, elsewhere), "");
  thin = config;
  thin["TILE_K"] = 32;
  thin["STAGES"] = 2;
  thin["VEC"] = 1;
  const Shape odd{4096, 4096, 4095};
  EXPECT_EQ(testing_support::pruning_rule_for(f32(), thin, odd, device), "tiled.h200-fast-path");
  // 32×64×64 with 8×8 per invocation (32 invocations): 64 accumulators and
  // 192 floats of loads.
  config["TILE_M"] = 32;
  config["TILE_N"] = 64;
  config["THREAD_M"] = config["THREAD_N"] = 8;
  EXPECT_EQ(testing_support::pruning_rule_for(f32(), config, big, device), "tiled.h200-fast-path");
}

TEST(DenseMatmul, F32SubgroupLayout) {
  const Shape big{4096, 4096, 4096};
  const auto device = h200_like();
  // The winner's tile: 32 × 8 invocations, each subgroup one row of 32 by
  // default or an 8 × 4 block.
  auto config = f32().baseline(big);
  config["TILE_M"] = 64;
  config["TILE_N"] = 128;
  config["TILE_K"] = 32;
  config["THREAD_M"] = 8;
  config["THREAD_N"] = 4;
  config["STAGES"] = 1;
  config["LANES_N"] = 8;
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  EXPECT_EQ(define_of(f32().plan(config, big), "LANES_N"), "8");
  // 8 invocations along N: the default layout is already 8 × 4.
  config["TILE_N"] = 64;
  config["THREAD_N"] = 8;
  EXPECT_NE(f32().constraint_violation(config, big, device).detail.find("already 8"), std::string::npos);
  // On NVIDIA only at slices of 32 k or more.
  config["TILE_N"] = 128;
  config["THREAD_N"] = 4;
  config["TILE_K"] = 16;
  config["STAGES"] = 2;
  EXPECT_EQ(f32().constraint_violation(config, big, device).detail, "");
  EXPECT_EQ(testing_support::pruning_rule_for(f32(), config, big, device), "tiled.h200-fast-path");
}

TEST(DenseMatmul, F32CheckShapesCoverEveryStageChoice) {
  // The gate sees one and two buffers at every slice depth (two 64-deep
  // slices fit lavapipe's 32 KiB at 32×32 tiles), and both subgroup layouts.
  auto device = h200_like();
  device.max_shared_memory_bytes = 32 * 1024;  // lavapipe's
  std::set<std::pair<int, int>> seen;
  std::set<int> lanes;
  for (const auto& shape : f32().check_shapes()) {
    if (shape[0] <= 8) continue;  // the decode space
    for (const auto& c : valid_configs(f32(), shape, device)) {
      EXPECT_EQ(define_of(f32().plan(c, shape), "TILED_STAGES"), std::to_string(c.at("STAGES")));
      seen.insert({c.at("TILE_K"), c.at("STAGES")});
      lanes.insert(c.at("LANES_N"));
    }
  }
  EXPECT_EQ(seen,
            (std::set<std::pair<int, int>>{{8, 1}, {8, 2}, {16, 1}, {16, 2}, {32, 1}, {32, 2}, {64, 1}, {64, 2}}));
  EXPECT_EQ(lanes, (std::set<int>{8, 32}));
}

TEST(DenseMatmul, CoopmatLargeSubgroupTiles) {
  const auto device = h200_like();
  const Shape shape{4096, 4096, 4096};
  auto config = f16().baseline(shape);
  config["USE_COOPMAT"] = 1;
  config["VEC"] = 8;
  config["TILE_K"] = 32;
  // 128×128 over 2×2 subgroups: 64×64 of C (16 accumulators) each.
  config["TILE_M"] = config["TILE_N"] = 128;
  config["WARPS_M"] = config["WARPS_N"] = 2;
  config["CM_STAGES"] = 2;
  EXPECT_EQ(f16().constraint_violation(config, shape, device).detail, "");
  EXPECT_LE(f16().plan(config, shape).shared_memory_bytes, 48u * 1024);
  // 128×256 over 2×4 subgroups fits with one shared buffer, not two.
  config["TILE_N"] = 256;
  config["WARPS_N"] = 4;
  EXPECT_NE(f16().constraint_violation(config, shape, device).detail.find("shared memory"), std::string::npos);
  config["CM_STAGES"] = 1;
  EXPECT_EQ(f16().constraint_violation(config, shape, device).detail, "");
  // 128×64 of C per subgroup is past the accumulator limit.
  config["WARPS_N"] = 2;
  EXPECT_NE(f16().constraint_violation(config, shape, device).detail.find("accumulators"), std::string::npos);
  // On NVIDIA, 256-wide tiles are searched on the cooperative-matrix path only.
  auto scalar = f16().baseline(shape);
  scalar["TILE_M"] = 256;
  scalar["THREAD_M"] = 8;
  scalar["THREAD_N"] = 8;
  EXPECT_EQ(testing_support::pruning_rule_for(f16(), scalar, shape, device), "tiled.coopmat-sized-tiles");
}

TEST(DenseMatmul, Problems) {
  // fp16 inputs: the reference is computed from the rounded values.
  const auto p = f16().make_problem({3, 5, 7}, 11);
  ASSERT_EQ(p.buffers.size(), 3u);
  EXPECT_EQ(p.buffers[0].bytes.size(), 48u);  // 21 halves, padded to 16 bytes
  EXPECT_EQ(p.buffers[1].bytes.size(), 80u);
  EXPECT_TRUE(p.buffers[1].is_weights);
  EXPECT_EQ(p.output_index, 2u);
  std::uint16_t h = 0;
  double sum = 0;
  for (int t = 0; t < 7; ++t) {
    std::uint16_t a = 0;
    std::memcpy(&a, p.buffers[0].bytes.data() + 2 * t, 2);
    std::memcpy(&h, p.buffers[1].bytes.data() + 2 * t, 2);
    sum += static_cast<double>(ref::fp16_to_fp32(a)) * ref::fp16_to_fp32(h);
  }
  EXPECT_EQ(p.expected[0], sum);

  const auto big = f32().make_problem({512, 4096, 4096}, 7);
  const auto sampled = std::count_if(big.expected.begin(), big.expected.end(), [](double v) { return !std::isnan(v); });
  EXPECT_GT(sampled, 1000);
  EXPECT_FALSE(std::isnan(big.expected.back()));
}

// ---- on the device ----

class DenseMatmulDevice : public testing_support::ValidatedDeviceSuite<std::string> {
 protected:
  // Validates every config against `problem`; returns the failures.
  std::vector<std::string> run_all(const Kernel& kernel, const Shape& shape, const std::vector<Config>& configs,
                                   const kernels::Problem& problem) {
    const auto templates = TemplateLibrary::embedded();
    DeviceProblem on_device(*device_, problem, 1);
    std::vector<std::string> failures;
    for (const auto& c : configs) {
      const std::string label = kernels::config_to_string(c);
      try {
        auto variant = describe_variant(kernel, c, shape, templates);
        compile_variant(variant, templates);
        VariantRunner runner(*device_, variant, 3, 3, 2);
        const auto v = runner.validate(on_device, problem, kernel.tolerance(shape));
        if (!v.passed) failures.push_back(label + ": " + v.reason);
      } catch (const Error& e) {
        failures.push_back(label + ": " + e.what());
      }
    }
    return failures;
  }

};


TEST_P(DenseMatmulDevice, EveryValidVariantPassesAtEveryCheckShape) {
  const Kernel& kernel = kernels::find_kernel(GetParam());
  for (const auto& shape : kernel.check_shapes()) {
    const auto configs = valid_configs(kernel, shape, device_->info());
    ASSERT_FALSE(configs.empty());
    const auto problem = kernel.make_problem(shape, 1234);
    const auto failures = run_all(kernel, shape, configs, problem);
    std::string text;
    for (const auto& f : failures) text += f + "\n";
    EXPECT_TRUE(failures.empty()) << kernels::shape_to_string(shape) << ": " << failures.size() << " of "
                                  << configs.size() << " variants failed:\n" << text;
    std::cout << "[ " << kernel.name() << " " << kernels::shape_to_string(shape) << " ] " << configs.size()
              << " variants\n";
  }
}

TEST_P(DenseMatmulDevice, PerturbedReferenceFails) {
  const Kernel& kernel = kernels::find_kernel(GetParam());
  const Shape shape = kernel.check_shapes().front();
  auto problem = kernel.make_problem(shape, 99);
  problem.expected[problem.expected.size() / 2] += 0.05;
  const auto failures = run_all(kernel, shape, {kernel.baseline(shape)}, problem);
  EXPECT_EQ(failures.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, DenseMatmulDevice, ::testing::Values("matmul_f32", "matmul_f16"));

}  // namespace
}  // namespace vktune
