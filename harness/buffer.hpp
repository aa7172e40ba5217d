#pragma once
// Storage buffers. Device-local buffers are what kernels read and write;
// data moves in and out through host-visible staging buffers. On devices
// whose device-local memory is also host-visible (lavapipe, some iGPUs) the
// copies go straight through the mapping.
#include <volk.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "harness/device.hpp"

namespace vktune::vk {

enum class MemoryKind { device_local, host_visible };

class Buffer {
 public:
  Buffer(Device& device, VkDeviceSize size_bytes, MemoryKind kind = MemoryKind::device_local);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&&) = delete;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  // Non-null when the memory is host-visible and mapped.
  std::uint8_t* mapped() const { return mapped_; }

  // Copies host bytes to [offset, offset + bytes.size()).
  void upload(std::span<const std::uint8_t> bytes, VkDeviceSize offset = 0);
  template <class T>
  void upload_values(std::span<const T> values) {
    upload({reinterpret_cast<const std::uint8_t*>(values.data()), values.size_bytes()});
  }
  std::vector<std::uint8_t> download() const { return download(0, size_); }
  // The bytes [offset, offset + size).
  std::vector<std::uint8_t> download(VkDeviceSize offset, VkDeviceSize size) const;
  template <class T>
  std::vector<T> download_values() const {
    auto bytes = download();
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }
  // Fills the whole buffer with a repeated 32-bit pattern (vkCmdFillBuffer);
  // used to poison outputs, e.g. with a NaN bit pattern.
  void fill(std::uint32_t pattern) { fill(pattern, 0, VK_WHOLE_SIZE); }
  // The same over [offset, offset + size) (size a multiple of 4, or VK_WHOLE_SIZE).
  void fill(std::uint32_t pattern, VkDeviceSize offset, VkDeviceSize size);

 private:
  Device* device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  std::uint8_t* mapped_ = nullptr;
  bool coherent_ = true;
};

}  // namespace vktune::vk
