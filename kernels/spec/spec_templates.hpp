#pragma once
// GLSL that kernels bring with them rather than find among vktune's
// templates: a spec's template and the includes it reaches, read from beside
// the spec when it is loaded. The template library (tuner/template_library)
// adds these to whatever set it reads, so variant hashes and compilation see
// them like any template.
#include <map>
#include <string>

namespace vktune::kernels::spec {

// `file` as the template library names it ("spec/my_softmax/softmax.comp",
// "include/my_helpers.glsl"). Registering the same name twice with other
// text is an Error(usage).
void register_template_file(const std::string& file, const std::string& text);
std::map<std::string, std::string> registered_template_files();

}  // namespace vktune::kernels::spec
