// Compiling, binding and dispatching real shaders, checked against the CPU.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

const char* kSaxpy = R"(#version 450
layout(local_size_x = WG) in;
layout(push_constant) uniform Push { uint n; } push;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Out { float result[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < push.n) result[i] = A_SCALE * x[i] + y[i];
}
)";

// Local size and two values come from specialization constants.
const char* kSpecialized = R"(#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const float SCALE = 1.0;
layout(constant_id = 2) const uint OFFSET = 0;
layout(std430, binding = 0) writeonly buffer Out { float result[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  result[i] = SCALE * float(i) + float(OFFSET);
}
)";

constexpr std::uint32_t kNaN = 0x7fc00000u;

class DispatchTest : public VulkanTest {};

TEST_F(DispatchTest, SaxpyMatchesTheCpu) {
  constexpr std::uint32_t wg = 64;
  constexpr std::uint32_t n = 1000;  // not a multiple of wg
  constexpr std::uint32_t slack = 37;  // elements past n that must stay untouched
  constexpr float a = 2.5f;
  const auto spirv = compile_glsl("saxpy.comp", kSaxpy, {{"A_SCALE", "2.5"}, {"WG", std::to_string(wg)}});

  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  std::vector<float> x(n), y(n);
  for (auto& v : x) v = value(rng);
  for (auto& v : y) v = value(rng);

  vk::Buffer bx(device(), n * sizeof(float)), by(device(), n * sizeof(float));
  vk::Buffer out(device(), (n + slack) * sizeof(float));
  bx.upload_values(std::span<const float>(x));
  by.upload_values(std::span<const float>(y));
  out.fill(kNaN);

  vk::PipelineDesc desc;
  desc.label = "saxpy";
  desc.storage_buffers = 3;
  desc.push_constant_bytes = sizeof(std::uint32_t);
  desc.local_size = {wg, 1, 1};
  vk::ComputePipeline pipeline(device(), spirv, desc);
  EXPECT_NE(pipeline.handle(), VK_NULL_HANDLE);
  EXPECT_NE(pipeline.layout(), VK_NULL_HANDLE);
  EXPECT_EQ(pipeline.desc().label, "saxpy");
  const std::uint32_t groups = (n + wg - 1) / wg;
  dispatch_once(device(), pipeline, {&bx, &by, &out}, {groups, 1, 1}, as_bytes_of(n));

  const auto result = out.download_values<float>();
  ASSERT_EQ(result.size(), n + slack);
  int bad = 0;
  for (std::uint32_t i = 0; i < n && bad < 10; ++i) {
    const float expected = a * x[i] + y[i];
    // The driver may fuse the multiply-add: allow one rounding of difference.
    const float tolerance = 4 * std::numeric_limits<float>::epsilon() * (std::fabs(a * x[i]) + std::fabs(y[i]));
    if (std::isnan(result[i]) || std::fabs(result[i] - expected) > tolerance) {
      ADD_FAILURE() << "element " << i << ": got " << result[i] << ", expected " << expected;
      ++bad;
    }
  }
  for (std::uint32_t i = n; i < n + slack; ++i) EXPECT_TRUE(std::isnan(result[i])) << "element " << i << " was written";
}

TEST_F(DispatchTest, SpecializationConstantsChangeTheResult) {
  const auto spirv = compile_glsl("specialized.comp", kSpecialized);
  constexpr std::uint32_t n = 256;
  auto run = [&](std::vector<std::pair<std::uint32_t, std::uint32_t>> specialization, std::uint32_t wg) {
    vk::Buffer out(device(), n * sizeof(float));
    out.fill(kNaN);
    vk::PipelineDesc desc;
    desc.storage_buffers = 1;
    desc.local_size = {wg, 1, 1};
    desc.specialization = std::move(specialization);
    vk::ComputePipeline pipeline(device(), spirv, desc);
    dispatch_once(device(), pipeline, {&out}, {n / wg, 1, 1});
    return out.download_values<float>();
  };
  // Only the local size is specialized: SCALE and OFFSET keep their defaults.
  const auto defaults = run({{0, 32}}, 32);
  // SCALE is a float constant: the pipeline takes a parameter's whole
  // value and pushes it in the type the shader declares (3 -> 3.0f).
  const auto changed = run({{0, 64}, {1, 3}, {2, 7}}, 64);
  ASSERT_EQ(defaults.size(), n);
  ASSERT_EQ(changed.size(), n);
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(defaults[i], static_cast<float>(i)) << i;
    EXPECT_EQ(changed[i], 3.0f * static_cast<float>(i) + 7.0f) << i;
  }
}

TEST_F(DispatchTest, SeveralDescriptorSetsOnOnePipeline) {
  const auto spirv = compile_glsl("saxpy.comp", kSaxpy, {{"A_SCALE", "1.0"}, {"WG", "16"}});
  vk::PipelineDesc desc;
  desc.storage_buffers = 3;
  desc.push_constant_bytes = 4;
  desc.local_size = {16, 1, 1};
  desc.max_descriptor_sets = 2;
  vk::ComputePipeline pipeline(device(), spirv, desc);
  constexpr std::uint32_t n = 16;
  std::vector<vk::Buffer> buffers;
  for (int i = 0; i < 6; ++i) buffers.emplace_back(device(), n * sizeof(float));
  for (int i = 0; i < 6; ++i) buffers[i].upload_values(std::span<const float>(std::vector<float>(n, float(i))));
  dispatch_once(device(), pipeline, {&buffers[0], &buffers[1], &buffers[2]}, {1, 1, 1}, as_bytes_of(n));
  dispatch_once(device(), pipeline, {&buffers[3], &buffers[4], &buffers[5]}, {1, 1, 1}, as_bytes_of(n));
  EXPECT_EQ(buffers[2].download_values<float>(), std::vector<float>(n, 0.0f + 1.0f));
  EXPECT_EQ(buffers[5].download_values<float>(), std::vector<float>(n, 3.0f + 4.0f));
}

TEST_F(DispatchTest, WrongNumberOfBuffersIsRefused) {
  const auto spirv = compile_glsl("specialized.comp", kSpecialized);
  vk::PipelineDesc desc;
  desc.label = "two-buffers";
  desc.storage_buffers = 2;
  desc.local_size = {1, 1, 1};
  vk::ComputePipeline pipeline(device(), spirv, desc);
  vk::Buffer only(device(), 16);
  const std::vector<const vk::Buffer*> one{&only};
  const Error error = capture_error([&] { pipeline.make_descriptor_set(one); });
  EXPECT_EQ(error.kind(), ErrorKind::internal);
  EXPECT_NE(std::string(error.what()).find("two-buffers"), std::string::npos) << error.what();
}

}  // namespace
}  // namespace vktune::test
