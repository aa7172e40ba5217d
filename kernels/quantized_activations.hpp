#pragma once
// The 8-bit-activation decode path that the QuantMatmul kernels
// (templates/matvec_quant_q8.comp and the formats' dedicated layouts) offer as
// the parameter value X_QUANT=1: x quantized per 32 values into shared memory
// (templates/include/x_q8.glsl), X_SEGMENT values of each x row at a time, the
// weights entering integer dot products. What every template shares lives
// here; each adds the constraints of its own.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels {

// X_QUANT {0, 1} and X_SEGMENT {4096, 16384}, for a decode space.
std::vector<Parameter> quantized_activation_parameters();

// What a path pins: X_QUANT=0 with X_SEGMENT at 4096 (the fp32 templates read
// no X_SEGMENT), or X_QUANT=1 (X_SEGMENT varied).
Config fp32_activations();
Config quantized_activations();

bool uses_quantized_activations(const Config& config);

// The legality both templates share, or "": X_SEGMENT stays at 4096 with
// X_QUANT=0 (no two configs build the same shader), and X_QUANT=1 needs
// shaderIntegerDotProduct.
Violation quantized_activation_violation(const Config& config, const vk::DeviceInfo& device);

// The pruning both decode spaces share, on every device: X_SEGMENT above
// 4096 where K is not longer than 4096 (the same work in more shared memory).
PruningRule long_segment_rule();

// Shared memory for the quantized x of `cols` rows: one byte per value of a
// segment plus a (scale, sum) pair of floats per 32.
std::uint32_t quantized_activation_shared_bytes(const Config& config, std::uint32_t cols);

// X_QUANT=1 rounds x to 8 bits per 32 values (step max|x|/127): for Gaussian x
// a relative error of about 0.5% per value, and the same, averaged, in y
// (measured 1.4e-3 to 5.5e-3 relative L2 at the check and default shapes, on
// lavapipe and an H200). The bound leaves room for heavier-tailed x; a wrong
// scale, code or block still gives errors above 1e-1.
inline constexpr Tolerance kQuantizedActivationTolerance{2e-2, 2e-2};
// With SwiGLU activations x = silu(gate) * up is heavier-tailed than a
// Gaussian, so a block's step (its largest |x| / 127) is coarser against
// most of its values: the CI gate of ea7c2ed saw one output 2.11% of the
// largest |y| off, at a seed where all 12 X_QUANT=1 variants gave the same
// values (the rounding's error, not a variant's;
// ci/logs/2026-11-30-fresh-clone-ea7c2ed-shader-cache-disabled.log.xz), and
// 25 other seeds stayed under 2%. The largest error may reach 3%; a wrong
// scale, code or block still gives errors above 1e-1. The relative L2 too:
// the fresh-clone run of 772f545 saw 2.21% at 1,37,768 (check seed
// 3426585508), the same in all 12 X_QUANT=1 variants and with the
// templates of before that session (ci/logs/2026-12-02-swiglu-seed-rerun.txt).
inline constexpr Tolerance kQuantizedSwigluActivationTolerance{3e-2, 3e-2};

}  // namespace vktune::kernels
