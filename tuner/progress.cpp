#include "tuner/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace vktune {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

Progress::Progress(bool tty, bool quiet) : tty_(tty), quiet_(quiet) {}

void Progress::start(const std::string& title, std::size_t total) {
  title_ = title;
  total_ = total;
  done_ = failures_ = 0;
  best_us_.reset();
  started_ = last_line_ = std::chrono::steady_clock::now();
  if (!quiet_ && !tty_) std::fprintf(stderr, "%s: %zu variants\n", title_.c_str(), total_);
}

void Progress::update(std::size_t done, std::size_t failures, std::optional<double> best_us) {
  done_ = done;
  failures_ = failures;
  best_us_ = best_us;
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (tty_ || now - last_line_ > std::chrono::seconds(5)) {
    draw(false);
    last_line_ = now;
  }
}

void Progress::finish() {
  if (quiet_) return;
  draw(true);
}

void Progress::message(const std::string& line) {
  if (quiet_) return;
  if (bar_visible_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "%s\n", line.c_str());
  bar_visible_ = false;
  if (tty_ && total_ > 0) draw(false);
}

void Progress::draw(bool final_line) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double eta = done_ > 0 && total_ > done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
  char best[32] = "-";
  if (best_us_) std::snprintf(best, sizeof best, "%.2f us", *best_us_);
  char text[256];
  if (tty_) {
    constexpr int width = 24;
    const int filled = total_ ? static_cast<int>(width * static_cast<double>(done_) / static_cast<double>(total_)) : width;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::snprintf(text, sizeof text, "\r\033[K%s [%s] %zu/%zu, %zu failed, best %s, ETA %.0fs", title_.c_str(),
                  bar.c_str(), done_, total_, failures_, best, eta);
    std::fputs(text, stderr);
    bar_visible_ = true;
    if (final_line) {
      std::fputs("\n", stderr);
      bar_visible_ = false;
    }
  } else {
    std::snprintf(text, sizeof text, "%s: %zu/%zu done, %zu failed, best %s, %.0fs elapsed%s\n", title_.c_str(), done_,
                  total_, failures_, best, elapsed, final_line ? "" : ", running");
    std::fputs(text, stderr);
  }
  std::fflush(stderr);
}

}  // namespace vktune
