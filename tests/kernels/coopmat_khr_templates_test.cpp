// The NV-to-KHR cooperative-matrix pass (harness/coopmat_khr.hpp) on every
// tensor-core template as vktune compiles it: for each registered kernel, at
// each of its check shapes, the first valid config of each tensor-core path
// on an H200-like device is compiled, and every stage that uses cooperative
// matrices is compiled again as a process compiling for KHR compiles it
// (VKTUNE_COOPMAT_KHR defined) and goes through the pass; the structural
// check (harness/coopmat_khr_check.hpp) and the import's validation
// (harness/spirv_validation.hpp) accept each result.
// attention_prefill's NV module is refused: it turns an accumulator into an
// operand, which KHR cooperative matrices cannot express without memory, so
// its template goes through shared memory under VKTUNE_COOPMAT_KHR. SPIRV-Cross reads
// each module's interface (NV and KHR), which the variant's layout serves. Lavapipe has no
// cooperative matrices: these modules never run in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "harness/coopmat_khr.hpp"
#include "harness/coopmat_choice.hpp"
#include "harness/coopmat_khr_check.hpp"
#include "harness/shader_interface.hpp"
#include "harness/spirv_validation.hpp"
#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"

namespace vktune {
namespace {

// SPIR-V declaring the NV cooperative-matrix capability (OpCapability 5357).
bool uses_nv_matrices(const std::vector<std::uint32_t>& spirv) {
  for (std::size_t at = 5; at + 1 < spirv.size(); at += spirv[at] >> 16) {
    if ((spirv[at] & 0xffffu) == 17 && spirv[at + 1] == 5357) return true;
    if ((spirv[at] >> 16) == 0) break;
  }
  return false;
}

TEST(CoopmatKhrTemplates, EveryTensorCoreTemplatePassesThroughThePass) {
  const auto device = testing_support::h200_like_tensor_cores();
  const auto templates = TemplateLibrary::embedded();
  std::map<std::string, std::size_t> modules, refused;  // kernel -> modules passed, refused
  std::set<std::string> tensor_kernels;
  for (const auto* kernel : kernels::all_kernels()) {
    std::set<std::string> paths_done;
    for (const auto& shape : kernel->check_shapes()) {
      const auto space = enumerate_space(*kernel, shape, device);
      const auto& declared = kernel->spaces().at(kernel->space_index(shape));
      for (const auto& config : space.valid) {
        const auto* path = declared.path_of(config);
        if (!path || !path->tensor_cores || !paths_done.insert(path->name).second) continue;
        tensor_kernels.insert(kernel->name());
        const auto what = kernel->name() + " " + kernels::shape_to_string(shape) + " [" +
                          kernels::config_to_string(config) + "]";
        SCOPED_TRACE(what);
        auto variant = describe_variant(*kernel, config, shape, templates);
        compile_variant(variant, templates);
        for (const auto& stage : variant.stages) {
          if (!uses_nv_matrices(stage.spirv)) continue;
          // The interface check every pipeline passes reads the module
          // (SPIRV-Cross through its twin without matrices) and finds the
          // variant's layout serving it.
          const auto buffers = static_cast<std::uint32_t>(declared.bindings.size());
          const auto push_bytes = static_cast<std::uint32_t>(
              4 * (stage.plan.push_constants.empty() ? shape.size() : stage.plan.push_constants.size()));
          std::string unread;
          const auto nv_interface = vk::reflect_interface(stage.spirv, unread);
          ASSERT_TRUE(nv_interface.has_value()) << unread;
          EXPECT_EQ(vk::interface_mismatch(*nv_interface, buffers, {}, push_bytes, false), "");
          // As a process compiling for KHR compiles it: with
          // VKTUNE_COOPMAT_KHR defined, then through the pass.
          auto options = vk::CompileOptions{};
          options.defines = stage.plan.defines;
          options.defines.emplace_back(vk::kCoopmatKhrDefine, "1");
          const auto khr_source = vk::compile_compute_shader(
              {stage.plan.template_file, templates.text(stage.plan.template_file)}, templates, options);
          const auto khr = vk::nv_to_khr_cooperative_matrix(khr_source);
          if (kernel->name() == "attention_prefill") {
            // Its NV module converts the scores (an Accumulator) to fp16
            // and multiplies them as MatrixA (p = OPD(s)): KHR cooperative
            // matrices cannot change Use, so the pass refuses that module,
            // naming the conversion; the KHR one goes through shared memory.
            const auto nv_only = vk::nv_to_khr_cooperative_matrix(stage.spirv);
            EXPECT_NE(nv_only.refusal.find("a conversion keeps its source's"), std::string::npos) << nv_only.refusal;
            ++refused[kernel->name()];
          }
          EXPECT_EQ(khr.refusal, "");
          if (!khr.refusal.empty()) continue;
          EXPECT_EQ(vk::khr_cooperative_matrix_problem(khr.spirv), "");
          // What `vktune import` asks of a table's modules: Debian 12's
          // validator refused every KHR one (capability 6022) until it read
          // the twin without matrices; the NV module it reads whole.
          EXPECT_EQ(vk::spirv_validation_problem(stage.spirv), "");
          EXPECT_EQ(vk::spirv_validation_problem(khr.spirv), "");
          EXPECT_GE(khr.matrix_types, 3u);  // a MatrixA, a MatrixB and an Accumulator at least
          const auto khr_interface = vk::reflect_interface(khr.spirv, unread);
          ASSERT_TRUE(khr_interface.has_value()) << unread;
          EXPECT_EQ(khr_interface->bindings.size(), nv_interface->bindings.size());
          EXPECT_EQ(khr_interface->push_constant_bytes, nv_interface->push_constant_bytes);
          ++modules[kernel->name()];
        }
      }
    }
  }
  // Every kernel with a tensor-core path had a module through the pass.
  EXPECT_FALSE(tensor_kernels.empty());
  EXPECT_EQ(refused.size(), 1u);  // attention_prefill's NV module
  for (const auto& name : tensor_kernels) EXPECT_TRUE(modules.count(name)) << name;
  for (const auto& [name, count] : modules) std::cout << name << ": " << count << " modules\n";
}

}  // namespace
}  // namespace vktune
