#pragma once
// A small inline-SVG chart writer for the HTML report: a frame, two axes
// (linear or logarithmic, with ticks and labels) and marks placed in data
// coordinates. Plain string building, so a report needs no script or font
// from anywhere.
//
// Conventions a reader (and the report's self-check) relies on: the root is
// <svg class="plot" id=... data-kind=...>; the plotting area is the one
// <rect class="plot-area">; every data point is one element of class "point"
// (a circle, or a rect for bars) carrying its values as data-* attributes.
#include <string>
#include <utility>
#include <vector>

namespace vktune {

struct Axis {
  double lo = 0, hi = 1;  // data range shown; for a log axis both > 0
  bool log = false;
  std::string label;
  bool ticks = true;  // false: no tick marks or numbers (a categorical axis)
  int labels_px = 0;  // for a y axis without ticks: room left of the plot for the marks' own labels

  // Grows [lo, hi] by `fraction` of its span on each side (in log space for
  // a log axis), so that points at the extremes are not drawn on the frame.
  Axis& pad(double fraction);
};

// Data-range helpers: an axis over [lo, hi]; a log axis of a single value
// becomes a decade around it, a linear one of a single value a unit around it.
Axis log_axis(double lo, double hi, std::string label);
Axis linear_axis(double lo, double hi, std::string label);

// Tick positions: on a log axis 1, 2 and 5 times powers of ten (only the
// powers when the range spans more than three decades, finer steps when
// that would give fewer than three ticks); on a linear axis
// 1, 2 or 5 times a power of ten apart, about six of them.
std::vector<double> axis_ticks(const Axis& axis);
// A tick label: short, no trailing zeros ("0.5", "20", "1500", "15k", "2e-05").
std::string tick_label(double value);
// A number with `decimals` digits after the point ("12.30"), for labels and tables.
std::string fixed(double value, int decimals);

using DataAttributes = std::vector<std::pair<std::string, std::string>>;

class SvgPlot {
 public:
  SvgPlot(std::string id, std::string kind, std::string title, Axis x, Axis y, int width = 600, int height = 320);

  // Data -> pixel coordinates inside the plotting area.
  double px(double x) const;
  double py(double y) const;

  // A point at (x, y): a circle of radius `radius` px; `css_class` is added
  // to "point"; `tooltip` becomes its <title>.
  void point(double x, double y, double radius, const std::string& css_class, const DataAttributes& data,
             const std::string& tooltip);
  // A horizontal bar, a data point too: from x = axis lo to `x`, centred on
  // `y`, `thickness` px high.
  void bar(double x, double y, double thickness, const std::string& css_class, const DataAttributes& data,
           const std::string& tooltip);
  // A connected line through data coordinates (not a data point).
  void line(const std::vector<std::pair<double, double>>& points, const std::string& css_class);
  // Text at data coordinates; anchor "start", "middle" or "end". Escaped here.
  void text(double x, double y, const std::string& text, const std::string& css_class,
            const std::string& anchor = "start");

  // The whole <svg> element.
  std::string str() const;

 private:
  std::string id_, kind_, title_;
  Axis x_, y_;
  int width_, height_;
  double left_, right_, top_, bottom_;  // the plotting area in px
  std::string marks_;
};

}  // namespace vktune
