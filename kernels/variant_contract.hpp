#pragma once
// The launch contract of one variant (kernel, config, shape): what an
// application needs to run it, assembled from what the kernel declares — its
// space (shape class, bindings), the config's path (specialised dimensions,
// unused bindings) and the variant's stages. The tuner stores it with every
// winner; the exporters write it (docs/TABLE_FORMAT.md, version 2); the
// runtime library reads it.
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune::kernels {

struct LaunchContract {
  std::string space;  // "decode"
  std::string path;   // "x-q8"; the space's name when it has one path
  std::vector<std::string> shape_dims;
  ShapeClass shape_class;
  // Shape dimensions compiled into the SPIR-V: the variant serves only shapes
  // equal to the tuned one there.
  std::vector<int> specialized_dims;
  // Every binding of the space; one the variant never touches is asked for at
  // kUnusedBindingBytes (a descriptor needs some buffer).
  std::vector<Binding> bindings;
  std::vector<ShaderPlan> stages;
  // The space's push-constant layout, the same for every stage; empty = the
  // shape, one word per dimension.
  std::vector<PushWord> push_constants;
};

inline constexpr std::uint64_t kUnusedBindingBytes = 4;

// Throws Error(usage) for a shape the kernel rejects, and with the space's
// contract_unfit line for a kernel the contract cannot carry (push
// constants not of its form, a uniform buffer).
LaunchContract launch_contract(const Kernel& kernel, const Config& config, const Shape& shape);

// The most shared memory any stage declares.
std::uint32_t shared_memory_bytes(const LaunchContract& contract);

}  // namespace vktune::kernels
