// A decode step as a chain of kernels on the test device (tuner/step/): the
// tiny random model's logits against the CPU reference of the same chain,
// and that reference's sensitivity (the token's position changes them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "tuner/model/model_description.hpp"
#include "tuner/model/random_model.hpp"
#include "tuner/step/decode_step.hpp"
#include "tuner/step/step_reference.hpp"

namespace vktune::step {
namespace {

std::uint32_t test_device_index() {
  const char* text = std::getenv("VKTUNE_TEST_DEVICE");
  return text && *text ? static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10)) : 0;
}

double rel_l2(const std::vector<float>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff / norm);
}

TEST(DecodeStep, TheChainsLogitsAreTheCpuChains) {
  for (const char* architecture : {"llama", "qwen2"}) {  // normal and NeoX rope
    SCOPED_TRACE(architecture);
    auto preset = model::find_preset("tiny");
    preset.architecture = architecture;
    const auto file = ref::GgufFile::from_bytes(model::random_model(preset, "Q4_K_M", 21).bytes(), "tiny.gguf");
    const auto m = model::describe_model(file.contents(), "tiny.gguf");
    vk::Instance instance;
    vk::Device device(instance, test_device_index());
    StepOptions options;
    options.context = 48;
    options.tuned = false;
    options.seed = 9;
    DecodeStep chain(m, file, options, nullptr, {}, device.info());
    // 1 lookup, 17 per layer, the output norm, head and argmax.
    ASSERT_EQ(chain.ops().size(), 1u + 2 * 17 + 3);
    chain.prepare(device, TemplateLibrary::embedded());
    const auto logits = chain.run_once(device);
    ASSERT_EQ(logits.size(), 128u);
    // Baselines compute in fp32 throughout (measured on lavapipe: ~1e-5).
    EXPECT_LT(rel_l2(logits, reference_logits(m, chain, 48)), 1e-4);
    // The same weights and cache with the token one position earlier (its
    // rope angle, the entries attention reads) is another answer.
    EXPECT_GT(rel_l2(logits, reference_logits(m, chain, 47)), 1e-3);
    // Steps repeat: the second writes the same cache row and reads the same.
    EXPECT_EQ(chain.run_once(device), logits);
  }
}

}  // namespace
}  // namespace vktune::step
