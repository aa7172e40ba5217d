#include "kernels/variant_contract.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace vktune::kernels {

LaunchContract launch_contract(const Kernel& kernel, const Config& config, const Shape& shape) {
  kernel.validate_shape(shape);
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  LaunchContract contract;
  contract.space = space.name;
  contract.path = space.name;
  contract.shape_dims = kernel.shape_dims();
  contract.shape_class = space.shape_class;
  // Pushing the shape in place of words the shader reads otherwise would be
  // wrong silently: better no contract at all.
  if (!space.contract_unfit.empty()) throw Error(ErrorKind::usage, space.contract_unfit);
  contract.bindings = space.bindings;
  contract.push_constants = space.push_constants;
  if (const auto* path = space.path_of(config)) {
    contract.path = path->name;
    contract.specialized_dims = path->specialized_dims;
    for (auto& binding : contract.bindings) {
      if (std::find(path->unused_bindings.begin(), path->unused_bindings.end(), binding.name) !=
          path->unused_bindings.end()) {
        binding.size = size_rule(kUnusedBindingBytes, {});
      }
    }
  }
  contract.stages = kernel.stages(config, shape);
  return contract;
}

std::uint32_t shared_memory_bytes(const LaunchContract& contract) {
  std::uint32_t most = 0;
  for (const auto& stage : contract.stages) most = std::max(most, stage.shared_memory_bytes);
  return most;
}

}  // namespace vktune::kernels
