#pragma once
// A kernel's declared launch against its shader's interface, before any
// variant runs: for each space, the baseline at the space's first default
// shape is compiled and each stage's interface (harness/shader_interface.hpp,
// read with SPIRV-Cross) compared with the buffers the space binds (storage
// or uniform; a uniform block's size and its members' float or integer
// types) and the push constants its plan supplies. A spec file is checked this way
// when it is loaded (issue 44: one line naming the binding or member, exit 2,
// nothing written); every pipeline checks its own module again when made.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/template_library.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

// "" when they agree, or when a baseline does not compile or its module
// cannot be read (that variant's own failure then says why); else
// "<template>: <the first disagreement>". Every value of every parameter of
// the baseline's path that reaches a specialization constant is checked
// against the constant's type (a uint given -1, a bool given 2, a 64-bit
// constant), not only the baseline's.
std::string baseline_interface_problem(const kernels::Kernel& kernel, const TemplateLibrary& templates);

// A stage's specialization constants (parameter values, as ShaderPlan holds
// them) turned into the words of the types its SPIR-V declares, in place, for
// the contract a winner stores; a module SPIRV-Cross cannot read is left as
// it is. Throws Error(usage) with the problem (the variant's pipeline was
// refused the same way before it could win).
void typed_stage_specialization(const std::vector<std::uint32_t>& spirv,
                                std::vector<std::pair<std::uint32_t, std::uint32_t>>& constants);

}  // namespace vktune
