#pragma once
// `vktune spec init NAME --from SHADER.comp`: a spec skeleton written from
// the shader's own interface, read from its SPIR-V (harness/shader_interface):
// a buffer per binding it uses (its element type, input where the shader
// only reads it, the first it writes the output, later ones scratch), a push
// word per 32-bit member of its push-constant block (by name), its integer
// specialization constants as parameters with the shader's defaults as the
// baseline (a workgroup size constant offered at 32-256 too), one dispatch
// over a dimension `n`, and the shader as written (its defaults) as the
// trusted reference every variant is compared with. The sizes, shapes and
// workgroups are a start to edit: the interface does not say them.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace vktune::cli {

// Writes NAME.json beside the shader and returns its path, the shader
// compiled with `defines` (NAME, VALUE), each of which the spec then
// delivers: a whole number as a parameter of that one value (its baseline,
// a start to widen), anything else as a fixed define. Throws Error(usage)
// for a NAME that is not a kernel name, a spec that exists, a shader that
// does not compile with those defines (its first error) or that uses no
// storage buffer or another kind of binding.
std::filesystem::path write_spec_from_shader(const std::string& name, const std::filesystem::path& shader,
                                             const std::vector<std::pair<std::string, std::string>>& defines = {});

}  // namespace vktune::cli
