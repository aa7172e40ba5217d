#pragma once
// How one `--time` budget is shared by the shapes of a run. Given to every
// shape as the same deadline, it went to the first shapes: a 3-minute tune
// of ten depthwise-convolution shapes searched the first five exhaustively
// and timed only the baseline of the other five. Each shape now gets an
// equal share of what is left when it starts.
//
// A shape goes on past its search's deadline: the finalists are re-timed,
// the winner checked once more and stored. Unbudgeted, those tails were the
// last shape's loss: a 70 s tune of six quantized-product shapes on an H200
// searched the last one for 1 s (the baseline only). So each share ends
// early by the tail the shapes before it ran past theirs.
#include <algorithm>
#include <chrono>
#include <cstddef>

namespace vktune {

// The deadline of the search of the next shape, `shapes_left` of them (it
// included) still to tune before `run_deadline`: an equal share of the time
// left, less `expected_tail`, what a shape is expected to run past its
// deadline; never before `now`. What a shape leaves unused (its space
// exhausted, its target reached) goes to the later ones; the last shape gets
// all that remains but its tail.
inline std::chrono::steady_clock::time_point shape_deadline(std::chrono::steady_clock::time_point now,
                                                            std::chrono::steady_clock::time_point run_deadline,
                                                            std::size_t shapes_left,
                                                            std::chrono::steady_clock::duration expected_tail = {}) {
  if (now >= run_deadline) return run_deadline;
  const auto share = (run_deadline - now) / static_cast<long>(std::max<std::size_t>(shapes_left, 1));
  return now + std::max(share - expected_tail, std::chrono::steady_clock::duration::zero());
}

// The mean time the finished shapes ran past their deadlines (zero before
// the first has finished; a shape that ended before its deadline adds zero).
class ShapeTails {
 public:
  void add(std::chrono::steady_clock::time_point deadline, std::chrono::steady_clock::time_point end) {
    total_ += std::max(end - deadline, std::chrono::steady_clock::duration::zero());
    ++count_;
  }
  std::chrono::steady_clock::duration expected() const {
    return count_ ? total_ / static_cast<long>(count_) : std::chrono::steady_clock::duration::zero();
  }

 private:
  std::chrono::steady_clock::duration total_{};
  std::size_t count_ = 0;
};

}  // namespace vktune
