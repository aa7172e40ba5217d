#pragma once
// What the step tests share (tests/workloads/step_test.cpp,
// step_winner_choice_test.cpp): the test device, the tiny random model, a
// step of baselines, and a stored winner planted in a database.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "kernels/registry.hpp"
#include "results/store.hpp"
#include "workloads/llm/model_step.hpp"
#include "workloads/llm/random_model.hpp"

namespace vktune::step {

inline std::uint32_t test_device_index() {
  const char* text = std::getenv("VKTUNE_TEST_DEVICE");
  return text && *text ? static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10)) : 0;
}

// The tiny preset (2 layers, 256 wide) with Q4_K_M's type mix and random weights.
inline ref::GgufFile tiny_model(std::uint64_t seed, const std::string& architecture = "llama") {
  auto preset = model::find_preset("tiny");
  preset.architecture = architecture;
  return ref::GgufFile::from_bytes(model::random_model(preset, "Q4_K_M", seed).bytes(), "tiny.gguf");
}

inline StepOptions baselines(std::uint32_t context, std::uint64_t seed) {
  StepOptions options;
  options.context = context;
  options.tuned = false;
  options.seed = seed;
  return options;
}

// Stores `config` as the device's cold-cache winner of the kernel at the
// shape, with the given median.
inline void store_winner(results::Store& store, std::int64_t device_row, const std::string& kernel_name,
                  const kernels::Shape& shape, const kernels::Config& config, double median_ns,
                  const std::string& updated_at = "") {
  const auto& kernel = kernels::find_kernel(kernel_name);
  const auto variant = describe_variant(kernel, config, shape, TemplateLibrary::embedded());
  const auto config_json = kernels::config_to_json(config);
  store.upsert_variant({variant.variant_hash, kernel_name, variant.stages.front().plan.template_file, config_json,
                        variant.stages.front().template_hash, "test"});
  results::Winner w;
  w.device_id = device_row, w.kernel = kernel_name, w.shape = kernels::shape_to_string(shape);
  w.cache_mode = "cold", w.variant_hash = variant.variant_hash, w.config_json = config_json, w.spirv = {1};
  w.median_ns = median_ns, w.updated_at = updated_at;
  store.set_winner(w);
}
}  // namespace vktune::step
