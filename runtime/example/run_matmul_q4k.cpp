// vktune_runtime_example: load a tuned table, look up matmul_q4k for this
// device and shape, run the variant through vktune_runtime_vulkan.hpp's
// VulkanLaunch (pipelines, layouts, descriptor set, dispatches) on buffers
// sized by its contract, with random Q4_K weights, and check the result
// against the CPU reference. Most of this file is what any Vulkan program
// has anyway (instance, device with the features the variant needs, host
// buffers, a submission); running the tuned variant is the dozen lines
// around `launch`.
//
//   vktune_runtime_example TABLE [--device N] [--shape M,N,K] [--seed S]
//
// Exit status: 0 when the result matches (relative L2 below 1e-4, or, for a
// variant whose tuned accuracy was coarser, e.g. one with 8-bit activations,
// below 4 times the relative L2 error the table records for it), 1 on a
// mismatch, 2 on bad arguments, 3 on any other error (no loader, no device,
// no usable table entry, a Vulkan failure).
#include <volk.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/gguf_types.hpp"
#include "reference/matmul.hpp"
#include "reference/random_blocks.hpp"
#include "vktune_runtime.hpp"
#include "vktune_runtime_vulkan.hpp"

namespace {

namespace rt = vktune::runtime;

constexpr double kTolerance = 1e-4;
// A fresh random input may round a little worse than the one the variant was
// validated on; 4x the recorded error leaves room for that and still catches
// a wrong kernel (errors of 1e-1 and more).
constexpr double kRecordedErrorMargin = 4.0;

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(VkResult result, const char* what) {
  if (result != VK_SUCCESS) throw Failure(std::string(what) + " failed with VkResult " + std::to_string(result));
}

// One Vulkan handle and how to destroy it.
template <class T>
class Owned {
 public:
  Owned() = default;
  Owned(T handle, std::function<void(T)> destroy) : handle_(handle), destroy_(std::move(destroy)) {}
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, T{})), destroy_(std::move(other.destroy_)) {}
  Owned& operator=(Owned&& other) noexcept {
    reset();
    handle_ = std::exchange(other.handle_, T{});
    destroy_ = std::move(other.destroy_);
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  T get() const { return handle_; }

 private:
  void reset() {
    if (handle_ != T{} && destroy_) destroy_(handle_);
    handle_ = T{};
  }
  T handle_{};
  std::function<void(T)> destroy_;
};

struct Options {
  std::string table;
  std::uint32_t device = 0;
  std::vector<std::uint32_t> shape{1, 37, 1024};
  std::uint64_t seed = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--device") {
      o.device = static_cast<std::uint32_t>(std::stoul(value()));
    } else if (arg == "--seed") {
      o.seed = std::stoull(value());
    } else if (arg == "--shape") {
      const auto text = value();
      o.shape.clear();
      std::size_t start = 0;
      while (start <= text.size()) {
        const auto comma = text.find(',', start);
        o.shape.push_back(static_cast<std::uint32_t>(std::stoul(text.substr(start, comma - start))));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (o.shape.size() != 3 || o.shape[0] == 0 || o.shape[1] == 0 || o.shape[2] == 0 || o.shape[2] % 256 != 0) {
        throw std::invalid_argument("--shape takes M,N,K: positive, K a multiple of 256");
      }
    } else if (o.table.empty() && !arg.starts_with("-")) {
      o.table = arg;
    } else {
      throw std::invalid_argument("unknown argument " + arg);
    }
  }
  if (o.table.empty()) throw std::invalid_argument("no table given");
  return o;
}

std::uint32_t memory_type(VkPhysicalDevice physical, std::uint32_t allowed, VkMemoryPropertyFlags wanted) {
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
  }
  throw Failure("no host-visible, host-coherent memory type for the buffers");
}

struct HostBuffer {
  Owned<VkBuffer> buffer;
  Owned<VkDeviceMemory> memory;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};

HostBuffer make_buffer(VkPhysicalDevice physical, VkDevice device, VkDeviceSize size) {
  HostBuffer b;
  b.size = size;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  check(vkCreateBuffer(device, &info, nullptr, &buffer), "vkCreateBuffer");
  b.buffer = Owned<VkBuffer>(buffer, [device](VkBuffer h) { vkDestroyBuffer(device, h, nullptr); });
  VkMemoryRequirements needs{};
  vkGetBufferMemoryRequirements(device, buffer, &needs);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = memory_type(physical, needs.memoryTypeBits,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  check(vkAllocateMemory(device, &alloc, nullptr, &memory), "vkAllocateMemory");
  // Unmapped implicitly when freed.
  b.memory = Owned<VkDeviceMemory>(memory, [device](VkDeviceMemory h) { vkFreeMemory(device, h, nullptr); });
  check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
  check(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
  return b;
}

int run(const Options& options) {
  if (volkInitialize() != VK_SUCCESS) throw Failure("no Vulkan loader found (install a Vulkan driver and loader)");
  const auto table = rt::Table::open(options.table);
  std::printf("table %s: %zu entries on %zu devices\n", table.source().c_str(), table.entries().size(),
              table.devices().size());

  // Instance and device, Vulkan 1.3 where the loader has it (for required
  // subgroup sizes in core).
  std::uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vktune_runtime_example";
  app.apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_1;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  VkInstance raw_instance = VK_NULL_HANDLE;
  check(vkCreateInstance(&instance_info, nullptr, &raw_instance), "vkCreateInstance");
  volkLoadInstanceOnly(raw_instance);
  Owned<VkInstance> instance(raw_instance, [](VkInstance h) { vkDestroyInstance(h, nullptr); });

  std::uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance.get(), &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physicals(count);
  check(vkEnumeratePhysicalDevices(instance.get(), &count, physicals.data()), "vkEnumeratePhysicalDevices");
  if (options.device >= count) {
    throw Failure("no Vulkan device " + std::to_string(options.device) + " (" + std::to_string(count) + " found)");
  }
  const VkPhysicalDevice physical = physicals[options.device];
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(physical, &properties);
  const bool core13 = properties.apiVersion >= VK_API_VERSION_1_3 && app.apiVersion >= VK_API_VERSION_1_3;

  // The lookup. The example has no kernel of its own, so no baseline: a
  // table without a usable entry is an error.
  rt::Query query;
  query.device = rt::identity_of(physical);
  query.kernel = "matmul_q4k";
  query.shape = options.shape;
  const auto found = table.lookup(query);
  const auto& variant = found.contract.stages.at(0);
  std::printf("device %s; matmul_q4k %u,%u,%u\n", properties.deviceName, options.shape[0], options.shape[1],
              options.shape[2]);
  std::printf("rule: %s (%s)\n", rt::to_string(found.match), found.match_text.c_str());
  std::printf("variant: %zu SPIR-V words, local size %ux%ux%u, workgroups %ux%ux%u, subgroup size %u\n",
              variant.spirv.size(), variant.local_size[0], variant.local_size[1], variant.local_size[2],
              found.workgroups[0][0], found.workgroups[0][1], found.workgroups[0][2], variant.required_subgroup_size);

  // Device features: the variant's SPIR-V says what it needs
  // (rt::required_features), and a required subgroup size needs
  // subgroupSizeControl. This example enables them through the core feature
  // structures of Vulkan 1.1-1.3.
  auto needed = found.contract.features;
  for (const auto& stage : found.contract.stages) {
    if (stage.required_subgroup_size != 0) needed.emplace_back("subgroupSizeControl");
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  std::string needed_text;
  for (const auto& name : needed) needed_text += (needed_text.empty() ? "" : ", ") + name;
  VkPhysicalDeviceVulkan11Features have11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &have11};
  VkPhysicalDeviceVulkan13Features have13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &have12};
  VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have13};
  VkPhysicalDeviceVulkan11Features enable11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features enable12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &enable11};
  VkPhysicalDeviceVulkan13Features enable13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &enable12};
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &enable13};
  if (!needed.empty()) {
    if (!core13) throw Failure("the variant needs " + needed_text + "; this example enables features through Vulkan 1.3");
    vkGetPhysicalDeviceFeatures2(physical, &have);
  }
  for (const auto& name : needed) {
    const std::pair<VkBool32*, VkBool32*> slots[] = {
        {name == "shaderIntegerDotProduct" ? &have13.shaderIntegerDotProduct : nullptr, &enable13.shaderIntegerDotProduct},
        {name == "subgroupSizeControl" ? &have13.subgroupSizeControl : nullptr, &enable13.subgroupSizeControl},
        {name == "vulkanMemoryModel" ? &have12.vulkanMemoryModel : nullptr, &enable12.vulkanMemoryModel},
        {name == "shaderInt8" ? &have12.shaderInt8 : nullptr, &enable12.shaderInt8},
        {name == "shaderFloat16" ? &have12.shaderFloat16 : nullptr, &enable12.shaderFloat16},
        {name == "storageBuffer8BitAccess" ? &have12.storageBuffer8BitAccess : nullptr, &enable12.storageBuffer8BitAccess},
        {name == "storageBuffer16BitAccess" ? &have11.storageBuffer16BitAccess : nullptr,
         &enable11.storageBuffer16BitAccess},
        {name == "uniformAndStorageBuffer16BitAccess" ? &have11.uniformAndStorageBuffer16BitAccess : nullptr,
         &enable11.uniformAndStorageBuffer16BitAccess},
        {name == "shaderInt16" ? &have.features.shaderInt16 : nullptr, &enable.features.shaderInt16},
        {name == "shaderFloat64" ? &have.features.shaderFloat64 : nullptr, &enable.features.shaderFloat64},
    };
    const auto slot = std::find_if(std::begin(slots), std::end(slots), [](const auto& s) { return s.first != nullptr; });
    if (slot == std::end(slots)) throw Failure("the variant needs " + name + ", which this example does not enable");
    if (*slot->first != VK_TRUE) throw Failure("the device lacks " + name + ", which the variant needs");
    *slot->second = VK_TRUE;
  }
  std::printf("features: %s\n", needed.empty() ? "(none beyond Vulkan 1.0)" : needed_text.c_str());

  std::uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family_props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, family_props.data());
  std::uint32_t family = families;
  for (std::uint32_t i = 0; i < families && family == families; ++i) {
    if (family_props[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = i;
  }
  if (family == families) throw Failure("the device has no compute queue");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  if (!needed.empty()) device_info.pNext = &enable;
  VkDevice raw_device = VK_NULL_HANDLE;
  check(vkCreateDevice(physical, &device_info, nullptr, &raw_device), "vkCreateDevice");
  volkLoadDevice(raw_device);
  Owned<VkDevice> device_owner(raw_device, [](VkDevice h) { vkDestroyDevice(h, nullptr); });
  const VkDevice device = device_owner.get();
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device, family, 0, &queue);

  // Inputs and the reference.
  const std::size_t m = options.shape[0], n = options.shape[1], k = options.shape[2];
  const auto type = vktune::ref::GgmlType::Q4_K;
  const auto weights = vktune::ref::random_quantized_rows(type, n, k, options.seed);
  const auto x = vktune::ref::random_floats(m * k, options.seed ^ 0x9e3779b97f4a7c15ull);
  const auto expected = vktune::ref::matmul_quantized(x.data(), m, weights.data(), type, n, k);

  // The variant's pipelines, layouts and descriptor set (vktune_runtime_vulkan.hpp);
  // its buffers as its contract sizes them for this shape (x, W, y).
  rt::VulkanLaunch launch(device, found, options.shape);
  std::vector<HostBuffer> buffers;
  for (const auto bytes : launch.binding_bytes()) buffers.push_back(make_buffer(physical, device, bytes));
  // x, W, y, then any scratch (the prefill's fp16 copy of W, on the paths that use it).
  if (buffers.size() < 3 || buffers[1].size < weights.size()) throw Failure("the entry's bindings are not matmul_q4k's");
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    if (b >= 3) std::memset(buffers[b].mapped, 0, buffers[b].size);  // scratch: zeroed once
    launch.bind(b, buffers[b].buffer.get());
  }
  std::memcpy(buffers[0].mapped, x.data(), x.size() * sizeof(float));
  std::memcpy(buffers[1].mapped, weights.data(), weights.size());
  std::memset(buffers[2].mapped, 0xff, m * n * sizeof(float));  // NaN: an unwritten output fails the check

  // One submission: dispatch, then make the writes visible to the host.
  VkCommandPoolCreateInfo command_pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  command_pool_info.queueFamilyIndex = family;
  VkCommandPool raw_command_pool = VK_NULL_HANDLE;
  check(vkCreateCommandPool(device, &command_pool_info, nullptr, &raw_command_pool), "vkCreateCommandPool");
  Owned<VkCommandPool> command_pool(raw_command_pool,
                                    [device](VkCommandPool h) { vkDestroyCommandPool(device, h, nullptr); });
  VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  command_info.commandPool = raw_command_pool;
  command_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  command_info.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;  // freed with the pool
  check(vkAllocateCommandBuffers(device, &command_info, &commands), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  launch.record(commands);
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                       nullptr, 0, nullptr);
  check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");

  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence raw_fence = VK_NULL_HANDLE;
  check(vkCreateFence(device, &fence_info, nullptr, &raw_fence), "vkCreateFence");
  Owned<VkFence> fence(raw_fence, [device](VkFence h) { vkDestroyFence(device, h, nullptr); });
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  check(vkQueueSubmit(queue, 1, &submit, raw_fence), "vkQueueSubmit");
  check(vkWaitForFences(device, 1, &raw_fence, VK_TRUE, 60'000'000'000ull), "vkWaitForFences");

  // Relative L2 error against the double-precision reference.
  std::vector<float> y(m * n);
  std::memcpy(y.data(), buffers[2].mapped, y.size() * sizeof(float));
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double d = static_cast<double>(y[i]) - expected[i];
    diff += d * d;
    norm += expected[i] * expected[i];
  }
  const double rel_l2 = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  const double tolerance =
      std::max(kTolerance, found.entry ? kRecordedErrorMargin * found.entry->rel_l2_error : 0.0);
  const bool ok = std::isfinite(rel_l2) && rel_l2 < tolerance;
  std::printf("relative L2 error %.3e (tolerance %.1e): %s\n", rel_l2, tolerance, ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vktune_runtime_example: %s\nusage: vktune_runtime_example TABLE [--device N] "
                         "[--shape M,N,K] [--seed S]\n", e.what());
    return 2;
  }
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vktune_runtime_example: %s\n", e.what());
    return 3;
  }
}
