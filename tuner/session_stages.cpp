// TuneSession's stage times: where the winner runs several dispatches, how
// its time divides among them, so that a multi-stage path shows which stage
// limits it (measurements/nvidia-h200/session56/ had to leave stages out of
// template copies to learn it).
#include <string>

#include "common/error.hpp"
#include "engine/evaluator.hpp"
#include "engine/variant.hpp"
#include "tuner/session.hpp"

namespace vktune {

namespace {
// Launches timed stage by stage: enough for a steady median, few enough
// that a millisecond-long launch adds little to the tune.
constexpr int kStageSamples = 15;
}  // namespace

void TuneSession::time_winner_stages(const kernels::Kernel& kernel, const kernels::Problem& problem,
                                     DeviceProblem& on_device, const TuneOptions& options, ShapeResult& result) {
  const auto& winner = result.outcomes[*result.winner];
  auto variant = describe_variant(kernel, winner.config, result.shape, templates_);
  if (variant.stages.size() < 2) return;
  progress_.phase("timing the winner's " + std::to_string(variant.stages.size()) + " stages");
  try {
    if (store_) load_cached_spirv(variant, *store_);
    if (!variant.compiled()) compile_variant(variant, templates_);
    VariantRunner runner(*device_, variant, static_cast<std::uint32_t>(problem.buffers.size()),
                         static_cast<std::uint32_t>(kernel.shape_dims().size()), on_device.copies() + 2);
    runner.time(on_device, result.shape, options.timer);  // the clocks up, as for any timing
    const auto times = runner.time_stages(on_device, result.shape, kStageSamples);
    for (std::size_t s = 0; s < times.templates.size(); ++s) {
      result.winner_stages.push_back({times.templates[s], times.median_ns[s]});
    }
    result.winner_stages_launch_ns = times.launch_ns.median;
  } catch (const Error& e) {
    // The winner's own time stands; its breakdown is extra.
    progress_.message("the winner's stages were not timed: " + std::string(e.what()));
  }
}

}  // namespace vktune
