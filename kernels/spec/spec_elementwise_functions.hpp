#pragma once
// The functions an element-wise reference may call besides muparser's
// built-ins (exp, log (natural), tanh, sqrt, abs, min, max, sign, rint, ...)
// and the ones every spec expression has (floor, ceil, mod, ceil_div,
// is_pow2): the activations engines' element-wise ops use, in double, each
// exactly the formula of the reference op of the same name where there is
// one (reference/ops.hpp), so that an expression and an op agree. The one
// list; docs/SPEC_FORMAT.md ("Element-wise expression") repeats it for users.
//
//   gelu_tanh(x)   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   gelu_erf(x)    0.5 x (1 + erf(x / sqrt(2)))
//   erf(x), erfc(x)
//   sigmoid(x)     1 / (1 + exp(-x))
//   silu(x)        x / (1 + exp(-x))        (swiglu's gate)
//   relu(x)        max(x, 0)
//   relu6(x)       min(max(x, 0), 6)
//   hardsigmoid(x) relu6(x + 3) / 6
//   hardswish(x)   x relu6(x + 3) / 6
//   softplus(x)    log(1 + exp(x)), without overflow for large x
//   mish(x)        x tanh(softplus(x))
//   to_f32(x)      x rounded to the nearest fp32 value
//   to_f16(x)      x rounded to fp32, then to the nearest fp16 value (ties
//                  to even), as a shader stores an fp32 value in an fp16 buffer
#include <vector>

#include "kernels/spec/spec_expression.hpp"

namespace vktune::kernels::spec {

const std::vector<ExpressionFunction>& elementwise_functions();

}  // namespace vktune::kernels::spec
