// The NV-to-KHR cooperative-matrix pass (harness/coopmat_khr.hpp) on
// modules written here for what it must handle: one fp16 type serving A, B
// and a converted accumulator (split three ways), matrices passed to a
// function, signed and unsigned integer products, a value in two roles
// (refused, named), a module without matrices (unchanged); and the
// structural check (harness/coopmat_khr_check.hpp), which the pass's output
// passes and which fails each rule broken on purpose.
#include <gtest/gtest.h>

#include <spirv/unified1/spirv.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "harness/compiler.hpp"
#include "harness/coopmat_khr.hpp"
#include "harness/coopmat_khr_check.hpp"
#include "harness/coopmat_khr_spec.hpp"
#include "harness/spirv_validation.hpp"
#include "harness/spirv_words.hpp"

namespace vktune::test {
namespace {

using vk::coopmat_khr::Use;

const char* kHeader = R"(#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_NV_integer_cooperative_matrix : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, binding = 2) buffer Y { float y[]; };
layout(std430, binding = 3) buffer H { float16_t h[]; };
)";

// y = a·b (16×16×16), and h = y as fp16: the fp16 type is A, B and (the
// converted accumulator) an Accumulator.
const char* kGemm = R"(
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma, mb;
  coopMatLoadNV(ma, a, 0, 16, false);
  coopMatLoadNV(mb, b, 0, 16, true);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  acc = coopMatMulAddNV(ma, mb, acc);
  coopMatStoreNV(acc, y, 0, 16, false);
  coopMatStoreNV(fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc), h, 0, 16, false);
}
)";

// The multiply-add in a function, its matrices passed in (glslang passes
// them through function-local variables) and an array of accumulators,
// summed (`SUM`) or stored apart: Debian 12's SPIRV-Tools 2023.1 optimizer
// crashes folding a sum of cooperative matrices (a segfault in
// MergeAddAddArithmetic), so the optimized build stores them apart.
const char* kFunction = R"(
fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> step(fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> x,
                                              fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> w,
                                              fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c) {
  return coopMatMulAddNV(x, w, c);
}
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma, mb;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[2];
  acc[0] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  acc[1] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(1.0);
  for (uint k = 0; k < 64; k += 16) {
    coopMatLoadNV(ma, a, k, 64, false);
    coopMatLoadNV(mb, b, k, 64, true);
    acc[k / 16 % 2] = step(ma, mb, acc[k / 16 % 2]);
  }
#ifdef SUM
  coopMatStoreNV(acc[0] + acc[1], y, 0, 16, false);
#else
  coopMatStoreNV(acc[0], y, 0, 16, false);
  coopMatStoreNV(acc[1], y, 256, 16, false);
#endif
}
)";

// int8 × int8 -> int32, signed or unsigned (loaded from 16-byte words, as
// the templates load halves).
std::string integer_product(const char* s8, const char* s32) {
  return std::string(R"(
layout(std430, binding = 4) readonly buffer Q { uvec4 q[]; };
layout(std430, binding = 5) buffer R { )") + s32 + R"(int r[]; };
void main() {
  )" + s8 + R"(coopmatNV<8, gl_ScopeSubgroup, 16, 32> x;
  )" + s8 + R"(coopmatNV<8, gl_ScopeSubgroup, 32, 16> w;
  coopMatLoadNV(x, q, 0, 8, false);
  coopMatLoadNV(w, q, 128, 8, true);
  )" + s8 + R"(coopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = )" + s8 + R"(coopmatNV<32, gl_ScopeSubgroup, 16, 16>(0);
  acc = coopMatMulAddNV(x, w, acc);
  coopMatStoreNV(acc, r, 0, 16, false);
}
)";
}

// One loaded matrix multiplied by itself: MatrixA and MatrixB at once.
const char* kTwoRoles = R"(
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> square;
  coopMatLoadNV(square, a, 0, 16, false);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  acc = coopMatMulAddNV(square, square, acc);
  coopMatStoreNV(acc, y, 0, 16, false);
}
)";

std::vector<std::uint32_t> compile(const std::string& body, bool optimize = true) {
  vk::CompileOptions options;
  options.target = vk::TargetEnv::vulkan_1_2;
  options.optimize = optimize;
  return vk::compile_compute_shader({"coopmat.comp", std::string(kHeader) + body}, vk::MapIncludes({}), options);
}

// The KHR matrix types of a module: id -> (component width, Use).
std::map<std::uint32_t, std::pair<std::uint32_t, Use>> khr_types(const std::vector<std::uint32_t>& spirv) {
  const auto module = vk::spirv::split_module(spirv);
  std::map<std::uint32_t, std::uint32_t> constants, widths;
  std::map<std::uint32_t, std::pair<std::uint32_t, Use>> types;
  for (const auto& inst : module.instructions) {
    const auto& o = inst.operands;
    if (inst.opcode == SpvOpConstant && o.size() == 3) constants[o[1]] = o[2];
    if (inst.opcode == SpvOpTypeFloat || inst.opcode == SpvOpTypeInt) widths[o[0]] = o[1];
    if (inst.opcode == vk::coopmat_khr::kOpTypeCooperativeMatrix) {
      types[o[0]] = {widths.at(o[1]), static_cast<Use>(constants.at(o[5]))};
    }
  }
  return types;
}

std::vector<std::uint32_t> mul_add_masks(const std::vector<std::uint32_t>& spirv) {
  std::vector<std::uint32_t> masks;
  for (const auto& inst : vk::spirv::split_module(spirv).instructions) {
    if (inst.opcode == vk::coopmat_khr::kOpMulAdd) masks.push_back(inst.operands.size() > 5 ? inst.operands[5] : 0);
  }
  return masks;
}

std::size_t count_of(const std::map<std::uint32_t, std::pair<std::uint32_t, Use>>& types, std::uint32_t width, Use use) {
  return static_cast<std::size_t>(std::count_if(types.begin(), types.end(), [&](const auto& t) {
    return t.second == std::make_pair(width, use);
  }));
}

TEST(CoopmatKhr, OneFp16TypeServingThreeRolesIsSplitThreeWays) {
  for (const bool optimize : {true, false}) {
    SCOPED_TRACE(optimize ? "optimized" : "unoptimized");
    const auto nv = compile(kGemm, optimize);
    // The NV module's one fp16 matrix type is what makes the split needed.
    EXPECT_NE(vk::khr_cooperative_matrix_problem(nv), "");
    const auto khr = vk::nv_to_khr_cooperative_matrix(nv);
    ASSERT_EQ(khr.refusal, "");
    EXPECT_EQ(vk::khr_cooperative_matrix_problem(khr.spirv), "");
    const auto types = khr_types(khr.spirv);
    EXPECT_EQ(khr.matrix_types, types.size());
    EXPECT_EQ(count_of(types, 16, Use::matrix_a), 1u);
    EXPECT_EQ(count_of(types, 16, Use::matrix_b), 1u);
    EXPECT_EQ(count_of(types, 16, Use::accumulator), 1u);  // the converted accumulator
    EXPECT_EQ(count_of(types, 32, Use::accumulator), 1u);
    EXPECT_EQ(mul_add_masks(khr.spirv), std::vector<std::uint32_t>{0});  // floats: no signed bits
    // The module's bound covers the ids the pass added.
    EXPECT_GT(khr.spirv[vk::spirv::kBoundWord], nv[vk::spirv::kBoundWord]);
  }
}

TEST(CoopmatKhr, MatricesPassedToAFunctionAndArraysOfThem) {
  for (const bool optimize : {true, false}) {  // unoptimized, the call and the array stay
    SCOPED_TRACE(optimize ? "optimized" : "unoptimized");
    const auto khr =
        vk::nv_to_khr_cooperative_matrix(compile(std::string(optimize ? "" : "#define SUM\n") + kFunction, optimize));
    ASSERT_EQ(khr.refusal, "");
    EXPECT_EQ(vk::khr_cooperative_matrix_problem(khr.spirv), "");
    const auto types = khr_types(khr.spirv);
    EXPECT_EQ(count_of(types, 16, Use::matrix_a), 1u);
    EXPECT_EQ(count_of(types, 16, Use::matrix_b), 1u);
    EXPECT_EQ(count_of(types, 32, Use::accumulator), 1u);
  }
}

TEST(CoopmatKhr, IntegerProductsSetTheSignedBitsOfSignedMatrices) {
  const auto signed_khr = vk::nv_to_khr_cooperative_matrix(compile(integer_product("i", "")));
  ASSERT_EQ(signed_khr.refusal, "");
  EXPECT_EQ(vk::khr_cooperative_matrix_problem(signed_khr.spirv), "");
  using namespace vk::coopmat_khr;
  EXPECT_EQ(mul_add_masks(signed_khr.spirv), (std::vector<std::uint32_t>{kMatrixASigned | kMatrixBSigned |
                                                                         kMatrixCSigned | kMatrixResultSigned}));
  const auto unsigned_khr = vk::nv_to_khr_cooperative_matrix(compile(integer_product("u", "u")));
  ASSERT_EQ(unsigned_khr.refusal, "");
  EXPECT_EQ(vk::khr_cooperative_matrix_problem(unsigned_khr.spirv), "");
  EXPECT_EQ(mul_add_masks(unsigned_khr.spirv), std::vector<std::uint32_t>{0});
  // The check holds the bits to the component types: signed matrices
  // without them fail.
  auto module = vk::spirv::split_module(signed_khr.spirv);
  for (auto& inst : module.instructions)
    if (inst.opcode == kOpMulAdd) inst.operands.resize(5);
  EXPECT_NE(vk::khr_cooperative_matrix_problem(vk::spirv::join_module(module)).find("signed-component bits"),
            std::string::npos);
}

TEST(CoopmatKhr, AValueInTwoRolesIsRefusedByName) {
  const auto khr = vk::nv_to_khr_cooperative_matrix(compile(kTwoRoles, false));
  EXPECT_TRUE(khr.spirv.empty());
  EXPECT_NE(khr.refusal.find("square"), std::string::npos) << khr.refusal;
  EXPECT_NE(khr.refusal.find("MatrixA"), std::string::npos) << khr.refusal;
  EXPECT_NE(khr.refusal.find("MatrixB"), std::string::npos) << khr.refusal;
}

TEST(CoopmatKhr, AModuleWithoutMatricesIsUnchanged) {
  const auto plain = compile("void main() { y[gl_GlobalInvocationID.x] = float(a[0]); }\n");
  const auto khr = vk::nv_to_khr_cooperative_matrix(plain);
  EXPECT_EQ(khr.refusal, "");
  EXPECT_EQ(khr.spirv, plain);
  EXPECT_EQ(khr.matrix_types, 0u);
}

// Each rule of the check, broken in the pass's output of the GEMM.
TEST(CoopmatKhr, TheCheckFailsEachRuleBroken) {
  const auto khr = vk::nv_to_khr_cooperative_matrix(compile(kGemm)).spirv;
  ASSERT_EQ(vk::khr_cooperative_matrix_problem(khr), "");
  using namespace vk::coopmat_khr;
  auto broken = [&](auto&& change) {
    auto module = vk::spirv::split_module(khr);
    change(module);
    return vk::khr_cooperative_matrix_problem(vk::spirv::join_module(module));
  };
  // The multiply-add's A and B swapped.
  EXPECT_NE(broken([](auto& m) {
              for (auto& i : m.instructions)
                if (i.opcode == kOpMulAdd) std::swap(i.operands[2], i.operands[3]);
            }).find("not a MatrixA"),
            std::string::npos);
  // A load's layout and stride in NV's order.
  EXPECT_NE(broken([](auto& m) {
              for (auto& i : m.instructions)
                if (i.opcode == kOpLoad) std::swap(i.operands[3], i.operands[4]);
            }).find("layout"),
            std::string::npos);
  // The NV capability back.
  EXPECT_NE(broken([](auto& m) {
              for (auto& i : m.instructions)
                if (i.opcode == SpvOpCapability && i.operands[0] == kCapability)
                  i.operands[0] = SpvCapabilityCooperativeMatrixNV;
            }).find("capability"),
            std::string::npos);
  // A matrix type without its Use.
  EXPECT_NE(broken([](auto& m) {
              for (auto& i : m.instructions)
                if (i.opcode == kOpTypeCooperativeMatrix) i.operands.resize(5);
            }).find("without its Use"),
            std::string::npos);
}

// `vktune import` validates a table's modules before storing them. Debian
// 12's validator rejects the KHR capability itself, so it refused every
// table a KHR device exported (session 36 on an H200): a KHR module now gets
// the structural check for its matrices and the validator for the rest.
TEST(CoopmatKhr, ImportValidationReadsTheMatricesAndTheRest) {
  const auto khr = vk::nv_to_khr_cooperative_matrix(compile(kGemm)).spirv;
  EXPECT_EQ(vk::spirv_validation_problem(khr), "");
  using namespace vk::coopmat_khr;
  auto validated = [&](auto&& change) {
    auto module = vk::spirv::split_module(khr);
    change(module);
    return vk::spirv_validation_problem(vk::spirv::join_module(module));
  };
  // A matrix rule broken: the multiply-add's A and B swapped.
  EXPECT_NE(validated([](auto& m) {
              for (auto& i : m.instructions)
                if (i.opcode == kOpMulAdd) std::swap(i.operands[2], i.operands[3]);
            }).find("not a MatrixA"),
            std::string::npos);
  // Something the validator sees, away from the matrices: no entry point.
  EXPECT_NE(validated([](auto& m) {
              std::erase_if(m.instructions, [](const auto& i) { return i.opcode == SpvOpEntryPoint; });
            }).find("OpEntryPoint"),
            std::string::npos);
}

}  // namespace
}  // namespace vktune::test
