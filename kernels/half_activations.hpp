#pragma once
// The fp16-activation kernels of the GGUF-quantized matmul family
// (matmul_q4_0_f16, matmul_q8_0_f16, matmul_q4k_f16: kernels/quant_matmul.hpp
// with Activations::fp16): x and y in fp16 storage, the weights as the fp32
// kernels have them, every path of the family's space serving them through
// one define. Each template includes templates/include/matmul_xy.glsl,
// which with ACT_F16 declares x and y as halves, widens x to fp32 as it is
// read and rounds y to fp16 as it is stored; the arithmetic and the
// accumulation stay fp32 (the tensor-core path stages x's halves as they
// are). What the family adds for them lives here: the define, the device
// feature, the buffers and the tolerance.
//
// fp32 accumulation only, by measurement: summing a decode product's
// partial sums in fp16 (each run of 4 products added to an fp16 sum, 8 to 64
// invocations per row, their sums added in fp32) gave relative L2 errors of
// 0.7e-3 to 2.0e-3 at K = 4096 and 1.2e-3 to 3.6e-3 at K = 14336 (Q4_0,
// Q8_0 and Q4_K rows of the kernel tests' random blocks, x in [-1, 1)
// rounded to fp16; a CPU model of the templates' loop), 3 to 18 times the
// whole error of fp32 sums with an fp16 y (2.0e-4 to 2.1e-4 on lavapipe),
// and a partial sum past 65504 is infinite. The decode products are bound
// by the weights' bytes, which fp16 sums do not shrink.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::half_activations {

// The define that makes a family template read fp16 x and write fp16 y.
inline constexpr const char* kDefine = "ACT_F16";

// Adds ACT_F16=1 to every stage that reads x or writes y (all but the
// dequantizing first stage of DEQUANT_STAGE=1, which reads only W).
void add_define(std::vector<ShaderPlan>& stages);

// "" where the device reads and writes fp16 storage buffers, else why not.
Violation device_violation(const vk::DeviceInfo& device);

// x of `m`×`k` values rounded to fp16 (ties to even) in place, as the
// buffer "x" of their bits: the reference then multiplies what the device
// reads.
HostBuffer rounded_x(std::vector<float>& x);

// The tolerance of a path whose fp32-activation kernel is held to `fp32`:
// its own error, which fp16 x can only shrink (x enters exactly, and the
// tensor-core path rounds x to fp16 anyway), plus y's rounding to fp16, at
// most 2^-11 (4.9e-4) of each value and so of ||y|| and max |y|. Measured
// on lavapipe at 1x4096x14336, 4x512x4096 and 64x256x4096: the fp32
// paths 2.0e-4 to 2.1e-4 relative L2 and 2.1e-4 to 4.2e-4 of max |y|
// (held to 5.9e-4 and 1.5e-3), X_QUANT=1 3.7e-3 to 4.5e-3 (as with fp32
// x; held to 2.05e-2). A wrong scale or block still gives 1e-2 and more.
Tolerance tolerance(const Tolerance& fp32);

}  // namespace vktune::kernels::half_activations
