// A spec's GGUF weights buffer, for every quantized type the reference
// library dequantizes (read from all_ggml_types, so a type added there is
// tested here without a list of its own): the spec loads, `gguf_random`
// fills the buffer with whole blocks of that type, and the matmul reference
// is x · Wᵀ over those blocks dequantized, accumulated in double. CPU only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "reference/dequantize.hpp"
#include "reference/gguf_types.hpp"
#include "spec_test_support.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;
using namespace spec_test;

// y (n) = W (n rows of k, GGUF `type`) · x (k), one workgroup a row.
json gguf_matvec_spec(const std::string& type) {
  auto spec = valid_json();
  spec["name"] = "t_gguf_matvec";
  spec["shape"] = json::array({"n", "k"});
  spec["default_shapes"] = json::array({json::array({3, 512})});
  spec["check_shapes"] = json::array({json::array({2, 256})});
  spec["subspaces"][0]["stages"][0]["workgroups"] = json::array({{{"dim", "n"}, {"per_workgroup", "1"}}, 1, 1});
  spec["buffers"] = json::array({{{"name", "W"}, {"binding", 0}, {"type", type}, {"size", "n * k"}, {"role", "weights"}},
                                 {{"name", "x"}, {"binding", 1}, {"type", "f32"}, {"size", "k"}, {"role", "input"}},
                                 {{"name", "y"}, {"binding", 2}, {"type", "f32"}, {"size", "n"}, {"role", "output"}}});
  spec["push_constants"] = json::array({{{"name", "k"}, {"value", "k"}}});
  spec["metrics"] = {{"bytes", "n * k"}, {"flops", "2 * n * k"}};
  spec["reference"] = {{"op", "matmul"}, {"x", "x"}, {"w", "W"}, {"y", "y"}, {"m", 1}, {"n", "n"}, {"k", "k"}};
  return spec;
}

TEST(SpecGgufBuffers, EveryQuantizedTypeLoadsAndItsMatmulDequantizes) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Shape shape{3, 512};
  const std::size_t n = shape[0], k = shape[1];
  int types = 0;
  for (const ref::GgmlType type : ref::all_ggml_types()) {
    if (!ref::is_quantized(type)) continue;
    ++types;
    const std::string name(ref::type_name(type));
    SCOPED_TRACE(name);
    auto spec = gguf_matvec_spec(name);
    if (types % 2 == 0) spec["buffers"][0]["init"] = {{"kind", "gguf_random"}};  // the default, spelled out
    const SpecKernel kernel(parse_spec(spec.dump(), "my/spec.json", reader()));
    for (const InputKind kind : {InputKind::random, InputKind::adversarial}) {
      const auto problem = kernel.make_problem(shape, Inputs(seed, kind));
      ASSERT_EQ(problem.buffers.size(), 3u);
      EXPECT_EQ(problem.output_index, 2u);
      const auto& w_bytes = problem.buffers[0].bytes;
      ASSERT_EQ(w_bytes.size(), n * ref::row_bytes(type, k));
      EXPECT_TRUE(problem.buffers[0].is_weights);
      std::vector<float> x(k);
      ASSERT_EQ(problem.buffers[1].bytes.size(), 4 * k);
      std::memcpy(x.data(), problem.buffers[1].bytes.data(), 4 * k);
      const auto w = ref::dequantize_rows(type, w_bytes.data(), n, k);
      ASSERT_EQ(problem.expected.size(), n);
      for (std::size_t row = 0; row < n; ++row) {
        double sum = 0;  // in order over k, as the reference accumulates
        bool nonzero = false;
        for (std::size_t t = 0; t < k; ++t) {
          ASSERT_TRUE(std::isfinite(w[row * k + t])) << "row " << row << " weight " << t;
          nonzero = nonzero || w[row * k + t] != 0.0f;
          sum += static_cast<double>(x[t]) * static_cast<double>(w[row * k + t]);
        }
        EXPECT_TRUE(nonzero) << "row " << row;
        EXPECT_EQ(problem.expected[row], sum) << "row " << row;
      }
      // Another seed draws other blocks.
      EXPECT_NE(kernel.make_problem(shape, Inputs(seed + 1, kind)).buffers[0].bytes, w_bytes);
    }
  }
  EXPECT_GE(types, 11);  // Q4_0, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, IQ4_NL, IQ4_XS at least
}

// A type the library does not know is refused with the ones it does, from
// the library's own list; sizes that are not whole blocks are refused too.
TEST(SpecGgufBuffers, UnknownTypesAndPartialBlocksAreOneLine) {
  expect_error(gguf_matvec_spec("Q4_1"), "/buffers/0/type", "GGUF block type: " + ref::ggml_type_list(true) + ")");
  auto spec = gguf_matvec_spec("Q3_K");
  spec["check_shapes"] = json::array({json::array({2, 96})});  // 96 weights: three IQ4_NL blocks, no Q3_K one
  const auto message = error_of(spec);
  EXPECT_NE(message.find("not a whole number of Q3_K blocks of 256"), std::string::npos) << message;
  spec["buffers"][0]["type"] = "IQ4_NL";
  EXPECT_NO_THROW(SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())));
}

}  // namespace
}  // namespace vktune::kernels::spec
