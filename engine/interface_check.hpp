#pragma once
// A kernel's declared launch against its shader's interface, before any
// variant runs: for each space, the baseline at the space's first default
// shape is compiled and each stage's interface (harness/shader_interface.hpp,
// read with SPIRV-Cross) compared with the buffers the space binds (storage
// or uniform; a uniform block's size and its members' float or integer
// types) and the push constants its plan supplies. A spec file is checked this way
// when it is loaded (issue 44: one line naming the binding or member, exit 2,
// nothing written); every pipeline checks its own module again when made.
#include <string>

#include "engine/template_library.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

// "" when they agree, or when a baseline does not compile or its module
// cannot be read (that variant's own failure then says why); else
// "<template>: <the first disagreement>".
std::string baseline_interface_problem(const kernels::Kernel& kernel, const TemplateLibrary& templates);

}  // namespace vktune
