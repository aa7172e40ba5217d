#pragma once
// The four plots of one shape in the HTML report, each an inline <svg> (see
// cli/html/svg_plot.hpp for the conventions), or a <p class="no-plot"> that says
// why there is nothing to draw.
#include <optional>
#include <string>

#include "kernels/kernel.hpp"
#include "results/browse.hpp"

namespace vktune {

struct ShapePlotInput {
  const results::ShapeRecord* record = nullptr;
  const results::StoredDevice* device = nullptr;  // nullptr: the device is not selected (no ceilings)
  std::optional<kernels::Metrics> metrics;        // the kernel's least bytes and FLOPs; nullopt: not registered
  std::string id;                                 // unique in the page, prefixes each plot's id
};

// Median time of every variant that validated, one point each (data-us), on
// a log axis; the winner and the baseline marked.
std::string distribution_plot(const ShapePlotInput& input);

// Every search evaluation in the order it was measured, one point each (a
// failure as a mark along the top), and the best time so far as a step line.
std::string convergence_plot(const ShapePlotInput& input);

// Each parameter's share of the variance of log time among the variants that
// validated (tuner/search/importance.hpp), one bar each.
std::string importance_plot(const ShapePlotInput& input);

// The device's measured roofline at the kernel's arithmetic intensity
// (FLOPs over the least bytes): min(read bandwidth x intensity, fp32 FMA
// peak), and the tensor cores' roof above it where the device has them;
// every validated variant, the winner and the baseline at their FLOP rates.
std::string roofline_plot(const ShapePlotInput& input);

}  // namespace vktune
