#pragma once
// Splits [0, count) into one contiguous range per hardware thread and runs
// fn(begin, end) on each in parallel: the full CPU reference of a large
// matrix product (the final check of a winner) takes seconds instead of
// minutes. fn must only write state owned by its range.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace vktune::ref {

template <class Fn>
void parallel_rows(std::size_t count, Fn&& fn) {
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
  const std::size_t chunk = (count + threads - 1) / std::max<std::size_t>(threads, 1);
  if (threads == 1 || count < 2) {
    fn(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  for (std::size_t t = 0; t < threads && t * chunk < count; ++t) {
    pool.emplace_back([&, t] {
      try {
        fn(t * chunk, std::min(count, (t + 1) * chunk));
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& thread : pool) thread.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace vktune::ref
