// The progress line without a device: the ETA's arithmetic, clipping to the
// terminal's width, and what a redraw writes (a fake clock and a captured
// stream, no ticker thread).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "cli/progress.hpp"

namespace {

using namespace vktune;
using namespace std::chrono_literals;

// A Progress whose time is `now` and whose output lands in `out`.
struct Captured {
  ProgressClock::time_point now{};
  std::string out;
  Progress progress;
  explicit Captured(int width, bool tty = true)
      : progress(ProgressOptions{.tty = tty,
                                 .quiet = false,
                                 .width = width,
                                 .write = [this](const std::string& text) { out += text; },
                                 .now = [this] { return now; },
                                 .ticker = false}) {}

  // Each redraw of the live line: the text after each "\r\033[K" up to the
  // next control sequence or newline.
  std::vector<std::string> redraws() const {
    std::vector<std::string> lines;
    const std::string clear = "\r\033[K";
    for (auto at = out.find(clear); at != std::string::npos; at = out.find(clear, at + 1)) {
      const auto from = at + clear.size();
      const auto end = out.find_first_of("\r\n", from);
      lines.push_back(out.substr(from, end == std::string::npos ? std::string::npos : end - from));
    }
    return lines;
  }
};

TEST(ProgressEta, RateComesFromMeasuredVariantsOnly) {
  EtaInputs in;
  in.measured = 4;
  in.measured_seconds = 8;  // 2 s a variant
  in.left_this_shape = 13;
  in.shapes_after = 1;
  in.planned_per_shape = 17;
  in.gap_seconds = 10;
  in.gaps_left = 2;
  // 2 s x (13 + 17) variants + 2 gaps of 10 s.
  EXPECT_DOUBLE_EQ(*eta_seconds(in), 80);
  in.gap_seconds.reset();  // not seen yet: guessed from the rate
  EXPECT_DOUBLE_EQ(*eta_seconds(in), 60 + 2 * kGuessedGapVariants * 2);
  in.in_gap_seconds = 1;  // inside the current shape's gap too: its guess less the second spent
  EXPECT_DOUBLE_EQ(*eta_seconds(in), 60 + 3 * kGuessedGapVariants * 2 - 1);
}

TEST(ProgressEta, UnknownWithoutMeasurementsAndBoundedByTheDeadline) {
  EtaInputs in;
  in.left_this_shape = 13;  // every variant so far came from the store
  EXPECT_FALSE(eta_seconds(in).has_value());
  in.deadline_left_seconds = 30;
  EXPECT_DOUBLE_EQ(*eta_seconds(in), 30);
  in.measured = 1;
  in.measured_seconds = 10;  // 130 s of work, 30 s of deadline
  EXPECT_DOUBLE_EQ(*eta_seconds(in), 30);
  in.deadline_left_seconds = -5;  // past it: nothing more starts
  EXPECT_DOUBLE_EQ(*eta_seconds(in), 0);
  EtaInputs done;
  EXPECT_DOUBLE_EQ(*eta_seconds(done), 0);
}

TEST(ProgressText, ClipsByColumnsNotBytes) {
  EXPECT_EQ(columns_of("12.5 \xC2\xB5s"), 7u);
  EXPECT_EQ(clip_to_columns("12.5 \xC2\xB5s", 6), "12.5 \xC2\xB5");
  EXPECT_EQ(clip_to_columns("12.5 \xC2\xB5s", 5), "12.5 ");
  EXPECT_EQ(clip_to_columns("abc", 10), "abc");
  EXPECT_EQ(format_seconds(59.4), "59s");
  EXPECT_EQ(format_seconds(185), "3m05s");
  EXPECT_EQ(format_seconds(3720), "1h02m");
  EXPECT_EQ(live_columns(80), 80u - kLiveLineReserve);
}

TEST(ProgressLine, NeverWiderThanTheTerminal) {
  for (const int width : {20, 40, 80, 132}) {
    Captured c(width);
    c.progress.plan_run(3, c.now + 600s);
    c.progress.phase("measuring device ceilings (once per device): fp32 FMA throughput (2 of 3)");
    c.progress.start("matmul_q4k_with_a_rather_long_name 1,4096,4096", 1234);
    for (std::size_t i = 1; i <= 30; ++i) {
      c.now += 1s;
      c.progress.step("validating");
      c.progress.update(i, i / 3, 123456.78 / static_cast<double>(i));
    }
    c.progress.phase("confirming 32 finalists: timing 17 of 99 (each beside the baseline)");
    const auto lines = c.redraws();
    ASSERT_GE(lines.size(), 30u);
    for (const auto& line : lines) EXPECT_LE(columns_of(line), live_columns(width)) << width << ": " << line;
    // No line feed: every redraw replaces the line.
    EXPECT_EQ(c.out.find('\n'), std::string::npos);
  }
}

TEST(ProgressLine, ShowsPhaseCountsAndAnEtaOverEveryShape) {
  Captured c(200);
  c.progress.plan_run(2, std::nullopt);
  c.progress.phase("add 4,256: enumerating the space");
  EXPECT_NE(c.progress.live_text().find("add 4,256: enumerating the space"), std::string::npos);
  c.progress.start("add 4,256", 17);
  // A resumed run: 13 variants come from the store at once.
  for (std::size_t i = 1; i <= 13; ++i) c.progress.update(i, 0, 5.0, true);
  EXPECT_NE(c.progress.live_text().find("13/17"), std::string::npos);
  EXPECT_NE(c.progress.live_text().find("ETA ?"), std::string::npos) << c.progress.live_text();
  // One measured variant takes 2 s: 3 left here, 17 planned for the next
  // shape, two confirmations not seen yet (guessed at kGuessedGapVariants).
  c.now += 2s;
  c.progress.update(14, 0, 5.0);
  const double expected = 2 * (3 + 17) + 2 * kGuessedGapVariants * 2;
  EXPECT_NE(c.progress.live_text().find("ETA " + format_seconds(expected)), std::string::npos)
      << c.progress.live_text();
  c.progress.step("timing");
  EXPECT_NE(c.progress.live_text().find("timing variant 15 |"), std::string::npos) << c.progress.live_text();
  EXPECT_NE(c.progress.live_text().find(", shape 1/2 "), std::string::npos);
  EXPECT_NE(c.progress.live_text().find("| best 5.00 us |"), std::string::npos) << c.progress.live_text();
  c.progress.update(15, 1, 123456.78, true);  // long times lose their decimals, not the field
  EXPECT_NE(c.progress.live_text().find("| best 123457 us |"), std::string::npos) << c.progress.live_text();
  EXPECT_NE(c.progress.live_text().find("| 1 failed"), std::string::npos) << c.progress.live_text();
}

TEST(ProgressLine, EtaNeverExceedsTheDeadline) {
  Captured c(200);
  c.progress.plan_run(1, c.now + 30s);
  c.progress.start("add 4,256", 1000);
  c.now += 10s;
  c.progress.update(1, 0, 5.0);  // 10 s a variant, 999 left: far beyond the 20 s that remain
  EXPECT_NE(c.progress.live_text().find("ETA 20s"), std::string::npos) << c.progress.live_text();
}

TEST(ProgressLine, MessagesAndTheEndOfAShapeLeaveCleanLines) {
  Captured c(80);
  c.progress.start("add 4,256", 4);
  c.progress.update(1, 0, 5.0);
  c.out.clear();
  c.progress.message("confirmation re-timed 3 finalists");
  // The live line is cleared, the message printed whole, the line redrawn.
  EXPECT_EQ(c.out.rfind("\r\033[Kconfirmation re-timed 3 finalists\n", 0), 0u) << c.out;
  EXPECT_NE(c.out.find("add 4,256"), std::string::npos);
  c.out.clear();
  c.progress.end_shape();
  EXPECT_EQ(c.out, "\r\033[K");
  c.out.clear();
  c.progress.hide();  // nothing on screen: nothing to clear
  c.progress.phase("anything");
  EXPECT_EQ(c.out, "");
}

TEST(ProgressLine, WithoutATerminalPlainLines) {
  Captured c(80, false);
  c.progress.phase("measuring device ceilings (once per device): read bandwidth (1 of 3)");
  c.now += 1s;
  c.progress.poll();
  EXPECT_EQ(c.out, "");  // a phase that ends quickly (or a command that fails at once) says nothing
  c.now += 1200ms;
  c.progress.poll();
  c.progress.poll();  // said once, not again before kPlainEvery
  EXPECT_EQ(c.out, "measuring device ceilings (once per device): read bandwidth (1 of 3) (2s)\n");
  c.progress.start("add 4,256", 4);
  c.now += 1s;
  c.progress.update(1, 0, 5.0);
  c.progress.finish();
  EXPECT_EQ(c.out.find('\r'), std::string::npos);
  EXPECT_EQ(c.out.find('\033'), std::string::npos);
  EXPECT_NE(c.out.find("measuring device ceilings"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("add 4,256: 4 variants\n"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("add 4,256: 1/4 done, 0 failed, best 5.00 us"), std::string::npos) << c.out;
}

// `check` times nothing: its lines said "best -" (and a tune's did before
// its first time). The field is left out until there is a time to show.
TEST(ProgressLine, NoBestFieldBeforeATime) {
  Captured plain(80, false);
  plain.progress.start("add 4,256", 2);
  plain.now += 1s;
  plain.progress.update(1, 1, std::nullopt);
  plain.progress.finish();
  EXPECT_NE(plain.out.find("add 4,256: 1/2 done, 1 failed, "), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("best"), std::string::npos) << plain.out;
  Captured live(120);
  live.progress.start("add 4,256", 2);
  live.progress.update(1, 1, std::nullopt);
  EXPECT_EQ(live.progress.live_text().find("best"), std::string::npos) << live.progress.live_text();
  live.progress.update(2, 1, 5.0);
  EXPECT_NE(live.progress.live_text().find("| best 5.00 us"), std::string::npos) << live.progress.live_text();
}

TEST(ProgressLine, SaysWhenTheRunIsStopping) {
  Captured c(120);
  c.progress.set_stopping([] { return std::optional<std::string>("interrupted by SIGINT"); });
  c.progress.start("add 4,256", 4);
  EXPECT_EQ(c.progress.live_text().rfind("stopping (interrupted by SIGINT)", 0), 0u) << c.progress.live_text();
}

}  // namespace
