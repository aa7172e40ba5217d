#pragma once
// A spec's templates as it names them: vktune's own ("vktune:rmsnorm.comp")
// or a file beside the spec, read with the includes it reaches and
// registered with the template library (spec_templates.hpp); and the check,
// made once at load, that a template does not #define a name the spec
// defines for every variant.
#include <set>
#include <string>

#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

// The template library's name of the template `node` names for `kernel`
// ("rmsnorm.comp" for vktune's own, "spec/<kernel>/<path>" for a spec's);
// a spec's is registered with every include it reaches beside the spec or in
// the shared include folder. A path outside the spec's folder, a name with
// control characters or a file that does not exist fails `node`.
std::string template_of(const Node& node, const std::string& kernel, const FileReader& read);

// Fails `template_node` when the registered `template_file` #defines one of
// `defined` outside an #ifndef of it (glslang would say "Macro redefined"
// once per variant).
void refuse_hard_coded_defines(const Node& template_node, const std::string& template_file,
                               const std::set<std::string>& defined);

}  // namespace vktune::kernels::spec
