#pragma once
// An opened Vulkan device: one compute queue, a command pool, and every
// optional feature later kernels use, enabled when the device has it.
#include <volk.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "harness/clock_gauge.hpp"
#include "harness/device_info.hpp"
#include "harness/device_query.hpp"
#include "harness/instance.hpp"

namespace vktune::vk {

// Lists every physical device the loader reports, in loader order.
std::vector<DeviceInfo> list_devices(const Instance& instance);

class Device {
 public:
  // Opens device `index` of instance.physical_devices(); throws Error
  // (no_device) naming the valid range when the index is out of range.
  Device(Instance& instance, std::uint32_t index);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  Instance& instance() const { return *instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool command_pool() const { return pool_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }

  // After a timeout the GPU may still be running the abandoned work; nothing
  // that waits for it may run again, so the device is marked unusable and its
  // handles are deliberately leaked rather than destroyed under the GPU.
  void mark_unusable(const std::string& reason);
  bool usable() const { return unusable_reason_.empty(); }
  const std::string& unusable_reason() const { return unusable_reason_; }

  // When timed work last ended on the device (steady clock; the epoch when
  // none has run). GPUs lower their clocks after a few hundred milliseconds
  // idle, so the timer warms up longer after a gap (harness/timer.hpp).
  std::chrono::steady_clock::time_point last_timed_end() const { return last_timed_end_; }
  void note_timed_end() { last_timed_end_ = std::chrono::steady_clock::now(); }

  // What the timer reads the GPU's clock from (harness/clock_gauge.hpp);
  // null until one is set (a tune sets engine/clock_probe.hpp's).
  ClockGauge* clock_gauge() const { return clock_gauge_.get(); }
  void set_clock_gauge(std::unique_ptr<ClockGauge> gauge) { clock_gauge_ = std::move(gauge); }

  // Memory type index with all of `required` (and `preferred` if possible)
  // among `type_bits`; throws when none fits.
  std::uint32_t memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred = 0) const;

 private:
  Instance* instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  DeviceInfo info_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  std::string unusable_reason_;
  std::chrono::steady_clock::time_point last_timed_end_{};
  std::unique_ptr<ClockGauge> clock_gauge_;  // before the handles go
};

// Whether any device of this process was marked unusable. Its abandoned
// work may still run on a driver thread that vkDestroyInstance (and the
// driver's exit handlers) would wait for, possibly forever: once this is
// true, the instance is leaked and the command line flushes its output and
// ends the process with _Exit. Process-wide by nature, like the driver
// threads it describes.
bool any_device_abandoned();

}  // namespace vktune::vk
