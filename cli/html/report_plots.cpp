#include "cli/html/report_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "cli/html/html_escape.hpp"
#include "tuner/search/importance.hpp"
#include "cli/html/svg_plot.hpp"

namespace vktune {
namespace {

// Full precision for data attributes, so a reader can compare them with the database.
std::string exact(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string no_plot(const std::string& kind, const std::string& why) {
  return "<p class=\"no-plot\" data-kind=\"" + html_escape(kind) + "\">" + html_escape(why) + "</p>\n";
}

bool is_winner(const ShapePlotInput& in, const results::StoredRow& row) {
  return in.record->winner && in.record->winner->variant_hash == row.variant_hash;
}
bool is_baseline(const ShapePlotInput& in, const results::StoredRow& row) {
  return in.record->winner && in.record->winner->baseline_variant_hash == row.variant_hash;
}

std::string role_class(const ShapePlotInput& in, const results::StoredRow& row) {
  if (is_winner(in, row)) return "winner";
  if (is_baseline(in, row)) return "baseline";
  return "variant";
}

// Spreads points of a strip plot over its height, the same way every time:
// successive multiples of the golden ratio, modulo 1.
double jitter(std::size_t index) {
  const double golden = 0.6180339887498949;
  const double f = static_cast<double>(index + 1) * golden;
  return 0.15 + 0.7 * (f - std::floor(f));
}

}  // namespace

std::string distribution_plot(const ShapePlotInput& in) {
  std::vector<const results::StoredRow*> ok;
  for (const auto& row : in.record->per_variant)
    if (row.ok() && row.median_ns > 0) ok.push_back(&row);
  if (ok.empty()) return no_plot("distribution", "No variant validated at this shape: no time to show.");
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto* row : ok) {
    lo = std::min(lo, row->median_ns / 1e3);
    hi = std::max(hi, row->median_ns / 1e3);
  }
  Axis y = linear_axis(0, 1, "");
  y.ticks = false;
  SvgPlot plot(in.id + "-distribution", "distribution",
               "Median time of each of the " + std::to_string(ok.size()) + " validated variants",
               log_axis(lo, hi, "median time per dispatch (us, log scale)").pad(0.05), y, 600, 200);
  for (std::size_t i = 0; i < ok.size(); ++i) {
    const auto& row = *ok[i];
    const std::string role = role_class(in, row);
    const double us = row.median_ns / 1e3;
    plot.point(us, jitter(i), role == "variant" ? 3.5 : 6, role, {{"us", exact(us)}, {"variant", row.variant_hash}},
               role + " " + fixed(us, 2) + " us " + row.config_json);
  }
  return plot.str();
}

std::string convergence_plot(const ShapePlotInput& in) {
  const auto& rows = in.record->search_order;
  if (rows.empty()) return no_plot("convergence", "No search measurement is stored for this shape.");
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto& row : rows) {
    if (!row.ok() || row.median_ns <= 0) continue;
    lo = std::min(lo, row.median_ns / 1e3);
    hi = std::max(hi, row.median_ns / 1e3);
  }
  const bool any_time = hi > 0;
  // Failures are drawn in a band above the slowest time.
  const Axis y = any_time ? log_axis(lo, hi * 1.6, "us (log scale)").pad(0.05) : log_axis(1, 10, "us (log scale)");
  const double failure_row = any_time ? hi * 1.45 : 5;
  SvgPlot plot(in.id + "-convergence", "convergence",
               "Best so far over " + std::to_string(rows.size()) + " evaluations, in measured order",
               linear_axis(0.5, static_cast<double>(rows.size()) + 0.5, "evaluation"), y, 600, 280);
  std::vector<std::pair<double, double>> best_line;
  double best = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const double x = static_cast<double>(i + 1);
    if (row.ok() && row.median_ns > 0) {
      const double us = row.median_ns / 1e3;
      if (best == 0 || us < best) {
        if (best > 0) best_line.emplace_back(x, best);  // a step: flat until it improves
        best = us;
      }
      plot.point(x, us, 3, "evaluation", {{"us", exact(us)}, {"index", std::to_string(i + 1)}},
                 "#" + std::to_string(i + 1) + " " + fixed(us, 2) + " us " + row.config_json);
    } else {
      plot.point(x, failure_row, 3, "failed", {{"status", row.status}, {"index", std::to_string(i + 1)}},
                 "#" + std::to_string(i + 1) + " " + row.status + " " + row.config_json);
    }
    if (best > 0) best_line.emplace_back(x, best);
  }
  plot.line(best_line, "best-so-far");
  const bool any_failure = std::any_of(rows.begin(), rows.end(), [](const auto& row) { return !row.ok(); });
  if (any_time && any_failure) plot.text(0.6, failure_row, "failed", "band-label");
  return plot.str();
}

std::string importance_plot(const ShapePlotInput& in) {
  std::vector<std::pair<kernels::Config, double>> timed;
  for (const auto& row : in.record->per_variant) {
    if (!row.ok() || row.median_ns <= 0) continue;
    try {
      timed.emplace_back(kernels::config_from_json(row.config_json), row.median_ns);
    } catch (const Error&) {
      // A config that is not a flat object of integers says nothing about parameters.
    }
  }
  const auto importance = parameter_importance(timed);
  if (importance.empty()) {
    return no_plot("importance", timed.size() < 2 ? "Fewer than two variants validated: no parameter importance."
                                                  : "Every parameter took one value among the validated variants.");
  }
  Axis y = linear_axis(0, static_cast<double>(importance.size()), "");
  y.ticks = false;
  y.labels_px = 130;  // "NAME=VALUE" beside each bar
  Axis x = linear_axis(0, 100, "share of the variance of log time explained (%)");
  const int height = 70 + 26 * static_cast<int>(importance.size());
  SvgPlot plot(in.id + "-importance", "importance", "Parameter importance (value in the fastest variant)", x, y, 600,
               height);
  for (std::size_t i = 0; i < importance.size(); ++i) {
    const auto& p = importance[i];
    const double centre = static_cast<double>(importance.size() - i) - 0.5;
    plot.bar(100 * p.share, centre, 16, "importance", {{"parameter", p.name}, {"share", exact(p.share)}},
             p.name + ": " + fixed(100 * p.share, 1) + "%");
    plot.text(0, centre, p.name + "=" + std::to_string(p.best_value) + "  ", "bar-label", "end");
  }
  return plot.str();
}

std::string roofline_plot(const ShapePlotInput& in) {
  if (!in.metrics) return no_plot("roofline", "The kernel is not registered in this vktune: no arithmetic intensity.");
  if (in.metrics->bytes <= 0 || in.metrics->flops <= 0) {
    return no_plot("roofline", "The kernel counts no FLOPs (or no bytes) at this shape: no arithmetic intensity.");
  }
  const double intensity = in.metrics->flops / in.metrics->bytes;  // FLOP per byte
  const double bandwidth = in.device && in.device->read_gbps ? *in.device->read_gbps : 0;
  const double peak = in.device && in.device->fp32_gflops ? *in.device->fp32_gflops : 0;
  // The tensor cores' roof above the FMA one, where the device has them: a
  // tensor-core variant's rate is read against it.
  const double tensor = in.device && in.device->tensor_gflops && *in.device->tensor_gflops > peak && bandwidth > 0 &&
                                peak > 0
                            ? *in.device->tensor_gflops
                            : 0;

  struct Mark {
    double gflops;
    std::string role, variant, tooltip;
  };
  std::vector<Mark> marks;
  for (const auto& row : in.record->per_variant) {
    if (!row.ok() || row.median_ns <= 0) continue;
    marks.push_back({in.metrics->flops / row.median_ns, "variant", row.variant_hash,
                     fixed(row.median_ns / 1e3, 2) + " us " + row.config_json});
  }
  if (const auto& w = in.record->winner) {
    if (w->median_ns > 0)
      marks.push_back({in.metrics->flops / w->median_ns, "winner", w->variant_hash,
                       "winner " + fixed(w->median_ns / 1e3, 2) + " us " + w->config_json});
    if (w->baseline_median_ns > 0)
      marks.push_back({in.metrics->flops / w->baseline_median_ns, "baseline", w->baseline_variant_hash,
                       "baseline " + fixed(w->baseline_median_ns / 1e3, 2) + " us"});
  }
  if (marks.empty()) return no_plot("roofline", "No variant validated at this shape: nothing to place on the roofline.");

  // x spans the kernel's intensity and the ridge points (where the roofs meet).
  const double ridge = bandwidth > 0 && peak > 0 ? peak / bandwidth : intensity;
  const double tensor_ridge = tensor > 0 ? tensor / bandwidth : ridge;
  const double x_lo = std::min(intensity, ridge) / 4, x_hi = std::max({intensity, ridge, tensor_ridge}) * 4;
  double y_lo = std::numeric_limits<double>::max(), y_hi = 0;
  for (const auto& m : marks) {
    y_lo = std::min(y_lo, m.gflops);
    y_hi = std::max(y_hi, m.gflops);
  }
  const auto roof = [&](double ai) { return std::min(bandwidth * ai, peak); };
  const auto tensor_roof = [&](double ai) { return std::min(bandwidth * ai, tensor); };
  if (bandwidth > 0 && peak > 0) {
    y_hi = std::max({y_hi, peak, tensor});
    y_lo = std::min(y_lo, roof(x_lo));
  }
  SvgPlot plot(in.id + "-roofline", "roofline",
               "Roofline: intensity " + fixed(intensity, 3) + " FLOP/B" +
                   (bandwidth > 0 && peak > 0 ? ", roof " + fixed(roof(intensity), 2) + " GFLOP/s" : ", no measured ceilings") +
                   (tensor > 0 ? " (tensor cores " + fixed(tensor_roof(intensity), 2) + ")" : std::string()),
               log_axis(x_lo, x_hi, "arithmetic intensity (FLOP per byte, log)"),
               log_axis(y_lo, y_hi, "GFLOP/s (log)").pad(0.06), 600, 320);
  if (bandwidth > 0 && peak > 0) {
    std::vector<std::pair<double, double>> line;
    if (ridge > x_lo) line.emplace_back(x_lo, roof(x_lo));
    line.emplace_back(std::clamp(ridge, x_lo, x_hi), peak);
    line.emplace_back(x_hi, peak);
    plot.line(line, "roof");
    if (tensor > 0) {
      std::vector<std::pair<double, double>> upper;
      if (tensor_ridge > x_lo) upper.emplace_back(x_lo, tensor_roof(x_lo));
      upper.emplace_back(std::clamp(tensor_ridge, x_lo, x_hi), tensor);
      upper.emplace_back(x_hi, tensor);
      plot.line(upper, "roof-tensor");
    }
    plot.line({{intensity, y_lo}, {intensity, tensor > 0 ? tensor_roof(intensity) : roof(intensity)}}, "intensity");
  }
  for (const auto& m : marks) {
    plot.point(intensity, m.gflops, m.role == "variant" ? 3 : 6, m.role,
               {{"gflops", exact(m.gflops)}, {"variant", m.variant}}, m.tooltip);
  }
  return plot.str();
}

}  // namespace vktune
