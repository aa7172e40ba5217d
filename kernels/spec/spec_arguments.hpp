#pragma once
// A spec file works wherever a kernel name does on the command line:
// `vktune my_kernel.json --device 0`, `vktune check my_kernel.json`,
// `vktune list my_kernel.json`, `vktune bench my_kernel.json`. Before the
// command line is parsed, each such argument is loaded, its kernel
// registered, and the argument replaced by the kernel's name.

namespace vktune::kernels::spec {

// Rewrites argv in place (the new strings live until the process ends).
// Throws Error(usage) for a malformed spec or one whose name is taken.
void register_spec_arguments(int argc, char** argv);

}  // namespace vktune::kernels::spec
