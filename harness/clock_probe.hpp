#pragma once
// The GPU's clock gauge: one workgroup running a chain of dependent
// multiply-adds, timed alone by two timestamps. Its time is the chain's
// length in clocks over the clock rate, so it reads the clock the GPU runs
// at now; what it runs is the caller's SPIR-V (engine/clock_probe.cpp builds it
// from the fp32 FMA ceiling's template).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "harness/buffer.hpp"
#include "harness/clock_gauge.hpp"
#include "harness/device.hpp"
#include "harness/pipeline.hpp"

namespace vktune::vk {

class QueryPool;

class ClockProbe final : public ClockGauge {
 public:
  // `spirv`: a shader of `local_size` invocations with a storage buffer at
  // binding 0 and a float push constant (the ceiling kernels' interface).
  ClockProbe(Device& device, std::span<const std::uint32_t> spirv, std::uint32_t local_size);
  ~ClockProbe() override;
  double sample_ns() override;

 private:
  Device& device_;
  Buffer sink_;
  ComputePipeline pipeline_;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  std::unique_ptr<QueryPool> queries_;  // harness/query_pool.hpp builds with harness's flags only
};

}  // namespace vktune::vk
