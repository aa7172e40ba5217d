#pragma once
// The decode (matrix-vector) space of the dense matmuls, matmul_f16 and
// matmul_f32, for M <= matmul::kMaxDecodeM: templates/matvec_dense.comp. The tiled
// spaces reuse W from shared memory across many rows of x; with one to eight
// rows there is nothing to reuse, and a tiled kernel at M = 1 idles most of
// its tile (measured on an H200 at 1×4096×4096 fp16: 46 µs, 16% of the read
// ceiling). This space streams W instead.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::kernels::dense_matvec {

// Elements per load, widest first: 16, 8 or 2 bytes of fp16 (f16), 16 or 4
// bytes of fp32. The widest that divides K is the only one varied.
std::vector<int> vec_widths(bool f16);

std::vector<Parameter> parameters(bool f16);

// `tiled` (the tiled space's check shapes) and the decode space's: M = 1
// with K a multiple of the widest load, and M = 5 (four columns per pass
// leave a partial pass, eight leave idle columns) with an odd K
// (single-element loads); N not a multiple of any rows-per-workgroup.
std::vector<Shape> check_shapes(std::vector<Shape> tiled);

// Eight invocations per row (within every subgroup size the shuffle
// reduction allows), 64 per workgroup, one row per row group, two chunks per
// step, all x rows at once: a plain matrix-vector kernel.
Config baseline(const Shape& shape, bool f16);

// Empty when the config can run, else why not (device limits excluded: the
// caller adds plan_limits_violation).
Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device, bool f16);

ShaderPlan plan(const Config& config, bool f16);

}  // namespace vktune::kernels::dense_matvec
