#pragma once
// What `vktune spec init NAME` writes: a commented starting spec and its
// template (an elementwise sum, y = a + b, checked against the reference
// library's add), ready to `vktune check` and to edit into one's own kernel.
#include <filesystem>
#include <string>

namespace vktune::kernels::spec {

std::string starter_spec(const std::string& name);
std::string starter_template();

// Throws Error(usage) for a NAME that is not a kernel name (a C identifier
// of at most 64 characters).
void require_kernel_name(const std::string& name);

// Writes DIR/NAME.json and DIR/NAME.comp; refuses (Error(usage)) a NAME that
// is not a C identifier or files that already exist. Returns the spec's path.
std::filesystem::path write_starter(const std::string& name, const std::filesystem::path& dir);

}  // namespace vktune::kernels::spec
