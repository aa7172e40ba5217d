#pragma once
// Keeps a GPU busy between measurements with the last timed variant's work.
// Idle for a few hundred milliseconds (while the strategy fits its model or
// the driver compiles the next pipeline), an H200 clocks down and the next
// variant would need a full re-warm-up. Not armed on a CPU device unless
// TuneOptions::keep_device_busy asks.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>

#include "engine/device_problem.hpp"
#include "engine/evaluator.hpp"
#include "harness/device.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

class GpuHeater {
 public:
  GpuHeater() = default;
  ~GpuHeater() { stop(); }
  GpuHeater(const GpuHeater&) = delete;
  GpuHeater& operator=(const GpuHeater&) = delete;

  // The variant just timed on `device` (median `median_ns` per dispatch)
  // becomes the work: about 10 ms of it per keep_busy().
  void arm(std::unique_ptr<VariantRunner> runner, const vk::Device& device, double median_ns);
  // About 10 ms of the armed work on `current`; false when there is none to
  // run (nothing armed, the device was reopened since, or it failed: the
  // next measurement reports what is wrong).
  bool keep_busy(const vk::Device& current, DeviceProblem& on_device, const kernels::Shape& shape);
  // Calls keep_busy() on a thread of its own until stop().
  void start(const vk::Device& current, DeviceProblem& on_device, const kernels::Shape& shape);
  void stop();
  // How many times keep_busy() has run the armed work.
  std::size_t runs() const { return runs_; }

 private:
  std::unique_ptr<VariantRunner> runner_;
  const vk::Device* device_ = nullptr;
  std::uint32_t dispatches_ = 1;
  std::atomic<bool> heating_{false};
  std::atomic<std::size_t> runs_{0};
  std::future<void> done_;
};

}  // namespace vktune
