#pragma once
// What the kernel test suites share: the test device index, an H200-like
// DeviceInfo for device-free constraint checks, and a kernel wrapper whose
// reference is deliberately wrong.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/instance.hpp"
#include "kernels/kernel.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/registry.hpp"
#include "reference/matmul.hpp"
#include "tuner/covering.hpp"
#include "tuner/progress_observer.hpp"
#include "tuner/session.hpp"
#include "tuner/space.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "tests/test_device.hpp"

namespace vktune::testing_support {

// Every registered kernel's name: contract suites run over all of them.
inline std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto* k : kernels::all_kernels()) names.push_back(k->name());
  return names;
}

using test::test_device_index;

// The name of the first pruning rule of `kernel` that drops `config` at
// `shape` on `device`, or "" when none does.
inline std::string pruning_rule_for(const kernels::Kernel& kernel, const kernels::Config& config,
                                    const kernels::Shape& shape, const vk::DeviceInfo& device) {
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  for (const auto* rule : active_pruning(space, device, SpaceScope::pruned)) {
    if (rule->prunes(config, shape)) return rule->name;
  }
  return {};
}

// A device like NVIDIA's H200 as vktune sees it.
// A define's value in a shader plan; "" where the plan leaves it undefined.
inline std::string define_value(const kernels::ShaderPlan& plan, const std::string& name) {
  for (const auto& [key, value] : plan.defines) {
    if (key == name) return value;
  }
  return {};
}

inline vk::DeviceInfo h200_like() {
  vk::DeviceInfo d;
  d.name = "NVIDIA H200-like";
  d.vendor_id = kernels::kVendorNvidia;  // the pruning rules measured on the H200 apply
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;
  d.compute_required_subgroup_size = true;
  d.features.subgroup_size_control = true;
  d.max_compute_workgroup_subgroups = 32;
  d.subgroup_operations = {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered"};
  d.features.shader_int8 = true;
  d.features.integer_dot_product = true;
  d.features.storage_buffer_16bit = true;  // the fp16-activation kernels need it
  d.subgroup_in_compute = true;
  d.max_workgroup_size = {1024, 1024, 64};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {2147483647u, 65535, 65535};
  d.max_shared_memory_bytes = 49152;
  d.max_push_constants_bytes = 256;
  return d;
}

// NVIDIA's H200 as vktune sees it (measurements/nvidia-h200/devices.json), with its
// memory and storage-buffer limits and without the 8-bit integer features,
// for device-free checks of the decode step's ops.
inline vk::DeviceInfo h200() {
  auto d = h200_like();
  d.features.shader_int8 = false;
  d.features.integer_dot_product = false;
  d.max_storage_buffer_range = 4294967295u;
  d.memory_heaps = {{std::uint64_t{143} << 30, true}};
  return d;
}

// The H200-like device under another vendor's id: the pruning rules drawn
// from H200 measurements (keyed to NVIDIA) do not apply, those of every
// device do.
inline vk::DeviceInfo h200_like_other_vendor() {
  auto d = h200_like();
  d.name = "H200-like, not NVIDIA";
  d.vendor_id = 0x1002;
  return d;
}

// The H200-like device with its fp16 features and cooperative-matrix shapes
// (fp16 inputs; fp16 and fp32 accumulators), as measurements/nvidia-h200/devices.json
// lists them.
inline vk::DeviceInfo h200_like_tensor_cores() {
  auto d = h200_like();
  d.features.shader_float16 = true;
  d.features.cooperative_matrix_nv = true;
  d.cooperative_matrix = vk::CooperativeMatrixExtension::nv;
  for (const char* acc : {"f16", "f32"}) {
    for (auto [m, n, k] : {std::array<std::uint32_t, 3>{16, 16, 16}, {16, 8, 16}, {16, 8, 8}}) {
      d.cooperative_matrix_shapes.push_back({m, n, k, "f16", "f16", acc, acc, "subgroup"});
    }
  }
  // The int8 products the H200 reports (GL_NV_integer_cooperative_matrix).
  d.features.shader_int8 = true;
  d.cooperative_matrix_shapes.push_back({16, 16, 32, "s8", "s8", "s32", "s32", "subgroup"});
  return d;
}

// Variants with GL_NV_cooperative_matrix run only on GPUs, never in CI
// (lavapipe has no cooperative matrices): compile up to `count` valid
// variants of `kernel` at `shape` on an H200-like device that `pick`
// selects, spread over the space, so that CI still catches a template that
// stops compiling. Returns how many were compiled.
inline std::size_t expect_variants_compile(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                           const std::function<bool(const kernels::Config&)>& pick,
                                           std::size_t count, SpaceScope scope = SpaceScope::pruned) {
  const auto space = enumerate_space(kernel, shape, h200_like_tensor_cores(), scope);
  std::vector<kernels::Config> picked;
  for (const auto& c : space.valid) {
    if (pick(c)) picked.push_back(c);
  }
  const auto templates = TemplateLibrary::embedded();
  const std::size_t stride = std::max<std::size_t>(1, picked.size() / std::max<std::size_t>(count, 1));
  std::size_t compiled = 0;
  for (std::size_t i = 0; i < picked.size() && compiled < count; i += stride, ++compiled) {
    auto variant = describe_variant(kernel, picked[i], shape, templates);
    EXPECT_NO_THROW(compile_variant(variant, templates)) << kernels::config_to_string(picked[i]);
  }
  return compiled;
}

// The USE_COOPMAT=1 prefill path of a quantized kernel
// (kernels/quant_coopmat.hpp) at `prefill`: valid only with fp16 cooperative
// matrices and fp32 accumulators, planned as matmul_quant_cm.comp with QTYPE
// `qtype`, held to the path's tolerance, the fp32 path's parameters pinned,
// and offered at every prefill default shape.
inline void expect_tensor_core_prefill(const kernels::Kernel& kernel, const kernels::Shape& prefill, int qtype) {
  const auto device = h200_like_tensor_cores();
  auto config = kernel.baseline(prefill);
  EXPECT_EQ(config.at("USE_COOPMAT"), 0);  // the baseline stays on the fp32 path
  config["USE_COOPMAT"] = 1;
  config["TILE_M"] = 64;
  config["TILE_N"] = 128;
  config["TILE_K"] = 32;
  config["WARPS_M"] = 2;
  config["WARPS_N"] = 4;
  config["THREAD_M"] = config["THREAD_N"] = 2;  // the fp32 path's, at their first value
  EXPECT_EQ(kernel.constraint_violation(config, prefill, device).detail, "");
  const auto plan = kernel.plan(config, prefill);
  EXPECT_EQ(plan.template_file, "matmul_quant_cm.comp");
  EXPECT_NE(std::find(plan.defines.begin(), plan.defines.end(), std::make_pair(std::string("QTYPE"), std::to_string(qtype))),
            plan.defines.end());
  EXPECT_EQ(plan.local_size[0], 256u);
  EXPECT_LE(plan.shared_memory_bytes, device.max_shared_memory_bytes);
  EXPECT_EQ(kernel.variant_tolerance(config, prefill).rel_l2, kernels::quant_coopmat::kTolerance.rel_l2);
  EXPECT_EQ(kernel.variant_tolerance(kernel.baseline(prefill), prefill).rel_l2, kernel.tolerance(prefill).rel_l2);
  EXPECT_NE(kernel.constraint_violation(config, prefill, h200_like()).detail.find("VK_NV_cooperative_matrix"),
            std::string::npos);
  auto pinned = config;
  pinned["THREAD_N"] = 4;
  EXPECT_NE(kernel.constraint_violation(pinned, prefill, device).detail.find("USE_COOPMAT=0"), std::string::npos);
  // 128×128 tiles in 128-deep slices exceed 48 KiB of fp16 staging.
  config["TILE_M"] = config["TILE_K"] = 128;
  EXPECT_NE(kernel.constraint_violation(config, prefill, device).detail, "");
  for (const auto& shape : kernel.default_shapes()) {
    if (shape[0] <= 8) continue;
    const auto space = enumerate_space(kernel, shape, device);
    const auto cm = std::count_if(space.valid.begin(), space.valid.end(),
                                  [](const kernels::Config& c) { return c.at("USE_COOPMAT") == 1; });
    EXPECT_GT(cm, 20) << kernel.name() << " " << kernels::shape_to_string(shape);
  }
  // A shape of partial tiles (the guarded stores through shared memory).
  const kernels::Shape partial{100, 77, prefill[2]};
  EXPECT_EQ(expect_variants_compile(kernel, partial, [](const kernels::Config& c) { return c.at("USE_COOPMAT") == 1; }, 4),
            4u);
}

// The first pruning rule of the shape's space that drops `config` on
// `device`, or "" (the config may still be illegal: see constraint_violation).
inline std::string pruned_by(const kernels::Kernel& kernel, const kernels::Config& config, const kernels::Shape& shape,
                             const vk::DeviceInfo& device) {
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  for (const auto* rule : active_pruning(space, device, SpaceScope::pruned)) {
    if (rule->prunes(config, shape)) return rule->name;
  }
  return {};
}

// Whether the pruning rules that match the H200-like device keep `config`,
// `except` aside: device tests on a CPU driver that ran the configs those
// rules left when they were legality keep to them, so that they stay as
// short as they were.
inline bool kept_by_h200_pruning(const kernels::Kernel& kernel, const kernels::Config& config,
                                 const kernels::Shape& shape, const std::string& except = "") {
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  for (const auto* rule : active_pruning(space, h200_like(), SpaceScope::pruned)) {
    if (rule->name != except && rule->prunes(config, shape)) return false;
  }
  return true;
}

// A quantized matmul's valid configs at its six default shapes (three
// decode, three prefill) on the H200-like devices: `counts` = the three
// decode counts, then the prefill count without and with tensor cores, with
// the pruning rules that match an NVIDIA device, the tensor-cores-dequant
// paths (DEQUANT_STAGE 1 and, where x is fp32, 2) aside: each holds each
// tensor-core config once per DQ_WG and DQ_RUN (3 × 3), DEQUANT_STAGE=2's
// once more per CM_PREFETCH (2). The int8 path (DEQUANT_STAGE=3) is pruned
// on NVIDIA's devices: none of its configs. The full space (no pruning)
// holds every one of those configs.
inline void expect_pruned_counts(const kernels::Kernel& kernel, const std::array<std::size_t, 5>& counts) {
  const auto shapes = kernel.default_shapes();
  ASSERT_EQ(shapes.size(), 6u);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (const auto& device : {h200_like(), h200_like_tensor_cores()}) {
      const bool tensor_cores = device.cooperative_matrix != vk::CooperativeMatrixExtension::none;
      const auto label = kernel.name() + " " + kernels::shape_to_string(shapes[i]) + (tensor_cores ? " (tensor cores)" : "");
      const auto pruned = enumerate_space(kernel, shapes[i], device);
      const auto int8_configs = static_cast<std::size_t>(std::count_if(
          pruned.valid.begin(), pruned.valid.end(), [](const kernels::Config& c) { return kernels::quant_coopmat::multiplies_int8(c); }));
      const auto dequant = static_cast<std::size_t>(std::count_if(
          pruned.valid.begin(), pruned.valid.end(), [](const kernels::Config& c) { return kernels::quant_coopmat::uses_dequant_stage(c); })) -
                           int8_configs;
      EXPECT_EQ(pruned.valid.size() - dequant - int8_configs, i < 3 ? counts[i] : counts[tensor_cores ? 4 : 3]) << label;
      const auto& prefill = kernel.spaces().at(kernel.space_index(shapes[3]));
      const auto& stages = std::find_if(prefill.parameters.begin(), prefill.parameters.end(), [](const auto& p) {
                             return p.name == "DEQUANT_STAGE";
                           })->values;
      const bool x16 = std::find(stages.begin(), stages.end(), 2) != stages.end();
      const std::size_t per_config = 9 + (x16 ? 9 * 2 : 0);
      EXPECT_EQ(dequant, i < 3 || !tensor_cores ? 0 : per_config * (counts[4] - counts[3])) << label;
      EXPECT_EQ(int8_configs, 0u) << label;
      std::set<std::string> full;
      for (const auto& c : enumerate_space(kernel, shapes[i], device, SpaceScope::full).valid) {
        full.insert(kernels::config_to_json(c));
      }
      EXPECT_GT(full.size(), pruned.valid.size()) << label;
      for (const auto& c : pruned.valid) {
        EXPECT_EQ(full.count(kernels::config_to_json(c)), 1u) << label << ": " << kernels::config_to_string(c);
      }
    }
  }
}

// The real kernel with its problem made wrong: by default its largest
// expected value moved by a tenth of itself; every variant must fail
// validation.
class WrongReference final : public kernels::Kernel {
 public:
  using Mutation = std::function<void(kernels::Problem&)>;
  explicit WrongReference(const kernels::Kernel& real, Mutation mutation = scale_largest)
      : real_(real), mutation_(std::move(mutation)) {}
  std::string name() const override { return real_.name(); }
  std::string description() const override { return real_.description(); }
  std::vector<std::string> shape_dims() const override { return real_.shape_dims(); }
  void validate_shape(const kernels::Shape& s) const override { real_.validate_shape(s); }
  std::vector<kernels::Shape> default_shapes() const override { return real_.default_shapes(); }
  std::vector<kernels::Shape> check_shapes() const override { return real_.check_shapes(); }
  std::vector<kernels::Space> build_spaces() const override { return real_.spaces(); }
  kernels::Config baseline(const kernels::Shape& s) const override { return real_.baseline(s); }
  Violation constraint_violation(const kernels::Config& c, const kernels::Shape& s,
                                 const vk::DeviceInfo& d) const override {
    return real_.constraint_violation(c, s, d);
  }
  kernels::ShaderPlan plan(const kernels::Config& c, const kernels::Shape& s) const override {
    return real_.plan(c, s);
  }
  kernels::Problem make_problem(const kernels::Shape& s, const kernels::Inputs& inputs) const override {
    auto p = real_.make_problem(s, inputs);
    mutation_(p);
    return p;
  }
  static void scale_largest(kernels::Problem& p) {
    auto it = std::max_element(p.expected.begin(), p.expected.end(), [](double a, double b) {
      return !(std::fabs(b) <= std::fabs(a)) && !std::isnan(b);  // NaN (unchecked) entries never win
    });
    *it *= 1.1;
  }
  kernels::Tolerance tolerance(const kernels::Shape& s) const override { return real_.tolerance(s); }
  kernels::Tolerance variant_tolerance(const kernels::Config& c, const kernels::Shape& s) const override {
    return real_.variant_tolerance(c, s);
  }
  kernels::Metrics metrics(const kernels::Shape& s) const override { return real_.metrics(s); }
  std::uint64_t device_bytes(const kernels::Shape& s) const override { return real_.device_bytes(s); }

 private:
  const kernels::Kernel& real_;
  Mutation mutation_;
};

// A parameterised suite that shares one Vulkan instance among its tests.
template <class Param>
class DeviceSuite : public ::testing::TestWithParam<Param> {
 protected:
  static void SetUpTestSuite() { instance_ = new vk::Instance(); }
  static void TearDownTestSuite() {
    delete instance_;
    instance_ = nullptr;
  }
  static inline vk::Instance* instance_ = nullptr;
};

// A parameterised suite with one validated instance and one open device for
// all its tests; the validation layer must have reported nothing at the end.
template <class Param>
class ValidatedDeviceSuite : public ::testing::TestWithParam<Param> {
 protected:
  static void SetUpTestSuite() {
    instance_ = new vk::Instance(vk::InstanceOptions{.validation = true});
    device_ = new vk::Device(*instance_, test_device_index());
  }
  static void TearDownTestSuite() {
    delete device_;
    device_ = nullptr;
    if (instance_) {
      const auto messages = instance_->take_validation_messages();
      std::string text;
      for (const auto& m : messages) text += m + "\n";
      EXPECT_TRUE(messages.empty()) << "validation layer reported:\n" << text;
    }
    delete instance_;
    instance_ = nullptr;
  }
  static inline vk::Instance* instance_ = nullptr;
  static inline vk::Device* device_ = nullptr;
};

// For a quantized matmul kernel of GGUF `type`: at 512×4096×4096 the
// reference is a sample (first and last outputs included), and a sampled
// element equals the full reference for its row of x.
inline void expect_sampled_reference(const kernels::Kernel& kernel, ref::GgmlType type) {
  const auto problem = kernel.make_problem({512, 4096, 4096}, 7);
  ASSERT_EQ(problem.expected.size(), 512u * 4096u);
  const auto sampled = std::count_if(problem.expected.begin(), problem.expected.end(),
                                     [](double v) { return !std::isnan(v); });
  EXPECT_GT(sampled, 1000);
  EXPECT_FALSE(std::isnan(problem.expected.front()));
  EXPECT_FALSE(std::isnan(problem.expected.back()));
  const auto& x = problem.buffers[0].bytes;
  const auto& w = problem.buffers[1].bytes;
  std::vector<float> last_row(4096);
  std::memcpy(last_row.data(), x.data() + 511 * 4096 * sizeof(float), 4096 * sizeof(float));
  const auto ref = ref::matmul_quantized(last_row.data(), 1, w.data(), type, 4096, 4096);
  EXPECT_EQ(problem.expected.back(), ref.back());
}

// Validates `configs` of `kernel` at `shape` on the test device; one line
// per variant that failed (its config and why).
inline std::vector<std::string> failing_variants(vk::Instance& instance, const kernels::Kernel& kernel,
                                                 const kernels::Shape& shape,
                                                 const std::vector<kernels::Config>& configs, std::uint64_t seed) {
  const auto templates = TemplateLibrary::embedded();
  SilentProgress progress;
  TuneSession session(instance, test_device_index(), nullptr, templates, progress);
  const auto result = session.check(kernel, shape, configs, seed);
  std::vector<std::string> failures;
  for (const auto& o : result.outcomes) {
    if (o.status != results::Status::ok) failures.push_back(kernels::config_to_string(o.config) + ": " + o.reason);
  }
  if (result.outcomes.size() != configs.size()) failures.push_back("not every variant was evaluated");
  return failures;
}

// The configs of `space` that `pick` keeps, path by path, as an enumeration
// (for covering_configs).
inline SpaceEnumeration kept_configs(const SpaceEnumeration& space,
                                     const std::function<bool(const kernels::Config&)>& pick) {
  SpaceEnumeration kept = space;
  kept.valid.clear();
  kept.path_of.clear();
  for (std::size_t i = 0; i < space.valid.size(); ++i) {
    if (!pick(space.valid[i])) continue;
    kept.valid.push_back(space.valid[i]);
    kept.path_of.push_back(space.path_of[i]);
  }
  return kept;
}

// A pairwise covering array of the valid configs of `kernel` at `shape` on
// `device` (`scope`) that `pick` keeps: device tests that aim at one
// template path take every value and pair of values of it, not every config.
inline std::vector<kernels::Config> covering_of(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                                const vk::DeviceInfo& device,
                                                const std::function<bool(const kernels::Config&)>& pick,
                                                SpaceScope scope = SpaceScope::pruned) {
  return covering_configs(kept_configs(enumerate_space(kernel, shape, device, scope), pick));
}

// The variants `select` draws from each check shape's space (`scope`) on the
// test device, validated. "" when all pass; otherwise what failed,
// including an empty space or an invalid baseline.
// `select` sees every check shape's enumeration and returns the configs per
// shape, in check_shapes() order.
inline std::string check_variants(
    vk::Instance& instance, const kernels::Kernel& kernel, SpaceScope scope,
    const std::function<std::vector<std::vector<kernels::Config>>(const std::vector<SpaceEnumeration>&)>& select) {
  std::string report;
  vk::Device device(instance, test_device_index());
  const auto shapes = kernel.check_shapes();
  std::vector<SpaceEnumeration> spaces;
  for (const auto& shape : shapes) spaces.push_back(enumerate_space(kernel, shape, device.info(), scope));
  const auto selected = select(spaces);
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const auto& shape = shapes[s];
    const auto label = kernel.name() + " " + kernels::shape_to_string(shape);
    if (spaces[s].valid.empty()) report += label + ": no valid variant\n";
    if (auto why = kernel.constraint_violation(kernel.baseline(shape), shape, device.info()).detail; !why.empty()) {
      report += label + ": the baseline is invalid: " + why + "\n";
    }
    for (const auto& f : failing_variants(instance, kernel, shape, selected.at(s), 2024)) {
      report += label + ": " + f + "\n";
    }
  }
  return report;
}

// Every valid variant of `kernel` at each of its check shapes on the test
// device (what `vktune check` does in CI).
inline std::string check_every_variant(vk::Instance& instance, const kernels::Kernel& kernel) {
  return check_variants(instance, kernel, SpaceScope::pruned, [](const std::vector<SpaceEnumeration>& spaces) {
    std::vector<std::vector<kernels::Config>> all;
    for (const auto& s : spaces) all.push_back(s.valid);
    return all;
  });
}

// A pairwise covering array of the space a tune on the test device searches
// over the check shapes (the shapes of one space together): what the CI gate
// (`vktune check --variants covering`) validates. (With --space full a CPU driver meets variants it takes minutes
// to run, e.g. Q6_K super-blocks with 64 shares in flight per invocation,
// which every device's pruning drops.)
inline std::string check_covering_variants(vk::Instance& instance, const kernels::Kernel& kernel) {
  return check_variants(instance, kernel, SpaceScope::pruned, [&kernel](const std::vector<SpaceEnumeration>& spaces) {
    // The check shapes of one space together, as the gate covers them.
    const auto shapes = kernel.check_shapes();
    std::map<std::size_t, std::vector<std::size_t>> by_space;
    for (std::size_t s = 0; s < shapes.size(); ++s) by_space[kernel.space_index(shapes[s])].push_back(s);
    std::vector<std::vector<kernels::Config>> configs(shapes.size());
    for (const auto& [index, members] : by_space) {
      std::vector<const SpaceEnumeration*> group;
      for (const auto s : members) group.push_back(&spaces[s]);
      auto covering = covering_configs(group);
      for (std::size_t m = 0; m < members.size(); ++m) configs[members[m]] = std::move(covering[m]);
    }
    return configs;
  });
}

}  // namespace vktune::testing_support
