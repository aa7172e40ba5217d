/* What an application has before it adopts vktune, for the two examples
 * (C99, header only, over volk): an instance, a device with the features a
 * variant needs, host-visible buffers, a queue and a one-shot submission.
 * None of it is vktune's; the examples' own files show what is. Every
 * function returns 0 on success, or -1 with app->error set. */
#ifndef VKTUNE_EXAMPLE_APP_VULKAN_H
#define VKTUNE_EXAMPLE_APP_VULKAN_H

#include <stdio.h>
#include <string.h>
#include <volk.h>

#include "vktune_runtime_vulkan.h"

typedef struct app_vulkan {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkPhysicalDeviceProperties properties;
  VkDevice device;
  uint32_t family;
  VkQueue queue;
  VkCommandPool pool;
  char error[256];
} app_vulkan;

typedef struct app_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void* mapped;
  VkDeviceSize size;
} app_buffer;

static inline int app_fail(app_vulkan* app, const char* what, VkResult result) {
  snprintf(app->error, sizeof app->error, "%s failed (VkResult %d)", what, (int)result);
  return -1;
}

/* A Vulkan 1.3 instance and physical device `index`. */
static inline int app_open_instance(app_vulkan* app, uint32_t index) {
  VkApplicationInfo info;
  VkInstanceCreateInfo instance_info;
  VkPhysicalDevice physicals[16];
  uint32_t count = 16, version = VK_API_VERSION_1_0;
  VkResult r;
  memset(app, 0, sizeof *app);
  if (volkInitialize() != VK_SUCCESS) {
    snprintf(app->error, sizeof app->error, "no Vulkan loader found (install a Vulkan driver and loader)");
    return -1;
  }
  if (vkEnumerateInstanceVersion != NULL) vkEnumerateInstanceVersion(&version);
  if (version < VK_API_VERSION_1_3) {
    snprintf(app->error, sizeof app->error, "the Vulkan loader is older than 1.3");
    return -1;
  }
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  info.pApplicationName = "vktune example";
  info.apiVersion = VK_API_VERSION_1_3;
  memset(&instance_info, 0, sizeof instance_info);
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &info;
  r = vkCreateInstance(&instance_info, NULL, &app->instance);
  if (r != VK_SUCCESS) return app_fail(app, "vkCreateInstance", r);
  volkLoadInstanceOnly(app->instance);
  r = vkEnumeratePhysicalDevices(app->instance, &count, physicals);
  if (r < 0) return app_fail(app, "vkEnumeratePhysicalDevices", r);
  if (index >= count) {
    snprintf(app->error, sizeof app->error, "no Vulkan device %u (%u found)", index, count);
    return -1;
  }
  app->physical = physicals[index];
  vkGetPhysicalDeviceProperties(app->physical, &app->properties);
  return 0;
}

/* The device with one compute queue and what `enable` holds. */
static inline int app_open_device(app_vulkan* app, const vktune_vulkan_features* enable) {
  VkQueueFamilyProperties families[32];
  uint32_t family_count = 32;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info;
  VkDeviceCreateInfo device_info;
  VkCommandPoolCreateInfo pool_info;
  VkResult r;
  vkGetPhysicalDeviceQueueFamilyProperties(app->physical, &family_count, families);
  for (app->family = 0; app->family < family_count; ++app->family) {
    if (families[app->family].queueFlags & VK_QUEUE_COMPUTE_BIT) break;
  }
  if (app->family == family_count) {
    snprintf(app->error, sizeof app->error, "the device has no compute queue");
    return -1;
  }
  memset(&queue_info, 0, sizeof queue_info);
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = app->family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  memset(&device_info, 0, sizeof device_info);
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &enable->features2;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = enable->extension_count;
  device_info.ppEnabledExtensionNames = enable->extensions;
  r = vkCreateDevice(app->physical, &device_info, NULL, &app->device);
  if (r != VK_SUCCESS) return app_fail(app, "vkCreateDevice", r);
  volkLoadDevice(app->device);
  vkGetDeviceQueue(app->device, app->family, 0, &app->queue);
  memset(&pool_info, 0, sizeof pool_info);
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = app->family;
  r = vkCreateCommandPool(app->device, &pool_info, NULL, &app->pool);
  return r == VK_SUCCESS ? 0 : app_fail(app, "vkCreateCommandPool", r);
}

/* A host-visible, host-coherent storage buffer of `size` bytes, mapped. */
static inline int app_buffer_create(app_vulkan* app, VkDeviceSize size, app_buffer* b) {
  VkBufferCreateInfo info;
  VkMemoryRequirements needs;
  VkPhysicalDeviceMemoryProperties memory;
  VkMemoryAllocateInfo alloc;
  const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkResult r;
  memset(b, 0, sizeof *b);
  b->size = size;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  /* Uniform too: a contract's uniform block (VKTUNE_BINDING_UNIFORM) is bound as one. */
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  r = vkCreateBuffer(app->device, &info, NULL, &b->buffer);
  if (r != VK_SUCCESS) return app_fail(app, "vkCreateBuffer", r);
  vkGetBufferMemoryRequirements(app->device, b->buffer, &needs);
  vkGetPhysicalDeviceMemoryProperties(app->physical, &memory);
  memset(&alloc, 0, sizeof alloc);
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = needs.size;
  for (alloc.memoryTypeIndex = 0; alloc.memoryTypeIndex < memory.memoryTypeCount; ++alloc.memoryTypeIndex) {
    const uint32_t t = alloc.memoryTypeIndex;
    if ((needs.memoryTypeBits & (1u << t)) && (memory.memoryTypes[t].propertyFlags & wanted) == wanted) break;
  }
  if (alloc.memoryTypeIndex == memory.memoryTypeCount) {
    snprintf(app->error, sizeof app->error, "no host-visible, host-coherent memory for the buffers");
    return -1;
  }
  r = vkAllocateMemory(app->device, &alloc, NULL, &b->memory);
  if (r != VK_SUCCESS) return app_fail(app, "vkAllocateMemory", r);
  r = vkBindBufferMemory(app->device, b->buffer, b->memory, 0);
  if (r != VK_SUCCESS) return app_fail(app, "vkBindBufferMemory", r);
  r = vkMapMemory(app->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
  return r == VK_SUCCESS ? 0 : app_fail(app, "vkMapMemory", r);
}

static inline void app_buffer_destroy(app_vulkan* app, app_buffer* b) {
  if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(app->device, b->buffer, NULL);
  if (b->memory != VK_NULL_HANDLE) vkFreeMemory(app->device, b->memory, NULL); /* unmaps */
  memset(b, 0, sizeof *b);
}

/* A one-time command buffer to record into. */
static inline int app_begin(app_vulkan* app, VkCommandBuffer* commands) {
  VkCommandBufferAllocateInfo info;
  VkCommandBufferBeginInfo begin;
  VkResult r;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  info.commandPool = app->pool;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  r = vkAllocateCommandBuffers(app->device, &info, commands); /* freed with the pool */
  if (r != VK_SUCCESS) return app_fail(app, "vkAllocateCommandBuffers", r);
  memset(&begin, 0, sizeof begin);
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  r = vkBeginCommandBuffer(*commands, &begin);
  return r == VK_SUCCESS ? 0 : app_fail(app, "vkBeginCommandBuffer", r);
}

/* Makes the shaders' writes visible to the host, submits, waits (60 s). */
static inline int app_submit_and_wait(app_vulkan* app, VkCommandBuffer commands) {
  VkMemoryBarrier to_host;
  VkFenceCreateInfo fence_info;
  VkSubmitInfo submit;
  VkFence fence = VK_NULL_HANDLE;
  VkResult r;
  memset(&to_host, 0, sizeof to_host);
  to_host.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                       NULL, 0, NULL);
  r = vkEndCommandBuffer(commands);
  if (r != VK_SUCCESS) return app_fail(app, "vkEndCommandBuffer", r);
  memset(&fence_info, 0, sizeof fence_info);
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  r = vkCreateFence(app->device, &fence_info, NULL, &fence);
  if (r != VK_SUCCESS) return app_fail(app, "vkCreateFence", r);
  memset(&submit, 0, sizeof submit);
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  r = vkQueueSubmit(app->queue, 1, &submit, fence);
  if (r == VK_SUCCESS) r = vkWaitForFences(app->device, 1, &fence, VK_TRUE, 60000000000ull);
  vkDestroyFence(app->device, fence, NULL);
  return r == VK_SUCCESS ? 0 : app_fail(app, "vkQueueSubmit / vkWaitForFences", r);
}

/* Everything above, in reverse; safe on a partly opened app. */
static inline void app_close(app_vulkan* app) {
  if (app->device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(app->device);
    if (app->pool != VK_NULL_HANDLE) vkDestroyCommandPool(app->device, app->pool, NULL);
    vkDestroyDevice(app->device, NULL);
  }
  if (app->instance != VK_NULL_HANDLE) vkDestroyInstance(app->instance, NULL);
  memset(app, 0, sizeof *app);
}

#endif /* VKTUNE_EXAMPLE_APP_VULKAN_H */
