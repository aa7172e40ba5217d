#include "harness/instance.hpp"

#include <cstring>
#include <utility>

#include "common/error.hpp"
#include "common/version.hpp"
#include "harness/device.hpp"
#include "harness/loader.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool layer_available(const char* name) {
  std::uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& layer : layers)
    if (std::strcmp(layer.layerName, name) == 0) return true;
  return false;
}

bool instance_extension_available(const char* name) {
  std::uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data());
  for (const auto& e : extensions)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

}  // namespace

Instance::Instance(const InstanceOptions& options) {
  ensure_loader();

  std::uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2) {
    throw Error(ErrorKind::no_loader, "the Vulkan loader supports only API " +
                                          std::to_string(VK_API_VERSION_MAJOR(loader_version)) + "." +
                                          std::to_string(VK_API_VERSION_MINOR(loader_version)) +
                                          "; vktune needs Vulkan 1.2 or newer");
  }
  api_version_ = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  validation_enabled_ = options.validation && layer_available(kValidationLayer) &&
                        instance_extension_available(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (validation_enabled_) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  // Lets the loader list portability drivers (MoltenVK) too.
  const bool portability = instance_extension_available(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
  if (portability) extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vktune";
  app.applicationVersion = VK_MAKE_API_VERSION(0, VKTUNE_VERSION_MAJOR, VKTUNE_VERSION_MINOR, VKTUNE_VERSION_PATCH);
  app.pEngineName = "vktune";
  app.apiVersion = api_version_;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &Instance::on_debug_message;
  messenger_info.pUserData = this;

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (portability) info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  if (validation_enabled_) info.pNext = &messenger_info;  // also covers create/destroy

  // With no driver (ICD) installed, or VK_DRIVER_FILES naming none, the
  // loader has nothing to create an instance on: that is an installation
  // problem like a missing loader (exit 3), not a Vulkan failure.
  const VkResult created = vkCreateInstance(&info, nullptr, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw Error(ErrorKind::no_loader,
                "no Vulkan driver found (the loader reports VK_ERROR_INCOMPATIBLE_DRIVER): install one, e.g. Debian's "
                "mesa-vulkan-drivers for a CPU device (lavapipe) or your GPU vendor's driver; if VK_DRIVER_FILES or "
                "VK_ICD_FILENAMES is set, it must name an installed driver's JSON manifest");
  }
  check(created, "vkCreateInstance");
  // Device functions go through the loader's trampolines, so several devices
  // can be open at once (volkLoadDevice would bind one device globally).
  volkLoadInstance(instance_);
  if (validation_enabled_) {
    check(vkCreateDebugUtilsMessengerEXT(instance_, &messenger_info, nullptr, &messenger_),
          "vkCreateDebugUtilsMessengerEXT");
  }
}

Instance::~Instance() {
  // A device abandoned after a timeout may still run work on a driver thread
  // that vkDestroyInstance would wait for: leaking beats hanging.
  if (any_device_abandoned()) return;
  if (messenger_) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

std::vector<VkPhysicalDevice> Instance::physical_devices() const {
  std::uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(instance_, &count, devices.data()), "vkEnumeratePhysicalDevices");
  devices.resize(count);
  return devices;
}

std::vector<std::string> Instance::take_validation_messages() {
  std::lock_guard lock(messages_mutex_);
  return std::exchange(messages_, {});
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                          VkDebugUtilsMessageTypeFlagsEXT,
                                                          const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                          void* user) {
  auto* self = static_cast<Instance*>(user);
  const char* level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
  std::lock_guard lock(self->messages_mutex_);
  self->messages_.push_back(std::string("validation ") + level + ": " + (data && data->pMessage ? data->pMessage : ""));
  return VK_FALSE;
}

}  // namespace vktune::vk
