#include "harness/buffer.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "common/error.hpp"
#include "harness/commands.hpp"
#include "harness/vk_check.hpp"

namespace vktune::vk {

namespace {
// Uniform too: a spec's uniform buffer (its shape's metadata) is made,
// guarded and uploaded like every other buffer, and only bound differently.
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
}

Buffer::Buffer(Device& device, VkDeviceSize size_bytes, MemoryKind kind) : device_(&device), size_(size_bytes) {
  if (size_bytes == 0) throw Error(ErrorKind::internal, "a zero-sized buffer was requested");
  const auto& info = device.info();
  if (info.max_memory_allocation_bytes && size_bytes > info.max_memory_allocation_bytes) {
    throw Error(ErrorKind::device_limit, "buffer of " + std::to_string(size_bytes) + " bytes exceeds " + info.name +
                                             "'s maxMemoryAllocationSize of " +
                                             std::to_string(info.max_memory_allocation_bytes));
  }
  VkBufferCreateInfo create{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  create.size = size_bytes;
  create.usage = kUsage;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(device.handle(), &create, nullptr, &buffer_), "vkCreateBuffer");

  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.handle(), buffer_, &requirements);
  std::uint32_t type = 0;
  try {
    type = kind == MemoryKind::device_local
               ? device.memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
               : device.memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  } catch (...) {
    vkDestroyBuffer(device.handle(), buffer_, nullptr);
    throw;
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = requirements.size;
  alloc.memoryTypeIndex = type;
  const VkResult result = vkAllocateMemory(device.handle(), &alloc, nullptr, &memory_);
  if (result != VK_SUCCESS) {
    vkDestroyBuffer(device.handle(), buffer_, nullptr);
    buffer_ = VK_NULL_HANDLE;
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) {
      throw Error(ErrorKind::device_limit, "out of memory allocating " + std::to_string(size_bytes) + " bytes on " +
                                               info.name);
    }
    check(result, "vkAllocateMemory");
  }
  check(vkBindBufferMemory(device.handle(), buffer_, memory_, 0), "vkBindBufferMemory");

  const VkMemoryPropertyFlags flags = device.memory_properties().memoryTypes[type].propertyFlags;
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* pointer = nullptr;
    check(vkMapMemory(device.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &pointer), "vkMapMemory");
    mapped_ = static_cast<std::uint8_t*>(pointer);
    coherent_ = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  }
}

Buffer::Buffer(Buffer&& other) noexcept
    : device_(other.device_),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      size_(other.size_),
      mapped_(std::exchange(other.mapped_, nullptr)),
      coherent_(other.coherent_) {}

Buffer::~Buffer() {
  if (!device_->usable()) return;
  if (buffer_) vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  if (memory_) vkFreeMemory(device_->handle(), memory_, nullptr);
}

void Buffer::upload(std::span<const std::uint8_t> bytes, VkDeviceSize offset) {
  if (offset + bytes.size() > size_) {
    throw Error(ErrorKind::internal, "upload of " + std::to_string(bytes.size()) + " bytes at offset " +
                                         std::to_string(offset) + " overruns a buffer of " + std::to_string(size_));
  }
  if (bytes.empty()) return;
  if (mapped_) {
    std::memcpy(mapped_ + offset, bytes.data(), bytes.size());
    if (!coherent_) {
      VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
      range.memory = memory_;
      range.size = VK_WHOLE_SIZE;
      check(vkFlushMappedMemoryRanges(device_->handle(), 1, &range), "vkFlushMappedMemoryRanges");
    }
    return;
  }
  // Staged in chunks so a multi-GB upload does not need a multi-GB staging buffer.
  const VkDeviceSize chunk = std::min<VkDeviceSize>(bytes.size(), VkDeviceSize{256} << 20);
  Buffer staging(*device_, chunk, MemoryKind::host_visible);
  for (VkDeviceSize done = 0; done < bytes.size(); done += chunk) {
    const VkDeviceSize n = std::min<VkDeviceSize>(chunk, bytes.size() - done);
    staging.upload(bytes.subspan(done, n));
    run_commands(*device_, [&](VkCommandBuffer cmd) {
      VkBufferCopy copy{0, offset + done, n};
      vkCmdCopyBuffer(cmd, staging.handle(), buffer_, 1, &copy);
    });
  }
}

std::vector<std::uint8_t> Buffer::download(VkDeviceSize offset, VkDeviceSize size) const {
  if (offset + size > size_) {
    throw Error(ErrorKind::internal, "download of " + std::to_string(size) + " bytes at offset " +
                                         std::to_string(offset) + " overruns a buffer of " + std::to_string(size_));
  }
  std::vector<std::uint8_t> bytes(size);
  if (size == 0) return bytes;
  if (mapped_) {
    if (!coherent_) {
      VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
      range.memory = memory_;
      range.size = VK_WHOLE_SIZE;
      check(vkInvalidateMappedMemoryRanges(device_->handle(), 1, &range), "vkInvalidateMappedMemoryRanges");
    }
    std::memcpy(bytes.data(), mapped_ + offset, size);
    return bytes;
  }
  const VkDeviceSize chunk = std::min<VkDeviceSize>(size, VkDeviceSize{256} << 20);
  Buffer staging(*device_, chunk, MemoryKind::host_visible);
  for (VkDeviceSize done = 0; done < size; done += chunk) {
    const VkDeviceSize n = std::min<VkDeviceSize>(chunk, size - done);
    run_commands(*device_, [&](VkCommandBuffer cmd) {
      VkBufferCopy copy{offset + done, 0, n};
      vkCmdCopyBuffer(cmd, buffer_, staging.handle(), 1, &copy);
    });
    auto part = staging.download(0, n);
    std::memcpy(bytes.data() + done, part.data(), n);
  }
  return bytes;
}

void Buffer::fill(std::uint32_t pattern, VkDeviceSize offset, VkDeviceSize size) {
  run_commands(*device_, [&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, buffer_, offset, size, pattern); });
}

}  // namespace vktune::vk
