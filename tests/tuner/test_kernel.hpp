#pragma once
// A test-only kernel, y = 2·x + b[0], with deliberately broken variants:
//   BUG=0 correct; BUG=1 computes one element wrong; BUG=2 never writes the
//   last element (so only the NaN poison can catch it); BUG=3 does not
//   compile; BUG=4 also stores one float just past the end of y; BUG=5 adds
//   x[N], one past the end of x (zero where out-of-bounds reads return zero);
//   BUG=6 is wrong only when x[0] > 0; BUG=7 adds b[1] to y[0] and bumps b[1]
//   by 2^-20 each run (an output that drifts from run to run, well within the
//   tolerance); BUG=8 stores one float 4.4 KB past the end of y, BUG=9 adds
//   x[N + 100000], 400 KB past the end of x (both beyond a 4-KiB band);
//   BUG=10 stores one float 1 GiB past the end of y, BUG=11 adds x[N + 2^20],
//   4 MiB past the end of x (both beyond every guard band: only
//   bounds-instrumented validation sees them on lavapipe).
// WG is a real parameter; WG=2048 is rejected by the constraint. The space
// holds BUG 0..3 unless the kernel is made with other bugs and baseline.
#include <filesystem>
#include <fstream>
#include <random>

#include "common/error.hpp"
#include "harness/limit_rules.hpp"
#include "kernels/kernel.hpp"

namespace vktune::testing {

inline constexpr const char* kTestTemplate = R"(#version 450
layout(local_size_x = WG) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
#if BUG == 7
layout(std430, binding = 1) buffer B { float b[]; };
#else
layout(std430, binding = 1) readonly buffer B { float b[]; };
#endif
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Shape { uint N; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= N) return;
#if BUG == 2
  if (i == N - 1) return;
#endif
  float v = 2.0 * x[i] + b[0];
#if BUG == 1
  if (i == N / 2) v += 0.25;
#endif
#if BUG == 3
  this line is not GLSL;
#endif
#if BUG == 4
  if (i == N - 1) y[N] = v;
#endif
#if BUG == 5
  if (i == 0) v += x[N];
#endif
#if BUG == 6
  if (i == N / 2 && x[0] > 0.0) v += 0.25;
#endif
#if BUG == 8
  if (i == N - 1) y[N + 1100] = v;
#endif
#if BUG == 9
  if (i == 0) v += x[N + 100000];
#endif
#if BUG == 10
  if (i == N - 1) y[N + 268435456u] = v;
#endif
#if BUG == 11
  if (i == 0) v += x[N + 1048576u];
#endif
#if BUG == 7
  if (i == 0) {
    v += b[1];
    b[1] += 1.0 / 1048576.0;
  }
#endif
  y[i] = v;
}
)";

class TestScaleKernel : public kernels::Kernel {
 public:
  explicit TestScaleKernel(std::vector<int> bugs = {0, 1, 2, 3}, int baseline_bug = 0)
      : bugs_(std::move(bugs)), baseline_bug_(baseline_bug) {}
  std::string name() const override { return "test_scale"; }
  std::string description() const override { return "y = 2x + b (tests only)"; }
  std::vector<std::string> shape_dims() const override { return {"N"}; }
  void validate_shape(const kernels::Shape& shape) const override {
    if (shape.size() != 1) throw Error(ErrorKind::usage, "test_scale has one dimension");
  }
  std::vector<kernels::Shape> default_shapes() const override { return {{1000}}; }
  std::vector<kernels::Shape> check_shapes() const override { return {{77}}; }
  std::vector<kernels::Space> build_spaces() const override {
    kernels::Space space{"all", "test_scale.comp", {}};
    space.parameters = {{"WG", {32, 64, 2048}, "workgroup size"}, {"BUG", bugs_, "which bug"}};
    space.bindings = {{"x", kernels::BindingRole::input, kernels::size_rule(4, {0})},
                      {"b", kernels::BindingRole::weights, kernels::size_rule(8, {})},
                      {"y", kernels::BindingRole::output, kernels::size_rule(4, {0})}};
    return {space};
  }
  kernels::Config baseline(const kernels::Shape&) const override { return {{"BUG", baseline_bug_}, {"WG", 64}}; }
  Violation constraint_violation(const kernels::Config& c, const kernels::Shape&,
                                 const vk::DeviceInfo& d) const override {
    if (static_cast<std::uint32_t>(c.at("WG")) > d.max_workgroup_invocations) {
      return vk::limits::kWorkgroupInvocations("WG exceeds the device");
    }
    return {};
  }
  kernels::ShaderPlan plan(const kernels::Config& c, const kernels::Shape&) const override {
    kernels::ShaderPlan p;
    p.template_file = "test_scale.comp";
    p.defines = {{"WG", std::to_string(c.at("WG"))}, {"BUG", std::to_string(c.at("BUG"))}};
    p.local_size = {static_cast<std::uint32_t>(c.at("WG")), 1, 1};
    p.dispatch = {kernels::DispatchAxis{0, static_cast<std::uint32_t>(c.at("WG"))}, kernels::DispatchAxis{},
                  kernels::DispatchAxis{}};
    return p;
  }
  kernels::Problem make_problem(const kernels::Shape& shape, const kernels::Inputs& inputs) const override {
    std::mt19937_64 rng(inputs.seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const std::size_t n = shape[0];
    std::vector<float> x(n);
    for (auto& v : x) v = dist(rng);
    const float b = dist(rng);
    kernels::Problem p;
    p.shape = shape;
    auto bytes = [](const std::vector<float>& v) {
      return std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(v.data()),
                                       reinterpret_cast<const std::uint8_t*>(v.data() + v.size()));
    };
    p.buffers.push_back({"x", bytes(x), false, false});
    p.buffers.push_back({"b", bytes({b, 0.0f}), false, true});  // b[1]: BUG=7's drift
    p.buffers.push_back({"y", std::vector<std::uint8_t>(n * 4), true, false});
    p.output_index = 2;
    for (float v : x) p.expected.push_back(2.0 * v + b);
    return p;
  }
  kernels::Tolerance tolerance(const kernels::Shape&) const override { return {1e-6, 1e-5}; }
  kernels::Metrics metrics(const kernels::Shape& s) const override { return {8.0 * s[0], 2.0 * s[0]}; }
  std::uint64_t device_bytes(const kernels::Shape& s) const override { return 8ull * s[0] + 8; }

 private:
  std::vector<int> bugs_;
  int baseline_bug_;
};

// A directory holding the test template, removed on destruction.
class TestTemplateDir {
 public:
  TestTemplateDir() {
    dir_ = std::filesystem::temp_directory_path() / ("vktune-test-templates-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_ / "include");
    std::ofstream(dir_ / "test_scale.comp") << kTestTemplate;
  }
  ~TestTemplateDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace vktune::testing
