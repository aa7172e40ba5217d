// The decode (matrix-vector) space of matmul_f32 and matmul_f16
// (kernels/dense_matvec.hpp, templates/matvec_dense.comp): which shapes it
// takes, its baseline and constraints on an H200-like and a CPU-like
// device, its plan, the gate's size, and on the test device (VKTUNE_TEST_DEVICE,
// else 0) variants at a shape with many chunks per row, where the loop runs
// many steps and the last one is partial.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;

const std::vector<std::string> kKernels{"matmul_f32", "matmul_f16"};

// A device like lavapipe: 8-wide subgroups only.
vk::DeviceInfo cpu_like() {
  auto d = testing_support::h200_like();
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 8;
  d.max_shared_memory_bytes = 32768;
  return d;
}

std::string define(const kernels::ShaderPlan& plan, const std::string& name) {
  for (const auto& [k, v] : plan.defines) {
    if (k == name) return v;
  }
  return "(none)";
}

class DenseMatvec : public testing::TestWithParam<std::string> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam()); }
  bool f16() const { return GetParam() == "matmul_f16"; }
};

TEST_P(DenseMatvec, DecodeShapesTakeTheMatrixVectorTemplate) {
  const auto& k = kernel();
  for (std::uint32_t m : {1u, 2u, 5u, 8u}) {
    const auto space = k.spaces().at(k.space_index({m, 4096, 4096}));
    EXPECT_EQ(space.name, "decode") << m;
    EXPECT_EQ(space.template_file, "matvec_dense.comp");
  }
  EXPECT_NE(k.spaces().at(k.space_index({9, 4096, 4096})).template_file, "matvec_dense.comp");
  // The check shapes reach the decode space with both the widest and
  // single-element loads.
  std::vector<int> vecs;
  for (const auto& shape : k.check_shapes()) {
    if (k.space_index(shape) != k.space_index({1, 1, 1})) continue;
    vecs.push_back(k.baseline(shape).at("VEC"));
  }
  EXPECT_NE(std::find(vecs.begin(), vecs.end(), 1), vecs.end());
  EXPECT_NE(std::find(vecs.begin(), vecs.end(), f16() ? 8 : 4), vecs.end());
}

TEST_P(DenseMatvec, BaselineRunsOnBothDevicesAndPlansTheElementType) {
  const auto& k = kernel();
  for (const Shape& shape : {Shape{1, 4096, 4096}, Shape{1, 4096, 14336}, Shape{8, 4096, 4096}, Shape{5, 37, 43}}) {
    const auto config = k.baseline(shape);
    EXPECT_EQ(k.constraint_violation(config, shape, testing_support::h200_like()).detail, "") << kernels::shape_to_string(shape);
    EXPECT_EQ(k.constraint_violation(config, shape, cpu_like()).detail, "") << kernels::shape_to_string(shape);
    const auto plan = k.plan(config, shape);
    EXPECT_EQ(plan.template_file, "matvec_dense.comp");
    EXPECT_EQ(define(plan, "ELEM_F16"), f16() ? "1" : "0");
    EXPECT_EQ(plan.local_size[0], static_cast<std::uint32_t>(config.at("WG_SIZE")));
    // All rows of x in one pass: workgroups over N by rows, over M by columns.
    const auto counts = kernels::workgroup_counts(plan.dispatch, shape);
    EXPECT_EQ(counts[0], (shape[1] + config.at("ROWS_PER_WG") - 1) / config.at("ROWS_PER_WG"));
    EXPECT_EQ(counts[1], 1u);
  }
  EXPECT_EQ(k.baseline({1, 4096, 4096}).at("VEC"), f16() ? 8 : 4);
  EXPECT_EQ(k.baseline({1, 4096, 4098}).at("VEC"), 1);
}

TEST_P(DenseMatvec, ConstraintsNameWhatIsWrong) {
  const auto& k = kernel();
  const Shape shape{1, 4096, 4096};
  const auto base = k.baseline(shape);
  const auto reason = [&](const std::string& name, int value, const vk::DeviceInfo& device) {
    auto c = base;
    c[name] = value;
    return k.constraint_violation(c, shape, device).detail;
  };
  // 32 lanes per row sum with shuffles inside a 32-wide subgroup, not an 8-wide one.
  auto wide = base;
  wide["THREADS_PER_ROW"] = 32;
  wide["ROWS_PER_WG"] = 2;
  EXPECT_EQ(k.constraint_violation(wide, shape, testing_support::h200_like()).detail, "");
  EXPECT_NE(k.constraint_violation(wide, shape, cpu_like()).detail.find("smallest subgroup"), std::string::npos);
  EXPECT_NE(reason("VEC", 1, testing_support::h200_like()).find("never slower"), std::string::npos);
  EXPECT_NE(reason("COLS_PER_PASS", 2, testing_support::h200_like()).find("idle"), std::string::npos);
  EXPECT_NE(reason("ROWS_PER_WG", 4, testing_support::h200_like()).find("row groups"), std::string::npos);
  auto small = k.baseline({1, 6, 4096});
  small["ROWS_PER_WG"] = 32;
  small["WG_SIZE"] = 256;
  EXPECT_NE(k.constraint_violation(small, {1, 6, 4096}, testing_support::h200_like()).detail.find("idle"), std::string::npos);
  // Eight x rows in two passes of four is allowed; in eight passes of one it is not.
  auto cols = k.baseline({8, 4096, 4096});
  cols["COLS_PER_PASS"] = 4;
  EXPECT_EQ(k.constraint_violation(cols, {8, 4096, 4096}, testing_support::h200_like()).detail, "");
  cols["COLS_PER_PASS"] = 1;
  EXPECT_NE(k.constraint_violation(cols, {8, 4096, 4096}, testing_support::h200_like()).detail.find("passes"),
            std::string::npos);
}

// Matrix-vector variants compile and run quickly on lavapipe; the cap keeps
// the gate's share of the CI budget small all the same.
TEST_P(DenseMatvec, GateSizeAtTheDecodeCheckShapes) {
  const auto& k = kernel();
  for (const auto& device : {testing_support::h200_like(), cpu_like()}) {
    for (const auto& shape : k.check_shapes()) {
      if (shape[0] > 8) continue;
      const auto n = enumerate_space(k, shape, device).valid.size();
      EXPECT_GT(n, 0u) << kernels::shape_to_string(shape);
      EXPECT_LE(n, 100u) << kernels::shape_to_string(shape);
    }
  }
}

// Many steps per row (K = 1000: 125 or 250 chunks), the last step partial,
// and N and M not multiples of the workgroup's rows and columns.
TEST_P(DenseMatvec, VariantsPassOnTheTestDeviceAtALongRow) {
  const auto& k = kernel();
  const Shape shape{3, 70, 1000};
  vk::Instance instance;
  std::vector<Config> configs{k.baseline(shape)};
  auto c = k.baseline(shape);
  c["THREADS_PER_ROW"] = 4;
  c["UNROLL"] = 4;
  c["ROWS_PER_WG"] = 32;
  c["COLS_PER_PASS"] = 2;
  configs.push_back(c);
  c["WG_SIZE"] = 128;
  c["THREADS_PER_ROW"] = 8;
  c["UNROLL"] = 1;
  c["ROWS_PER_WG"] = 16;
  c["COLS_PER_PASS"] = 4;
  configs.push_back(c);
  vk::Device device(instance, testing_support::test_device_index());
  for (const auto& config : configs) {
    ASSERT_EQ(k.constraint_violation(config, shape, device.info()).detail, "") << kernels::config_to_string(config);
  }
  const auto failures = testing_support::failing_variants(instance, k, shape, configs, 77);
  EXPECT_TRUE(failures.empty()) << failures.front();
}

INSTANTIATE_TEST_SUITE_P(Kernels, DenseMatvec, testing::ValuesIn(kKernels));

}  // namespace
}  // namespace vktune
