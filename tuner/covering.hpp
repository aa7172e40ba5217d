#pragma once
// A covering array over enumerated spaces, for the correctness gate: a few
// configs that, together, take every value of every parameter and (at
// strength 2, the default) every pair of values of two parameters that some
// valid config of the same path takes. Most template bugs need one value or
// the meeting of two to show, so this finds them at a small fraction of
// "every valid variant". Strength 1 (every value only) is for paths whose
// pairs another kernel's gate takes (kernels::Path::covering_strength).
//
// Over several shapes of one space (a kernel's check shapes), the shape is
// one more factor of the array: every value of each parameter at every
// shape, and every pair of values at one shape at least (one where a valid
// config takes it). A pair's bug shows at any shape that runs it; what
// depends on the shape (ragged tiles, one segment or several) shows through
// the values each shape takes. The shapes share the pairs rather than each
// taking them all again: the gate validates about half as many variants
// (ci/logs/2026-11-29-covering-across-shapes.txt).
#include <optional>
#include <vector>

#include "kernels/kernel.hpp"
#include "tuner/space.hpp"

namespace vktune {

// Path by path, greedily: the next config is the valid one (at any of the
// shapes) that covers the most values and pairs not yet covered, ties to
// the first in shape then enumeration order; deterministic. A path whose
// valid configs never differ contributes its first one at each shape. Each
// path at its own strength (PathEnumeration::covering_strength), or every
// path at `strength` where one is given. Returns the configs per shape, in
// the order of `shapes`, which must all be enumerations of one space
// (Error(internal) otherwise).
std::vector<std::vector<kernels::Config>> covering_configs(const std::vector<const SpaceEnumeration*>& shapes,
                                                           std::optional<unsigned> strength = std::nullopt);

// One shape's: every value and (at strength 2) every pair at that shape.
std::vector<kernels::Config> covering_configs(const SpaceEnumeration& space,
                                              std::optional<unsigned> strength = std::nullopt);

}  // namespace vktune
