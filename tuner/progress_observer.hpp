#pragma once
// What a tuning session reports while it works. The tuner owns this small
// interface and knows nothing of terminals: the command line implements it
// with a live line (cli/progress.hpp), tests and library callers with
// SilentProgress.
#include <cstddef>
#include <optional>
#include <string>

namespace vktune {

class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  // What the run is doing now ("compiling variant 3", "final check: ...").
  virtual void phase(const std::string& text) = 0;
  // phase("WHAT variant N") for the variant the search evaluates next.
  virtual void step(const std::string& what) = 0;
  // A shape's search begins: `total` variants planned.
  virtual void start(const std::string& title, std::size_t total) = 0;
  // `done` variants of the search evaluated, the last one taken from the
  // store rather than measured when `resumed`.
  virtual void update(std::size_t done, std::size_t failures, std::optional<double> best_us, bool resumed) = 0;
  // The search ended; the shape's confirmation and final check follow.
  virtual void finish() = 0;
  // The shape is done: whatever the caller prints next starts on a clean line.
  virtual void end_shape() = 0;
  // A line worth keeping (a warning, a summary).
  virtual void message(const std::string& line) = 0;
};

// Reports nothing: for callers with no one to tell.
class SilentProgress final : public ProgressObserver {
 public:
  void phase(const std::string&) override {}
  void step(const std::string&) override {}
  void start(const std::string&, std::size_t) override {}
  void update(std::size_t, std::size_t, std::optional<double>, bool) override {}
  void finish() override {}
  void end_shape() override {}
  void message(const std::string&) override {}
};

}  // namespace vktune
