#pragma once
// The GGUF-quantized matmuls of kernels/quant_matmul.hpp as the tests of
// quant_matmul_test.cpp (spaces, plans, constraints) and
// quant_matmul_device_test.cpp (on the test device) take them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "reference/gguf_types.hpp"

namespace vktune::quant_matmul_testing {

struct Format {
  std::string kernel;
  ref::GgmlType type;
  std::uint32_t block_weights;
  std::uint32_t block_bytes;
  int qtype;  // QTYPE of templates/include/quant_block.glsl
};

// One format a line.
// clang-format off
inline const std::vector<Format> kFormats = {
    {"matmul_q8_0", ref::GgmlType::Q8_0, 32, 34, 2},
    {"matmul_q4_0", ref::GgmlType::Q4_0, 32, 18, 1},
    {"matmul_q6k", ref::GgmlType::Q6_K, 256, 210, 4},
    {"matmul_q5k", ref::GgmlType::Q5_K, 256, 176, 3},
    {"matmul_q4k", ref::GgmlType::Q4_K, 256, 144, 5},
};
// clang-format on

// The fp16-activation kernels (x and y fp16: kernels/half_activations.hpp),
// one a line; each is its fp32 sibling's name plus "_f16".
// clang-format off
inline const std::vector<Format> kHalfFormats = {
    {"matmul_q4_0_f16", ref::GgmlType::Q4_0, 32, 18, 1},
    {"matmul_q8_0_f16", ref::GgmlType::Q8_0, 32, 34, 2},
    {"matmul_q4k_f16", ref::GgmlType::Q4_K, 256, 144, 5},
};
// clang-format on

inline std::string label(const std::string& name, const kernels::Shape& shape) {
  return name + " " + kernels::shape_to_string(shape);
}

inline std::string format_name(const ::testing::TestParamInfo<Format>& info) { return info.param.kernel; }

}  // namespace vktune::quant_matmul_testing
