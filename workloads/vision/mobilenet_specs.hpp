#pragma once
// The kernels of MobileNet V2's convolutions are spec files
// (examples/mobilenet_stem, mobilenet_depthwise, mobilenet_pointwise): this
// registers them, from the copies built into vktune or from a folder that
// holds those three folders (an author's edited specs). Their winners are
// stored under the specs' kernel names, whichever copy tuned them.
#include <filesystem>
#include <optional>

namespace vktune::vision {

inline constexpr const char* kStemKernel = "mobilenet_stem";
inline constexpr const char* kDepthwiseKernel = "mobilenet_depthwise";
inline constexpr const char* kPointwiseKernel = "mobilenet_pointwise";

// Registers the three kernels unless kernels of their names already are;
// a missing or malformed spec is an Error(usage) naming it.
void register_mobilenet_kernels(const std::optional<std::filesystem::path>& folder);

}  // namespace vktune::vision
