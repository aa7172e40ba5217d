// Which cooperative-matrix extension the tensor-core modules use
// (harness/coopmat_choice.hpp): the choice per device and request, the
// usage error of a request a device cannot serve, and a process whose device
// takes KHR compiling NV templates into KHR modules with a compiler version
// of their own. The process state is what is tested, so this file is a test
// program of its own.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "harness/coopmat_choice.hpp"
#include "harness/coopmat_khr.hpp"
#include "harness/coopmat_khr_check.hpp"
#include "harness/coopmat_khr_spec.hpp"
#include "harness/shader_interface.hpp"

namespace vktune::test {
namespace {

using vk::CooperativeMatrixExtension;
using vk::CoopmatRequest;

vk::DeviceInfo device(bool nv, bool khr) {
  vk::DeviceInfo d;
  d.index = 3;
  d.name = "a test GPU";
  d.features.cooperative_matrix_nv = nv;
  d.features.cooperative_matrix_khr = khr;
  return d;
}

TEST(CoopmatChoice, KhrWhereOfferedElseNvAndARequestForces) {
  const auto both = device(true, true).features, nv = device(true, false).features,
             khr = device(false, true).features, neither = device(false, false).features;
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::automatic, both), CooperativeMatrixExtension::khr);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::automatic, khr), CooperativeMatrixExtension::khr);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::automatic, nv), CooperativeMatrixExtension::nv);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::automatic, neither), CooperativeMatrixExtension::none);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::khr, both), CooperativeMatrixExtension::khr);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::nv, both), CooperativeMatrixExtension::nv);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::khr, nv), CooperativeMatrixExtension::none);
  EXPECT_EQ(vk::cooperative_matrix_for(CoopmatRequest::nv, khr), CooperativeMatrixExtension::none);
}

TEST(CoopmatChoice, AForcedExtensionTheDeviceLacksNamesWhatItOffers) {
  auto d = device(true, false);
  d.cooperative_matrix = vk::cooperative_matrix_for(CoopmatRequest::khr, d.features);
  EXPECT_EQ(vk::cooperative_matrix_refusal(CoopmatRequest::khr, d),
            "--coopmat khr: device 3 (a test GPU) offers no VK_KHR_cooperative_matrix; it offers "
            "VK_NV_cooperative_matrix");
  auto bare = device(false, false);
  EXPECT_NE(vk::cooperative_matrix_refusal(CoopmatRequest::nv, bare).find("it offers neither cooperative-matrix extension"),
            std::string::npos);
  // Automatic asks for nothing in particular: no refusal, tensor cores off.
  EXPECT_EQ(vk::cooperative_matrix_refusal(CoopmatRequest::automatic, bare), "");
  EXPECT_EQ(vk::parse_coopmat_request("khr", "--coopmat"), CoopmatRequest::khr);
  EXPECT_EQ(vk::parse_coopmat_request("", "VKTUNE_COOPMAT"), CoopmatRequest::automatic);
  try {
    (void)vk::parse_coopmat_request("amd", "VKTUNE_COOPMAT");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("VKTUNE_COOPMAT is 'amd'"), std::string::npos) << e.what();
  }
}

const char* kGemm = R"(#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, binding = 2) buffer Y { float y[]; };
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma, mb;
  coopMatLoadNV(ma, a, 0, 16, false);
  coopMatLoadNV(mb, b, 0, 16, true);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  coopMatStoreNV(coopMatMulAddNV(ma, mb, acc), y, 0, 16, false);
}
)";

bool declares_capability(const std::vector<std::uint32_t>& spirv, std::uint32_t capability) {
  for (std::size_t at = 5; at < spirv.size() && (spirv[at] & 0xffff) == 17; at += spirv[at] >> 16) {  // OpCapability
    if (spirv[at + 1] == capability) return true;
  }
  return false;
}

// One test, in order: before a device fixes the extension the process
// compiles NV; a KHR device fixes KHR for every later compile (and for the
// worker processes it starts); a device that would take NV is then refused.
TEST(CoopmatChoice, AProcessWhoseDeviceTakesKhrCompilesThroughThePass) {
  ::unsetenv(vk::kCoopmatVariable);
  const auto nv_version = vk::compiler_version();
  const auto nv_module = vk::compile_compute_shader({"gemm.comp", kGemm}, vk::MapIncludes({}), {});
  EXPECT_TRUE(declares_capability(nv_module, 5357));  // CooperativeMatrixNV
  EXPECT_EQ(nv_version.find("coopmat"), std::string::npos) << nv_version;
  {
    std::string why0;
    FILE* f = fopen("/tmp/nv.spv", "wb"); fwrite(nv_module.data(), 4, nv_module.size(), f); fclose(f);
    EXPECT_TRUE(vk::reflect_interface(nv_module, why0).has_value()) << why0;
  }

  auto amd = device(false, true);
  amd.cooperative_matrix = vk::cooperative_matrix_for(vk::coopmat_request(), amd.features);
  ASSERT_EQ(amd.cooperative_matrix, CooperativeMatrixExtension::khr);
  vk::note_device_cooperative_matrix(amd);
  EXPECT_EQ(vk::coopmat_spirv(), CooperativeMatrixExtension::khr);
  ASSERT_NE(std::getenv(vk::kCoopmatVariable), nullptr);
  EXPECT_STREQ(std::getenv(vk::kCoopmatVariable), "khr");
  const auto khr_version = vk::compiler_version();
  EXPECT_EQ(khr_version, nv_version + " +coopmat-khr-pass." + std::to_string(vk::kCoopmatKhrPassVersion));

  const auto khr_module = vk::compile_compute_shader({"gemm.comp", kGemm}, vk::MapIncludes({}), {});
  EXPECT_TRUE(declares_capability(khr_module, vk::coopmat_khr::kCapability));
  EXPECT_FALSE(declares_capability(khr_module, 5357));
  EXPECT_EQ(vk::khr_cooperative_matrix_problem(khr_module), "");
  // The interface check every pipeline passes reads KHR modules too.
  std::string why;
  const auto interface = vk::reflect_interface(khr_module, why);
  ASSERT_TRUE(interface.has_value()) << why;
  EXPECT_EQ(interface->bindings.size(), 3u);

  auto nvidia = device(true, false);
  nvidia.cooperative_matrix = CooperativeMatrixExtension::nv;
  try {
    vk::note_device_cooperative_matrix(nvidia);
    FAIL() << "a second extension in one process was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("already compiles for VK_KHR_cooperative_matrix"), std::string::npos) << e.what();
  }
}

// A matrix in two roles cannot be written for KHR: the compile fails with
// the pass's reason, which the tuner records as that variant's failure.
TEST(CoopmatChoice, AModuleThePassRefusesIsACompileErrorWithItsReason) {
  auto amd = device(false, true);
  amd.cooperative_matrix = CooperativeMatrixExtension::khr;
  vk::note_device_cooperative_matrix(amd);
  std::string square = kGemm;
  square.replace(square.find("coopMatMulAddNV(ma, mb, acc)"), 28, "coopMatMulAddNV(ma, ma, acc)");
  try {
    (void)vk::compile_compute_shader({"square.comp", square}, vk::MapIncludes({}), {});
    FAIL() << "compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::compile);
    EXPECT_NE(std::string(e.what()).find("the NV-to-KHR cooperative-matrix pass refused square.comp"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vktune::test
