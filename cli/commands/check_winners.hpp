#pragma once
// `vktune check --variants winners`: every winner the database holds for this
// GPU (any driver version it was tuned with), checked at the shape it was
// tuned at and at each --shape given where it is legal. What cannot be
// checked (a config this build no longer has, a winner this device cannot
// run, a --shape of another space) is said per winner with its reason, and a
// kernel without winners is said once: nothing falls back to the baseline.
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/device.hpp"
#include "kernels/kernel.hpp"
#include "results/store.hpp"
#include "tuner/session.hpp"

namespace vktune::cli {

struct WinnerCheck {
  std::string kernel, tuned_shape, cache_mode, driver_version;  // the stored key and the driver it was tuned with
  kernels::Config config;  // brought up to date with the kernel where it could be (engine/stale_config.hpp)
  // One entry per shape it was meant to be checked at: its tuned shape first,
  // then each --shape.
  struct At {
    std::string shape;
    std::string status;  // "planned" until checked, then "passed" or "failed"; or "not checked"
    std::string reason;  // why it failed or was not checked; "" when it passed
  };
  std::vector<At> at;
  bool checked_somewhere() const;
};

struct WinnerChecks {
  std::string device, database;
  std::vector<WinnerCheck> winners;
  // Kernels asked for with no winner for this GPU, and how many winners the
  // database holds for them on other devices.
  std::vector<std::pair<std::string, std::size_t>> kernels_without_winners;
  // What to validate: the configs of the planned checks, per kernel and shape.
  std::map<std::pair<std::string, kernels::Shape>, std::vector<kernels::Config>> to_check;
};

// Plans the checks of `kernels`' winners in `store` for the device `info`,
// at each winner's own shape and at `extra_shapes` (already valid shapes of
// the one kernel given; empty when none).
WinnerChecks plan_winner_checks(const results::Store& store, const vk::DeviceInfo& info,
                                const std::vector<const kernels::Kernel*>& kernels,
                                const std::vector<kernels::Shape>& extra_shapes);

// Marks the planned checks of `kernel` at `shape` passed or failed by the
// outcomes of validating them.
void record_winner_outcomes(WinnerChecks& checks, const std::string& kernel, const kernels::Shape& shape,
                            const std::vector<Outcome>& outcomes);

// One line per winner (what was checked where, with the result) and per
// kernel without winners.
void print_winner_checks(std::ostream& out, const WinnerChecks& checks);
// {"winners": [...], "kernels_without_winners": [...]} (docs/JSON_OUTPUT.md, vktune-check).
nlohmann::json winner_checks_json(const WinnerChecks& checks);

}  // namespace vktune::cli
