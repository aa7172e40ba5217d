#pragma once
// The kernel registry: every kernel by name. Kernel files register themselves
// with a static KernelRegistration, so adding a kernel touches no list.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::kernels {

// All registered kernels, sorted by name.
std::vector<const Kernel*> all_kernels();
// Throws Error(usage) listing the known kernels when `name` is unknown.
const Kernel& find_kernel(const std::string& name);
// nullptr when `name` is unknown (a table from a newer vktune may name kernels this one lacks).
const Kernel* find_kernel_or_null(const std::string& name);
// on_tensor_cores for a stored row: false for a kernel not built in (a
// spec's), or a shape or config that does not parse.
bool on_tensor_cores(const std::string& kernel_name, const std::string& shape_text, const std::string& config_json);
// Adds a kernel (tests register test-only kernels this way). A second kernel
// with the same name is an Error(internal).
void register_kernel(std::unique_ptr<Kernel> kernel);

struct KernelRegistration {
  explicit KernelRegistration(const std::function<std::unique_ptr<Kernel>()>& make) { register_kernel(make()); }
};

}  // namespace vktune::kernels
