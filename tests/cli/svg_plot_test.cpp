// The report's building blocks: HTML escaping of untrusted text, axis ticks,
// and where the chart writer places its data points.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "cli/html/html_escape.hpp"
#include "cli/html/svg_plot.hpp"

namespace vktune {
namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(HtmlEscape, MarkupCharactersBecomeReferences) {
  EXPECT_EQ(html_escape(R"(<a href="x" title='y'>&</a>)"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(html_escape("tab\tand\nnewline"), "tab\tand\nnewline");
  EXPECT_EQ(html_escape("12.5 \xC2\xB5s \xE6\xBC\xA2"), "12.5 \xC2\xB5s \xE6\xBC\xA2");  // µ and a CJK character kept
}

TEST(HtmlEscape, ControlsAndBrokenUtf8BecomeReplacementCharacters) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(html_escape("a\x1b[31mb"), "a" + replacement + "[31mb");
  EXPECT_EQ(html_escape("x\xFFy"), "x" + replacement + "y");
  EXPECT_EQ(html_escape("\xC2\x9B"), replacement);            // C1 control (CSI)
  EXPECT_EQ(html_escape("\xC0\xBC"), replacement + replacement);  // overlong '<' is not a '<'
  EXPECT_EQ(html_escape(std::string("n\0l", 3)), "n" + replacement + "l");
}

TEST(AxisTicks, LogAxesShowAFewReadableTicks) {
  const auto decades = axis_ticks(log_axis(1, 1e6, ""));
  EXPECT_EQ(decades, (std::vector<double>{1, 10, 100, 1e3, 1e4, 1e5, 1e6}));
  const auto narrow = axis_ticks(log_axis(22, 58, ""));
  EXPECT_GE(narrow.size(), 3u);
  for (double t : narrow) {
    EXPECT_GE(t, 22);
    EXPECT_LE(t, 58);
  }
  EXPECT_NE(std::find(narrow.begin(), narrow.end(), 30.0), narrow.end());
  const auto linear = axis_ticks(linear_axis(0, 100, ""));
  EXPECT_EQ(linear, (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(tick_label(1500), "1500");
  EXPECT_EQ(tick_label(15000), "15k");
  EXPECT_EQ(tick_label(0.5), "0.5");
  EXPECT_EQ(tick_label(2e-5), "2e-05");
}

TEST(AxisTicks, ADegenerateRangeStillMakesAnAxis) {
  const auto one = log_axis(7, 7, "");
  EXPECT_LT(one.lo, 7);
  EXPECT_GT(one.hi, 7);
  const auto zero = log_axis(0, 0, "");  // no positive value: a decade around 1
  EXPECT_GT(zero.lo, 0);
  const auto flat = linear_axis(3, 3, "");
  EXPECT_LT(flat.lo, 3);
  EXPECT_GT(flat.hi, 3);
}

TEST(SvgPlot, PointsAtTheEndsOfAPaddedAxisLieInsideThePlottingArea) {
  SvgPlot plot("p1", "test", "title <b>", log_axis(10, 1000, "x").pad(0.05), linear_axis(0, 1, "y").pad(0.05));
  const double left = plot.px(10), right = plot.px(1000);
  plot.point(10, 0, 3, "variant", {{"us", "10"}}, "a");
  plot.point(1000, 1, 3, "winner", {{"us", "1000"}, {"note", "\"quoted\""}}, "b");
  plot.bar(500, 0.5, 10, "importance", {{"share", "0.5"}}, "c");
  const std::string svg = plot.str();

  // The plotting area, as the page's self-check finds it.
  const std::regex area(R"re(<rect class="plot-area" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)")re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, area)) << svg;
  const double x0 = std::stod(m[1].str()), y0 = std::stod(m[2].str());
  const double x1 = x0 + std::stod(m[3].str()), y1 = y0 + std::stod(m[4].str());
  EXPECT_GT(left, x0);
  EXPECT_LT(right, x1);
  EXPECT_GT(plot.py(1), y0);  // larger values higher up
  EXPECT_LT(plot.py(0), y1);
  EXPECT_LT(plot.py(1), plot.py(0));

  EXPECT_EQ(occurrences(svg, "class=\"point "), 3u);
  EXPECT_EQ(occurrences(svg, "<circle class=\"point"), 2u);
  EXPECT_NE(svg.find("data-note=\"&quot;quoted&quot;\""), std::string::npos);
  EXPECT_NE(svg.find("title &lt;b&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("<svg class=\"plot\" id=\"p1\" data-kind=\"test\""), std::string::npos);
}

}  // namespace
}  // namespace vktune
