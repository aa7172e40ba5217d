// What every registered kernel promises the tuner, checked for each of them
// without a device: shapes are validated with one clear error, the baseline
// is legal, the space declarations (paths, shape values, pruning rules) are
// consistent, an enumeration holds only legal, distinct configs, pruning only
// narrows and only on the devices a rule is keyed to, and the gate's covering
// array takes every pair of values that some valid config takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "kernel_test_support.hpp"
#include "tuner/covering.hpp"
#include "tuner/space.hpp"

namespace vktune {
namespace {

using kernels::Config;
using kernels::Kernel;
using kernels::Shape;

std::vector<Shape> every_shape(const Kernel& k) {
  auto shapes = k.default_shapes();
  for (const auto& s : k.check_shapes()) shapes.push_back(s);
  return shapes;
}

// The H200-like device as another vendor's: no NVIDIA-keyed rule applies.
vk::DeviceInfo other_vendor() {
  auto d = testing_support::h200_like_tensor_cores();
  d.name = "AMD-like";
  d.vendor_id = 0x1002;
  return d;
}

class KernelContract : public ::testing::TestWithParam<std::string> {
 protected:
  const Kernel& kernel() const { return kernels::find_kernel(GetParam()); }
  std::string label(const Shape& s) const { return GetParam() + " " + kernels::shape_to_string(s); }
};

TEST_P(KernelContract, RejectsBadShapesInOneLine) {
  const auto dims = kernel().shape_dims().size();
  for (const Shape& bad : {Shape(dims + 1, 4), Shape(dims - 1 == 0 ? 2 : dims - 1, 4)}) {
    try {
      kernel().validate_shape(bad);
      FAIL() << GetParam() << " accepted a shape of " << bad.size() << " dimensions";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  const auto good = kernel().default_shapes().front();
  EXPECT_NO_THROW(kernel().validate_shape(good));
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto zero = good;
    zero[i] = 0;
    try {
      kernel().validate_shape(zero);
      FAIL() << GetParam() << " accepted a zero in dimension " << i;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

TEST_P(KernelContract, BaselineIsLegalAndTheSpaceNotEmptyAtEveryShapeOnH200LikeDevices) {
  for (const auto& device : {testing_support::h200_like(), testing_support::h200_like_tensor_cores()}) {
    for (const auto& shape : every_shape(kernel())) {
      EXPECT_EQ(kernel().constraint_violation(kernel().baseline(shape), shape, device).detail, "") << label(shape);
      EXPECT_FALSE(enumerate_space(kernel(), shape, device).valid.empty()) << label(shape);
    }
  }
}

TEST_P(KernelContract, PathsDeclareEveryParameterOnce) {
  for (const auto& space : kernel().spaces()) {
    std::set<std::string> declared;
    for (const auto& p : space.parameters) {
      EXPECT_TRUE(declared.insert(p.name).second) << space.name << " declares " << p.name << " twice";
      EXPECT_FALSE(p.values.empty()) << p.name;
    }
    std::set<std::string> shape_set;
    if (space.shape_values) {
      for (const auto& [name, value] : space.shape_values(kernel().default_shapes().front())) shape_set.insert(name);
    }
    for (const auto& path : space.effective_paths()) {
      std::multiset<std::string> seen(shape_set.begin(), shape_set.end());
      for (const auto& [name, value] : path.pinned) seen.insert(name);
      for (const auto& p : path.parameters) {
        seen.insert(p.name);
        const auto d = std::find_if(space.parameters.begin(), space.parameters.end(),
                                    [&](const kernels::Parameter& q) { return q.name == p.name; });
        ASSERT_NE(d, space.parameters.end()) << path.name << " varies undeclared " << p.name;
        for (int v : p.values) {
          EXPECT_NE(std::find(d->values.begin(), d->values.end(), v), d->values.end())
              << path.name << ": " << p.name << "=" << v << " is not a declared value";
        }
      }
      for (const auto& name : declared) {
        EXPECT_EQ(seen.count(name), 1u) << space.name << "/" << path.name << ": " << name
                                        << " must be varied, pinned or set by the shape, exactly once";
      }
      EXPECT_EQ(seen.size(), declared.size()) << space.name << "/" << path.name << " names an undeclared parameter";
    }
    std::set<std::string> rule_names;
    for (const auto& rule : space.pruning) {
      EXPECT_TRUE(rule_names.insert(rule.name).second) << "two pruning rules named " << rule.name;
      EXPECT_FALSE(rule.reason.empty()) << rule.name;
      EXPECT_EQ(rule.reason.find('\n'), std::string::npos) << rule.name;
      EXPECT_TRUE(static_cast<bool>(rule.prunes)) << rule.name;
    }
  }
}

// Path::tensor_cores (which ceiling "% of peak" reads) agrees with
// legality: on an H200-like device the configs that need its cooperative
// matrices (legal with them, not without) are exactly those on a path that
// says it runs on the tensor cores.
TEST_P(KernelContract, ATensorCorePathIsOneThatNeedsTheTensorCores) {
  const auto with = testing_support::h200_like_tensor_cores();
  auto without = with;
  without.features.cooperative_matrix_nv = false;
  without.cooperative_matrix = vk::CooperativeMatrixExtension::none;
  without.cooperative_matrix_shapes.clear();
  for (const auto& shape : every_shape(kernel())) {
    const auto legal_without = enumerate_space(kernel(), shape, without, SpaceScope::full).valid;
    const std::set<kernels::Config> plain(legal_without.begin(), legal_without.end());
    for (const auto& c : enumerate_space(kernel(), shape, with, SpaceScope::full).valid) {
      EXPECT_EQ(kernels::on_tensor_cores(kernel(), c, shape), plain.count(c) == 0)
          << label(shape) << " " << kernels::config_to_string(c);
    }
  }
}

TEST_P(KernelContract, EnumerationsHoldDistinctLegalConfigsAndPruningOnlyNarrows) {
  const auto nvidia = testing_support::h200_like_tensor_cores();
  const auto other = other_vendor();
  for (const auto& shape : every_shape(kernel())) {
    const auto full = enumerate_space(kernel(), shape, nvidia, SpaceScope::full);
    const std::set<Config> full_set(full.valid.begin(), full.valid.end());
    EXPECT_EQ(full_set.size(), full.valid.size()) << label(shape) << ": a config is enumerated twice";
    EXPECT_TRUE(full.pruned_by.empty()) << label(shape);
    std::size_t sampled = 0;
    for (std::size_t i = 0; i < full.valid.size(); i += 1 + full.valid.size() / 64, ++sampled) {
      EXPECT_EQ(kernel().constraint_violation(full.valid[i], shape, nvidia).detail, "") << label(shape);
    }
    const auto pruned = enumerate_space(kernel(), shape, nvidia, SpaceScope::pruned);
    for (const auto& c : pruned.valid) EXPECT_TRUE(full_set.count(c)) << label(shape) << ": pruning added a config";
    std::size_t dropped = 0;
    for (const auto& [rule, count] : pruned.pruned_by) dropped += count;
    EXPECT_LE(pruned.valid.size() + dropped, full.total) << label(shape);
    // Another vendor's device loses only to rules keyed to every device.
    const auto elsewhere = enumerate_space(kernel(), shape, other, SpaceScope::pruned);
    const auto& space = kernel().spaces().at(kernel().space_index(shape));
    for (const auto& [name, count] : elsewhere.pruned_by) {
      const auto rule = std::find_if(space.pruning.begin(), space.pruning.end(),
                                     [&](const kernels::PruningRule& r) { return r.name == name; });
      ASSERT_NE(rule, space.pruning.end());
      EXPECT_EQ(rule->measured_on.vendor_id, 0u) << name << " pruned on another vendor's device";
    }
  }
}

// The check shapes of one space are covered together: every value of each
// parameter of a path at each shape where a valid config takes it, and
// every pair of values of two (for a path of covering strength 2) at one
// shape at least, counted here by brute force in the space the CI gate
// covers (a device no H200 rule applies to), from the configs of that path
// only; every chosen config is valid at its shape; and each shape's array
// stays small enough for the gate's CPU driver.
TEST_P(KernelContract, TheCoveringArrayTakesEveryValueAtEachShapeAndEveryPairAtOne) {
  const auto device = other_vendor();
  std::map<std::size_t, std::vector<Shape>> by_space;
  for (const auto& shape : kernel().check_shapes()) by_space[kernel().space_index(shape)].push_back(shape);
  for (const auto& [index, shapes] : by_space) {
    std::vector<SpaceEnumeration> spaces;
    for (const auto& shape : shapes) spaces.push_back(enumerate_space(kernel(), shape, device, SpaceScope::pruned));
    std::vector<const SpaceEnumeration*> group;
    for (const auto& e : spaces) group.push_back(&e);
    const auto cover = covering_configs(group);
    ASSERT_EQ(cover.size(), shapes.size());
    // Each chosen config's path at its shape (it must be a valid config there).
    std::vector<std::vector<std::size_t>> path_of_chosen(shapes.size());
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      // 112: the quantized products' slot-scope x path (X_SCOPE=1, session 19)
      // took matmul_q4_0's and matmul_q8_0's to 103, past the 96 of before.
      EXPECT_LE(cover[s].size(), 112u) << label(shapes[s]) << ": the gate would validate " << cover[s].size()
                                       << " variants";
      const std::set<Config> distinct(cover[s].begin(), cover[s].end());
      EXPECT_EQ(distinct.size(), cover[s].size()) << label(shapes[s]);
      std::map<Config, std::size_t> path_of;
      for (std::size_t i = 0; i < spaces[s].valid.size(); ++i) path_of.emplace(spaces[s].valid[i], spaces[s].path_of[i]);
      for (const auto& c : cover[s]) {
        const auto found = path_of.find(c);
        ASSERT_NE(found, path_of.end()) << label(shapes[s]) << ": [" << kernels::config_to_string(c) << "] is not valid";
        path_of_chosen[s].push_back(found->second);
      }
    }
    using Pair = std::tuple<std::string, int, std::string, int>;
    using Value = std::pair<std::string, int>;
    for (std::size_t path = 0; path < spaces.front().paths.size(); ++path) {
      const auto& name = spaces.front().paths[path].name;
      const unsigned strength = spaces.front().paths[path].covering_strength;
      ASSERT_TRUE(strength == 1 || strength == 2) << kernel().name() << " path " << name;
      std::set<Pair> needed_pairs, covered_pairs;
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        std::set<Value> needed_values, covered_values;
        auto take = [&](const Config& c, std::set<Value>& values, std::set<Pair>& pairs) {
          for (auto a = c.begin(); a != c.end(); ++a) {
            values.insert(*a);
            for (auto b = std::next(a); strength == 2 && b != c.end(); ++b) {
              pairs.insert({a->first, a->second, b->first, b->second});
            }
          }
        };
        for (std::size_t i = 0; i < spaces[s].valid.size(); ++i) {
          if (spaces[s].path_of[i] == path) take(spaces[s].valid[i], needed_values, needed_pairs);
        }
        for (std::size_t c = 0; c < cover[s].size(); ++c) {
          if (path_of_chosen[s][c] == path) take(cover[s][c], covered_values, covered_pairs);
        }
        for (const auto& [parameter, value] : needed_values) {
          EXPECT_TRUE(covered_values.count({parameter, value}))
              << label(shapes[s]) << " path " << name << ": " << parameter << "=" << value
              << " is never validated at this shape";
        }
      }
      for (const auto& [a, va, b, vb] : needed_pairs) {
        EXPECT_TRUE(covered_pairs.count({a, va, b, vb}))
            << kernel().name() << " path " << name << ": " << a << "=" << va << " with " << b << "=" << vb
            << " is never validated at any check shape";
      }
    }
  }
}

// Strength 1 is for a path whose pairs another kernel's gate takes: the
// paths of the quantized products with fp16 or SwiGLU activations, whose
// fp32 siblings (same templates, same spaces) keep strength 2 on every
// path; and it takes fewer variants than the pairs would.
TEST(CoveringStrength, OnlyKernelsWithAPairwiseSiblingTakeValuesOnly) {
  const auto device = other_vendor();
  auto strengths = [](const kernels::Kernel& kernel) {
    std::set<unsigned> found;
    for (const auto& space : kernel.spaces()) {
      for (const auto& path : space.effective_paths()) found.insert(path.covering_strength);
    }
    return found;
  };
  std::size_t weaker = 0;
  for (const auto* kernel : kernels::all_kernels()) {
    const auto found = strengths(*kernel);
    if (found == std::set<unsigned>{2}) continue;
    ++weaker;
    const auto& name = kernel->name();
    EXPECT_EQ(found, std::set<unsigned>{1}) << name << ": every path of an activation variant takes values only";
    // The activation variants, and the q/k/v products' epilogues (which
    // differ from their sibling only in how y is stored).
    std::string suffix;
    for (const char* s : {"_f16", "_swiglu_resnorm", "_resnorm", "_swiglu", "_addnorm", "_rope_cache", "_rope", "_cache", "_glu"}) {
      if (name.ends_with(s)) {
        suffix = s;
        break;
      }
    }
    ASSERT_FALSE(suffix.empty()) << name << " takes values only but is no activation or epilogue variant";
    const auto& sibling = kernels::find_kernel(name.substr(0, name.size() - suffix.size()));
    EXPECT_EQ(strengths(sibling), std::set<unsigned>{2}) << sibling.name();
    const auto shape = kernel->check_shapes().front();
    const auto space = enumerate_space(*kernel, shape, device, SpaceScope::pruned);
    EXPECT_LT(covering_configs(space, 1).size(), covering_configs(space, 2).size()) << name;
  }
  EXPECT_EQ(weaker, 20u) << "matmul_{q4_0,q8_0,q4k}_f16, matmul_{q4k,q6k}_{swiglu,addnorm}, "
                            "matmul_q4k_{rope,rope_cache,cache,resnorm,glu}, matmul_q6k_{cache,resnorm}, "
                            "matmul_{q4k,q6k}_swiglu_resnorm and matmul_q6k_split_{cache,swiglu,swiglu_resnorm,resnorm}";
}

// A stored config from before the kernel gained a parameter reaches the
// legality check with the parameter missing: an answer naming it, never an
// exception (the tuner reads such configs from old databases and tables).
TEST_P(KernelContract, AConfigMissingAParameterIsIllegalNotACrash) {
  const auto device = testing_support::h200_like_tensor_cores();
  for (const auto& shape : every_shape(kernel())) {
    const auto base = kernel().baseline(shape);
    for (const auto& [name, value] : base) {
      auto lacking = base;
      lacking.erase(name);
      std::string why;
      EXPECT_NO_THROW(why = kernel().constraint_violation(lacking, shape, device).detail) << label(shape) << " " << name;
      EXPECT_NE(why, "") << label(shape) << " without " << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, KernelContract, ::testing::ValuesIn(testing_support::kernel_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vktune
