// A compiled module's interface read with SPIRV-Cross
// (harness/shader_interface.hpp), and a pipeline whose layout does not serve
// it refused before the driver sees it (issue 44: a spec that left out two
// bindings died with SIGSEGV): the binding, its kind or the push-constant
// member named in one line.
#include <gtest/gtest.h>

#include "harness/pipeline.hpp"
#include "harness/shader_interface.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

// Three storage buffers used, one declared and never used, two push words
// read (n, then scale).
const char* kThreeBuffers = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Bias { float bias[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
layout(std430, binding = 5) buffer Unused { float unused[]; };
layout(push_constant) uniform Push { uint n; float scale; } pc;
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < pc.n) y[i] = (x[i] + bias[i]) * pc.scale;
}
)";

// Its sizes in a uniform buffer, as a mobile engine's shaders keep them.
const char* kUniformSizes = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std140, binding = 1) uniform Sizes { uvec4 size; } sizes;
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < sizes.size.x) y[i] = 1.0;
}
)";

// Unoptimized, so that the module keeps its names (vktune's optimized
// compiles drop most of them).
std::vector<std::uint32_t> compile_named(const std::string& name, const std::string& text) {
  vk::CompileOptions options;
  options.optimize = false;
  return vk::compile_compute_shader({name, text}, vk::MapIncludes({}), options);
}

vk::ShaderInterface reflect(const std::vector<std::uint32_t>& spirv) {
  std::string why;
  const auto interface = vk::reflect_interface(spirv, why);
  EXPECT_TRUE(interface.has_value()) << why;
  return interface.value_or(vk::ShaderInterface{});
}

TEST(ShaderInterface, TheBindingsUsedAndThePushConstantsRead) {
  const auto interface = reflect(compile_named("three.comp", kThreeBuffers));
  ASSERT_EQ(interface.bindings.size(), 3u);  // binding 5 is declared, never used
  for (std::uint32_t b = 0; b < 3; ++b) {
    EXPECT_EQ(interface.bindings[b].set, 0u);
    EXPECT_EQ(interface.bindings[b].binding, b);
    EXPECT_EQ(interface.bindings[b].kind, "storage buffer");
  }
  EXPECT_EQ(interface.bindings[1].name, "Bias");
  EXPECT_EQ(interface.push_constant_bytes, 8u);
  EXPECT_EQ(interface.last_push_member, "'scale'");
  // Served by three buffers and two push words; not by fewer.
  EXPECT_EQ(vk::interface_mismatch(interface, 3, {}, 8, false), "");
  EXPECT_EQ(vk::interface_mismatch(interface, 2, {}, 8, false),
            "the shader uses binding 2 ('Y'), a storage buffer, but the kernel binds 2 storage buffers (bindings 0-1 "
            "of set 0)");
  EXPECT_EQ(vk::interface_mismatch(interface, 3, {}, 4, false),
            "the shader reads 8 bytes of push constants (to the end of 'scale'), but the kernel pushes 4");
  // Optimized as vktune compiles, the names are gone: the numbers remain.
  const auto optimized = reflect(compile_glsl("three.comp", kThreeBuffers));
  ASSERT_EQ(optimized.bindings.size(), 3u);
  EXPECT_EQ(vk::interface_mismatch(optimized, 2, {}, 8, false),
            "the shader uses binding 2, a storage buffer, but the kernel binds 2 storage buffers (bindings 0-1 of set 0)");
  EXPECT_EQ(vk::interface_mismatch(optimized, 3, {}, 4, false),
            "the shader reads 8 bytes of push constants (to the end of member 1 at byte 4), but the kernel pushes 4");
}

TEST(ShaderInterface, AUniformBufferWhereAStorageBufferIsBound) {
  const auto interface = reflect(compile_named("uniform.comp", kUniformSizes));
  ASSERT_EQ(interface.bindings.size(), 2u);
  EXPECT_EQ(interface.bindings[1].kind, "uniform buffer");
  EXPECT_EQ(vk::interface_mismatch(interface, 2, {}, 0, false),
            "the shader uses binding 1 ('sizes') as a uniform buffer, where the kernel binds a storage buffer");
}

// A spec's uniform buffer (binding, block bytes): served where the block
// fits it; the other kind, or a block the shader declares larger, refused.
TEST(ShaderInterface, AUniformBufferBoundAsOneAndItsDeclaredBlock) {
  const auto interface = reflect(compile_named("uniform.comp", kUniformSizes));
  ASSERT_EQ(interface.bindings.size(), 2u);
  const auto& block = interface.bindings[1];
  EXPECT_EQ(block.block_bytes, 16u);
  ASSERT_EQ(block.members.size(), 1u);
  EXPECT_EQ(block.members[0].name, "size");
  EXPECT_EQ(block.members[0].offset, 0u);
  EXPECT_EQ(block.members[0].type, "u32");
  EXPECT_EQ(block.members[0].lanes, 4u);
  using Uniforms = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
  EXPECT_EQ(vk::interface_mismatch(interface, 2, Uniforms{{1, 16}}, 0, false), "");
  EXPECT_EQ(vk::interface_mismatch(interface, 2, Uniforms{{1, 12}}, 0, false),
            "the shader declares binding 1 ('sizes') a uniform block of 16 bytes, but the kernel's block holds 12 (a "
            "member the spec does not give would read past it)");
  EXPECT_EQ(vk::interface_mismatch(interface, 2, Uniforms{{0, 16}, {1, 16}}, 0, false),
            "the shader uses binding 0 ('Y') as a storage buffer, where the kernel binds a uniform buffer");
}

class ShaderInterfacePipeline : public VulkanTest {};

// The pipeline is refused with the line, before any driver call that the
// layout's gap would make undefined.
TEST_F(ShaderInterfacePipeline, ALayoutWithoutABindingTheShaderUsesIsRefused) {
  const auto spirv = compile_glsl("three.comp", kThreeBuffers);
  vk::PipelineDesc desc;
  desc.label = "three";
  desc.local_size = {64, 1, 1};
  desc.storage_buffers = 2;
  desc.push_constant_bytes = 8;
  const Error e = capture_error([&] { vk::ComputePipeline pipeline(device(), spirv, desc); });
  EXPECT_EQ(e.kind(), ErrorKind::pipeline);
  EXPECT_NE(std::string(e.what()).find("three: the shader uses binding 2, a storage buffer"), std::string::npos)
      << e.what();
  desc.storage_buffers = 3;
  EXPECT_NO_THROW(vk::ComputePipeline(device(), spirv, desc));
}

// A layout with a uniform buffer where the shader has one: created, and a
// descriptor set binds a buffer there for its block's bytes.
TEST_F(ShaderInterfacePipeline, AUniformBufferIsLaidOutAndBound) {
  const auto spirv = compile_glsl("uniform.comp", kUniformSizes);
  vk::PipelineDesc desc;
  desc.label = "uniform";
  desc.local_size = {64, 1, 1};
  desc.storage_buffers = 2;
  EXPECT_THROW(vk::ComputePipeline(device(), spirv, desc), Error);  // binding 1 as a storage buffer
  desc.uniform_buffers = {{1, 16}};
  vk::ComputePipeline pipeline(device(), spirv, desc);
  vk::Buffer y(device(), 1024), sizes(device(), 4096);
  const std::vector<const vk::Buffer*> buffers{&y, &sizes};
  EXPECT_NE(pipeline.make_descriptor_set(buffers), VK_NULL_HANDLE);
}

}  // namespace
}  // namespace vktune::test
