#pragma once
// The SPIR-V pass that turns a module written with GL_NV_cooperative_matrix
// (all Debian 12's glslang 12 compiles) into one with
// SPV_KHR_cooperative_matrix, which AMD, Intel, Arm and Qualcomm drivers
// offer (issue 43). What changes (harness/coopmat_khr_spec.hpp):
//   - a KHR matrix type carries a Use (MatrixA, MatrixB or Accumulator), so
//     every matrix value's role is inferred from the multiply-adds it flows
//     into or out of, through loads and stores of function-local variables,
//     access chains into arrays of matrices, copies, phis, selects,
//     conversions (a conversion keeps its source's Use), arithmetic, calls
//     (arguments to parameters, returns to results) and composites; a value
//     that flows nowhere near a multiply-add is an Accumulator. Each NV
//     matrix type is split into one KHR type per role its values take, and
//     the arrays, pointers and function types built on it with it; matrix
//     constants are cloned per role they are used in. One value in two roles
//     is refused, naming it (never a silently wrong module);
//   - loads and stores take a layout constant (row-major 0, column-major 1)
//     before the stride, where NV took the stride, then a column-major bool;
//   - integer multiply-adds set the signed-component bits of each matrix
//     whose component type is a signed integer;
//   - the capability and the extension are swapped.
// The module's other instructions are kept word for word.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vktune::vk {

// Part of the identity (hash) of every variant compiled through the pass:
// raise it whenever its output changes.
inline constexpr int kCoopmatKhrPassVersion = 1;

struct CoopmatKhrResult {
  std::vector<std::uint32_t> spirv;  // empty when refused
  std::string refusal;               // why, in one line naming the id
  std::size_t matrix_types = 0;      // KHR matrix types written (a type per role)
};

// The module with NV cooperative matrices in KHR terms; a module without
// them comes back unchanged. Throws Error(usage) only for words that are
// not a SPIR-V module.
CoopmatKhrResult nv_to_khr_cooperative_matrix(std::span<const std::uint32_t> spirv);

}  // namespace vktune::vk
