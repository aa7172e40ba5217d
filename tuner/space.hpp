#pragma once
// Enumerating a kernel's parameter space for one shape and device, path by
// path (kernels::Path), with the kernel's legality and, unless the
// search is asked for the full space, its pruning rules applied before
// anything is compiled.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "harness/device_info.hpp"
#include "kernels/kernel.hpp"
#include "tuner/search/config_list.hpp"

namespace vktune {

// --space: "pruned" applies the kernel's pruning rules that match the
// device; "full" every legal config.
enum class SpaceScope { pruned, full };
SpaceScope parse_space_scope(const std::string& text);  // throws Error(usage)
const char* to_string(SpaceScope scope);

struct PathEnumeration {
  std::string name;
  std::size_t cartesian = 0;  // the product of the path's value counts
  std::size_t valid = 0;      // legal, and not pruned
  unsigned covering_strength = 2;  // kernels::Path's, for the gate's covering
};

struct SpaceEnumeration {
  std::string space_name;
  ConfigList valid;                    // path after path, each in lexicographic parameter order
  std::vector<std::size_t> path_of;    // valid[i] belongs to paths[path_of[i]]
  std::vector<PathEnumeration> paths;
  std::size_t total = 0;     // the paths' cartesian sizes, summed
  std::size_t filtered = 0;  // pruned or illegal
  // Illegal: the id of the legality rule each config broke (the first that
  // constraint_violation names) -> count, and one config's detail per id.
  std::map<std::string, std::size_t> filter_reasons;
  std::map<std::string, std::string> filter_examples;
  std::map<std::string, std::size_t> pruned_by;       // pruning rule name -> configs it dropped
};

// The most configs a path's cartesian product may hold. A legal config is
// kept in memory while the search runs (its values: 4 bytes each), and every
// config is checked: a path above this is refused before anything is
// allocated. The largest built-in path holds 28,800.
inline constexpr std::size_t kMaxPathConfigs = 1'000'000;

// Pruning rules run first (they are cheap predicates), so a config both
// pruned and illegal counts as pruned. Throws Error(usage) naming the path
// when its cartesian product (formed without overflow) is above
// kMaxPathConfigs.
SpaceEnumeration enumerate_space(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                 const vk::DeviceInfo& device, SpaceScope scope = SpaceScope::pruned);

// The pruning rules of `space` that apply on `device` (none for `full`).
std::vector<const kernels::PruningRule*> active_pruning(const kernels::Space& space, const vk::DeviceInfo& device,
                                                        SpaceScope scope);

// Checks the tune command's --only against the spaces of a run's shapes (a
// decode and a prefill shape are two spaces with different parameters).
// Throws Error(usage) for a parameter that no space of the run has, or a
// value that no space having it offers; returns one note per parameter that
// some of the spaces lack, naming where it applies and where not.
std::vector<std::string> check_only(const kernels::Kernel& kernel, const std::vector<kernels::Shape>& shapes,
                                    const std::map<std::string, std::vector<int>>& only);

// The configs of `valid` whose parameters named in `only` take one of the
// listed values; a parameter the shape's space lacks does not narrow it
// (check_only has said so).
ConfigList select_only(const kernels::Kernel& kernel, const kernels::Shape& shape, const ConfigList& valid,
                       const std::map<std::string, std::vector<int>>& only);

}  // namespace vktune
