// Workgroup counts folded into a second axis (a spec stage's
// {"dim", "per_workgroup", "fold"} followed by "folded"): the counts at shapes
// worked out by hand, the legality of counts past maxComputeWorkGroupCount
// (still illegal on the folded axis, legal once folded), the fold in the
// contract's JSON (absent when unfolded, so older contracts are unchanged),
// and malformed folds refused at load in one line.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "engine/contract_json.hpp"
#include "kernels/variant_contract.hpp"
#include "tests/kernels/config_by_config.hpp"
#include "tests/kernels/spec_test_support.hpp"
#include "tuner/space.hpp"

namespace vktune::kernels::spec::spec_test {
namespace {

using Counts = std::array<std::uint32_t, 3>;

// Rows of n floats, ROWS_PER_WG rows a workgroup, at most F workgroups along x.
json folded_spec() {
  auto spec = valid_json();
  auto& sub = spec["subspaces"][0];
  sub["parameters"] = json::array({json{{"name", "WG"}, {"values", {32, 64}}},
                                   json{{"name", "ROWS_PER_WG"}, {"values", {1, 2}}},
                                   json{{"name", "F"}, {"values", {7, 65535}}}});
  sub.erase("pruning");
  sub["stages"][0]["workgroups"] =
      json::array({json{{"dim", "rows"}, {"per_workgroup", "ROWS_PER_WG"}, {"fold", "F"}}, "folded", 1});
  return spec;
}

SpecKernel load_spec(const json& spec) { return SpecKernel(parse_spec(spec.dump(), "my/spec.json", reader())); }

Config config_of(int rows_per_wg, int fold) { return {{"WG", 32}, {"ROWS_PER_WG", rows_per_wg}, {"F", fold}}; }

Counts counts(const SpecKernel& kernel, const Config& config, const Shape& shape) {
  return workgroup_counts(kernel.stages(config, shape).front().dispatch, shape);
}

TEST(SpecFold, CountsFoldIntoTheNextAxisAtShapesWorkedOutByHand) {
  const auto kernel = load_spec(folded_spec());
  // 200,000 rows, one a workgroup, 65,535 along x: 4 rows of x (3 * 65,535 < 200,000).
  EXPECT_EQ(counts(kernel, config_of(1, 65535), {200000, 64}), (Counts{65535, 4, 1}));
  // 100,000 workgroups of 2 rows, 7 along x: ceil(100,000 / 7) = 14,286 along y.
  EXPECT_EQ(counts(kernel, config_of(2, 7), {200000, 64}), (Counts{7, 14286, 1}));
  // Fewer workgroups than the fold: nothing moves to y.
  EXPECT_EQ(counts(kernel, config_of(1, 7), {5, 64}), (Counts{5, 1, 1}));
  EXPECT_EQ(counts(kernel, config_of(1, 7), {7, 64}), (Counts{7, 1, 1}));
  EXPECT_EQ(counts(kernel, config_of(1, 7), {8, 64}), (Counts{7, 2, 1}));
  // As data: x caps at F, y reads the same dimension by ROWS_PER_WG * F.
  const auto& dispatch = kernel.stages(config_of(2, 7), {200000, 64}).front().dispatch;
  EXPECT_EQ(dispatch[0].shape_dim, 0);
  EXPECT_EQ(dispatch[0].divisor, 2u);
  EXPECT_EQ(dispatch[0].fold, 7u);
  EXPECT_EQ(dispatch[1].shape_dim, 0);
  EXPECT_EQ(dispatch[1].divisor, 14u);
  EXPECT_EQ(dispatch[1].fold, 0u);
  EXPECT_EQ(dispatch[2].shape_dim, -1);
}

TEST(SpecFold, ADivisorTimesAFoldPast32BitsSaturatesAndStillCountsOneRow) {
  auto spec = folded_spec();
  spec["subspaces"][0]["parameters"][1]["values"] = {65536, 1};
  spec["subspaces"][0]["parameters"][2]["values"] = {65536, 7};
  const auto kernel = load_spec(spec);
  const auto& dispatch = kernel.stages(config_of(65536, 65536), {4000000000u, 1}).front().dispatch;
  EXPECT_EQ(dispatch[1].divisor, 0xFFFFFFFFu);
  EXPECT_EQ(workgroup_counts(dispatch, {4000000000u, 1}), (Counts{61036, 1, 1}));
}

TEST(SpecFold, CountsPastTheDeviceLimitStayIllegalOnEitherAxis) {
  auto spec = folded_spec();
  spec["subspaces"][0]["parameters"][2]["values"] = {7, 65535, 100000};
  const auto kernel = load_spec(spec);
  const auto device = plain_device(1024);  // maxComputeWorkGroupCount 65,535 on every axis
  const Shape rows_200k{200000, 64};
  EXPECT_TRUE(kernel.constraint_violation(config_of(1, 65535), rows_200k, device).empty());
  EXPECT_TRUE(kernel.constraint_violation(config_of(1, 7), rows_200k, device).empty());  // y = 28,572
  // A fold past the device's limit leaves x itself too wide.
  const auto wide_x = kernel.constraint_violation(config_of(1, 100000), rows_200k, device);
  ASSERT_FALSE(wide_x.empty());
  EXPECT_NE(wide_x.detail.find("100000 workgroups along axis 0 exceed the device's maxComputeWorkGroupCount of 65535"),
            std::string::npos)
      << wide_x.detail;
  // 7 along x cannot hold 600,000 rows: 85,715 along y.
  const auto wide_y = kernel.constraint_violation(config_of(1, 7), {600000, 64}, device);
  ASSERT_FALSE(wide_y.empty());
  EXPECT_NE(wide_y.detail.find("85715 workgroups along axis 1"), std::string::npos) << wide_y.detail;
}

// The space enumerated prefix by prefix (as list, check and tune do) keeps
// what checking config by config keeps: the fold is read where F is set
// (it was read before, as 0, and every config was refused).
TEST(SpecFold, EnumerationPrefixByPrefixReadsTheFold) {
  auto spec = folded_spec();
  spec["subspaces"][0]["parameters"][2]["values"] = {7, 65535, 100000};
  const auto kernel = load_spec(spec);
  const ConfigByConfig plain(kernel);
  const auto fast = enumerate_space(kernel, {200000, 64}, plain_device(1024));
  const auto slow = enumerate_space(plain, {200000, 64}, plain_device(1024));
  EXPECT_EQ(fast.valid, slow.valid);
  EXPECT_EQ(fast.valid.size(), 8u);  // WG x ROWS_PER_WG x F in {7, 65535}; 100,000 along x is too many
}

TEST(SpecFold, TheContractJsonCarriesTheFoldOnlyWhereThereIsOne) {
  const auto kernel = load_spec(folded_spec());
  const Shape shape{200000, 64};
  const auto folded = contract_to_json(launch_contract(kernel, config_of(1, 65535), shape), {"h"});
  const auto& axes = folded["stages"][0]["dispatch"];
  EXPECT_EQ(axes, json::parse(R"([{"shape_dim": 0, "divisor": 1, "fold": 65535},
                                  {"shape_dim": 0, "divisor": 65535}, {"shape_dim": -1, "divisor": 1}])"));
  // An unfolded spec's contract has no "fold" anywhere: its text (and the
  // entry hash over it) is what it was before folds.
  const auto plain = load_spec(valid_json());
  const auto unfolded = contract_to_json(launch_contract(plain, plain.baseline({4, 256}), {4, 256}), {"h"});
  EXPECT_EQ(unfolded["stages"][0]["dispatch"],
            json::parse(R"([{"shape_dim": 0, "divisor": 1}, {"shape_dim": -1, "divisor": 1},
                            {"shape_dim": -1, "divisor": 1}])"));
  EXPECT_EQ(unfolded.dump().find("fold"), std::string::npos) << unfolded.dump();
}

TEST(SpecFold, MalformedFoldsAreRefusedAtLoadInOneLine) {
  auto no_folded = folded_spec();
  no_folded["subspaces"][0]["stages"][0]["workgroups"][1] = 1;
  expect_error(no_folded, "/subspaces/0/stages/0/workgroups/0", "a fold needs the next axis written \"folded\"");

  auto folded_alone = valid_json();
  folded_alone["subspaces"][0]["stages"][0]["workgroups"][1] = "folded";
  expect_error(folded_alone, "/subspaces/0/stages/0/workgroups/1", "\"folded\" follows an axis with \"fold\"");

  auto folded_first = valid_json();
  folded_first["subspaces"][0]["stages"][0]["workgroups"][0] = "folded";
  expect_error(folded_first, "/subspaces/0/stages/0/workgroups/0", "\"folded\" follows an axis with \"fold\"");

  auto fold_z = folded_spec();
  fold_z["subspaces"][0]["stages"][0]["workgroups"] =
      json::array({1, 1, json{{"dim", "rows"}, {"per_workgroup", 1}, {"fold", 7}}});
  expect_error(fold_z, "/subspaces/0/stages/0/workgroups/2", "the z axis cannot fold");

  auto unknown_name = folded_spec();
  unknown_name["subspaces"][0]["stages"][0]["workgroups"][0]["fold"] = "FOLD";
  expect_error(unknown_name, "/subspaces/0/stages/0/workgroups/0/fold", "FOLD");

  // A fold may not read device facts: a variant's identity is the device's own otherwise.
  auto device_fact = folded_spec();
  device_fact["subspaces"][0]["stages"][0]["workgroups"][0]["fold"] = "max_invocations";
  expect_error(device_fact, "/subspaces/0/stages/0/workgroups/0/fold", "max_invocations");
}

TEST(SpecFold, AFoldOfZeroIsRefusedWhenPlannedInOneLine) {
  auto spec = folded_spec();
  spec["subspaces"][0]["parameters"][2]["values"] = {0, 7};
  const auto kernel = load_spec(spec);
  try {
    (void)kernel.stages(config_of(1, 0), {10, 64});
    ADD_FAILURE() << "a fold of 0 planned";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("fold 'F' is not a whole number of at least 1"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace vktune::kernels::spec::spec_test
