// The decode step's small ops: rope (four layouts/storages, and the two that
// write a KV cache; their own descriptions are in rope_test.cpp), get_rows
// (three table types), attention_decode and kv_store: their descriptions without a device (shapes, baselines on
// an H200-like device, gate size, plans, problems, metrics), and on the test
// device (VKTUNE_TEST_DEVICE, else 0) every valid variant at every check
// shape, plus a deliberately wrong reference that must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "reference/fp16.hpp"
#include "engine/device_problem.hpp"
#include "tuner/progress_observer.hpp"
#include "tuner/session.hpp"
#include "tuner/space.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;
using testing_support::test_device_index;
using testing_support::WrongReference;
using testing_support::h200;

const std::vector<std::string> kNames = {"rope",         "rope_neox",        "rope_f16",     "rope_neox_f16",
                                         "rope_cache",   "rope_neox_cache",  "get_rows_f16", "get_rows_q8_0",
                                         "get_rows_q4k", "attention_decode", "kv_store"};
std::string label(const std::string& name, const Shape& shape) { return name + " " + kernels::shape_to_string(shape); }

// The pruning rule `name` of `kernel`'s first space.
const kernels::PruningRule& pruning_rule(const Kernel& kernel, const std::string& name) {
  const auto& rules = kernel.spaces().at(0).pruning;
  const auto it = std::find_if(rules.begin(), rules.end(), [&](const kernels::PruningRule& r) { return r.name == name; });
  if (it == rules.end()) throw Error(ErrorKind::internal, kernel.name() + " has no pruning rule " + name);
  return *it;
}

class DecodeOps : public ::testing::TestWithParam<std::string> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam()); }
};

// (Wrong dimension counts and zeros: kernel_contract_test.cpp.)
TEST_P(DecodeOps, RejectsShapesItsTemplateCannotRun) {
  const auto& k = kernel();
  auto odd = k.default_shapes().front();
  if (GetParam().rfind("rope", 0) == 0) {
    odd[2] = 127;  // head_dim must be even
  } else if (GetParam().rfind("get_rows", 0) == 0) {
    odd[2] = 4096 + 2;  // not a whole number of blocks (or of vec4 stores)
  } else if (GetParam() == "kv_store") {
    odd[1] = 1025;  // rows are fp16 pairs
  } else {
    odd[0] = 12;  // heads not a multiple of the 8 KV heads
  }
  EXPECT_THROW(k.validate_shape(odd), Error) << kernels::shape_to_string(odd);
}

// (The baseline's legality at every shape: kernel_contract_test.cpp.)
TEST_P(DecodeOps, EveryShapeFitsTheDeviceWithTwoColdCopies) {
  const auto device = h200();
  auto shapes = kernel().default_shapes();
  const auto checks = kernel().check_shapes();
  shapes.insert(shapes.end(), checks.begin(), checks.end());
  for (const auto& shape : shapes) {
    // The tuner needs the shape within half the device and two cold copies
    // of the weights within a quarter of it.
    const auto need = kernel().device_bytes(shape);
    EXPECT_LE(need, device.device_local_bytes() / 2) << label(GetParam(), shape);
    EXPECT_GE(cold_cache_copies(need, device.device_local_bytes()), 2u);
  }
}

TEST_P(DecodeOps, ConstraintsRejectMissingAndForeignParameters) {
  const Shape shape = kernel().default_shapes().front();
  auto config = kernel().baseline(shape);
  config.erase("WG_SIZE");
  EXPECT_NE(kernel().constraint_violation(config, shape, h200()).detail, "");
  config = kernel().baseline(shape);
  config["UNKNOWN"] = 1;
  EXPECT_NE(kernel().constraint_violation(config, shape, h200()).detail, "");
  config = kernel().baseline(shape);
  config["WG_SIZE"] = 48;
  EXPECT_NE(kernel().constraint_violation(config, shape, h200()).detail, "");
}

// Every parameter but attention_decode's MERGE_STAGE and MERGE_WG, which its
// first stage defines only when the merge is a stage of its own (so that the
// variants from before the parameters keep their hashes).
TEST_P(DecodeOps, PlanDefinesEveryParameter) {
  for (const auto& shape : kernel().default_shapes()) {
    const auto config = kernel().baseline(shape);
    const auto plan = kernel().plan(config, shape);
    for (const auto& [name, value] : config) {
      if (name == "MERGE_STAGE" || name == "MERGE_WG") {
        EXPECT_EQ(value, 0) << name;
        continue;
      }
      const auto it = std::find_if(plan.defines.begin(), plan.defines.end(),
                                   [&](const auto& d) { return d.first == name; });
      ASSERT_NE(it, plan.defines.end()) << name;
      EXPECT_EQ(it->second, std::to_string(value));
    }
    EXPECT_EQ(plan.local_size[0], static_cast<std::uint32_t>(config.at("WG_SIZE")));
  }
}

TEST_P(DecodeOps, ProblemIsSeededAndMatchesItsSizes) {
  const Shape shape = kernel().check_shapes().back();
  const auto a = kernel().make_problem(shape, 11);
  const auto b = kernel().make_problem(shape, 11);
  const auto c = kernel().make_problem(shape, 12);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  std::uint64_t bytes = 0;
  bool differs = false;
  for (std::size_t i = 0; i < a.buffers.size(); ++i) {
    bytes += a.buffers[i].bytes.size();
    EXPECT_EQ(a.buffers[i].bytes, b.buffers[i].bytes);
    differs = differs || a.buffers[i].bytes != c.buffers[i].bytes;
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(bytes, kernel().device_bytes(shape));
  EXPECT_TRUE(a.buffers[a.output_index].is_output);
  EXPECT_EQ(a.buffers[a.output_index].bytes.size(), a.expected.size() * (a.output_f16 ? 2 : sizeof(float)));
  // Every element checked: a value, or (a cache row no token goes to) one that must stay untouched.
  EXPECT_TRUE(std::all_of(a.expected.begin(), a.expected.end(),
                          [](double v) { return std::isfinite(v) || kernels::is_untouched(v); }));
  const auto m = kernel().metrics(shape);
  EXPECT_GT(m.bytes, 0.0);
  EXPECT_LE(m.bytes, static_cast<double>(bytes));
}

INSTANTIATE_TEST_SUITE_P(Kernels, DecodeOps, ::testing::ValuesIn(kNames), [](const auto& info) { return info.param; });

// ---- kernel-specific descriptions ----

TEST(GetRows, MovesOnlyTheSelectedRowsAndRepeatsIds) {
  const auto& k = kernels::find_kernel("get_rows_q4k");
  const Shape shape{512, 128256, 4096};
  // The table is ~290 MB, the lookup reads 512 rows of 2304 bytes.
  EXPECT_GT(k.device_bytes(shape), 290e6);
  EXPECT_LT(k.metrics(shape).bytes, 512.0 * (4 + 2304 + 4096 * 4) + 1);
  const auto problem = k.make_problem({9, 3, 1280}, 4);
  std::vector<std::int32_t> ids(9);
  std::memcpy(ids.data(), problem.buffers[0].bytes.data(), 9 * sizeof(std::int32_t));
  EXPECT_EQ(ids[0], 0);
  EXPECT_EQ(ids[1], 2);
  EXPECT_EQ(ids[8], ids[4]);
  EXPECT_TRUE(std::all_of(ids.begin(), ids.end(), [](std::int32_t id) { return id >= 0 && id < 3; }));
}

TEST(AttentionDecode, LongCachesSplitAndTheSplitIsARule) {
  const auto& k = kernels::find_kernel("attention_decode");
  // A workgroup per KV head leaves most of a GPU idle: only a cache shorter
  // than a chunk goes unsplit.
  EXPECT_EQ(k.baseline({4, 2, 64, 37}).at("KV_CHUNK"), 0);
  EXPECT_EQ(k.baseline({32, 8, 128, 512}).at("KV_CHUNK"), 64);
  const Shape long_cache{32, 8, 128, 8192};
  const auto config = k.baseline(long_cache);
  ASSERT_GT(config.at("KV_CHUNK"), 0);
  const auto groups = kernels::workgroup_counts(k.plan(config, long_cache).dispatch, long_cache);
  EXPECT_EQ(groups[0], 8192u / static_cast<std::uint32_t>(config.at("KV_CHUNK")));
  // A workgroup takes all four query heads of a KV head: K and V read once.
  EXPECT_EQ(config.at("QH"), 4);
  EXPECT_EQ(groups[1], 8u);
  // Too many splits for the scratch buffer are rejected.
  auto tiny = config;
  tiny["KV_CHUNK"] = 64;  // 128 splits
  EXPECT_NE(k.constraint_violation(tiny, long_cache, h200()).detail.find("workgroups per head group"), std::string::npos);
}

// MMA=1 (kernels/attention_mma.hpp): offered at every default shape on a
// device with fp16 cooperative matrices, within its shared memory, with the
// walk's parameters pinned; refused without tensor cores, for chunks whose
// scores and staging do not fit shared memory (and pruned past 256 entries
// on NVIDIA), and for STEP without MMA=1. Lavapipe has no
// cooperative matrices, so CI compiles every valid variant here (the GPU
// validates them when it tunes).
TEST(AttentionDecode, TensorCorePathRulesAndPlan) {
  const auto& k = kernels::find_kernel("attention_decode");
  const auto tensor_cores = testing_support::h200_like_tensor_cores();
  const Shape shape{32, 8, 128, 8192};
  auto config = k.baseline(shape);
  EXPECT_EQ(config.at("MMA"), 0);  // the baseline stays on the CUDA-core walk
  config["MMA"] = 1, config["STEP"] = 64, config["KV_CHUNK"] = 256, config["PREFETCH"] = 2, config["TOKENS"] = 2;
  config["LOADS"] = 1, config["VEC"] = 8, config["REDUCTION"] = 0, config["MERGE"] = 1, config["WIDEN"] = 0;
  config["LEAN"] = 1;
  EXPECT_EQ(k.constraint_violation(config, shape, tensor_cores).detail, "");
  const auto plan = k.plan(config, shape);
  EXPECT_EQ(plan.template_file, "attention_decode_mma.comp");
  EXPECT_NE(std::find(plan.defines.begin(), plan.defines.end(), std::make_pair(std::string("HD"), std::string("128"))),
            plan.defines.end());
  EXPECT_LE(plan.shared_memory_bytes, tensor_cores.max_shared_memory_bytes);
  const auto groups = kernels::workgroup_counts(plan.dispatch, shape);
  EXPECT_EQ(groups[0], 32u);
  EXPECT_EQ(groups[1], 8u);
  EXPECT_NE(k.constraint_violation(config, shape, h200()).detail.find("VK_NV_cooperative_matrix"), std::string::npos);
  auto pinned = config;
  pinned["TOKENS"] = 4;
  EXPECT_NE(k.constraint_violation(pinned, shape, tensor_cores).detail.find("MMA=1 does not use TOKENS"), std::string::npos);
  auto wide = config;
  wide["KV_CHUNK"] = 512;
  EXPECT_NE(k.constraint_violation(wide, shape, tensor_cores).detail.find("shared memory"), std::string::npos);
  EXPECT_TRUE(pruning_rule(k, "tensor-cores.chunk-256").prunes(wide, shape));
  EXPECT_FALSE(pruning_rule(k, "tensor-cores.chunk-256").prunes(config, shape));
  auto walk = k.baseline(shape);
  walk["STEP"] = 64;
  EXPECT_EQ(k.constraint_violation(walk, shape, tensor_cores).detail, "STEP is only varied with MMA=1");

  // The path's valid variants at the default shapes compile: a pairwise
  // covering array of them (every value, every pair of two parameters).
  const auto templates = TemplateLibrary::embedded();
  for (const auto& s : k.default_shapes()) {
    const auto mma =
        testing_support::covering_of(k, s, tensor_cores, [](const kernels::Config& c) { return c.at("MMA") == 1; });
    for (const auto& c : mma) {
      auto variant = describe_variant(k, c, s, templates);
      EXPECT_NO_THROW(compile_variant(variant, templates)) << kernels::config_to_string(c);
    }
    EXPECT_GE(mma.size(), 4u) << kernels::shape_to_string(s);
  }
}

// STREAM=1 (kernels/attention_stream.hpp): the H200's winner at kv 8192 is
// valid and planned as the template expects it (one split a workgroup along
// x, a head group along y, HD compiled in); the other paths' parameters are
// pinned, a team must fit the smallest subgroup, a chunk must be whole
// rounds, and the scratch holds at most 256 splits. ENTRIES is refused off
// the streaming path (the other templates do not read it); WG_SIZE=512 is
// legal on the walk and pruned there on NVIDIA.
TEST(AttentionDecode, StreamingPathRulesAndPlan) {
  const auto& k = kernels::find_kernel("attention_decode");
  const Shape shape{32, 8, 128, 8192};
  auto config = k.baseline(shape);
  EXPECT_EQ(config.at("STREAM"), 0);  // the baseline stays on the walk
  config["STREAM"] = 1, config["WG_SIZE"] = 256, config["LOADS"] = 1, config["ENTRIES"] = 2;
  config["KV_CHUNK"] = 256, config["PREFETCH"] = 0;
  EXPECT_EQ(k.constraint_violation(config, shape, h200()).detail, "");
  const auto plan = k.plan(config, shape);
  EXPECT_EQ(plan.template_file, "attention_decode_stream.comp");
  EXPECT_NE(std::find(plan.defines.begin(), plan.defines.end(), std::make_pair(std::string("HD"), std::string("128"))),
            plan.defines.end());
  EXPECT_LE(plan.shared_memory_bytes, h200().max_shared_memory_bytes);
  const auto groups = kernels::workgroup_counts(plan.dispatch, shape);
  EXPECT_EQ(groups[0], 32u);
  EXPECT_EQ(groups[1], 8u);

  auto pinned = config;
  pinned["TOKENS"] = 4;
  EXPECT_NE(k.constraint_violation(pinned, shape, h200()).detail.find("STREAM=1 does not use TOKENS"), std::string::npos);
  auto narrow = h200();
  narrow.subgroup_size = narrow.min_subgroup_size = narrow.max_subgroup_size = 8;  // a team of 16 lanes does not fit
  EXPECT_NE(k.constraint_violation(config, shape, narrow).detail.find("smallest subgroup of 8"), std::string::npos);
  auto partial = config;
  partial["KV_CHUNK"] = 32;  // a round is 16 teams * 2 entries = 32: whole; 16 teams * 4 = 64 is not
  partial["ENTRIES"] = 4;
  EXPECT_NE(k.constraint_violation(partial, shape, h200()).detail.find("whole number of rounds"), std::string::npos);
  auto many = config;
  many["WG_SIZE"] = 128, many["KV_CHUNK"] = 16 * 2;  // 8 teams * 2 entries = 16 a round: 256 splits of 32
  EXPECT_EQ(k.constraint_violation(many, shape, h200()).detail, "");
  EXPECT_NE(k.constraint_violation(many, Shape{32, 8, 128, 8200}, h200()).detail.find("more than 256"), std::string::npos);
  auto walk = k.baseline(shape);
  walk["ENTRIES"] = 8;
  EXPECT_EQ(k.constraint_violation(walk, shape, h200()).detail, "ENTRIES is only varied with STREAM=1");
  walk = k.baseline(shape);
  walk["WG_SIZE"] = 512;
  walk["LOADS"] = 1;  // a team of 16 lanes: the team merge fits 48 KiB
  EXPECT_EQ(k.constraint_violation(walk, shape, h200()).detail, "");
  EXPECT_TRUE(pruning_rule(k, "walk.wg512-unmeasured").prunes(walk, shape));
  EXPECT_FALSE(pruning_rule(k, "walk.wg512-unmeasured").prunes(config, shape));  // STREAM=1 keeps 512
}

// The decode space is three paths, one per template, each varying what its
// template reads; QH is the shape's, on no path; the pruning rules are named
// after their path, and those from the H200's tuning are keyed to NVIDIA.
// Splitting the rules out of constraint_violation (after commit 353b8cf)
// kept the H200's search as it was: at the default shapes the pruned space
// on an H200-like device with tensor cores holds 110, 153 and 136 configs,
// the counts constraint_violation alone left at 353b8cf (and the same
// configs with the same defines, compared when the split was made). The
// full space holds every one of them and more; so does the pruned space of
// a device of another vendor with the same capabilities (only the rules for
// every device apply there).
TEST(AttentionDecode, PathsShapeValuesAndPruningRules) {
  const auto& k = kernels::find_kernel("attention_decode");
  const auto& space = k.spaces().at(0);
  std::vector<std::string> paths;
  for (const auto& p : space.paths) paths.push_back(p.name);
  ASSERT_EQ(paths, (std::vector<std::string>{"walk", "tensor-cores", "stream", "stream-merge-stage"}));
  for (const auto& p : space.paths) {
    EXPECT_EQ(p.pinned.count("QH"), 0u) << p.name;
    for (const auto& q : p.parameters) EXPECT_NE(q.name, "QH") << p.name;
    EXPECT_EQ(p.pinned.size() + p.parameters.size() + 1, space.parameters.size()) << p.name;
  }
  EXPECT_EQ(space.paths[0].pinned, (Config{{"MMA", 0},
                                           {"STEP", 32},
                                           {"STREAM", 0},
                                           {"ENTRIES", 4},
                                           {"MERGE_STAGE", 0},
                                           {"MERGE_WG", 0}}));
  EXPECT_EQ(space.paths[1].pinned.at("MMA"), 1);
  EXPECT_EQ(space.paths[1].pinned.at("LOADS"), 1);
  EXPECT_EQ(space.paths[2].pinned.at("STREAM"), 1);
  EXPECT_EQ(space.paths[2].pinned.at("STEP"), 32);
  ASSERT_TRUE(space.shape_values);
  EXPECT_EQ(space.shape_values({32, 8, 128, 512}), (Config{{"QH", 4}}));
  EXPECT_EQ(space.shape_values({24, 2, 64, 512}), (Config{{"QH", 4}}));  // 12 heads per KV head: 4 a workgroup
  EXPECT_EQ(space.shape_values({8, 8, 64, 512}), (Config{{"QH", 1}}));
  for (const auto& r : space.pruning) {
    const auto dot = r.name.find('.');
    ASSERT_NE(dot, std::string::npos) << r.name;  // stream.* rules hold for both streaming paths
    EXPECT_NE(std::find(paths.begin(), paths.end(), r.name.substr(0, dot)), paths.end()) << r.name;
    EXPECT_TRUE(r.measured_on.name_contains.empty()) << r.name;
    if (r.measured_on.vendor_id != 0) {
      EXPECT_EQ(r.measured_on.vendor_id, kernels::kVendorNvidia) << r.name;
      EXPECT_NE(r.reason.find("H200"), std::string::npos) << r.name << ": " << r.reason;
    }
  }

  const auto nvidia = testing_support::h200_like_tensor_cores();
  auto other = nvidia;
  other.vendor_id = 0x1002;
  other.name = "H200-like under another vendor's id";
  const std::vector<std::size_t> at_353b8cf{110, 153, 136};
  const auto shapes = k.default_shapes();
  ASSERT_EQ(shapes.size(), at_353b8cf.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto label = kernels::shape_to_string(shapes[i]);
    const auto pruned = enumerate_space(k, shapes[i], nvidia, SpaceScope::pruned);
    const auto full = enumerate_space(k, shapes[i], nvidia, SpaceScope::full);
    const auto elsewhere = enumerate_space(k, shapes[i], other, SpaceScope::pruned);
    // The merge stage (a fourth path, stream-merge-stage) added configs; the
    // first three paths are as they were.
    std::size_t before_merge_stage = 0;
    for (const auto& c : pruned.valid) before_merge_stage += c.at("MERGE_STAGE") == 0;
    EXPECT_EQ(before_merge_stage, at_353b8cf[i]) << label;
    ASSERT_EQ(pruned.paths.size(), 4u);
    for (const auto& p : pruned.paths) EXPECT_GT(p.valid, 0u) << label << " " << p.name;
    EXPECT_GT(full.valid.size(), elsewhere.valid.size()) << label;  // the rules for every device still prune
    EXPECT_GT(elsewhere.valid.size(), pruned.valid.size()) << label;
    const std::set<Config> all(full.valid.begin(), full.valid.end());
    const std::set<Config> other_pruned(elsewhere.valid.begin(), elsewhere.valid.end());
    for (const auto& c : pruned.valid) {
      EXPECT_EQ(c.at("QH"), 4);
      EXPECT_TRUE(all.count(c)) << label << ": " << kernels::config_to_string(c);
      EXPECT_TRUE(other_pruned.count(c)) << label << ": " << kernels::config_to_string(c);
    }
  }
}

// ---- on the device ----

class DecodeOpsDevice : public testing_support::DeviceSuite<std::string> {};
class AttentionDecodeDevice : public testing_support::DeviceSuite<int> {
 protected:
  // Validates each (shape, config) the test device can run; how many ran.
  static std::size_t validate_cases(const kernels::Kernel& k,
                                    const std::vector<std::pair<Shape, kernels::Config>>& cases, std::uint64_t seed) {
    const vk::Device device(*instance_, testing_support::test_device_index());
    std::size_t ran = 0;
    for (const auto& [shape, config] : cases) {
      if (const auto violation = k.constraint_violation(config, shape, device.info()).detail; !violation.empty()) {
        std::cout << "not on this device: " << kernels::shape_to_string(shape) << ": " << violation << "\n";
        continue;
      }
      ++ran;
      const auto failures = testing_support::failing_variants(*instance_, k, shape, {config}, seed);
      EXPECT_TRUE(failures.empty()) << kernels::shape_to_string(shape) << ": " << ::testing::PrintToString(failures);
    }
    return ran;
  }
};

// attention_decode's legal space at the check shapes is some 15,000 configs
// on a CPU driver, far past what a test validates: here it is the configs
// of its space as NVIDIA's pruning rules leave it on the test device's
// limits (what this test validated before the rules were keyed to NVIDIA);
// `vktune check attention_decode --variants covering --space full` is the
// gate over the whole legal space.
TEST_P(DecodeOpsDevice, EveryValidVariantPassesAtEveryCheckShape) {
  const auto& kernel = kernels::find_kernel(GetParam());
  if (GetParam() != "attention_decode") {
    const auto failures = testing_support::check_every_variant(*instance_, kernel);
    EXPECT_TRUE(failures.empty()) << failures;
    return;
  }
  const vk::Device device(*instance_, test_device_index());
  auto as_nvidia = device.info();
  as_nvidia.vendor_id = kernels::kVendorNvidia;
  for (const auto& shape : kernel.check_shapes()) {
    const auto space = enumerate_space(kernel, shape, as_nvidia);
    EXPECT_FALSE(space.valid.empty()) << label(GetParam(), shape);
    EXPECT_EQ(kernel.constraint_violation(kernel.baseline(shape), shape, device.info()).detail, "") << label(GetParam(), shape);
    const auto failures = testing_support::failing_variants(*instance_, kernel, shape, space.valid, 2024);
    EXPECT_TRUE(failures.empty()) << label(GetParam(), shape) << ": " << ::testing::PrintToString(failures);
  }
}
TEST_P(DecodeOpsDevice, APerturbedReferenceFails) {
  const WrongReference wrong(kernels::find_kernel(GetParam()));
  const Shape shape = wrong.check_shapes().back();
  const auto failures = testing_support::failing_variants(*instance_, wrong, shape, {wrong.baseline(shape)}, 7);
  ASSERT_EQ(failures.size(), 1u);  // the baseline passes against the true reference
  EXPECT_NE(failures[0].find("exceeds"), std::string::npos) << failures[0];
}

// The check shapes split a cache into at most five: the split merges'
// rounds (MERGE=0: eight splits, MERGE=1: sixteen per invocation group,
// online rescale between rounds) and MERGE=1's split groups (WG_SIZE=256:
// two groups of 128 invocations) are checked here at 17 splits, with the
// integer widening (WIDEN=1) on the longest walks, and the fixed-cost cuts
// (LEAN=1: skipped prefetches past the chunk, whose last split is short here,
// and the one-barrier team merge) on each merge that takes them, and three
// steps ahead with q in shared memory (PREFETCH=3).
TEST_F(AttentionDecodeDevice, MergesOfMoreSplitsThanARound) {
  const auto& k = kernels::find_kernel("attention_decode");
  const Shape shape{8, 2, 128, 4200};  // QH=4, 128 outputs per group, KV_CHUNK=256: 17 splits
  const kernels::Config walk{{"WG_SIZE", 128}, {"LOADS", 1},      {"VEC", 8},         {"QH", 4},
                             {"TOKENS", 4},    {"PREFETCH", 1},   {"KV_CHUNK", 256}, {"REDUCTION", 0},
                             {"MERGE", 0},      {"WIDEN", 0},       {"LEAN", 0},
                             {"MMA", 0},        {"STEP", 32},        {"STREAM", 0},
                             {"ENTRIES", 4},    {"MERGE_STAGE", 0}, {"MERGE_WG", 0}};
  std::vector<kernels::Config> configs{walk};
  configs.push_back(walk), configs.back()["MERGE"] = 1;
  configs.push_back(configs.back()), configs.back()["PREFETCH"] = 2;
  configs.push_back(configs[1]), configs.back()["LEAN"] = 1;
  configs.push_back(configs[2]), configs.back()["LEAN"] = 1;
  configs.push_back(configs[3]), configs.back()["WG_SIZE"] = 256;
  configs.push_back(configs[4]), configs.back()["WIDEN"] = 1;
  configs.push_back(configs[4]), configs.back()["PREFETCH"] = 3;
  // The team sum the test device runs (a team of 16 lanes: shuffles where
  // the subgroup holds it).
  const vk::Device device(*instance_, testing_support::test_device_index());
  for (auto& config : configs) {
    if (!k.constraint_violation(config, shape, device.info()).detail.empty()) config["REDUCTION"] = 1;
    EXPECT_EQ(k.constraint_violation(config, shape, device.info()).detail, "");
  }
  const auto failures = testing_support::failing_variants(*instance_, k, shape, configs, 11);
  EXPECT_TRUE(failures.empty()) << ::testing::PrintToString(failures);
}

// REDUCTION=2 (the reduce-scatter) with split merges: the check shapes hold
// it only unsplit (a team of 16 lanes at head_dim 128 exceeds a CPU
// driver's subgroup of 8). At head_dim 64 (teams of 8) with 17 splits: a
// score per lane (QH*TOKENS = 8) and a score per two lanes (4: the plain
// levels after the scatter), prefetched one, two and three steps ahead.
TEST_F(AttentionDecodeDevice, ReduceScatterWithSplits) {
  const auto& k = kernels::find_kernel("attention_decode");
  const kernels::Config walk{{"WG_SIZE", 128}, {"LOADS", 1},      {"VEC", 8},         {"QH", 4},
                             {"TOKENS", 2},    {"PREFETCH", 1},   {"KV_CHUNK", 256}, {"REDUCTION", 2},
                             {"MERGE", 1},      {"WIDEN", 0},       {"LEAN", 1},
                             {"MMA", 0},        {"STEP", 32},        {"STREAM", 0},
                             {"ENTRIES", 4},    {"MERGE_STAGE", 0}, {"MERGE_WG", 0}};
  std::vector<std::pair<Shape, kernels::Config>> cases{{{8, 2, 64, 4200}, walk}};
  cases.push_back({{4, 2, 64, 4200}, walk}), cases.back().second["QH"] = 2;
  cases.push_back(cases.back()), cases.back().second["TOKENS"] = 4, cases.back().second["PREFETCH"] = 2;
  cases.push_back(cases.back()), cases.back().second["PREFETCH"] = 3;
  const vk::Device device(*instance_, testing_support::test_device_index());
  for (const auto& [shape, config] : cases) {
    const auto violation = k.constraint_violation(config, shape, device.info()).detail;
    if (!violation.empty()) GTEST_SKIP() << "the test device cannot run REDUCTION=2: " << violation;
    const auto failures = testing_support::failing_variants(*instance_, k, shape, {config}, 13);
    EXPECT_TRUE(failures.empty()) << kernels::shape_to_string(shape) << ": " << ::testing::PrintToString(failures);
  }
}

// STREAM=1 with more splits than the merge takes in a round (MB=8 per
// invocation group) and a short last split: 1100 entries in chunks of 32
// (35 splits, the last of 12 entries: at QH=2, head_dim 64, 32 outputs per
// head group, so WG_SIZE=128 merges in 4 invocation groups of 9 or 8 splits)
// and of 128 and 256 (9 and 5 splits, the last of 76), at WG_SIZE 128, 256
// and 512 (16 invocation groups, prefetched), QH=4 (64 outputs), and a team
// that takes two loads per entry (LOADS=2) where the device needs it.
TEST_F(AttentionDecodeDevice, StreamingPathMergesManySplits) {
  const auto& k = kernels::find_kernel("attention_decode");
  const kernels::Config stream{{"WG_SIZE", 128}, {"LOADS", 1},   {"VEC", 8},       {"QH", 2},     {"TOKENS", 2},
                               {"PREFETCH", 0},  {"KV_CHUNK", 32}, {"REDUCTION", 0}, {"MERGE", 1},  {"WIDEN", 0},
                               {"LEAN", 1},      {"MMA", 0},     {"STEP", 32},     {"STREAM", 1}, {"ENTRIES", 2},
                               {"MERGE_STAGE", 0}, {"MERGE_WG", 0}};
  std::vector<std::pair<Shape, kernels::Config>> cases{{{4, 2, 64, 1100}, stream}};
  cases.push_back(cases.back()), cases.back().second["KV_CHUNK"] = 128;
  cases.push_back(cases.back()), cases.back().second["WG_SIZE"] = 512, cases.back().second["KV_CHUNK"] = 256;
  cases.back().second["PREFETCH"] = 1;
  cases.push_back({{8, 2, 64, 1100}, cases[0].second}), cases.back().second["QH"] = 4;
  cases.back().second["WG_SIZE"] = 256, cases.back().second["KV_CHUNK"] = 256, cases.back().second["ENTRIES"] = 4;
  // Two loads per entry where one load's team of 16 exceeds the subgroup (a
  // CPU driver's 8 lanes; refused where 16 fit, as on GPUs).
  cases.push_back({{4, 2, 128, 1100}, cases[0].second}), cases.back().second["LOADS"] = 2;
  const std::size_t ran = validate_cases(k, cases, 17);
  if (ran < 4) GTEST_SKIP() << "the test device cannot run STREAM=1 at head_dim 64 (" << ran << " of the cases ran)";
}

// STREAM=1 with its split merge as a second dispatch (MERGE_STAGE=1,
// templates/attention_merge.comp): many splits, merge workgroups narrower
// and wider than a head's head_dim/4 vec4s (one and several groups over the
// splits), QH=2 and 4, and the same problem buffers as the in-dispatch merge
// (the scratch's counters stay untouched).
TEST_F(AttentionDecodeDevice, MergeStageMergesManySplits) {
  const auto& k = kernels::find_kernel("attention_decode");
  const kernels::Config staged{{"WG_SIZE", 128}, {"LOADS", 1},    {"VEC", 8},       {"QH", 2},     {"TOKENS", 2},
                               {"PREFETCH", 0},  {"KV_CHUNK", 32}, {"REDUCTION", 0}, {"MERGE", 1},  {"WIDEN", 0},
                               {"LEAN", 1},      {"MMA", 0},      {"STEP", 32},     {"STREAM", 1}, {"ENTRIES", 2},
                               {"MERGE_STAGE", 1}, {"MERGE_WG", 64}};
  std::vector<std::pair<Shape, kernels::Config>> cases{{{4, 2, 64, 1100}, staged}};
  cases.push_back(cases.back()), cases.back().second["MERGE_WG"] = 256, cases.back().second["KV_CHUNK"] = 128;
  cases.push_back({{8, 2, 64, 300}, cases[0].second}), cases.back().second["QH"] = 4;
  cases.back().second["MERGE_WG"] = 128, cases.back().second["KV_CHUNK"] = 64;
  for (const auto& [shape, config] : cases) ASSERT_EQ(k.stages(config, shape).size(), 2u);
  // Legality, judged for an H200-like device so that it is checked on every
  // test device (lavapipe's subgroups of 8 cannot run STREAM=1 at all).
  const auto nvidia = testing_support::h200_like();
  // One split: nothing to merge, and a second stage would only cost a launch.
  auto one = cases[0].second;
  one["KV_CHUNK"] = 128;
  EXPECT_EQ(k.constraint_violation(one, {4, 2, 64, 100}, nvidia).detail, "MERGE_STAGE=1 needs splits to merge (kv_len > KV_CHUNK)");
  auto walk = k.baseline({4, 2, 64, 1100});
  walk["MERGE_STAGE"] = 1;
  EXPECT_NE(k.constraint_violation(walk, {4, 2, 64, 1100}, nvidia).detail.find("only varied with STREAM=1"), std::string::npos);
  // Validation needs a device that runs the streaming path.
  const std::size_t ran = validate_cases(k, cases, 19);
  if (ran < 3) GTEST_SKIP() << "the test device cannot run STREAM=1 at head_dim 64 (" << ran << " of the cases ran)";
}

INSTANTIATE_TEST_SUITE_P(Kernels, DecodeOpsDevice, ::testing::ValuesIn(kNames),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vktune
