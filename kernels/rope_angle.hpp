#pragma once
// What every kernel that turns values by a rotary position embedding's angle
// shares (rope.cpp's kernels and the products that rotate their outputs,
// quant_matmul_epilogue.cpp; templates/include/rope_angle.glsl): the
// frequency base their problems use, the largest position they are checked
// at, and the tolerance that angle allows.
#include <cstdint>

#include "kernels/kernel.hpp"

namespace vktune::kernels::rope_angle {

// The frequency base the problems use: Llama 3's (the kernels read the model's as an input).
constexpr float kFreqBase = 500000.0f;
// Positions are checked up to this (exclusive); the tolerance is argued for them.
constexpr std::int32_t kMaxPosition = 8192;

// The angle is the limit: theta = p * base^(-2i/d) in fp32 at p up to 8192
// is off by up to half an ulp of 8192 (5e-4 rad) from its rounding, plus
// the driver's exp2 (a few ulps of the frequency: ~1e-3 rad at p = 8192);
// after the range reduction sin/cos add ~1e-6 in practice (2^-11 allowed
// by the Vulkan spec). Rotated values of size ~1 are then off by ~1e-3 at
// worst and ~2e-4 in rms. A wrong pair, layout, position or frequency moves
// values by O(1). Kernels that store into an fp16 cache keep these bounds:
// their positions are below kv_len <= 8192, and the fp16 store rounds by at
// most 2^-11 of a value (half an fp16 ulp). Kernel and reference both round
// (the reference to nearest even, as packHalf2x16 does on the drivers we
// know), so they differ by one more fp16 ulp at most (2^-10 relative: 1.4e-3
// at the largest rotated value, sqrt(2)), and only where their fp32 values
// straddle a rounding boundary; a driver that truncates instead is off by up
// to an ulp everywhere, ~3.5e-4 in rms. max_rel stays below ~2e-3 and rel_l2
// below ~8e-4 even then.
constexpr Tolerance kTolerance{1e-3, 5e-3};

}  // namespace vktune::kernels::rope_angle
