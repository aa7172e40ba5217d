#pragma once
// The tensor-core path of attention_decode (MMA=1): templates/
// attention_decode_mma.comp stages K and V in shared memory and multiplies
// them through GL_NV_cooperative_matrix (fp16 16×16×16, fp32 accumulators),
// q and the softmax weights split into two fp16 terms each. Its parameters,
// the rules a variant must meet and its plan; attention_decode.cpp owns the
// problem, the reference and the CUDA-core walk.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "kernels/legality.hpp"

namespace vktune::kernels::attention_mma {

// MMA and STEP, appended to attention_decode's space.
std::vector<Parameter> parameters();

// The tensor-core path ("tensor-cores"): the parameters its template reads
// (WG_SIZE, STEP, KV_CHUNK, PREFETCH) with the values it can take there
// (KV_CHUNK > 0, PREFETCH 1 or 2; help left to the space's), and the walk's
// parameters it does not read at their pinned values, with MMA=1.
// attention_decode pins the streaming path's.
std::vector<Parameter> varied();
Config pinned();

// MMA=1 for `shape` on `device`, legality only: the device's cooperative
// matrices, the walk's parameters pinned, what the template implements
// (PREFETCH 1 or 2, a chunk of whole stages, tiles shared evenly by the
// subgroups) and splits within `max_splits`. Device limits are the caller's
// (plan_limits_violation).
Violation violation(const Config& config, const Shape& shape, const vk::DeviceInfo& device, std::uint32_t max_splits);

// The path's pruning rules (tensor-cores.*), each true only for MMA=1.
std::vector<PruningRule> pruning();

// The plan of an MMA=1 variant: every parameter of `space` defined, HD (the
// shape's head_dim), MAX_HEADS and MAX_SPLITS (the scratch layout the walk
// shares).
ShaderPlan plan(const Config& config, const Shape& shape, const Space& space, std::uint32_t max_heads,
                std::uint32_t max_splits);

}  // namespace vktune::kernels::attention_mma
