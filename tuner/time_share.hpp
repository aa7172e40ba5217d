#pragma once
// How one `--time` budget is shared by the shapes of a run. Given to every
// shape as the same deadline, it went to the first shapes: a 3-minute tune
// of ten depthwise-convolution shapes searched the first five exhaustively
// and timed only the baseline of the other five. Each shape's search now
// gets an equal share of what is left.
//
// Only the search can be sized. Before it a shape makes its inputs, the CPU
// reference and the further validation inputs (seconds, for a prefill
// product); after it the finalists are re-timed, the winner checked once
// more and stored. Unbudgeted, those were the last shape's loss: 60 s over
// three prefill shapes of matmul_q4_0_f16 on an H100 searched them 18.7,
// 8.4 and 1.3 s (the last, 512x4096x14336, its baseline only). So the
// setups and tails still to come are estimated from those measured and kept
// out of the shares.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>

namespace vktune {

// The deadline of a search that starts at `search_start`, `shapes_left` of
// them (it included) still to run before `run_deadline`, with `overheads`
// (the setups and tails of the shapes still to come, and this one's tail)
// expected besides: an equal share of the time left less those, never
// before `search_start`. What a shape leaves unused (its space exhausted,
// its target reached) goes to the later ones.
inline std::chrono::steady_clock::time_point search_deadline(std::chrono::steady_clock::time_point search_start,
                                                             std::chrono::steady_clock::time_point run_deadline,
                                                             std::size_t shapes_left,
                                                             std::chrono::steady_clock::duration overheads = {}) {
  if (search_start >= run_deadline) return run_deadline;
  const auto share = (run_deadline - search_start - overheads) / static_cast<long>(std::max<std::size_t>(shapes_left, 1));
  return search_start + std::max(share, std::chrono::steady_clock::duration::zero());
}

// The shares of one run: told when each shape starts, when its search starts
// and how long the search ran, it estimates a shape's setup as the mean of
// those seen so far (the current shape's included: known when its search
// starts) and its tail as the mean of the finished shapes' (zero before the
// first has finished).
class BudgetShares {
 public:
  using Clock = std::chrono::steady_clock;
  BudgetShares(Clock::time_point run_deadline, std::size_t shapes) : run_deadline_(run_deadline), shapes_(shapes) {}

  void shape_started(Clock::time_point now) {
    shape_start_ = now;
    search_start_.reset();
  }
  Clock::time_point search_deadline_at(Clock::time_point search_start) {
    search_start_ = search_start;
    const auto setup_estimate = (setups_ + (search_start - shape_start_)) / static_cast<long>(searched_ + 1);
    const auto tail_estimate = searched_ ? tails_ / static_cast<long>(searched_) : Clock::duration::zero();
    const std::size_t left = shapes_ > ended_ ? shapes_ - ended_ : 1;
    return search_deadline(search_start, run_deadline_, left,
                           static_cast<long>(left - 1) * setup_estimate + static_cast<long>(left) * tail_estimate);
  }
  // A shape that never searched (interrupted) adds no estimate.
  void shape_ended(Clock::time_point now, double search_seconds) {
    ++ended_;
    if (!search_start_) return;
    const auto search_end =
        *search_start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(search_seconds));
    setups_ += *search_start_ - shape_start_;
    tails_ += std::max(now - search_end, Clock::duration::zero());
    ++searched_;
  }

 private:
  Clock::time_point run_deadline_;
  std::size_t shapes_ = 0, ended_ = 0, searched_ = 0;
  Clock::time_point shape_start_{};
  std::optional<Clock::time_point> search_start_;
  Clock::duration setups_{}, tails_{};
};

}  // namespace vktune
