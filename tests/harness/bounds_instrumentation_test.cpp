// Bounds-instrumented modules (harness/bounds_instrumentation.hpp) on the
// test device: every access past a binding's data is skipped and recorded
// with its invocation, the last byte it would touch and the length, the
// binding is found from the record's instruction, accesses within the data
// run as written, and an output buffer too small for every record still
// counts them all.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <iostream>
#include <random>
#include <set>

#include "harness/bounds_instrumentation.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

// Invocation i copies 2 * a[i] to b[i] and adds 1 to c[i]; a holds A
// floats, b B and c C, so invocations past each length access past that
// buffer's data (the buffers themselves are larger: the bound range goes on,
// as a guard band does).
constexpr const char* kShader = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer B { float b[]; };
layout(std430, binding = 2) buffer C { uint c[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  b[i] = 2.0 * a[i];
  c[i] = c[i] + 1u;
}
)";

class BoundsInstrumentationTest : public VulkanTest {};

TEST_F(BoundsInstrumentationTest, RecordsEveryAccessPastTheDataAndRunsTheRest) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  // Three different lengths, at most 256 floats, over 5 workgroups (320
  // invocations): every invocation past a length is one violation.
  const std::uint32_t A = 32 + rng() % 225, B = 32 + rng() % 225, C = 32 + rng() % 225;
  const std::uint32_t invocations = 5 * 64;

  const auto spirv = compile_glsl("bounds.comp", kShader);
  const auto bindings = vk::buffer_access_bindings(spirv);
  std::set<std::uint32_t> accessed;
  for (const auto& [index, binding] : bindings) accessed.insert(binding);
  EXPECT_EQ(accessed, (std::set<std::uint32_t>{0, 1, 2}));

  vk::PipelineDesc desc;
  desc.storage_buffers = 3;
  desc.local_size = {64, 1, 1};
  desc.bounds_set = true;
  vk::ComputePipeline pipeline(device(), vk::instrument_bounds(spirv, 7), desc);

  std::vector<float> a_values(invocations);
  for (auto& v : a_values) v = static_cast<float>(rng() % 1000) / 8.0f;
  vk::Buffer a(device(), invocations * 4), b(device(), invocations * 4), c(device(), invocations * 4);
  a.upload_values(std::span<const float>(a_values));
  b.fill(0xffffffffu);
  c.fill(0);
  const std::vector<std::uint64_t> lengths{A * 4ull, B * 4ull, C * 4ull};
  const auto input_words = vk::bounds_input_words(lengths);
  vk::Buffer input(device(), input_words.size() * 4);
  input.upload_values(std::span<const std::uint32_t>(input_words));
  // Room for fewer records than there are violations.
  const std::uint32_t room = 100;
  vk::Buffer output(device(), vk::bounds_output_words(room) * 4ull);
  output.fill(0);

  const auto set = pipeline.make_descriptor_set(std::vector<const vk::Buffer*>{&a, &b, &c});
  const auto bounds = pipeline.make_bounds_set(output, input);
  vk::run_commands(device(), [&](VkCommandBuffer cmd) { pipeline.record_dispatch(cmd, set, {5, 1, 1}, {}, bounds); });

  // Within the data the code ran as written; past it nothing was written
  // (a load past a's data yields 0: b[i] = 0 where i < B but i >= A).
  const auto b_out = b.download_values<float>();
  const auto c_out = c.download_values<std::uint32_t>();
  for (std::uint32_t i = 0; i < invocations; ++i) {
    if (i < B) {
      EXPECT_EQ(b_out[i], i < A ? 2.0f * a_values[i] : 0.0f) << i;
    } else {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(b_out[i]), 0xffffffffu) << i;
    }
    if (i < C) {
      EXPECT_EQ(c_out[i], 1u) << i;
    }
  }

  std::size_t attempted = 0;
  const auto records = vk::read_bounds_records(output.download_values<std::uint32_t>(), attempted);
  // c's load and store are checked one by one.
  const std::size_t violations = (invocations - A) + (invocations - B) + 2 * (invocations - C);
  EXPECT_EQ(attempted, violations);
  ASSERT_EQ(records.size(), std::min<std::size_t>(violations, room));
  for (const auto& r : records) {
    EXPECT_EQ(r.shader_id, 7u);
    const auto found = bindings.find(r.instruction);
    ASSERT_NE(found, bindings.end()) << "instruction " << r.instruction;
    const std::uint32_t length = static_cast<std::uint32_t>(lengths[found->second]);
    EXPECT_EQ(r.length, length);
    const std::uint32_t i = r.invocation[0];
    EXPECT_EQ(r.last_byte, 4 * i + 3);
    EXPECT_GE(4 * i, length) << "an access within the data was recorded";
    EXPECT_EQ(r.invocation[1], 0u);
    EXPECT_EQ(r.invocation[2], 0u);
  }
}

TEST(BoundsInstrumentation, AModuleThePassCannotReadIsACompileError) {
  const std::vector<std::uint32_t> not_spirv{0x07230203u, 0x00010500u, 0, 99, 0, 0xdeadbeefu};
  const Error error = capture_error([&] { vk::instrument_bounds(not_spirv, 0); });
  EXPECT_EQ(error.kind(), ErrorKind::compile);
  EXPECT_NE(std::string(error.what()).find("bounds-instrumentation pass failed"), std::string::npos) << error.what();
}

TEST(BoundsInstrumentation, AnInputTableLeadsEachBindingToItsLength) {
  const std::vector<std::uint64_t> lengths{12, 4096, 7, 1u << 30};
  const auto words = vk::bounds_input_words(lengths);
  // The pass reads Data[Data[Data[1] + binding] + 0].
  for (std::uint32_t b = 0; b < lengths.size(); ++b) EXPECT_EQ(words[words[words[1] + b]], lengths[b]) << b;
  EXPECT_THROW(vk::bounds_input_words(std::vector<std::uint64_t>{std::uint64_t{1} << 32}), Error);
}

}  // namespace
}  // namespace vktune::test
