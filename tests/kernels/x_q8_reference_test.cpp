// The CPU model of the 8-bit-activation products (reference/activation_q8):
// on the test device, a variant of every integer-dot template of every
// quantized format matches it to fp32 rounding, while it stays a clear step
// from the exact product. `vktune step --check` uses it to tell a wrong op
// from the approximation itself.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>

#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernel_test_support.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/registry.hpp"
#include "reference/activation_q8.hpp"
#include "reference/gguf_types.hpp"
#include "reference/matmul.hpp"
#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Shape;

const kernels::HostBuffer& buffer(const kernels::Problem& problem, const std::string& name) {
  for (const auto& b : problem.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

struct Case {
  const char* kernel;
  ref::GgmlType type;
};

class QuantizedActivationReference : public ::testing::TestWithParam<Case> {};

TEST_P(QuantizedActivationReference, EveryIntegerDotTemplateMatchesIt) {
  const auto& kernel = kernels::find_kernel(GetParam().kernel);
  vk::Instance instance;
  vk::Device device(instance, testing_support::test_device_index());
  if (!device.info().features.integer_dot_product) GTEST_SKIP() << "no shaderIntegerDotProduct";
  const Shape shape{2, 21, 1024};  // two x rows, rows not a multiple of any workgroup's
  // One config per template the integer path offers, from a covering array of it.
  const auto templates = TemplateLibrary::embedded();
  std::map<std::string, CompiledVariant> by_template;
  for (const auto& config : testing_support::covering_of(
           kernel, shape, device.info(), [](const Config& c) { return kernels::uses_quantized_activations(c); })) {
    auto variant = describe_variant(kernel, config, shape, templates);
    const auto file = variant.stages.front().plan.template_file;
    if (!by_template.count(file)) by_template.emplace(file, std::move(variant));
  }
  ASSERT_FALSE(by_template.empty());

  auto problem = kernel.make_problem(shape, 4242);
  const auto& xb = buffer(problem, "x").bytes;
  std::vector<float> x(xb.size() / 4);
  std::memcpy(x.data(), xb.data(), xb.size());
  const auto* w = buffer(problem, "W").bytes.data();
  const auto exact = ref::matmul_quantized(x.data(), 2, w, GetParam().type, 21, 1024);
  problem.expected = ref::matmul_quantized_q8_activations(x.data(), 2, w, GetParam().type, 21, 1024);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    diff += (exact[i] - problem.expected[i]) * (exact[i] - problem.expected[i]);
    norm += exact[i] * exact[i];
  }
  EXPECT_GT(std::sqrt(diff / norm), 1e-3) << "8-bit activations are an approximation of the exact product";

  DeviceProblem on_device(device, problem, 1);
  for (auto& [file, variant] : by_template) {
    SCOPED_TRACE(file + " " + kernels::config_to_string(variant.config));
    compile_variant(variant, templates);
    VariantRunner runner(device, variant, static_cast<std::uint32_t>(problem.buffers.size()), 3, 2);
    // Measured on lavapipe: 0.7e-7 to 2.3e-7, against 3.7e-3 to 4.9e-3 from the exact product.
    const auto v = runner.validate(on_device, problem, {1e-6, 1e-5});
    EXPECT_TRUE(v.passed) << v.reason << " (relative L2 " << v.rel_l2 << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, QuantizedActivationReference,
                         ::testing::Values(Case{"matmul_q4k", ref::GgmlType::Q4_K},
                                           Case{"matmul_q5k", ref::GgmlType::Q5_K},
                                           Case{"matmul_q6k", ref::GgmlType::Q6_K},
                                           Case{"matmul_q4_0", ref::GgmlType::Q4_0},
                                           Case{"matmul_q8_0", ref::GgmlType::Q8_0}),
                         [](const auto& info) { return std::string(info.param.kernel); });

}  // namespace
}  // namespace vktune
