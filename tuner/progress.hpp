#pragma once
// Progress of a long run, on stderr so stdout stays clean for tables and
// JSON: a redrawn bar on a terminal, plain lines otherwise.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace vktune {

class Progress {
 public:
  // `tty` draws a bar in place; otherwise a line every few seconds and at the end.
  Progress(bool tty, bool quiet);
  void start(const std::string& title, std::size_t total);
  void update(std::size_t done, std::size_t failures, std::optional<double> best_us);
  void finish();
  void message(const std::string& line);  // a line that does not disturb the bar

 private:
  void draw(bool final_line);
  bool tty_, quiet_;
  std::string title_;
  std::size_t total_ = 0, done_ = 0, failures_ = 0;
  std::optional<double> best_us_;
  std::chrono::steady_clock::time_point started_, last_line_;
  bool bar_visible_ = false;
};

// True when stderr is a terminal.
bool stderr_is_terminal();

}  // namespace vktune
