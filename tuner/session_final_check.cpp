// TuneSession's final check: the winner validated again before it is stored,
// on full references, several times (validation_inputs.hpp). A winner that
// fails is recorded with its failure (never a winner again: resume skips it)
// and the next fastest variant takes its place and is checked in turn.
#include <algorithm>
#include <cstring>
#include <functional>
#include <future>
#include <string>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "harness/timer.hpp"
#include "engine/elapsed.hpp"
#include "engine/evaluator.hpp"
#include "tuner/session.hpp"
#include "engine/validation_inputs.hpp"
#include "engine/variant.hpp"

namespace vktune {

namespace {

// Winners checked per shape before giving up on storing one.
constexpr int kFinalCheckAttempts = 4;

// The fastest variant still ok: among those the confirmation pass re-timed
// when any is left (their times are comparable), else among all.
std::optional<std::size_t> fastest_ok(const ShapeResult& result) {
  std::optional<std::size_t> best;
  for (const bool confirmed_only : {true, false}) {
    for (std::size_t i = 0; i < result.outcomes.size(); ++i) {
      const auto& o = result.outcomes[i];
      if (o.status != results::Status::ok || (confirmed_only && !o.confirmed)) continue;
      if (!best || o.timing.median < result.outcomes[*best].timing.median) best = i;
    }
    if (best) return best;
  }
  return best;
}

// Runs the winner on every final-check input; the failure, if any.
std::optional<Error> check_variant(vk::Device& device, const kernels::Kernel& kernel, const Outcome& winner,
                                   const kernels::Shape& shape, ValidationInputs& inputs,
                                   const TemplateLibrary& templates, const results::Store* store,
                                   const std::function<void(const std::string&)>& step) {
  try {
    auto variant = describe_variant(kernel, winner.config, shape, templates);
    if (store) load_cached_spirv(variant, *store);
    if (!variant.compiled()) compile_variant(variant, templates);
    VariantRunner runner(device, variant, static_cast<std::uint32_t>(inputs.problem(0).buffers.size()),
                         static_cast<std::uint32_t>(kernel.shape_dims().size()),
                         static_cast<std::uint32_t>(inputs.size()) + 2);
    const auto tolerance = kernel.variant_tolerance(winner.config, shape);
    const auto timeout = device.info().is_cpu() ? vk::kCpuDriverTimeout : vk::kDefaultTimeout;
    std::vector<float> first, output;
    // The timed input twice on the same buffers (state a variant leaves
    // behind counts too), then the others.
    const std::size_t runs[] = {0, 0, 1, 2};
    for (std::size_t r = 0; r < std::size(runs); ++r) {
      step("run " + std::to_string(r + 1) + " of " + std::to_string(std::size(runs)));
      const auto i = runs[r];
      const auto v = runner.validate(inputs.on_device(i), inputs.problem(i), tolerance_for(inputs.inputs(i), tolerance),
                                     timeout, &output);
      if (r == 1 && output.size() == first.size() &&
          std::memcmp(output.data(), first.data(), output.size() * sizeof(float)) != 0) {
        std::size_t at = 0;
        while (std::memcmp(&output[at], &first[at], sizeof(float)) == 0) ++at;
        return Error(ErrorKind::nondeterministic,
                     "two runs on the same input differ (first at output " + std::to_string(at) + ": " +
                         std::to_string(first[at]) + " then " + std::to_string(output[at]) + ")");
      }
      if (!v.passed) {
        const std::string on = i == 0 ? "the timed input, every output checked" : describe(inputs.inputs(i), i);
        return Error(v.out_of_bounds ? ErrorKind::out_of_bounds : ErrorKind::wrong_result, "on " + on + ": " + v.reason);
      }
      if (r == 0) first = output;
    }
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

// The full references are seconds of CPU work for a large product (three
// full products in double on a 16-core host), a tail of every shape that
// --time's shares had to leave room for. Made beside the search, which on a
// GPU mostly waits on the device, they are ready when it ends.
std::future<std::unique_ptr<ValidationInputs>> TuneSession::final_check_inputs_beside(const kernels::Kernel& kernel,
                                                                                      const kernels::Shape& shape,
                                                                                      std::uint64_t seed) const {
  return std::async(std::launch::async, [&kernel, &shape, seed, this] {
    return std::make_unique<ValidationInputs>(kernel, shape, final_check_inputs(seed), templates_);
  });
}

void TuneSession::final_check(const kernels::Kernel& kernel, const TuneOptions& options, ShapeResult& result,
                              std::future<std::unique_ptr<ValidationInputs>> beside) {
  std::unique_ptr<ValidationInputs> prepared;
  if (beside.valid()) {
    progress_.phase("final check: waiting for the full references");
    prepared = beside.get();
  } else {
    progress_.phase("final check: making the inputs and full references");
    prepared = std::make_unique<ValidationInputs>(kernel, result.shape, final_check_inputs(result.seed), templates_);
  }
  auto& inputs = *prepared;
  inputs.upload(*device_);
  const auto shape_text = kernels::shape_to_string(result.shape);
  for (int attempt = 0; result.winner; ++attempt) {
    if (attempt == kFinalCheckAttempts) {
      progress_.message("final check: " + std::to_string(attempt) + " winners in a row failed; storing none");
      result.winner.reset();
      return;
    }
    auto& o = result.outcomes[*result.winner];
    const std::string which = attempt == 0 ? "final check of the winner" : "final check of the next fastest";
    progress_.phase(which + ": compiling");
    const auto failure = check_variant(*device_, kernel, o, result.shape, inputs, templates_, store_,
                                       [&](const std::string& what) { progress_.phase(which + ": " + what); });
    if (!failure) {
      result.final_check_passed = true;
      return;
    }
    if (!device_->usable()) {  // the failure lost the device: reopen it for what follows
      reopen_device();
      inputs.upload(*device_);
    }
    o.status = status_for(failure->kind());
    o.reason = std::string("final check: ") + failure->what();
    ++result.final_check_rejected;
    progress_.message(kernels::config_to_string(o.config) + " failed the final check (" +
                      std::string(to_string(failure->kind())) + "): " + failure->what());
    if (store_) {
      const auto variant = describe_variant(kernel, o.config, result.shape, templates_);
      record(kernel, variant, o, shape_text, options.cache_mode);
      if (o.confirmed) record(kernel, variant, o, shape_text, options.cache_mode, results::Phase::confirm);
    }
    result.winner = fastest_ok(result);
  }
}

}  // namespace vktune
