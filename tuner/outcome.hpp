#pragma once
// What evaluating a config gave (Outcome), and what tuning one shape gave
// (ShapeResult): the session fills them, reports and the store read them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/validation.hpp"
#include "harness/pipeline_statistics.hpp"
#include "harness/timer.hpp"
#include "kernels/kernel.hpp"
#include "results/records.hpp"
#include "tuner/space.hpp"

namespace vktune {

struct Outcome {
  kernels::Config config;
  std::string variant_hash;
  results::Status status = results::Status::ok;
  std::string reason;
  Validation validation;
  vk::TimingStats timing;  // per dispatch, ns; valid when status ok and timed
  double gbps = 0, gflops = 0;
  bool is_baseline = false;
  bool resumed = false;  // taken from the store, not measured in this run
  bool confirmed = false;  // re-timed in the confirmation pass
  bool transfer_seed = false;  // proposed as a near shape's best, before the search
  // Where this run's time went for this variant (all zero when resumed):
  // in the search, and in the confirmation pass when it was re-timed.
  results::PhaseDurations durations, confirm_durations;
  // The clock gauge at the end of its search warm-up: its time over the full
  // clock's (0: no gauge), and whether the warm-up ended without the full
  // clock (harness/timer.hpp).
  double clock_ratio = 0;
  bool clock_given_up = false;
  // What the driver made of its pipeline, where it says (empty elsewhere).
  std::vector<vk::PipelineStatistic> statistics;
};

struct ShapeResult {
  kernels::Shape shape;
  std::string space_name;
  std::size_t space_total = 0, space_filtered = 0, space_valid = 0;
  SpaceScope space_scope = SpaceScope::pruned;
  std::size_t space_pruned = 0;  // of the filtered, those pruning rules dropped
  std::optional<std::size_t> space_selected;  // of the valid, those --only kept
  std::vector<Outcome> outcomes;  // baseline first
  std::optional<std::size_t> winner;
  std::optional<std::size_t> baseline;
  bool stopped_early = false;  // budget or time ran out before the space did
  std::string strategy;        // the strategy that searched
  std::uint64_t seed = 0;      // this shape's seed
  std::string stop_reason;     // why the search ended ("" = the space was exhausted)
  double search_seconds = 0;   // wall time of the search (baseline included, confirmation not)
  // The strategy's proposals (fitting its models; on a thread of their own,
  // beside the measurements), and the part of the search's wall time spent
  // waiting with no config ready to measure (its compile and pipeline).
  double proposal_seconds = 0;
  double compile_wait_seconds = 0;
  // Configs whose code spills (their pipeline statistics say so), deferred
  // until the search had nothing else; of those, the ones the search ended
  // before measuring.
  std::size_t deferred_spilling = 0, deferred_not_measured = 0;
  double confirm_seconds = 0;  // wall time of the confirmation pass (0 when it did not run)
  // Wall time before the search (the space, the inputs and CPU references,
  // their upload) and of the final check (with any wait for its references):
  // what a --time share must leave room for besides the search.
  double setup_seconds = 0;
  double final_check_seconds = 0;
  int confirm_rounds = 0;      // rounds the confirmation pass ran (0 when it did not run)
  // Times the last timed variant's work kept the device busy between
  // measurements (tuner/gpu_heater.hpp), up to the last variant evaluated.
  std::size_t heater_runs = 0;
  std::vector<std::string> transfer_from;  // shapes whose best configs were evaluated first
  // Each measured variant's pipeline creation here from its worker's pipeline
  // cache, ms (what the driver's cache hit costs; empty without workers).
  std::vector<double> cached_pipeline_ms;
  // The baseline's time when re-measured at the end over its first
  // measurement (1 = steady). Far from 1, the device's speed changed during
  // the search (clocks, thermal limits, other work on the GPU) and the
  // search-phase numbers are not comparable with each other.
  std::optional<double> drift;
  // The confirmation pass: the variant that was fastest in the search (the
  // progress line's "best"; the baseline included) and its time there, ns,
  // before re-timing replaced it in `outcomes`. Unset without confirmation.
  std::optional<std::size_t> search_best;
  double search_best_ns = 0;
  // A faster winner stored by an earlier run (another variant), which this
  // run did not beat and so left in place: its median, ns.
  std::optional<double> kept_stored_winner_ns;
  // Why the winner was not stored though a store was open (its kernel's push
  // constants have no launch-contract form); "" when it was, or none was open.
  std::string winner_not_stored;
  // Variants that won but failed the final check (validation_inputs.hpp),
  // and whether the stored winner passed it.
  std::size_t final_check_rejected = 0;
  bool final_check_passed = false;
  // A winner of several stages (dispatches with a barrier between them: a
  // dequantizing first dispatch, a split's merge): each stage's template and
  // median time, ns, from launches timed stage by stage, the barrier before
  // a stage counted in it. Empty for a one-stage winner.
  struct StageTime {
    std::string template_file;
    double median_ns = 0;
  };
  std::vector<StageTime> winner_stages;
  double winner_stages_launch_ns = 0;  // those launches' median, first timestamp to last
  std::size_t failures() const;
};

}  // namespace vktune
