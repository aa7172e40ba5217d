#include "cli/html/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/html/html_escape.hpp"

namespace vktune {
namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// A coordinate outside [0, 1] of the axis (a value that is 0 on a log axis,
// say) is clamped onto the frame rather than drawn far off the page.
double fraction(const Axis& axis, double value) {
  double f = 0;
  if (axis.log) {
    const double v = value > 0 ? value : axis.lo;
    f = (std::log10(v) - std::log10(axis.lo)) / (std::log10(axis.hi) - std::log10(axis.lo));
  } else {
    f = (value - axis.lo) / (axis.hi - axis.lo);
  }
  if (!std::isfinite(f)) return 0;
  return std::clamp(f, -0.02, 1.02);
}

std::string attributes(const DataAttributes& data) {
  std::string text;
  for (const auto& [name, value] : data) text += " data-" + name + "=\"" + html_escape(value) + "\"";
  return text;
}

}  // namespace

Axis& Axis::pad(double f) {
  if (log) {
    const double ratio = std::pow(hi / lo, f);
    lo /= ratio;
    hi *= ratio;
  } else {
    const double span = hi - lo;
    lo -= span * f;
    hi += span * f;
  }
  return *this;
}

Axis log_axis(double lo, double hi, std::string label) {
  Axis axis;
  axis.log = true;
  axis.label = std::move(label);
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi / lo < 1.5) {  // one value, or nearly: a decade around it keeps the ticks readable
    const double middle = std::sqrt(lo * hi);
    lo = middle / std::sqrt(10.0);
    hi = middle * std::sqrt(10.0);
  }
  axis.lo = lo;
  axis.hi = hi;
  return axis;
}

Axis linear_axis(double lo, double hi, std::string label) {
  Axis axis;
  axis.label = std::move(label);
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 0;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo <= 0) {
    lo -= 0.5;
    hi += 0.5;
  }
  axis.lo = lo;
  axis.hi = hi;
  return axis;
}

std::vector<double> axis_ticks(const Axis& axis) {
  std::vector<double> ticks;
  if (!axis.ticks) return ticks;
  if (axis.log) {
    const int first = static_cast<int>(std::floor(std::log10(axis.lo)));
    const int last = static_cast<int>(std::ceil(std::log10(axis.hi)));
    // Fewer marks over many decades, more within one, so that a few always show.
    const std::vector<std::vector<double>> steps = {{1.0}, {1.0, 2.0, 5.0}, {1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0}};
    for (std::size_t choice = last - first > 3 ? 0 : 1; choice < steps.size(); ++choice) {
      ticks.clear();
      for (int e = first; e <= last; ++e) {
        for (double m : steps[choice]) {
          const double v = m * std::pow(10.0, e);
          if (v >= axis.lo * (1 - 1e-9) && v <= axis.hi * (1 + 1e-9)) ticks.push_back(v);
        }
      }
      if (ticks.size() >= 3) break;
    }
    return ticks;
  }
  const double raw = (axis.hi - axis.lo) / 6;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  }
  for (double v = std::ceil(axis.lo / step) * step; v <= axis.hi + step * 1e-9; v += step) {
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string tick_label(double value) {
  char text[32];
  const double magnitude = std::abs(value);
  if (magnitude != 0 && (magnitude < 1e-3 || magnitude >= 1e7)) {
    std::snprintf(text, sizeof text, "%.0e", value);
  } else if (magnitude >= 1e4) {
    std::snprintf(text, sizeof text, "%gk", value / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%g", value);
  }
  return text;
}

SvgPlot::SvgPlot(std::string id, std::string kind, std::string title, Axis x, Axis y, int width, int height)
    : id_(std::move(id)), kind_(std::move(kind)), title_(std::move(title)), x_(std::move(x)), y_(std::move(y)),
      width_(width), height_(height) {
  // Room for the tick numbers and axis labels on the left and below.
  left_ = y_.ticks ? 64 : 24 + y_.labels_px;
  right_ = width_ - 16;
  top_ = 28;
  bottom_ = height_ - 44;
}

double SvgPlot::px(double x) const { return left_ + fraction(x_, x) * (right_ - left_); }
double SvgPlot::py(double y) const { return bottom_ - fraction(y_, y) * (bottom_ - top_); }

void SvgPlot::point(double x, double y, double radius, const std::string& css_class, const DataAttributes& data,
                    const std::string& tooltip) {
  marks_ += "<circle class=\"point " + html_escape(css_class) + "\" cx=\"" + number(px(x)) + "\" cy=\"" +
            number(py(y)) + "\" r=\"" + number(radius) + "\"" + attributes(data) + "><title>" +
            html_escape(tooltip) + "</title></circle>\n";
}

void SvgPlot::bar(double x, double y, double thickness, const std::string& css_class, const DataAttributes& data,
                  const std::string& tooltip) {
  const double x0 = px(x_.lo), x1 = std::max(px(x), x0 + 1.0);  // a zero share still shows as a sliver
  marks_ += "<rect class=\"point " + html_escape(css_class) + "\" x=\"" + number(x0) + "\" y=\"" +
            number(py(y) - thickness / 2) + "\" width=\"" + number(x1 - x0) + "\" height=\"" + number(thickness) +
            "\"" + attributes(data) + "><title>" + html_escape(tooltip) + "</title></rect>\n";
}

void SvgPlot::line(const std::vector<std::pair<double, double>>& points, const std::string& css_class) {
  if (points.empty()) return;
  std::string coordinates;
  for (const auto& [x, y] : points) coordinates += number(px(x)) + "," + number(py(y)) + " ";
  marks_ += "<polyline class=\"" + html_escape(css_class) + "\" fill=\"none\" points=\"" + coordinates + "\"/>\n";
}

void SvgPlot::text(double x, double y, const std::string& content, const std::string& css_class,
                   const std::string& anchor) {
  marks_ += "<text class=\"" + html_escape(css_class) + "\" x=\"" + number(px(x)) + "\" y=\"" + number(py(y)) +
            "\" text-anchor=\"" + html_escape(anchor) + "\">" + html_escape(content) + "</text>\n";
}

std::string SvgPlot::str() const {
  std::string svg = "<svg class=\"plot\" id=\"" + html_escape(id_) + "\" data-kind=\"" + html_escape(kind_) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width_) + "\" height=\"" +
                    std::to_string(height_) + "\" viewBox=\"0 0 " + std::to_string(width_) + " " +
                    std::to_string(height_) + "\" role=\"img\">\n";
  svg += "<title>" + html_escape(title_) + "</title>\n";
  svg += "<text class=\"plot-title\" x=\"" + number(left_) + "\" y=\"18\">" + html_escape(title_) + "</text>\n";
  svg += "<rect class=\"plot-area\" x=\"" + number(left_) + "\" y=\"" + number(top_) + "\" width=\"" +
         number(right_ - left_) + "\" height=\"" + number(bottom_ - top_) + "\"/>\n";
  for (double t : axis_ticks(x_)) {
    const double x = px(t);
    svg += "<line class=\"grid\" x1=\"" + number(x) + "\" y1=\"" + number(top_) + "\" x2=\"" + number(x) +
           "\" y2=\"" + number(bottom_) + "\"/><text class=\"tick\" x=\"" + number(x) + "\" y=\"" +
           number(bottom_ + 14) + "\" text-anchor=\"middle\">" + html_escape(tick_label(t)) + "</text>\n";
  }
  for (double t : axis_ticks(y_)) {
    const double y = py(t);
    svg += "<line class=\"grid\" x1=\"" + number(left_) + "\" y1=\"" + number(y) + "\" x2=\"" + number(right_) +
           "\" y2=\"" + number(y) + "\"/><text class=\"tick\" x=\"" + number(left_ - 4) + "\" y=\"" +
           number(y + 4) + "\" text-anchor=\"end\">" + html_escape(tick_label(t)) + "</text>\n";
  }
  svg += "<text class=\"axis-label\" x=\"" + number((left_ + right_) / 2) + "\" y=\"" + number(height_ - 8) +
         "\" text-anchor=\"middle\">" + html_escape(x_.label) + "</text>\n";
  if (!y_.label.empty()) {
    svg += "<text class=\"axis-label\" transform=\"translate(14," + number((top_ + bottom_) / 2) +
           ") rotate(-90)\" text-anchor=\"middle\">" + html_escape(y_.label) + "</text>\n";
  }
  svg += marks_;
  svg += "</svg>\n";
  return svg;
}

}  // namespace vktune
