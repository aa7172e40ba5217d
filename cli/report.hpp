#pragma once
// Presenting tuning results: a table per shape for people, JSON for scripts.
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "kernels/kernel.hpp"
#include "engine/ceilings.hpp"
#include "tuner/session.hpp"

namespace vktune {

// The version of `vktune KERNEL --json`'s output ("format": "vktune-tune").
// 2: "format", "version" and each shape's "time_spent"; before, the output
// carried no version (read its absence as 1). Added since, within 2 (as
// common/json_formats.hpp allows): each shape's "winner_stages".
inline constexpr int kTuneJsonVersion = 2;

// The best `top` variants (config, median µs, spread, GB/s, GFLOP/s, % of
// the measured ceiling), the failures by reason, the winner's speedup
// over the baseline and, where it runs several stages, each one's time; and
// where the time went (time_spent_json).
void print_shape_report(std::ostream& out, const kernels::Kernel& kernel, const ShapeResult& result,
                        const std::optional<Ceilings>& ceilings, std::size_t top);

nlohmann::json shape_report_json(const kernels::Kernel& kernel, const ShapeResult& result,
                                 const std::optional<Ceilings>& ceilings);

nlohmann::json outcome_json(const Outcome& outcome);

// Where a shape's time went: per step (compile, pipeline, validation, warmup,
// timing), seconds summed over the variants this run measured, for the search
// and for the confirmation pass; with the variants per second of the search.
nlohmann::json time_spent_json(const ShapeResult& result);

}  // namespace vktune
