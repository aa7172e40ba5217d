#include "cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace vktune {

namespace {


// Redraws closer together than this only cost the terminal time; the ticker
// catches up with what was skipped.
constexpr auto kMinRedraw = std::chrono::milliseconds(100);
// Even with nothing new, the live line is redrawn this often so that the
// phase's own clock moves.
constexpr auto kIdleRedraw = std::chrono::seconds(1);
// Without a terminal, a plain line at most this often.
constexpr auto kPlainEvery = std::chrono::seconds(5);
// Without a terminal, a phase outside a search that lasts this long gets a line.
constexpr auto kPlainPhaseAfter = std::chrono::seconds(2);
// A phase longer than this shows how long it has been running.
constexpr double kShowPhaseClockAfter = 2;

void write_stderr(const std::string& text) {
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

double seconds_between(ProgressClock::time_point a, ProgressClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::size_t live_columns(int width) {
  return static_cast<std::size_t>(std::max(width, kLiveLineReserve + 1) - kLiveLineReserve);
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

int terminal_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return 80;
}

std::optional<double> eta_seconds(const EtaInputs& in) {
  const double variants_left = static_cast<double>(in.left_this_shape) +
                               static_cast<double>(in.shapes_after) * static_cast<double>(in.planned_per_shape);
  std::optional<double> eta;
  if (variants_left == 0 && in.gaps_left == 0 && !in.in_gap_seconds) {
    eta = 0.0;
  } else if (in.measured > 0) {
    const double per_variant = in.measured_seconds / static_cast<double>(in.measured);
    const double gap = in.gap_seconds.value_or(kGuessedGapVariants * per_variant);
    eta = per_variant * variants_left + gap * static_cast<double>(in.gaps_left);
    if (in.in_gap_seconds) *eta += std::max(0.0, gap - *in.in_gap_seconds);
  }
  if (in.deadline_left_seconds) {
    const double left = std::max(0.0, *in.deadline_left_seconds);
    eta = eta ? std::min(*eta, left) : left;
  }
  return eta;
}

std::string format_seconds(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%lds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  }
  return text;
}

std::size_t columns_of(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++n;  // continuation bytes add no column
  return n;
}

std::string clip_to_columns(const std::string& text, std::size_t columns) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (n == columns) return text.substr(0, i);
      ++n;
    }
  }
  return text;
}

namespace {
ProgressOptions terminal_options(bool tty, bool quiet) {
  ProgressOptions options;
  options.tty = tty;
  options.quiet = quiet;
  return options;
}
}  // namespace

Progress::Progress(bool tty, bool quiet) : Progress(terminal_options(tty, quiet)) {}

Progress::Progress(ProgressOptions options) : options_(std::move(options)) {
  if (!options_.write) options_.write = write_stderr;
  if (!options_.now) options_.now = [] { return ProgressClock::now(); };
  started_ = last_event_ = last_draw_ = phase_started_ = options_.now();
  last_line_ = started_;
  if (!options_.quiet && options_.ticker) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  {
    std::lock_guard lock(mutex_);
    stop_ticker_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  std::lock_guard lock(mutex_);
  if (live_) emit("\r\033[K");  // leave no half line behind
}

void Progress::plan_run(std::size_t shapes, std::optional<ProgressClock::time_point> deadline) {
  std::lock_guard lock(mutex_);
  shapes_planned_ = shapes;
  deadline_ = deadline;
}

void Progress::set_stopping(std::function<std::optional<std::string>()> stopping) {
  std::lock_guard lock(mutex_);
  stopping_ = std::move(stopping);
}

void Progress::phase(const std::string& text) { set_phase(text, true); }

void Progress::set_phase(const std::string& text, bool force) {
  std::lock_guard lock(mutex_);
  if (text != phase_) {
    phase_started_ = options_.now();
    phase_printed_ = false;
  }
  phase_ = text;
  if (options_.quiet || !options_.tty) return;  // without a terminal, poll() says what lasts
  draw_locked(force);
}

void Progress::start(const std::string& title, std::size_t total) {
  std::lock_guard lock(mutex_);
  const auto now = options_.now();
  // The stretch since the previous search ended (its confirmation, final
  // check and this shape's inputs) is what a future shape costs besides
  // its variants.
  if (search_ended_) {
    gap_seconds_sum_ += seconds_between(*search_ended_, now);
    ++gaps_;
    search_ended_.reset();
  }
  title_ = title;
  phase_.clear();  // what led up to the search ("looking up ...") is over
  total_ = total;
  done_ = failures_ = 0;
  best_us_.reset();
  ++shapes_started_;
  planned_sum_ += total;
  searching_ = true;
  started_ = last_event_ = now;
  if (options_.quiet) return;
  if (!options_.tty) {
    options_.write(title_ + ": " + std::to_string(total_) + " variants\n");
    last_line_ = now;
  }
  draw_locked(true);
}

void Progress::update(std::size_t done, std::size_t failures, std::optional<double> best_us, bool resumed) {
  std::lock_guard lock(mutex_);
  const auto now = options_.now();
  if (!resumed) {  // a stored result took no time: it says nothing of the rate
    measured_ += done > done_ ? done - done_ : 0;
    measured_seconds_ += seconds_between(last_event_, now);
  }
  last_event_ = now;
  done_ = done;
  failures_ = failures;
  best_us_ = best_us;
  if (options_.quiet) return;
  if (!options_.tty) {
    if (now - last_line_ > kPlainEvery) plain_line_locked("running");
    return;
  }
  draw_locked(false);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (!searching_) return;
  searching_ = false;
  const auto now = options_.now();
  search_ended_ = now;
  if (options_.quiet) return;
  if (!options_.tty) {
    plain_line_locked("");
    return;
  }
  draw_locked(true);
}

void Progress::end_shape() {
  std::lock_guard lock(mutex_);
  if (live_) emit("\r\033[K");
  live_ = false;
  phase_.clear();
  title_.clear();
}

void Progress::step(const std::string& what) {
  std::string text;
  {
    std::lock_guard lock(mutex_);
    text = what + " variant " + std::to_string(done_ + 1);  // of the total the line counts already
  }
  set_phase(text, false);  // one per variant: at most every kMinRedraw
}

void Progress::hide() {
  std::lock_guard lock(mutex_);
  if (live_) emit("\r\033[K");
  live_ = false;
  hidden_ = true;
}

void Progress::message(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (options_.quiet) return;
  const bool was_live = live_;
  if (live_) emit("\r\033[K");
  live_ = false;
  options_.write(line + "\n");
  last_line_ = options_.now();
  if (was_live) draw_locked(true);
}

std::string Progress::live_text() const {
  std::lock_guard lock(mutex_);
  const int width = options_.width > 0 ? options_.width : terminal_columns();
  return live_text_locked(live_columns(width));
}

EtaInputs Progress::eta_inputs_locked(ProgressClock::time_point now) const {
  EtaInputs in;
  in.measured = measured_;
  in.measured_seconds = measured_seconds_;
  in.left_this_shape = searching_ && total_ > done_ ? total_ - done_ : 0;
  in.shapes_after = shapes_planned_ > shapes_started_ ? shapes_planned_ - shapes_started_ : 0;
  in.planned_per_shape = shapes_started_ ? planned_sum_ / shapes_started_ : 0;
  if (gaps_) in.gap_seconds = gap_seconds_sum_ / static_cast<double>(gaps_);
  // Every shape not past its search has a confirmation ahead; a shape in
  // its confirmation has what remains of it.
  in.gaps_left = in.shapes_after + (searching_ ? 1 : 0);
  if (search_ended_) in.in_gap_seconds = seconds_between(*search_ended_, now);
  if (deadline_) in.deadline_left_seconds = seconds_between(now, *deadline_);
  return in;
}

std::string Progress::live_text_locked(std::size_t columns) const {
  const auto now = options_.now();
  // Fields in the order shown; those that do not fit are dropped, the
  // least useful first, and what still does not fit is clipped.
  struct Field {
    std::string text;
    int drop_order;  // 0 = never dropped
  };
  std::vector<Field> fields;
  if (stopping_) {
    if (auto why = stopping_()) fields.push_back({"stopping (" + *why + "): finishing the variant in flight", 0});
  }
  if (!title_.empty()) {
    std::string title = title_;
    if (shapes_planned_ > 1) {
      title += ", shape " + std::to_string(shapes_started_) + "/" + std::to_string(shapes_planned_);
    }
    fields.push_back({title, 0});
    constexpr std::size_t bar_width = 12;
    const auto filled = total_ ? std::min(bar_width, bar_width * done_ / total_) : bar_width;
    fields.push_back({"[" + std::string(filled, '#') + std::string(bar_width - filled, '.') + "]", 1});
    fields.push_back({std::to_string(done_) + "/" + std::to_string(total_), 0});
  }
  if (!phase_.empty()) {
    std::string phase = phase_;
    const double in_phase = seconds_between(phase_started_, now);
    if (in_phase >= kShowPhaseClockAfter) phase += " " + format_seconds(in_phase);
    fields.push_back({(title_.empty() ? "" : "| ") + phase, 0});
  }
  if (!title_.empty()) {
    // Four or five significant digits: the live line has few columns to
    // spare. Nothing before a first time (and never in `check`, which times
    // nothing).
    if (best_us_) {
      char best[48];
      std::snprintf(best, sizeof best, "best %.*f us", *best_us_ >= 1000 ? 0 : *best_us_ >= 100 ? 1 : 2, *best_us_);
      fields.push_back({std::string("| ") + best, 3});
    }
    if (failures_) fields.push_back({"| " + std::to_string(failures_) + " failed", 2});
  }
  if (shapes_started_ > 0 || deadline_) {
    const auto eta = eta_seconds(eta_inputs_locked(now));
    // Before any variant was measured, a deadline is only an upper bound.
    const bool bound_only = eta && measured_ == 0 && deadline_ && *eta > 0;
    fields.push_back({"| ETA " + std::string(bound_only ? "<=" : "") + (eta ? format_seconds(*eta) : std::string("?")), 4});
  }
  auto join = [&] {
    std::string line;
    for (const auto& f : fields) {
      if (f.text.empty()) continue;
      if (!line.empty()) line += ' ';
      line += f.text;
    }
    return line;
  };
  std::string line = join();
  for (int order = 1; columns_of(line) > columns && order <= 4; ++order) {
    for (auto& f : fields)
      if (f.drop_order == order) f.text.clear();
    line = join();
  }
  return clip_to_columns(line, columns);
}

void Progress::draw_locked(bool force) {
  if (options_.quiet || !options_.tty || hidden_) return;
  const auto now = options_.now();
  if (!force && live_ && now - last_draw_ < kMinRedraw) {
    dirty_ = true;  // the ticker draws it
    return;
  }
  if (title_.empty() && phase_.empty()) return;
  const int width = options_.width > 0 ? options_.width : terminal_columns();
  emit("\r\033[K" + live_text_locked(live_columns(width)));
  live_ = true;
  dirty_ = false;
  last_draw_ = now;
}

void Progress::plain_line_locked(const char* state) {
  const auto now = options_.now();
  std::string line;
  if (!searching_ && *state) {  // between searches: the phase and how long it has taken
    line = (title_.empty() ? "" : title_ + ": ") + (phase_.empty() ? std::string("working") : phase_) + " (" +
           format_seconds(seconds_between(phase_started_, now)) + ")";
  } else {
    line = title_ + ": " + std::to_string(done_) + "/" + std::to_string(total_) + " done, " +
           std::to_string(failures_) + " failed";
    if (best_us_) {  // nothing before a first time, and never in `check`, which times nothing
      char best[48];
      std::snprintf(best, sizeof best, ", best %.2f us", *best_us_);
      line += best;
    }
    if (*state && !phase_.empty()) line += ", " + phase_;
    line += ", " + format_seconds(seconds_between(started_, now)) + " elapsed";
  }
  if (*state) {
    if (const auto eta = eta_seconds(eta_inputs_locked(now)); eta && !title_.empty()) line += ", ETA " + format_seconds(*eta);
    if (searching_) line += std::string(", ") + state;
  }
  options_.write(line + "\n");
  last_line_ = now;
}

void Progress::emit(const std::string& text) const { options_.write(text); }

void Progress::poll() {
  std::lock_guard lock(mutex_);
  poll_locked();
}

void Progress::poll_locked() {
  if (options_.quiet || hidden_) return;
  const auto now = options_.now();
  if (options_.tty) {
    if (live_ && (now - last_draw_ >= kIdleRedraw || (dirty_ && now - last_draw_ >= kMinRedraw))) draw_locked(true);
    return;
  }
  // Without a terminal: a phase outside a search gets a line once it has
  // lasted a while (a command that fails at once prints only its error),
  // and anything going on a line every kPlainEvery.
  if (!searching_ && !phase_.empty() && !phase_printed_ && now - phase_started_ >= kPlainPhaseAfter) {
    plain_line_locked("running");
    phase_printed_ = true;
  } else if ((searching_ || !phase_.empty()) && now - last_line_ >= kPlainEvery) {
    plain_line_locked("running");
  }
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  while (!stop_ticker_) {
    wake_.wait_for(lock, std::chrono::milliseconds(200));
    if (!stop_ticker_) poll_locked();
  }
}

}  // namespace vktune
