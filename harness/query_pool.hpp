#pragma once
// A pool of timestamp queries (harness/timer.cpp, harness/phase_timer.cpp).
#include <volk.h>

#include <cstdint>

#include "harness/device.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

class QueryPool {
 public:
  QueryPool(Device& device, std::uint32_t count) : device_(&device) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = count;
    check(vkCreateQueryPool(device_->handle(), &info, nullptr, &pool_), "vkCreateQueryPool");
  }
  // After a timeout the abandoned work may still write timestamps: leak.
  ~QueryPool() {
    if (device_->usable()) vkDestroyQueryPool(device_->handle(), pool_, nullptr);
  }
  QueryPool(const QueryPool&) = delete;
  QueryPool& operator=(const QueryPool&) = delete;
  VkQueryPool handle() const { return pool_; }

 private:
  Device* device_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
};

}  // namespace vktune::vk
