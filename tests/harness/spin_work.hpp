#pragma once
// Deliberately slow GPU work for timeout tests: a dispatch whose length is
// calibrated on the device at hand, so "slow" means about the same wall time
// on lavapipe and on a fast GPU.
#include <algorithm>
#include <chrono>
#include <memory>

#include "tests/harness/vulkan_test.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace vktune::test {

// Runs `body`, a submission expected to time out. The harness then leaks the
// fence and command buffer on purpose (their handles are dropped), which
// LeakSanitizer would report: what is allocated inside is not leak-checked.
template <class Body>
void expecting_abandoned_work(Body&& body) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_disable();
  try {
    body();
  } catch (...) {
    __lsan_enable();
    throw;
  }
  __lsan_enable();
#else
  body();
#endif
}

// Each invocation runs `iterations` steps of an LCG and stores the result, so
// the loop cannot be removed; the push constant bounds it, so it ends. Long
// work comes from many workgroups: lavapipe ends an invocation's loops after
// 65535 iterations in all (its loop limiter), so one long loop cannot do it.
inline constexpr std::uint32_t kSpinLocalSize = 8;
inline constexpr std::uint32_t kSpinIterations = 60000;  // under lavapipe's 65535
inline const char* kSpinShader = R"(#version 450
layout(local_size_x = 8) in;
layout(push_constant) uniform Push { uint iterations; } push;
layout(std430, binding = 0) writeonly buffer Out { uint values[]; };
void main() {
  uint state = gl_LocalInvocationID.x + 1u;
  for (uint i = 0u; i < push.iterations; ++i) state = state * 1664525u + 1013904223u;
  // Every workgroup writes the same values.
  values[gl_LocalInvocationID.x] = state;
}
)";

// What the shader leaves in values[local_id] (state = local_id + 1).
inline std::uint32_t lcg(std::uint32_t state, std::uint32_t iterations) {
  for (std::uint32_t i = 0; i < iterations; ++i) state = state * 1664525u + 1013904223u;
  return state;
}

class SpinWork {
 public:
  explicit SpinWork(vk::Device& device) : device_(&device) {
    vk::PipelineDesc desc;
    desc.label = "spin";
    desc.storage_buffers = 1;
    desc.push_constant_bytes = 4;
    desc.local_size = {kSpinLocalSize, 1, 1};
    pipeline_ = std::make_unique<vk::ComputePipeline>(device, compile_glsl("spin.comp", kSpinShader), desc);
    out_ = std::make_unique<vk::Buffer>(device, kSpinLocalSize * sizeof(std::uint32_t));
    const vk::Buffer* buffers[] = {out_.get()};
    set_ = pipeline_->make_descriptor_set(buffers);
  }

  // Records `groups` workgroups of `iterations` steps each.
  void record(VkCommandBuffer cmd, std::uint64_t groups, std::uint32_t iterations) const {
    const auto x = static_cast<std::uint32_t>(std::min<std::uint64_t>(groups, 65535));
    const auto y = static_cast<std::uint32_t>((groups + x - 1) / x);
    pipeline_->record_dispatch(cmd, set_, {x, y, 1}, as_bytes_of(iterations));
  }
  void run(std::uint64_t groups, std::uint32_t iterations, std::chrono::nanoseconds timeout) const {
    vk::run_commands(*device_, [&](VkCommandBuffer cmd) { record(cmd, groups, iterations); }, timeout);
  }

  // How many workgroups of kSpinIterations take about `seconds` here; checks
  // the shader's results on the way.
  std::uint64_t calibrate(double seconds) const {
    using Clock = std::chrono::steady_clock;
    std::uint64_t groups = 1;
    double took = 0;
    // One dispatch first, untimed: a first one pays one-off costs (the CPU
    // driver's code generation, more so with a cold shader cache on a loaded
    // machine) that made one group look slow and the "long" run a few
    // microseconds long, so that it never timed out (seen once in CI).
    run(1, kSpinIterations, std::chrono::seconds(20));
    while (true) {
      const auto start = Clock::now();
      run(groups, kSpinIterations, std::chrono::seconds(20));
      took = std::chrono::duration<double>(Clock::now() - start).count();
      if (took > 0.05 || groups >= (1u << 20)) break;
      groups *= 4;
    }
    const auto values = out_->download_values<std::uint32_t>();
    for (std::uint32_t i = 0; i < kSpinLocalSize; ++i) EXPECT_EQ(values[i], lcg(i + 1, kSpinIterations)) << i;
    return static_cast<std::uint64_t>(std::clamp(static_cast<double>(groups) / took * seconds, 1.0, 65535.0 * 64));
  }

  const vk::Buffer& output() const { return *out_; }

 private:
  vk::Device* device_;
  std::unique_ptr<vk::ComputePipeline> pipeline_;
  std::unique_ptr<vk::Buffer> out_;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

// After a timeout the device, and everything made on it, must outlive the
// test: the driver may still be running the work. What is kept here stays
// reachable (no leak report) and is never destroyed under the running work.
struct Abandoned {
  std::unique_ptr<vk::Instance> instance;
  std::unique_ptr<vk::Device> device;
  std::unique_ptr<SpinWork> work;
};
inline void abandon(Abandoned kept) {
  static auto* all = new std::vector<Abandoned>;
  all->push_back(std::move(kept));
}

}  // namespace vktune::test
