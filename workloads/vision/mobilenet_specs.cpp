#include "workloads/vision/mobilenet_specs.hpp"

#include <filesystem>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "workloads/vision/embedded_specs.hpp"

namespace vktune::vision {

namespace {

// Each kernel's spec, relative to examples/.
constexpr const char* kSpecFiles[][2] = {
    {kStemKernel, "mobilenet_stem/stem.json"},
    {kDepthwiseKernel, "mobilenet_depthwise/depthwise.json"},
    {kPointwiseKernel, "mobilenet_pointwise/pointwise.json"},
};

kernels::spec::Definition embedded_spec(const std::string& file) {
  const auto& files = embedded_files();
  const auto folder = file.substr(0, file.find('/') + 1);
  const auto spec = files.find(file);
  if (spec == files.end()) throw Error(ErrorKind::internal, "vktune was built without the spec " + file);
  return kernels::spec::parse_spec(spec->second, "(built in) examples/" + file,
                                   [&](const std::string& relative) -> std::optional<std::string> {
                                     // "mobilenet_stem/../include/conv_types.glsl" is "include/conv_types.glsl".
                                     const auto name =
                                         std::filesystem::path(folder + relative).lexically_normal().generic_string();
                                     const auto it = files.find(name);
                                     if (it == files.end()) return std::nullopt;
                                     return it->second;
                                   });
}

}  // namespace

void register_mobilenet_kernels(const std::optional<std::filesystem::path>& folder) {
  for (const auto& [name, file] : kSpecFiles) {
    if (kernels::find_kernel_or_null(name)) continue;
    auto definition = folder ? kernels::spec::load_spec(*folder / file) : embedded_spec(file);
    if (definition.name != name) {
      throw Error(ErrorKind::usage, (folder ? (*folder / file).string() : std::string(file)) +
                                        ": /name: the chain needs the kernel '" + name + "', the spec declares '" +
                                        definition.name + "'");
    }
    kernels::register_kernel(std::make_unique<kernels::spec::SpecKernel>(std::move(definition)));
  }
}

}  // namespace vktune::vision
