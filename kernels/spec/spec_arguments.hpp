#pragma once
// A spec file works wherever a kernel name does on the command line:
// `vktune my_kernel.json --device 0`, `vktune check my_kernel.json`,
// `vktune list my_kernel.json`, `vktune bench my_kernel.json`. Before the
// command line is parsed, each such argument is loaded, its kernel
// registered, and the argument replaced by the kernel's name.

#include <string>

namespace vktune::kernels::spec {

// Rewrites argv in place (the new strings live until the process ends).
// Throws Error(usage) for a malformed spec or one whose name is taken.
void register_spec_arguments(int argc, char** argv);

// Loads and registers one spec file; returns its kernel's name.
std::string register_spec_file(const std::string& path);
// The absolute path of the spec a registered kernel came from; "" for a
// built-in kernel (`vktune bench` hands specs to vktune-bench by path).
std::string spec_path_of(const std::string& kernel);

}  // namespace vktune::kernels::spec
