#include "engine/interface_check.hpp"

#include <set>

#include "common/error.hpp"
#include "engine/variant.hpp"
#include "harness/shader_interface.hpp"

namespace vktune {

std::string baseline_interface_problem(const kernels::Kernel& kernel, const TemplateLibrary& templates) {
  std::set<std::size_t> spaces_done;
  for (const auto& shape : kernel.default_shapes()) {
    const auto space = kernel.space_index(shape);
    if (!spaces_done.insert(space).second) continue;
    auto variant = describe_variant(kernel, kernel.baseline(shape), shape, templates);
    try {
      compile_variant(variant, templates);
    } catch (const Error&) {
      continue;  // the variant's own compile error says what is wrong
    }
    const auto buffers = static_cast<std::uint32_t>(kernel.spaces().at(space).bindings.size());
    for (const auto& stage : variant.stages) {
      std::string unread;
      const auto interface = vk::reflect_interface(stage.spirv, unread);
      if (!interface) continue;
      const auto words = stage.plan.push_constants.empty() ? shape.size() : stage.plan.push_constants.size();
      const auto problem =
          vk::interface_mismatch(*interface, buffers, static_cast<std::uint32_t>(4 * words), false);
      if (!problem.empty()) return stage.plan.template_file + ": " + problem;
    }
  }
  return {};
}

}  // namespace vktune
