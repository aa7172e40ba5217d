#include "cli/html/svg_plot.hpp"
#include "cli/html/html_report.hpp"

#include <cstdio>
#include <optional>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "cli/html/html_escape.hpp"
#include "cli/html/report_plots.hpp"

namespace vktune {
namespace {

// Colours and layout. No web font: the generic families are whatever the
// reader's system has.
constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1280px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
code, pre, td.config { font-family: ui-monospace, monospace; font-size: 0.85em; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
svg.plot { background: #fff; border: 1px solid #ddd; }
svg.plot .plot-area { fill: #fafafa; stroke: #999; }
svg.plot .grid { stroke: #e4e4e4; }
svg.plot text { font-size: 11px; fill: #444; }
svg.plot .plot-title { font-size: 12px; font-weight: 600; fill: #222; }
svg.plot .point { fill: #4878a8; fill-opacity: 0.75; }
svg.plot .point.winner { fill: #d04020; fill-opacity: 1; stroke: #fff; }
svg.plot .point.baseline { fill: #e8a020; fill-opacity: 1; stroke: #fff; }
svg.plot .point.failed { fill: #b02828; }
svg.plot .point.importance { fill: #58a058; }
svg.plot .best-so-far { stroke: #d04020; stroke-width: 2; }
svg.plot .roof { stroke: #222; stroke-width: 2; }
svg.plot .roof-tensor { stroke: #222; stroke-width: 2; stroke-dasharray: 8 4; }
svg.plot .intensity { stroke: #888; stroke-dasharray: 4 3; }
p.no-plot { align-self: flex-start; width: 560px; padding: 1em; border: 1px dashed #bbb; color: #666; }
table { border-collapse: collapse; margin: 0.5em 0; } th, td { padding: 2px 8px; text-align: right; }
th { border-bottom: 1px solid #999; } td.config, th.config { text-align: left; }
tr.winner td { background: #fde8e0; } tr.baseline td { background: #fdf0d8; }
.counts { color: #555; }
#selfcheck { color: #888; font-size: 0.75em; }
)css";

// Measures every plot and every data point once the page is laid out (see
// html_report.hpp). A point counts as drawn when the browser gives it a
// non-zero size and its centre lies inside the plotting area.
constexpr const char* kSelfCheck = R"js(
(function () {
  var lines = [];
  var plots = document.querySelectorAll('svg.plot');
  for (var i = 0; i < plots.length; ++i) {
    var svg = plots[i];
    var area = svg.querySelector('.plot-area').getBoundingClientRect();
    var points = svg.querySelectorAll('.point');
    var drawn = 0;
    for (var j = 0; j < points.length; ++j) {
      var b = points[j].getBoundingClientRect();
      var cx = b.left + b.width / 2, cy = b.top + b.height / 2;
      if (b.width > 0 && b.height > 0 && cx >= area.left - 0.5 && cx <= area.right + 0.5 &&
          cy >= area.top - 0.5 && cy <= area.bottom + 0.5) ++drawn;
    }
    lines.push('plot ' + svg.id + ' kind=' + svg.getAttribute('data-kind') + ' width=' + Math.round(area.width) +
               ' height=' + Math.round(area.height) + ' points=' + points.length + ' drawn=' + drawn);
  }
  lines.push('plots ' + plots.length);
  document.getElementById('selfcheck').textContent = lines.join('\n');
})();
)js";

const results::StoredDevice* device_of(const results::BrowseResult& data, std::int64_t id) {
  for (const auto& d : data.devices)
    if (d.id == id) return &d;
  return nullptr;
}

std::optional<kernels::Metrics> metrics_of(const results::ShapeKey& key) {
  const auto* kernel = kernels::find_kernel_or_null(key.kernel);
  if (!kernel) return std::nullopt;
  try {
    return kernel->metrics(kernels::parse_shape(key.shape, kernel->shape_dims().size()));
  } catch (const Error&) {
    return std::nullopt;  // a shape this kernel no longer accepts
  }
}

std::string ceilings_text(const results::StoredDevice& d) {
  std::string text;
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (d.read_gbps) add("read " + fixed(*d.read_gbps, 1) + " GB/s");
  if (d.fp32_gflops) add("fp32 FMA " + fixed(*d.fp32_gflops, 1) + " GFLOP/s");
  if (d.dispatch_floor_ns) add("dependent dispatch " + fixed(*d.dispatch_floor_ns / 1e3, 2) + " &micro;s");
  if (d.tensor_gflops && *d.tensor_gflops > 0) {
    add("fp16 tensor cores " + fixed(*d.tensor_gflops, 1) + " GFLOP/s (" + fixed(d.tensor_shared_gflops.value_or(0), 1) +
        " with matrices from shared memory)");
  }
  return text.empty() ? "no ceilings measured" : text;
}

std::string devices_section(const results::BrowseResult& data) {
  std::string html = "<h2>Devices</h2>\n<table class=\"devices\"><tr><th>id</th><th class=\"config\">device</th>"
                     "<th class=\"config\">driver</th><th class=\"config\">UUID</th>"
                     "<th class=\"config\">measured ceilings</th></tr>\n";
  for (const auto& d : data.devices) {
    html += "<tr><td>" + std::to_string(d.id) + "</td><td class=\"config\">" + html_escape(d.identity.name) +
            "</td><td class=\"config\">" + html_escape(d.identity.driver_name + " " + d.identity.driver_version_text) +
            "</td><td class=\"config\">" + html_escape(d.identity.device_uuid) + "</td><td class=\"config\">" +
            ceilings_text(d) + "</td></tr>\n";
  }
  return html + "</table>\n";
}

std::string counts_text(const results::ShapeRecord& s) {
  std::string text;
  for (const auto& [status, count] : s.status_counts())
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + html_escape(status);
  return text.empty() ? "no measurements" : text;
}

std::string winner_text(const results::ShapeRecord& s, const results::StoredDevice* device) {
  if (!s.winner) return "<p>No winner stored.</p>\n";
  const auto& w = *s.winner;
  std::string html = "<p class=\"winner\">Winner <b>" + fixed(w.median_ns / 1e3, 2) + " &micro;s</b>";
  if (const auto speedup = w.speedup()) {
    html += ", <b>" + fixed(*speedup, 2) + "&times;</b> over the baseline (" + fixed(w.baseline_median_ns / 1e3, 2) +
            " &micro;s)";
  }
  html += ", " + fixed(w.gbps, 1) + " GB/s, " + fixed(w.gflops, 1) + " GFLOP/s";
  const bool tensor_cores = kernels::on_tensor_cores(s.key.kernel, s.key.shape, w.config_json);
  if (const auto pct = device ? device->percent_of_ceiling(w.gbps, w.gflops, tensor_cores) : std::nullopt) {
    html += ", " + fixed(*pct, 1) + "% of the measured ceiling";
  }
  return html + ": <code>" + html_escape(w.config_json) + "</code></p>\n";
}

std::string top_table(const results::ShapeRecord& s, const results::StoredDevice* device, std::size_t top) {
  std::string html = "<table class=\"top-variants\"><tr><th>#</th><th class=\"config\">config</th><th>median "
                     "&micro;s</th><th>p10&ndash;p90 &micro;s</th><th>GB/s</th><th>GFLOP/s</th><th>% of "
                     "ceiling</th><th class=\"config\">row</th></tr>\n";
  std::size_t rank = 0;
  for (const auto& row : s.per_variant) {
    if (!row.ok() || rank == top) continue;
    ++rank;
    const bool winner = s.winner && s.winner->variant_hash == row.variant_hash;
    const bool baseline = s.winner && s.winner->baseline_variant_hash == row.variant_hash;
    const auto pct = device ? device->percent_of_ceiling(row.gbps, row.gflops,
                                                         kernels::on_tensor_cores(s.key.kernel, s.key.shape, row.config_json))
                            : std::nullopt;
    html += std::string("<tr class=\"variant") + (winner ? " winner" : "") + (baseline ? " baseline" : "") +
            "\"><td>" + std::to_string(rank) + "</td><td class=\"config\">" + html_escape(row.config_json) +
            (winner ? " (winner)" : "") + (baseline ? " (baseline)" : "") + "</td><td>" +
            fixed(row.median_ns / 1e3, 2) + "</td><td>" + fixed(row.p10_ns / 1e3, 2) + "&ndash;" +
            fixed(row.p90_ns / 1e3, 2) + "</td><td>" + fixed(row.gbps, 1) + "</td><td>" + fixed(row.gflops, 1) +
            "</td><td>" + (pct ? fixed(*pct, 1) : "&ndash;") + "</td><td class=\"config\">" +
            html_escape(std::string(results::to_string(row.phase))) + "</td></tr>\n";
  }
  if (rank == 0) html += "<tr><td colspan=\"8\">no variant validated</td></tr>\n";
  return html + "</table>\n";
}

std::string shape_section(const results::BrowseResult& data, const results::ShapeRecord& s, std::size_t index,
                          std::size_t top) {
  const auto* device = device_of(data, s.key.device_id);
  ShapePlotInput input{&s, device, metrics_of(s.key), "s" + std::to_string(index)};
  std::string html = "<section class=\"shape\" id=\"" + input.id + "\" data-kernel=\"" + html_escape(s.key.kernel) +
                     "\" data-shape=\"" + html_escape(s.key.shape) + "\" data-device=\"" +
                     std::to_string(s.key.device_id) + "\">\n";
  html += "<h3>" + html_escape(s.key.kernel) + " " + html_escape(s.key.shape) + " (" + html_escape(s.key.cache_mode) +
          ") on " + (device ? html_escape(device->identity.name) : "device " + std::to_string(s.key.device_id)) +
          "</h3>\n";
  html += winner_text(s, device);
  if (s.per_variant.empty()) {
    // A winner imported from a table comes without the measurements behind it.
    html += "<p class=\"counts\">No measurements are stored for this shape (a winner imported from a table): only "
            "the roofline can be drawn.</p>\n<div class=\"plots\">\n" + roofline_plot(input) + "</div>\n";
    return html + "</section>\n";
  }
  html += "<p class=\"counts\">" + std::to_string(s.per_variant.size()) + " variants (" + counts_text(s) + "); " +
          std::to_string(s.search_order.size()) + " search and " + std::to_string(s.confirm_rows) +
          " confirmation measurements</p>\n";
  html += "<div class=\"plots\">\n" + distribution_plot(input) + convergence_plot(input) + importance_plot(input) +
          roofline_plot(input) + "</div>\n";
  html += top_table(s, device, top);
  return html + "</section>\n";
}

}  // namespace

std::string html_report(const results::BrowseResult& data, const std::string& database, std::size_t top) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>vktune report: " + html_escape(database) + "</title>\n<style>" + kStyle +
                     "</style>\n</head>\n<body>\n";
  html += "<h1>vktune report</h1>\n<p>Results database <code>" + html_escape(database) + "</code>: " +
          std::to_string(data.devices.size()) + " device(s), " + std::to_string(data.shapes.size()) +
          " kernel shape(s). Times are medians per dispatch; the roofline is the device's measured read bandwidth "
          "and fp32 FMA rate.</p>\n";
  html += devices_section(data);
  std::string current_kernel;
  for (std::size_t i = 0; i < data.shapes.size(); ++i) {
    const auto& s = data.shapes[i];
    if (s.key.kernel != current_kernel) {
      current_kernel = s.key.kernel;
      html += "<h2 class=\"kernel\">" + html_escape(current_kernel) + "</h2>\n";
    }
    html += shape_section(data, s, i, top);
  }
  if (data.shapes.empty()) html += "<p>Nothing to show: no measurement or winner matches.</p>\n";
  html += "<pre id=\"selfcheck\"></pre>\n<script>" + std::string(kSelfCheck) + "</script>\n</body>\n</html>\n";
  return html;
}

void write_html_report(const std::filesystem::path& path, const std::string& html) {
  AtomicFile file(path);
  file.write(html.data(), html.size());
  file.commit();
}

}  // namespace vktune
