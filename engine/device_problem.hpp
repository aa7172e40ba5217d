#pragma once
// A kernels::Problem uploaded to a device. Weight buffers may be copied
// several times so that timing can rotate through copies whose total is far
// larger than any GPU cache: each dispatch then reads its weights from DRAM,
// as it would in a model where every layer has its own weights.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/buffer.hpp"
#include "harness/device.hpp"
#include "harness/image.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

// Throws Error(usage) naming the shape and the device when the shape's
// buffers (kernel.device_bytes) need more than half the device's memory, or
// more than four times its largest storage buffer: checked before any host
// allocation or CPU reference, which for such a shape cost gigabytes and
// minutes before the device refused it.
void require_device_fits(const kernels::Kernel& kernel, const kernels::Shape& shape, const vk::DeviceInfo& info);

// How many weight copies make a cold-cache rotation: enough that the copies
// together exceed `target_bytes`, at most `max_copies`, and never more than
// fit in a quarter of the device's memory.
std::uint32_t cold_cache_copies(std::uint64_t weight_bytes, std::uint64_t device_bytes,
                                std::uint64_t target_bytes = std::uint64_t{512} << 20, std::uint32_t max_copies = 64);

// Every buffer sits between two guard bands filled with a canary: kGuardBefore
// bytes before the range bound to the descriptor (the descriptor's offset) and
// kGuardAfter bytes after the data, inside the bound range, so that a store a
// little past the end lands in the band instead of being dropped (lavapipe
// drops out-of-bounds stores silently) and is found after each validation. The
// canary is a NaN as fp32 and as both fp16 halves, so that a read past the end
// reaches the output as NaN and fails the comparison.
//
// The copy validation runs on (copy 0) gets a wider band after its data,
// validation_band(): the data's own size, at least kValidationBandMin and at
// most kValidationBandMax, so that an index off by a row, a tile or a whole
// extent is caught up to that far past the end (4.4 KB past a 4-KiB band was
// dropped by lavapipe and passed). The timing copies of the weights keep
// kGuardAfter: timing never checks them, and a wide band on each of up to 64
// cold-cache copies would cost memory for nothing. A store further than the
// band still lands outside the bound range: lavapipe drops it, a GPU may not.
inline constexpr VkDeviceSize kGuardBefore = 256;  // the largest minStorageBufferOffsetAlignment allowed
inline constexpr VkDeviceSize kGuardAfter = 4096;
inline constexpr VkDeviceSize kValidationBandMin = VkDeviceSize{1} << 20;
inline constexpr VkDeviceSize kValidationBandMax = VkDeviceSize{4} << 20;
inline constexpr std::uint32_t kCanary = 0x7fbf7fbfu;

// The band after copy 0 of a buffer of `data_bytes`, kept within what one
// descriptor may bind (`max_range`, the device's maxStorageBufferRange).
VkDeviceSize validation_band(std::uint64_t data_bytes, std::uint64_t max_range);

class DeviceProblem {
 public:
  DeviceProblem(vk::Device& device, const kernels::Problem& problem, std::uint32_t weight_copies);

  std::uint32_t copies() const { return copies_; }
  // The buffers in binding order, using weight copy `copy`; bind each from
  // binding_offset(). An alias binding (HostBuffer::alias_of) gets its
  // target's buffer.
  std::vector<const vk::Buffer*> bindings(std::uint32_t copy) const;
  static constexpr VkDeviceSize binding_offset() { return kGuardBefore; }
  // Per binding, the bytes of its data from binding_offset() (the bound range
  // goes on into the band after it).
  std::vector<std::uint64_t> data_lengths() const;
  // Per binding, its image (HostBuffer::image) or nullptr: an image binding's
  // buffer is its texels' staging copy, guarded and poisoned as any other,
  // copied into the image whenever it is written and back out to be read.
  std::vector<const vk::Image*> images() const;
  std::uint64_t weight_bytes() const { return weight_bytes_; }

  // Fills every output's data with `pattern` (their guard bands keep the canary).
  void poison_output(std::uint32_t pattern);  // an fp16 output takes kHalfPoison instead
  static constexpr std::uint32_t kHalfPoison = 0x7e007e00u;
  // The first `count` floats of the outputs, each after the previous (Problem::more_outputs).
  std::vector<float> download_output(std::size_t count) const;
  // Empty when every guard band still holds the canary; else names the
  // buffer and where the band was touched, after restoring every buffer's
  // inputs and bands (a store past one band may have hit another buffer).
  std::optional<std::string> check_guards();

 private:
  void upload_all();
  std::vector<std::size_t> output_indices() const;  // output_index, then more_outputs
  // The binding whose buffers `binding` binds: itself, or its alias target.
  std::size_t owner(std::size_t binding) const;

  VkDeviceSize band_after(std::size_t binding, std::size_t copy) const {
    return copy == 0 ? validation_bands_[binding] : kGuardAfter;
  }

  const kernels::Problem& problem_;
  std::vector<std::vector<vk::Buffer>> buffers_;  // [binding][copy]
  std::vector<std::optional<vk::Image>> images_;  // [binding]
  std::vector<VkDeviceSize> validation_bands_;    // [binding]: copy 0's band after the data
  std::size_t output_index_ = 0;
  std::uint32_t copies_ = 1;
  std::uint64_t weight_bytes_ = 0;
};

}  // namespace vktune
