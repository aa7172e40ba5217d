#pragma once
// Presenting tuning results: a table per shape for people, JSON for scripts.
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "kernels/kernel.hpp"
#include "tuner/ceilings.hpp"
#include "tuner/session.hpp"

namespace vktune {

// The best `top` variants (config, median µs, spread, GB/s, GFLOP/s, % of
// the measured ceiling), the failures by reason, and the winner's speedup
// over the baseline.
void print_shape_report(std::ostream& out, const kernels::Kernel& kernel, const ShapeResult& result,
                        const std::optional<Ceilings>& ceilings, std::size_t top);

nlohmann::json shape_report_json(const kernels::Kernel& kernel, const ShapeResult& result,
                                 const std::optional<Ceilings>& ceilings);

nlohmann::json outcome_json(const Outcome& outcome);

}  // namespace vktune
