#include "engine/clock_probe.hpp"

#include <string>

#include "engine/template_library.hpp"
#include "harness/clock_probe.hpp"
#include "harness/compiler.hpp"

namespace vktune {

namespace {
// Invocations: one subgroup on most GPUs; the chain is per invocation, so
// more would add nothing but issue slots.
constexpr std::uint32_t kProbeInvocations = 32;
// Dependent multiply-adds: at 4 clocks each, 64k clocks (33 us at 1980 MHz,
// 190 us at an idle 345 MHz): long against the dispatch's own overhead and
// its jitter. The full clock is the fastest reading of a whole run, and a
// later reading must come within the timer's 3% of it: with 16k clocks
// (8 us), an H200 tuning MobileNet's batch-8 layers waited out 1-s warm-ups
// for most variants past the run's first 100 s; with 64k, for 1 in 282
// (measurements/nvidia-h200/session41, calls 2 and 3).
constexpr int kProbeChain = 16384;
}  // namespace

std::unique_ptr<vk::ClockGauge> make_clock_probe(vk::Device& device) {
  const auto templates = TemplateLibrary::embedded();
  vk::CompileOptions options;
  options.defines = {{"WG_SIZE", std::to_string(kProbeInvocations)},
                     {"CHAINS", "1"},
                     {"ITERATIONS", std::to_string(kProbeChain)}};
  const auto spirv =
      vk::compile_compute_shader({"ceiling_fma.comp", templates.text("ceiling_fma.comp")}, templates, options);
  return std::make_unique<vk::ClockProbe>(device, spirv, kProbeInvocations);
}

}  // namespace vktune
