// The NV-to-KHR cooperative-matrix pass (harness/coopmat_khr.hpp) on every
// tensor-core template as vktune compiles it: for each registered kernel, at
// each of its check shapes, the first valid config of each tensor-core path
// on an H200-like device is compiled, and every stage that uses cooperative
// matrices goes through the pass; the structural check
// (harness/coopmat_khr_check.hpp) accepts each result. attention_prefill's
// is refused: it turns an accumulator into an operand, which KHR
// cooperative matrices cannot express without memory. Lavapipe has no
// cooperative matrices: these modules never run in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "harness/coopmat_khr.hpp"
#include "harness/coopmat_khr_check.hpp"
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
          const auto khr = vk::nv_to_khr_cooperative_matrix(stage.spirv);
          if (kernel->name() == "attention_prefill") {
            // Its scores (an Accumulator) are converted to fp16 and
            // multiplied as MatrixA (p = OPD(s)): KHR cooperative matrices
            // cannot change Use, so the pass refuses it, naming the conversion.
            EXPECT_NE(khr.refusal.find("a conversion keeps its source's"), std::string::npos) << khr.refusal;
            ++refused[kernel->name()];
            continue;
          }
          EXPECT_EQ(khr.refusal, "");
          if (!khr.refusal.empty()) continue;
          EXPECT_EQ(vk::khr_cooperative_matrix_problem(khr.spirv), "");
          EXPECT_GE(khr.matrix_types, 3u);  // a MatrixA, a MatrixB and an Accumulator at least
          ++modules[kernel->name()];
        }
      }
    }
  }
  // Every kernel with a tensor-core path had a module through the pass.
  EXPECT_FALSE(tensor_kernels.empty());
  EXPECT_EQ(refused.size(), 1u);
  for (const auto& name : tensor_kernels) EXPECT_TRUE(modules.count(name) || refused.count(name)) << name;
  for (const auto& [name, count] : modules) std::cout << name << ": " << count << " modules\n";
}

}  // namespace
}  // namespace vktune
