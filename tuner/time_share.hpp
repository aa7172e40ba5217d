#pragma once
// How one `--time` budget is shared by the shapes of a run. Given to every
// shape as the same deadline, it went to the first shapes: a 3-minute tune
// of ten depthwise-convolution shapes searched the first five exhaustively
// and timed only the baseline of the other five. Each shape now gets an
// equal share of what is left when it starts.
#include <chrono>
#include <cstddef>

namespace vktune {

// The deadline of the search of the next shape, `shapes_left` of them (it
// included) still to tune before `run_deadline`: an equal share of the time
// left. What a shape leaves unused (its space exhausted, its target reached)
// goes to the later ones; the last shape gets all that remains.
inline std::chrono::steady_clock::time_point shape_deadline(std::chrono::steady_clock::time_point now,
                                                            std::chrono::steady_clock::time_point run_deadline,
                                                            std::size_t shapes_left) {
  if (shapes_left <= 1 || now >= run_deadline) return run_deadline;
  return now + (run_deadline - now) / static_cast<long>(shapes_left);
}

}  // namespace vktune
