#pragma once
// A kernels::Problem uploaded to a device. Weight buffers may be copied
// several times so that timing can rotate through copies whose total is far
// larger than any GPU cache: each dispatch then reads its weights from DRAM,
// as it would in a model where every layer has its own weights.
#include <cstdint>
#include <vector>

#include "harness/buffer.hpp"
#include "harness/device.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

// How many weight copies make a cold-cache rotation: enough that the copies
// together exceed `target_bytes`, at most `max_copies`, and never more than
// fit in a quarter of the device's memory.
std::uint32_t cold_cache_copies(std::uint64_t weight_bytes, std::uint64_t device_bytes,
                                std::uint64_t target_bytes = std::uint64_t{512} << 20, std::uint32_t max_copies = 64);

class DeviceProblem {
 public:
  DeviceProblem(vk::Device& device, const kernels::Problem& problem, std::uint32_t weight_copies);

  std::uint32_t copies() const { return copies_; }
  // The buffers in binding order, using weight copy `copy`.
  std::vector<const vk::Buffer*> bindings(std::uint32_t copy) const;
  vk::Buffer& output() { return buffers_[output_index_].front(); }
  std::uint64_t weight_bytes() const { return weight_bytes_; }

 private:
  std::vector<std::vector<vk::Buffer>> buffers_;  // [binding][copy]
  std::size_t output_index_ = 0;
  std::uint32_t copies_ = 1;
  std::uint64_t weight_bytes_ = 0;
};

}  // namespace vktune
