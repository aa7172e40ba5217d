#pragma once
// Recording and submitting work. Every wait has a timeout: a kernel that
// never finishes becomes an Error(timeout), not a hung program.
#include <volk.h>

#include <chrono>
#include <functional>

#include "harness/device.hpp"

namespace vktune::vk {

inline constexpr std::chrono::milliseconds kDefaultTimeout{20000};
// A CPU driver (llvmpipe) compiles a pipeline's machine code at its first
// dispatch; on a loaded 2-core machine with a cold shader cache that took
// over 20 s for the largest unrolled variants, so waits on a CPU device get
// this limit instead (a GPU hang is not what they would catch there).
inline constexpr std::chrono::milliseconds kCpuDriverTimeout{180000};

// A primary command buffer from the device's pool, freed on destruction.
class CommandBuffer {
 public:
  explicit CommandBuffer(Device& device);
  ~CommandBuffer();
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;

  VkCommandBuffer handle() const { return buffer_; }
  void begin();  // one-time-submit
  void end();

  // Submits and waits up to `timeout`. On timeout the device is marked
  // unusable (see Device::mark_unusable) and Error(timeout) is thrown; a lost
  // device gives Error(device_lost).
  void submit_and_wait(std::chrono::nanoseconds timeout = kDefaultTimeout);

 private:
  Device* device_;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
  bool abandoned_ = false;  // still owned by the GPU after a timeout
};

// Records `record` into a fresh command buffer, submits it and waits.
void run_commands(Device& device, const std::function<void(VkCommandBuffer)>& record,
                  std::chrono::nanoseconds timeout = kDefaultTimeout);

// Makes compute-shader writes visible to the next compute dispatch.
void compute_barrier(VkCommandBuffer cmd);

}  // namespace vktune::vk
