#pragma once
// A covering array over an enumerated space, for the correctness gate: a
// few configs that, together, take every value of every parameter and (at
// strength 2, the default) every pair of values of two parameters that some
// valid config of the same path takes. Most template bugs need one value or
// the meeting of two to show, so this finds them at a small fraction of
// "every valid variant". Strength 1 (every value only) is for paths whose
// pairs another kernel's gate takes (kernels::Path::covering_strength).
#include <optional>
#include <vector>

#include "kernels/kernel.hpp"
#include "tuner/space.hpp"

namespace vktune {

// Path by path, greedily: the next config is the valid one that covers the
// most pairs (values, at strength 1 or for a path varying one parameter)
// not yet covered, ties to the first in enumeration order; deterministic. A
// path whose valid configs never differ contributes its first one. Each
// path at its own strength (PathEnumeration::covering_strength), or every
// path at `strength` where one is given.
std::vector<kernels::Config> covering_configs(const SpaceEnumeration& space,
                                              std::optional<unsigned> strength = std::nullopt);

}  // namespace vktune
