#pragma once
// Progress of a long run, on stderr so stdout stays clean for tables and
// JSON. On a terminal: one live line, redrawn in place and clipped to the
// terminal's width (a wrapped line cannot be redrawn: every redraw would
// leave a stale row), showing the phase the run is in (measuring ceilings,
// enumerating, compiling, validating, timing, confirming, final check) with
// its counts and an ETA over every shape of the run; a ticker thread redraws
// it twice a second so that nothing looks frozen. Otherwise: plain lines,
// one every few seconds and at the end of each search.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "tuner/progress_observer.hpp"

namespace vktune {

using ProgressClock = std::chrono::steady_clock;

struct ProgressOptions {
  bool tty = false;    // draw a live line in place
  bool quiet = false;  // print nothing (--json)
  // Columns of the terminal; 0 = ask stderr's terminal (TIOCGWINSZ), else
  // $COLUMNS, else 80.
  int width = 0;
  // Where the text goes (default: stderr) and what time it is (default:
  // steady_clock); tests replace both.
  std::function<void(const std::string&)> write;
  std::function<ProgressClock::time_point()> now;
  // Redraw from a thread between events (off in tests, which drive it).
  bool ticker = true;
};

// What an ETA is made of: the rate measured on variants this run actually
// measured (variants taken from the store cost nothing and must not make
// the rate look infinite), what is left of the run, and the deadline.
struct EtaInputs {
  std::size_t measured = 0;        // variants measured in this run so far
  double measured_seconds = 0;     // wall time those took
  std::size_t left_this_shape = 0;  // variants still planned in the current search
  std::size_t shapes_after = 0;    // shapes not started yet
  std::size_t planned_per_shape = 0;  // variants a future shape is expected to take
  // Wall time after a search (confirmation, final check, the next shape's
  // inputs), averaged over the shapes that had one; unknown before the first.
  std::optional<double> gap_seconds;
  std::size_t gaps_left = 0;  // such stretches still ahead, besides the current one
  // In such a stretch now (after the current shape's search): how long.
  std::optional<double> in_gap_seconds;
  std::optional<double> deadline_left_seconds;  // --time: what remains of it
};

// Until a shape's confirmation and final check have been seen once, their
// cost is guessed as this many variants' worth (three rounds over a few
// finalists, re-timed only, plus one validation on several inputs).
inline constexpr double kGuessedGapVariants = 3;

// Columns of the terminal the live line leaves free: one because some
// terminals wrap as soon as the last column is written, two for the "^C"
// the terminal echoes after it when the user interrupts. A line that wraps
// can no longer be redrawn in place: every redraw would leave a stale row.
inline constexpr int kLiveLineReserve = 3;
// The columns a live line may take on a terminal `width` columns wide.
std::size_t live_columns(int width);

// Seconds left, or nothing while no rate is known (and no deadline bounds
// it). With a deadline, never more than the time it leaves.
std::optional<double> eta_seconds(const EtaInputs& in);

// "45s", "3m05s", "1h02m".
std::string format_seconds(double seconds);

// The first `columns` columns of `text` (UTF-8: a multi-byte character is one
// column and is never cut in half).
std::string clip_to_columns(const std::string& text, std::size_t columns);
std::size_t columns_of(const std::string& text);

// The width of the terminal on stderr: TIOCGWINSZ, else $COLUMNS, else 80.
int terminal_columns();

class Progress final : public ProgressObserver {
 public:
  Progress(bool tty, bool quiet);
  explicit Progress(ProgressOptions options);
  ~Progress() override;
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The run: how many shapes it tunes and its --time deadline, for the ETA.
  void plan_run(std::size_t shapes, std::optional<ProgressClock::time_point> deadline);
  // What the run is doing now ("measuring device ceilings: read bandwidth",
  // "compiling variant 3"); shown on the live line until the next.
  void phase(const std::string& text) override;
  // phase("WHAT variant N") for the variant the search evaluates next (the
  // line counts done/total beside it).
  void step(const std::string& what) override;
  // A shape's search begins: `total` variants planned.
  void start(const std::string& title, std::size_t total) override;
  // `done` variants of the search evaluated, the last one taken from the
  // store rather than measured when `resumed`.
  void update(std::size_t done, std::size_t failures, std::optional<double> best_us, bool resumed = false) override;
  // The search ended; the shape's remaining phases (confirmation, final
  // check) follow on the same line.
  void finish() override;
  // The shape is done: the live line is cleared (and its title forgotten)
  // so that what the caller prints next starts on a clean line. The next
  // phase() or start() shows it again.
  void end_shape() override;
  // Clears the live line for good (before a summary) and stops the ticker.
  void hide();
  void message(const std::string& line) override;  // a line that does not disturb the live one
  // Asked on each draw: a reason to show that the run is stopping
  // ("interrupted by SIGINT") while the variant in flight finishes.
  void set_stopping(std::function<std::optional<std::string>()> stopping);

  // What the ticker does every 200 ms: redraw a live line whose clock moved
  // or whose redraw was skipped, or without a terminal, print a line for a
  // phase that lasts. Public for tests that drive the time themselves.
  void poll();

  // The live line as it would be drawn now, without control characters.
  std::string live_text() const;

 private:
  void set_phase(const std::string& text, bool force);
  void poll_locked();
  void draw_locked(bool force);
  void plain_line_locked(const char* state);
  std::string live_text_locked(std::size_t columns) const;
  EtaInputs eta_inputs_locked(ProgressClock::time_point now) const;
  void emit(const std::string& text) const;
  void tick();

  ProgressOptions options_;
  mutable std::mutex mutex_;
  std::string title_, phase_;
  std::size_t total_ = 0, done_ = 0, failures_ = 0;
  std::optional<double> best_us_;
  // The run as a whole, for the ETA.
  std::size_t shapes_planned_ = 0, shapes_started_ = 0, planned_sum_ = 0;
  std::optional<ProgressClock::time_point> deadline_;
  std::size_t measured_ = 0;
  double measured_seconds_ = 0;
  double gap_seconds_sum_ = 0;
  std::size_t gaps_ = 0;
  bool searching_ = false;
  std::optional<ProgressClock::time_point> search_ended_;
  ProgressClock::time_point started_, last_event_, last_draw_, last_line_, phase_started_;
  std::function<std::optional<std::string>()> stopping_;
  bool live_ = false;    // the live line is on screen
  bool dirty_ = false;   // a redraw was skipped (too soon after the last)
  bool phase_printed_ = false;  // without a terminal: the phase has had its line
  bool hidden_ = false;  // hide() was called: draw nothing more
  bool stop_ticker_ = false;
  std::condition_variable wake_;
  std::thread ticker_;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace vktune
