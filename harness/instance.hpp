#pragma once
// The Vulkan instance: API 1.2 at least, 1.3 where the loader offers it,
// optional validation layers, and debug messages collected so that tests can
// fail on them.
#include <volk.h>

#include <mutex>
#include <string>
#include <vector>

namespace vktune::vk {

struct InstanceOptions {
  // Enable VK_LAYER_KHRONOS_validation if it is installed (silently skipped
  // when it is not; has_validation() tells which).
  bool validation = false;
};

class Instance {
 public:
  explicit Instance(const InstanceOptions& options = {});
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  std::uint32_t api_version() const { return api_version_; }
  bool has_validation() const { return validation_enabled_; }
  std::vector<VkPhysicalDevice> physical_devices() const;

  // Validation errors and warnings reported since the last call; empty when
  // validation is off. Thread-safe (the layer may call back from any thread).
  std::vector<std::string> take_validation_messages();

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                         VkDebugUtilsMessageTypeFlagsEXT types,
                                                         const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                         void* user);
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::uint32_t api_version_ = 0;
  bool validation_enabled_ = false;
  std::mutex messages_mutex_;
  std::vector<std::string> messages_;
};

}  // namespace vktune::vk
