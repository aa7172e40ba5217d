#include "tuner/gpu_heater.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace vktune {

void GpuHeater::arm(std::unique_ptr<VariantRunner> runner, const vk::Device& device, double median_ns) {
  stop();
  dispatches_ = static_cast<std::uint32_t>(std::clamp(10e6 / std::max(median_ns, 1.0), 1.0, 4096.0));
  device_ = &device;
  runner_ = std::move(runner);
}

bool GpuHeater::keep_busy(const vk::Device& current, DeviceProblem& on_device, const kernels::Shape& shape) {
  if (!runner_ || device_ != &current) return false;
  try {
    runner_->keep_busy(on_device, shape, dispatches_);
    ++runs_;
  } catch (const Error&) {
    runner_.reset();
    return false;
  }
  return true;
}

void GpuHeater::start(const vk::Device& current, DeviceProblem& on_device, const kernels::Shape& shape) {
  if (!runner_ || device_ != &current) return;
  heating_ = true;
  done_ = std::async(std::launch::async, [this, &current, &on_device, &shape] {
    while (heating_ && keep_busy(current, on_device, shape)) {
    }
  });
}

void GpuHeater::stop() {
  heating_ = false;
  if (done_.valid()) done_.get();
}

}  // namespace vktune
