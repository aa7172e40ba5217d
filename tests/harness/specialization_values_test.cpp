// A spec parameter's integer delivered to a specialization constant in the
// type the module declares (harness/specialization_values.hpp): the types read
// by reflection, a float given its bits (2 is 0x40000000, not 2.8e-45), a
// bool 0 or 1, ints and uints as they are, and each value a type cannot hold
// (a uint given -1, a bool given 2, any value for a 64-bit constant) refused
// in one line naming the constant. No device: the module is only compiled.
#include <gtest/gtest.h>

#include <map>

#include "harness/compiler.hpp"
#include "harness/shader_interface.hpp"
#include "harness/specialization_values.hpp"

namespace vktune::test {
namespace {

const char* kTypedConstants = R"(#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const float ALPHA = 1.5;
layout(constant_id = 1) const bool USE_X = false;
layout(constant_id = 2) const uint COUNT = 3;
layout(constant_id = 3) const int SHIFT = -2;
layout(constant_id = 4) const double WIDE = 0.25;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() { y[0] = ALPHA + (USE_X ? 1.0 : 0.0) + float(COUNT) + float(SHIFT) + float(WIDE); }
)";

vk::ShaderInterface typed_interface() {
  vk::CompileOptions options;
  options.optimize = false;  // keeps the constants' names
  const auto spirv = vk::compile_compute_shader({"typed.comp", kTypedConstants}, vk::MapIncludes({}), options);
  std::string why;
  const auto interface = vk::reflect_interface(spirv, why);
  EXPECT_TRUE(interface.has_value()) << why;
  return interface.value_or(vk::ShaderInterface{});
}

TEST(SpecializationValues, EachConstantsTypeIsReadFromTheModule) {
  const auto interface = typed_interface();
  std::map<std::uint32_t, std::pair<std::string, std::string>> types;
  for (const auto& c : interface.constants) types[c.constant_id] = {c.name, c.type};
  EXPECT_EQ(types[0], (std::pair<std::string, std::string>{"ALPHA", "f32"}));
  EXPECT_EQ(types[1], (std::pair<std::string, std::string>{"USE_X", "bool"}));
  EXPECT_EQ(types[2], (std::pair<std::string, std::string>{"COUNT", "u32"}));
  EXPECT_EQ(types[3], (std::pair<std::string, std::string>{"SHIFT", "i32"}));
  EXPECT_EQ(types[4], (std::pair<std::string, std::string>{"WIDE", "f64"}));
}

TEST(SpecializationValues, IntegersBecomeTheWordsOfTheDeclaredTypes) {
  const auto interface = typed_interface();
  // constant_id -> the parameter's int as 32 bits, as a ShaderPlan holds it;
  // id 9 is not in the module and passes as it is.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> constants = {
      {0, 2}, {1, 1}, {2, 5}, {3, static_cast<std::uint32_t>(-7)}, {9, 11}};
  ASSERT_EQ(vk::typed_specialization(interface, constants), "");
  EXPECT_EQ(constants, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{
                           {0, 0x40000000u}, {1, 1u}, {2, 5u}, {3, 0xFFFFFFF9u}, {9, 11u}}));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> negative_float = {{0, static_cast<std::uint32_t>(-3)}};
  ASSERT_EQ(vk::typed_specialization(interface, negative_float), "");
  EXPECT_EQ(negative_float[0].second, 0xC0400000u);  // -3.0f
}

TEST(SpecializationValues, AValueTheTypeCannotHoldIsRefusedInOneLine) {
  const auto interface = typed_interface();
  const auto problem = [&](std::uint32_t id, std::int32_t value) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> constants = {{id, static_cast<std::uint32_t>(value)}};
    return vk::typed_specialization(interface, constants);
  };
  EXPECT_EQ(problem(2, -1), "specialization constant 2 ('COUNT') is a uint in the shader and cannot hold -1");
  EXPECT_EQ(problem(1, 2), "specialization constant 1 ('USE_X') is a bool (0 or 1) in the shader and cannot hold 2");
  EXPECT_EQ(problem(1, -1), "specialization constant 1 ('USE_X') is a bool (0 or 1) in the shader and cannot hold -1");
  EXPECT_EQ(problem(4, 1),
            "specialization constant 4 ('WIDE') is f64 in the shader: a spec parameter sets only 32-bit int, uint and "
            "float constants and bools");
  EXPECT_EQ(problem(2, 0), "");
  EXPECT_EQ(problem(3, -1), "");
}

}  // namespace
}  // namespace vktune::test
