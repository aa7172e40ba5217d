// The launch facts every registered kernel declares (kernels/launch_contract.hpp),
// checked against what the kernel actually does, without a device: each
// buffer make_problem builds is the binding its space declares, with that
// role and exactly the bytes the size rule gives; the spaces' shape classes
// pick the space, and no two hold the same shape; paths name real dimensions
// and bindings; every variant's contract has stages whose dispatch rules and
// push constants fit the shape and are the words the harness pushes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"
#include "kernels/variant_contract.hpp"

namespace vktune {
namespace {

using kernels::BindingRole;
using kernels::Kernel;
using kernels::Shape;

class LaunchContract : public ::testing::TestWithParam<std::string> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam()); }
  std::string label(const Shape& s) const { return GetParam() + " " + kernels::shape_to_string(s); }
};

TEST_P(LaunchContract, ProblemBuffersAreTheDeclaredBindings) {
  for (const auto& shape : kernel().check_shapes()) {
    const auto& space = kernel().spaces().at(kernel().space_index(shape));
    const auto problem = kernel().make_problem(shape, 7);
    ASSERT_EQ(problem.buffers.size(), space.bindings.size()) << label(shape);
    int outputs = 0;
    for (std::size_t b = 0; b < problem.buffers.size(); ++b) {
      const auto& declared = space.bindings[b];
      const auto& built = problem.buffers[b];
      EXPECT_EQ(built.name, declared.name) << label(shape) << " binding " << b;
      EXPECT_EQ(built.bytes.size(), declared.size.bytes(shape))
          << label(shape) << " binding " << b << " (" << declared.name << ": "
          << declared.size.describe(kernel().shape_dims()) << ")";
      EXPECT_EQ(built.is_output, declared.role == BindingRole::output) << label(shape) << " " << declared.name;
      outputs += declared.role == BindingRole::output;
    }
    // Every output is compared: the first, then the others (Problem::more_outputs).
    EXPECT_EQ(outputs, 1 + static_cast<int>(problem.more_outputs.size())) << label(shape);
    EXPECT_EQ(space.bindings.at(problem.output_index).role, BindingRole::output) << label(shape);
    for (const auto index : problem.more_outputs) {
      EXPECT_NE(index, problem.output_index) << label(shape);
      EXPECT_EQ(space.bindings.at(index).role, BindingRole::output) << label(shape);
    }
  }
}

TEST_P(LaunchContract, ShapeClassesPickTheSpaceAndDoNotOverlap) {
  auto shapes = kernel().default_shapes();
  for (const auto& s : kernel().check_shapes()) shapes.push_back(s);
  for (const auto& shape : shapes) {
    int holding = 0;
    for (const auto& space : kernel().spaces()) holding += kernels::in_shape_class(space.shape_class, shape);
    EXPECT_EQ(holding, 1) << label(shape) << " is held by " << holding << " spaces";
    const auto& chosen = kernel().spaces().at(kernel().space_index(shape));
    EXPECT_TRUE(kernels::in_shape_class(chosen.shape_class, shape)) << label(shape);
    for (const auto& bound : chosen.shape_class) {
      EXPECT_LT(static_cast<std::size_t>(bound.dim), shape.size()) << label(shape);
      EXPECT_LE(bound.min, bound.max) << label(shape);
    }
  }
}

TEST_P(LaunchContract, PathsNameRealDimensionsAndBindings) {
  const auto dims = kernel().shape_dims().size();
  for (const auto& space : kernel().spaces()) {
    EXPECT_FALSE(space.bindings.empty()) << GetParam() << " space " << space.name << " declares no bindings";
    for (const auto& path : space.effective_paths()) {
      for (int d : path.specialized_dims) {
        EXPECT_GE(d, 0) << GetParam() << " " << path.name;
        EXPECT_LT(static_cast<std::size_t>(d), dims) << GetParam() << " " << path.name;
      }
      for (const auto& unused : path.unused_bindings) {
        bool found = false;
        for (const auto& b : space.bindings) found = found || b.name == unused;
        EXPECT_TRUE(found) << GetParam() << " " << path.name << " names no binding '" << unused << "'";
      }
    }
  }
}

TEST_P(LaunchContract, BaselineContractsFitTheirShapes) {
  auto shapes = kernel().default_shapes();
  for (const auto& s : kernel().check_shapes()) shapes.push_back(s);
  for (const auto& shape : shapes) {
    const auto config = kernel().baseline(shape);
    const auto contract = kernels::launch_contract(kernel(), config, shape);
    EXPECT_EQ(contract.shape_dims, kernel().shape_dims());
    EXPECT_TRUE(kernels::in_shape_class(contract.shape_class, shape)) << label(shape);
    ASSERT_FALSE(contract.stages.empty()) << label(shape);
    const auto& space = kernel().spaces().at(kernel().space_index(shape));
    EXPECT_EQ(contract.bindings.size(), space.bindings.size()) << label(shape);
    // The baseline belongs to a path of its space (a config outside every
    // path would be a config no search proposes).
    if (!space.paths.empty()) {
      EXPECT_NE(space.path_of(config), nullptr) << label(shape);
    }
    for (const auto& stage : contract.stages) {
      // What the contract tells the runtime to push is what the harness pushed when it tuned.
      EXPECT_EQ(kernels::push_constant_words(contract.push_constants, shape),
                stage.push_constants.empty() ? shape : stage.push_constants)
          << label(shape);
      EXPECT_FALSE(stage.template_file.empty()) << label(shape);
      for (const auto& axis : stage.dispatch) {
        EXPECT_LT(axis.shape_dim, static_cast<int>(shape.size())) << label(shape);
        EXPECT_GT(axis.divisor, 0u) << label(shape);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKernel, LaunchContract, ::testing::ValuesIn(testing_support::kernel_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vktune
