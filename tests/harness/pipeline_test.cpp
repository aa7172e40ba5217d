// Pipelines: required subgroup size honoured by the driver, and requests the
// device cannot honour refused with Error(device_limit) before it sees them.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

// Each invocation writes the subgroup size it runs with.
const char* kSubgroupSize = R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = WG) in;
layout(std430, binding = 0) writeonly buffer Out { uint sizes[]; };
void main() { sizes[gl_GlobalInvocationID.x] = gl_SubgroupSize; }
)";

const char* kTrivial = R"(#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint values[]; };
void main() { values[0] = 1u; }
)";

class PipelineTest : public VulkanTest {
 protected:
  // Builds a pipeline from `desc` (SPIR-V of a trivial shader: these requests
  // are refused before the driver sees the module) and returns the error.
  Error limit_error(const vk::PipelineDesc& desc) {
    const auto spirv = compile_glsl("trivial.comp", kTrivial);
    return capture_error([&] { vk::ComputePipeline pipeline(device(), spirv, desc); });
  }
};

TEST_F(PipelineTest, RequiredSubgroupSizeIsObservedInTheShader) {
  const std::uint32_t size = info().name.find("llvmpipe") != std::string::npos ? 8 : info().min_subgroup_size;
  if (!info().supports_required_subgroup_size(size)) GTEST_SKIP() << info().name << " cannot require subgroup size " << size;
  for (bool full : {false, true}) {
    if (full && !info().features.compute_full_subgroups) continue;
    SCOPED_TRACE(full ? "with full subgroups" : "without full subgroups");
    constexpr std::uint32_t wg = 64, groups = 3;
    const auto spirv = compile_glsl("subgroup.comp", kSubgroupSize, {{"WG", std::to_string(wg)}});
    vk::PipelineDesc desc;
    desc.label = "subgroup-size";
    desc.storage_buffers = 1;
    desc.local_size = {wg, 1, 1};
    desc.required_subgroup_size = size;
    desc.require_full_subgroups = full;
    vk::ComputePipeline pipeline(device(), spirv, desc);
    vk::Buffer out(device(), wg * groups * sizeof(std::uint32_t));
    out.fill(0);
    dispatch_once(device(), pipeline, {&out}, {groups, 1, 1});
    const auto sizes = out.download_values<std::uint32_t>();
    EXPECT_EQ(std::count(sizes.begin(), sizes.end(), size), static_cast<long>(sizes.size()))
        << "first value " << sizes.front();
  }
}

TEST_F(PipelineTest, SubgroupSizeOutsideTheRangeIsADeviceLimit) {
  vk::PipelineDesc desc;
  desc.label = "too-wide";
  desc.storage_buffers = 1;
  desc.local_size = {64, 1, 1};
  desc.required_subgroup_size = info().max_subgroup_size * 2;
  const Error error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  const std::string message = error.what();
  EXPECT_NE(message.find("too-wide"), std::string::npos) << message;
  EXPECT_NE(message.find("subgroup size " + std::to_string(desc.required_subgroup_size)), std::string::npos) << message;
  if (info().compute_required_subgroup_size) {
    EXPECT_NE(message.find(std::to_string(info().min_subgroup_size) + ".." + std::to_string(info().max_subgroup_size)),
              std::string::npos)
        << message;
  }
}

TEST_F(PipelineTest, SubgroupSize64OnLavapipeIsADeviceLimit) {
  if (info().max_subgroup_size >= 64) GTEST_SKIP() << info().name << " allows subgroups of 64";
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.local_size = {64, 1, 1};
  desc.required_subgroup_size = 64;
  EXPECT_EQ(limit_error(desc).kind(), ErrorKind::device_limit);
}

TEST_F(PipelineTest, NonPowerOfTwoSubgroupSizeIsADeviceLimit) {
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.local_size = {12, 1, 1};
  desc.required_subgroup_size = 3;
  const Error error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("subgroup size 3"), std::string::npos) << error.what();
}

TEST_F(PipelineTest, FullSubgroupsNeedAnAlignedLocalSize) {
  if (!info().features.compute_full_subgroups) GTEST_SKIP() << "no computeFullSubgroups";
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.local_size = {info().max_subgroup_size + 4, 1, 1};
  desc.require_full_subgroups = true;  // subgroup size left to the driver
  const Error error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("multiple of the subgroup size"), std::string::npos) << error.what();
}

TEST_F(PipelineTest, TooManySubgroupsForARequiredSizeIsADeviceLimit) {
  const auto& d = info();
  if (!d.supports_required_subgroup_size(d.min_subgroup_size) || d.max_compute_workgroup_subgroups == 0) {
    GTEST_SKIP() << "no required subgroup sizes";
  }
  const std::uint64_t needed = std::uint64_t{d.min_subgroup_size} * d.max_compute_workgroup_subgroups * 2;
  if (needed > d.max_workgroup_invocations || needed > d.max_workgroup_size[0]) {
    GTEST_SKIP() << "maxComputeWorkgroupSubgroups does not bind before the workgroup limits";
  }
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.local_size = {static_cast<std::uint32_t>(needed), 1, 1};
  desc.required_subgroup_size = d.min_subgroup_size;
  const Error error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("maxComputeWorkgroupSubgroups"), std::string::npos) << error.what();
}

TEST_F(PipelineTest, TooLargeLocalSizeIsADeviceLimit) {
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.local_size = {info().max_workgroup_size[0] + 1, 1, 1};
  Error error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("maxComputeWorkGroupSize"), std::string::npos) << error.what();

  // Each dimension within its limit, the product beyond the invocations.
  std::uint32_t side = 1;
  while (std::uint64_t{side} * side * side <= info().max_workgroup_invocations) side *= 2;
  desc.local_size = {side, side, side};
  if (side > info().max_workgroup_size[2]) GTEST_SKIP() << "max z dimension too small for this case";
  error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("maxComputeWorkGroupInvocations"), std::string::npos) << error.what();

  desc.local_size = {0, 1, 1};
  EXPECT_EQ(limit_error(desc).kind(), ErrorKind::device_limit);
}

TEST_F(PipelineTest, TooManyPushConstantBytesIsADeviceLimit) {
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.push_constant_bytes = info().max_push_constants_bytes + 4;
  const Error error = limit_error(desc);
  EXPECT_EQ(error.kind(), ErrorKind::device_limit);
  EXPECT_NE(std::string(error.what()).find("push constants"), std::string::npos) << error.what();
}

// check_pipeline_limits is also a constraint kernels call without a device.
// Where the driver cannot report statistics (lavapipe in Debian 12 lacks
// VK_KHR_pipeline_executable_properties), a pipeline that asks for them is
// made as usual and reports none; where it can, it reports some.
TEST_F(PipelineTest, StatisticsAreReadWhereTheDriverOffersThem) {
  vk::PipelineDesc desc;
  desc.storage_buffers = 1;
  desc.capture_statistics = true;
  const auto spirv = compile_glsl("trivial.comp", kTrivial);
  vk::ComputePipeline pipeline(device(), spirv, desc);
  EXPECT_EQ(pipeline.statistics().empty(), !device().info().features.pipeline_executable_info);
  desc.capture_statistics = false;
  vk::ComputePipeline without(device(), spirv, desc);
  EXPECT_TRUE(without.statistics().empty());
  const auto floor = vk::statistics_of_an_empty_shader(device());
  EXPECT_EQ(floor.empty(), !device().info().features.pipeline_executable_info);
  EXPECT_EQ(vk::spill_measure(floor, floor), 0);
}

// The drivers' names for spilled registers and scratch memory differ (RADV
// "Spilled VGPRs", Intel "Spill count" and "Scratch Memory Size", ...): any
// statistic naming a spill or scratch counts, in any case; nothing else does.
TEST(PipelineStatistics, SpillsAreReadFromAnyDriversNames) {
  EXPECT_EQ(vk::spill_measure({}), 0);
  EXPECT_EQ(vk::spill_measure({{"Register Count", 255}, {"Shared Memory Size", 49152}, {"Code size", 9000}}), 0);
  EXPECT_EQ(vk::spill_measure({{"Spilled VGPRs", 0}, {"Spilled SGPRs", 0}, {"Scratch Memory Size", 0}}), 0);
  EXPECT_EQ(vk::spill_measure({{"Spilled VGPRs", 12}, {"VGPRs", 256}}), 12);
  EXPECT_EQ(vk::spill_measure({{"SIMD32 Spill count", 3}, {"SIMD32 Fill count", 3}}), 3);
  EXPECT_EQ(vk::spill_measure({{"stage 1: SCRATCH size", 1024}, {"stage 0: Registers", 64}}), 1024);
  // Against the driver's zero: NVIDIA's 580 driver reports "Local Memory
  // Size" as 2^36 plus the bytes a shader keeps in local memory.
  const double base = 68719476736.0;
  const std::vector<vk::PipelineStatistic> floor{{"Local Memory Size", base}, {"Register Count", 1}, {"Stack Size", 0}};
  EXPECT_EQ(vk::spill_measure({{"Local Memory Size", base}, {"Register Count", 255}}, floor), 0);
  EXPECT_EQ(vk::spill_measure({{"Local Memory Size", base + 128}, {"Register Count", 255}}, floor), 128);
  EXPECT_EQ(vk::spill_measure({{"stage 0: Local Memory Size", base}, {"stage 1: Local Memory Size", base + 16}}, floor),
            16);
  EXPECT_EQ(vk::spill_measure({{"Spilled VGPRs", 4}}, floor), 4);  // no floor for it: against 0
}

TEST(PipelineLimits, OnASyntheticDevice) {
  vk::DeviceInfo d;
  d.name = "synthetic";
  d.max_workgroup_size = {1024, 1024, 64};
  d.max_workgroup_invocations = 1024;
  d.max_push_constants_bytes = 128;
  d.min_subgroup_size = 16;
  d.max_subgroup_size = 64;
  d.max_compute_workgroup_subgroups = 16;

  vk::PipelineDesc desc;
  desc.local_size = {256, 1, 1};
  EXPECT_EQ(vk::check_pipeline_limits(d, desc).detail, "");

  desc.required_subgroup_size = 32;
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("does not allow requiring"), std::string::npos);

  d.features.subgroup_size_control = true;
  d.compute_required_subgroup_size = true;
  EXPECT_EQ(vk::check_pipeline_limits(d, desc).detail, "");
  EXPECT_TRUE(d.supports_required_subgroup_size(16));
  EXPECT_TRUE(d.supports_required_subgroup_size(64));
  EXPECT_FALSE(d.supports_required_subgroup_size(8));
  EXPECT_FALSE(d.supports_required_subgroup_size(128));
  EXPECT_FALSE(d.supports_required_subgroup_size(48));
  EXPECT_FALSE(d.supports_required_subgroup_size(0));

  desc.required_subgroup_size = 8;
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("16..64"), std::string::npos);

  desc.required_subgroup_size = 16;
  desc.local_size = {512, 1, 1};  // 32 subgroups of 16 > 16
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("maxComputeWorkgroupSubgroups"), std::string::npos);

  desc.required_subgroup_size = 32;
  desc.require_full_subgroups = true;
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("computeFullSubgroups"), std::string::npos);
  d.features.compute_full_subgroups = true;
  EXPECT_EQ(vk::check_pipeline_limits(d, desc).detail, "");
  desc.local_size = {48, 1, 1};
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("multiple of the subgroup size 32"), std::string::npos);
  // Without a required size, full subgroups align to the largest size.
  desc.required_subgroup_size = 0;
  desc.local_size = {96, 1, 1};
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("multiple of the subgroup size 64"), std::string::npos);
  desc.local_size = {128, 1, 1};
  EXPECT_EQ(vk::check_pipeline_limits(d, desc).detail, "");

  desc.push_constant_bytes = 256;
  EXPECT_NE(vk::check_pipeline_limits(d, desc).detail.find("push constants"), std::string::npos);
}

}  // namespace
}  // namespace vktune::test
