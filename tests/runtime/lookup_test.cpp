// Lookup rules on hand-written tables: every device level, shapes (exact,
// nearest, regimes), tie-breaks, the validity predicate, the baseline.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "vktune_runtime.h"
#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;
using rt_test::device_json;
using rt_test::table_json;
using rt_test::winner_json;

namespace {

constexpr std::uint32_t kNvidia = 0x10de, kAmd = 0x1002, kIntel = 0x8086;
const rt::DeviceIdentity kH100{kNvidia, 0x2330, 100, "NVIDIA H100 80GB HBM3"};

rt::Table make(nlohmann::json devices, nlohmann::json winners) {
  return rt::Table::from_json_text(table_json(std::move(devices), std::move(winners)).dump(), "hand table");
}

// The tag of the SPIR-V a lookup chose (the last word of fake_spirv).
std::uint32_t tag_of(const rt::LookupResult& r) { return r.contract.stages[0].spirv.back(); }

rt::Contract baseline_variant() {
  rt::Stage v;
  v.spirv = rt_test::fake_spirv(999);
  v.local_size = {32, 1, 1};
  v.dispatch = {rt::DispatchAxis{1, 4}, rt::DispatchAxis{}, rt::DispatchAxis{}};
  rt::Contract c;
  c.stages.push_back(v);
  return c;
}

// One table for the device-level tests: entries for the decode shape
// 1,4096,4096 on six devices; tag = 10 * device id.
rt::Table levels_table() {
  nlohmann::json devices = {device_json(1, kNvidia, 0x2330, 100, "NVIDIA H100 80GB HBM3"),
                            device_json(2, kNvidia, 0x2330, 90, "NVIDIA H100 80GB HBM3"),
                            device_json(3, kNvidia, 0x2330, 200, "NVIDIA H100 80GB HBM3"),
                            device_json(4, kNvidia, 0x2335, 100, "NVIDIA H200"),
                            device_json(5, kNvidia, 0x2684, 100, "NVIDIA GeForce RTX 4090"),
                            device_json(6, kAmd, 0x744c, 100, "AMD Radeon RX 7900 XTX")};
  nlohmann::json winners = nlohmann::json::array();
  for (int id = 1; id <= 6; ++id) winners.push_back(winner_json(id, "matmul_q4k", "1,4096,4096", 10u * id));
  return make(devices, winners);
}

rt::Query query(const rt::DeviceIdentity& device, std::vector<std::uint32_t> shape = {1, 4096, 4096}) {
  return rt::Query{device, "matmul_q4k", std::move(shape), ""};
}

}  // namespace

TEST(RuntimeLookup, SameDeviceAndDriver) {
  const auto table = levels_table();
  const auto r = table.lookup(query(kH100));
  EXPECT_EQ(r.match, rt::Match::device_and_driver);
  EXPECT_EQ(tag_of(r), 10u);
  EXPECT_TRUE(r.exact_shape);
  EXPECT_EQ(r.tuned_shape, (std::vector<std::uint32_t>{1, 4096, 4096}));
  EXPECT_EQ(r.shape_distance, 0.0);
  ASSERT_NE(r.entry, nullptr);
  EXPECT_EQ(r.entry->variant_hash, "v10");
  ASSERT_TRUE(r.tuned_device.has_value());
  EXPECT_EQ(*r.tuned_device, kH100);
  EXPECT_NE(r.match_text.find("same device and driver"), std::string::npos) << r.match_text;
  EXPECT_NE(r.match_text.find("exact shape 1,4096,4096"), std::string::npos) << r.match_text;
}

TEST(RuntimeLookup, SameDeviceOtherDriverTakesTheNearestDriver) {
  const auto table = levels_table();
  auto device = kH100;
  device.driver_version = 160;  // 200 is 40 away, 90 is 70 away
  auto r = table.lookup(query(device));
  EXPECT_EQ(r.match, rt::Match::device);
  EXPECT_EQ(tag_of(r), 30u);
  device.driver_version = 120;  // 100 is nearest
  r = table.lookup(query(device));
  EXPECT_EQ(tag_of(r), 10u);
  EXPECT_NE(r.match_text.find("same device, other driver"), std::string::npos) << r.match_text;
}

TEST(RuntimeLookup, SameArchitectureByNameFamily) {
  const auto table = levels_table();
  // RTX 4080: device id high byte 0x27 matches nothing, "nvidia geforce rtx 4" matches the 4090.
  const auto r = table.lookup(query({kNvidia, 0x2704, 100, "NVIDIA GeForce RTX 4080"}));
  EXPECT_EQ(r.match, rt::Match::architecture);
  EXPECT_EQ(tag_of(r), 50u);
}

TEST(RuntimeLookup, SameArchitectureByDeviceIdHighByte) {
  // Only the H200 in the table: an H100 PCIe (0x2331) shares its id high byte 0x23.
  const auto table = make({device_json(4, kNvidia, 0x2335, 100, "NVIDIA H200"),
                           device_json(5, kNvidia, 0x2684, 100, "NVIDIA GeForce RTX 4090")},
                          {winner_json(5, "matmul_q4k", "1,4096,4096", 50), winner_json(4, "matmul_q4k", "1,4096,4096", 40)});
  const auto r = table.lookup(query({kNvidia, 0x2331, 100, "NVIDIA H100 PCIe"}));
  EXPECT_EQ(r.match, rt::Match::architecture);
  EXPECT_EQ(tag_of(r), 40u);
}

TEST(RuntimeLookup, VendorDefault) {
  const auto table = levels_table();
  const auto r = table.lookup(query({kNvidia, 0x2204, 100, "NVIDIA GeForce RTX 3090"}));
  EXPECT_EQ(r.match, rt::Match::vendor);
  EXPECT_EQ(tag_of(r), 10u);  // equal distance everywhere: table order
  EXPECT_NE(r.match_text.find("vendor default"), std::string::npos) << r.match_text;
}

TEST(RuntimeLookup, VendorDefaultTakesTheNearestShape) {
  const auto table = make({device_json(1, kAmd, 0x73bf, 1, "AMD Radeon RX 6900 XT"),
                           device_json(2, kAmd, 0x1681, 1, "AMD Radeon 680M")},
                          {winner_json(1, "matmul_q4k", "1,4096,4096", 1), winner_json(2, "matmul_q4k", "1,14336,4096", 2)});
  const auto r = table.lookup(query({kAmd, 0x0001, 1, "Some Future Radeon"}, {1, 12000, 4096}));
  EXPECT_EQ(r.match, rt::Match::vendor);
  EXPECT_EQ(tag_of(r), 2u);
  EXPECT_FALSE(r.exact_shape);
}

TEST(RuntimeLookup, BaselineWhenNothingOfTheVendor) {
  const auto table = levels_table();
  const auto r = table.lookup(query({kIntel, 0x56a0, 1, "Intel(R) Arc(tm) A770 Graphics"}, {1, 4096, 4096}),
                              baseline_variant());
  EXPECT_EQ(r.match, rt::Match::baseline);
  EXPECT_EQ(tag_of(r), 999u);
  EXPECT_EQ(r.entry, nullptr);
  EXPECT_FALSE(r.tuned_device.has_value());
  EXPECT_TRUE(r.tuned_shape.empty());
  EXPECT_EQ(r.workgroups[0], (std::array<std::uint32_t, 3>{1024, 1, 1}));  // the baseline's own rule
  EXPECT_STREQ(rt::to_string(r.match), "baseline");
}

TEST(RuntimeLookup, NoMatchWithoutBaselineIsAnError) {
  const auto table = levels_table();
  try {
    table.lookup(query({kIntel, 0x56a0, 1, "Intel(R) Arc(tm) A770 Graphics"}));
    FAIL() << "expected an error";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::no_match);
    EXPECT_NE(std::string(e.what()).find("no baseline"), std::string::npos) << e.what();
  }
}

TEST(RuntimeLookup, DeviceLevelComesBeforeShape) {
  // Exact shape only under another driver; a nearby shape under this driver.
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name), device_json(2, kNvidia, 0x2330, 90, kH100.name)},
                          {winner_json(1, "matmul_q4k", "1,8192,4096", 1), winner_json(2, "matmul_q4k", "1,4096,4096", 2)});
  const auto r = table.lookup(query(kH100));
  EXPECT_EQ(r.match, rt::Match::device_and_driver);
  EXPECT_EQ(tag_of(r), 1u);
  EXPECT_FALSE(r.exact_shape);
  EXPECT_DOUBLE_EQ(r.shape_distance, 1.0);
}

TEST(RuntimeLookup, OtherKernelsAreIgnored) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q8_0", "1,4096,4096", 1)});
  EXPECT_EQ(table.lookup(query(kH100), baseline_variant()).match, rt::Match::baseline);
}

TEST(RuntimeLookup, UsageErrors) {
  const auto table = levels_table();
  auto q = query(kH100);
  q.kernel = "";
  EXPECT_THROW(table.lookup(q), rt::Error);
  q = query(kH100, {1, 0, 4096});
  try {
    table.lookup(q);
    FAIL();
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::usage);
  }
  q = query(kH100, {});
  EXPECT_THROW(table.lookup(q), rt::Error);
}

TEST(RuntimeShapes, ExactShapeFirst) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q4k", "1,4096,4096", 1), winner_json(1, "matmul_q4k", "1,4096,14336", 2),
                           winner_json(1, "matmul_q4k", "1,14336,4096", 3)});
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {1, 4096, 14336}))), 2u);
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {1, 14336, 4096}))), 3u);
}

TEST(RuntimeShapes, NearestByLogDistance) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q4k", "1,4096,4096", 1), winner_json(1, "matmul_q4k", "1,14336,4096", 2),
                           winner_json(1, "matmul_q4k", "4,4096,4096", 3)});
  // N=8192: |log2(8192/4096)| = 1 against |log2(8192/14336)| = 0.81.
  auto r = table.lookup(query(kH100, {1, 8192, 4096}));
  EXPECT_EQ(tag_of(r), 2u);
  EXPECT_NEAR(r.shape_distance, std::log2(14336.0 / 8192.0), 1e-12);
  EXPECT_NE(r.match_text.find("nearest shape 1,14336,4096"), std::string::npos) << r.match_text;
  // M=2 is 1 from M=1 and 1 from M=4: the table order breaks the tie.
  r = table.lookup(query(kH100, {2, 4096, 4096}));
  EXPECT_EQ(tag_of(r), 1u);
  // M=3 is closer to 4 (0.415) than to 1 (1.585).
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {3, 4096, 4096}))), 3u);
}

TEST(RuntimeShapes, NeverCrossesTheDecodePrefillBoundary) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q4k", "8,4096,4096", 1), winner_json(1, "matmul_q4k", "9,4096,4096", 2)});
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {1, 4096, 4096}))), 1u);   // decode: M=8 is decode
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {8, 4096, 4096}))), 1u);
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {9, 4096, 4096}))), 2u);   // prefill
  EXPECT_EQ(tag_of(table.lookup(query(kH100, {512, 4096, 4096}))), 2u);

  const auto prefill_only = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                                 {winner_json(1, "matmul_q4k", "512,4096,4096", 1)});
  const auto r = prefill_only.lookup(query(kH100, {1, 4096, 4096}), baseline_variant());
  EXPECT_EQ(r.match, rt::Match::baseline);  // never the prefill variant for a decode shape
  EXPECT_THROW(prefill_only.lookup(query(kH100, {1, 4096, 4096})), rt::Error);
}

TEST(RuntimeShapes, AMissingRegimeFallsToTheNextDeviceLevel) {
  // This device has only prefill entries; another NVIDIA device has decode.
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name),
                           device_json(2, kNvidia, 0x2684, 100, "NVIDIA GeForce RTX 4090")},
                          {winner_json(1, "matmul_q4k", "512,4096,4096", 1), winner_json(2, "matmul_q4k", "1,4096,4096", 2)});
  const auto r = table.lookup(query(kH100, {1, 4096, 4096}));
  EXPECT_EQ(r.match, rt::Match::vendor);
  EXPECT_EQ(tag_of(r), 2u);
  EXPECT_EQ(table.lookup(query(kH100, {64, 4096, 4096})).match, rt::Match::device_and_driver);
}

TEST(RuntimeShapes, OtherDimensionCountsAreIgnored) {
  auto winner = winner_json(1, "rmsnorm", "4096", 1);
  winner["dispatch"] = nlohmann::json::array({{{"shape_dim", 0}, {"divisor", 256}}, {{"shape_dim", -1}, {"divisor", 1}},
                                              {{"shape_dim", -1}, {"divisor", 1}}});
  auto winner2 = winner_json(1, "rmsnorm", "4096,2", 2);
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)}, {winner, winner2});
  rt::Query q{kH100, "rmsnorm", {8192}, ""};
  const auto r = table.lookup(q);
  EXPECT_EQ(tag_of(r), 1u);
  EXPECT_EQ(r.workgroups[0], (std::array<std::uint32_t, 3>{32, 1, 1}));
  EXPECT_NE(r.match_text.find("nearest shape 4096"), std::string::npos) << r.match_text;
}

TEST(RuntimeShapes, ValidityPredicateRejectsEntries) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q4k", "1,4096,4096", 1), winner_json(1, "matmul_q4k", "1,4096,14336", 2)});
  // The caller knows the variant tagged 1 needs K >= 8192, say.
  const rt::Validity valid = [](const rt::Entry& e, const rt::Shape& shape) {
    return e.contract.stages[0].spirv.back() != 1u || shape[2] >= 8192;
  };
  const auto r = table.lookup(query(kH100, {1, 4096, 4096}), std::nullopt, valid);
  EXPECT_EQ(tag_of(r), 2u);
  EXPECT_FALSE(r.exact_shape);
  const rt::Validity none = [](const rt::Entry&, const rt::Shape&) { return false; };
  EXPECT_EQ(table.lookup(query(kH100), baseline_variant(), none).match, rt::Match::baseline);
}

TEST(RuntimeShapes, CacheModeBreaksTies) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q4k", "1,4096,4096", 1, "hot"),
                           winner_json(1, "matmul_q4k", "1,4096,4096", 2, "cold"),
                           winner_json(1, "matmul_q4k", "1,8192,4096", 3, "hot")});
  auto q = query(kH100);
  EXPECT_EQ(tag_of(table.lookup(q)), 2u);  // "" prefers cold
  q.cache_mode = "hot";
  EXPECT_EQ(tag_of(table.lookup(q)), 1u);
  q.shape = {1, 8192, 4096};
  q.cache_mode = "cold";
  EXPECT_EQ(tag_of(table.lookup(q)), 3u);  // only a tie-break: the exact hot shape beats a cold one
}

TEST(RuntimeRules, ShapeDistance) {
  const std::vector<std::uint32_t> a{1, 4096, 4096}, b{2, 4096, 1024};
  EXPECT_DOUBLE_EQ(rt::shape_distance(a, a), 0.0);
  EXPECT_DOUBLE_EQ(rt::shape_distance(a, b), 3.0);
  EXPECT_DOUBLE_EQ(rt::shape_distance(b, a), 3.0);
  EXPECT_THROW(rt::shape_distance(a, std::vector<std::uint32_t>{1, 2}), rt::Error);
  EXPECT_THROW(rt::shape_distance(a, std::vector<std::uint32_t>{0, 2, 3}), rt::Error);
}

TEST(RuntimeRules, NameFamilyAndArchitecture) {
  EXPECT_EQ(rt::name_family("NVIDIA GeForce RTX 4090"), "nvidia geforce rtx 4");
  EXPECT_EQ(rt::name_family("NVIDIA H100 80GB HBM3"), "nvidia h1");
  EXPECT_EQ(rt::name_family("llvmpipe (LLVM 15.0.6, 256 bits)"), "llvmpipe (llvm 1");
  EXPECT_EQ(rt::name_family("SwiftShader Device"), "swiftshader device");
  const rt::DeviceIdentity rtx4090{kNvidia, 0x2684, 1, "NVIDIA GeForce RTX 4090"};
  const rt::DeviceIdentity rtx4060{kNvidia, 0x2882, 7, "NVIDIA GeForce RTX 4060"};
  const rt::DeviceIdentity rtx3090{kNvidia, 0x2204, 1, "NVIDIA GeForce RTX 3090"};
  const rt::DeviceIdentity h200{kNvidia, 0x2335, 1, "NVIDIA H200"};
  EXPECT_TRUE(rt::same_architecture(rtx4090, rtx4060));
  EXPECT_FALSE(rt::same_architecture(rtx4090, rtx3090));
  EXPECT_TRUE(rt::same_architecture(kH100, h200));  // device id 0x23xx
  EXPECT_FALSE(rt::same_architecture(kH100, rt::DeviceIdentity{kAmd, 0x2330, 1, kH100.name}));  // other vendor
  // A zero device-id high part says nothing.
  EXPECT_FALSE(rt::same_architecture({0x10005, 0, 1, "llvmpipe (LLVM 15.0.6)"}, {0x10005, 0, 1, "other 2"}));
}

TEST(RuntimeDispatch, WorkgroupCounts) {
  const rt::DispatchRule rule{rt::DispatchAxis{1, 2}, rt::DispatchAxis{0, 4}, rt::DispatchAxis{}};
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{1, 37, 1024}),
            (std::array<std::uint32_t, 3>{19, 1, 1}));
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{8, 38, 1024}),
            (std::array<std::uint32_t, 3>{19, 2, 1}));
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{9, 0xffffffffu, 1}),
            (std::array<std::uint32_t, 3>{0x80000000u, 3, 1}));  // no overflow in the ceiling
  const rt::DispatchRule all_ones{};
  EXPECT_EQ(rt::workgroup_counts(all_ones, std::vector<std::uint32_t>{5}), (std::array<std::uint32_t, 3>{1, 1, 1}));
  EXPECT_THROW(rt::workgroup_counts(rule, std::vector<std::uint32_t>{4}), rt::Error);
  const rt::DispatchRule zero{rt::DispatchAxis{0, 0}, rt::DispatchAxis{}, rt::DispatchAxis{}};
  EXPECT_THROW(rt::workgroup_counts(zero, std::vector<std::uint32_t>{4}), rt::Error);
}

// Worked by hand: 200,000 rows, one a workgroup, at most 65,535 along x:
// 4 along y (3 * 65,535 = 196,605 < 200,000).
TEST(RuntimeDispatch, AFoldedAxisCapsAtItsFoldAndTheNextCarriesTheRest) {
  const rt::DispatchRule rule{rt::DispatchAxis{0, 1, 65535}, rt::DispatchAxis{0, 65535}, rt::DispatchAxis{}};
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{200000}), (std::array<std::uint32_t, 3>{65535, 4, 1}));
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{65535}), (std::array<std::uint32_t, 3>{65535, 1, 1}));
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{65536}), (std::array<std::uint32_t, 3>{65535, 2, 1}));
  EXPECT_EQ(rt::workgroup_counts(rule, std::vector<std::uint32_t>{12}), (std::array<std::uint32_t, 3>{12, 1, 1}));
  // The C API reads the fold from the struct's new last member.
  const vktune_dispatch_axis axes[3] = {{0, 1, 65535}, {0, 65535, 0}, {-1, 1, 0}};
  const std::uint32_t shape[1] = {200000};
  std::uint32_t out[3] = {};
  ASSERT_EQ(vktune_workgroup_counts(axes, shape, 1, out), VKTUNE_OK) << vktune_last_error();
  EXPECT_EQ(out[0], 65535u);
  EXPECT_EQ(out[1], 4u);
  EXPECT_EQ(out[2], 1u);
}

TEST(RuntimeDispatch, LookupEvaluatesTheRuleForTheQueriedShape) {
  const auto table = make({device_json(1, kNvidia, 0x2330, 100, kH100.name)},
                          {winner_json(1, "matmul_q4k", "1,4096,4096", 1)});
  const auto r = table.lookup(query(kH100, {3, 37, 1024}));
  EXPECT_EQ(r.tuned_shape, (std::vector<std::uint32_t>{1, 4096, 4096}));
  EXPECT_EQ(r.workgroups[0], (std::array<std::uint32_t, 3>{19, 3, 1}));  // ceil(37/2), ceil(3/1)
  EXPECT_EQ(r.contract.stages[0].local_size, (std::array<std::uint32_t, 3>{64, 1, 1}));
}

// Equal candidates of one level (two other GPUs of the model, the same
// shape, driver and cache mode): the most recently measured, whatever the
// table order; an entry without a time counts as the oldest; equal times
// fall to table order. The GPU that tuned one is served its own.
TEST(RuntimeLookup, TheNewestOfEqualCandidatesWins) {
  auto dated = [](std::int64_t device, std::uint32_t tag, const std::string& at) {
    auto w = winner_json(device, "matmul_q4k", "1,4096,4096", tag);
    if (!at.empty()) w["updated_at"] = at;
    return w;
  };
  const nlohmann::json devices = {device_json(1, kNvidia, 0x2335, 100, "NVIDIA H200", "aaaa"),
                                  device_json(2, kNvidia, 0x2335, 100, "NVIDIA H200", "bbbb")};
  const rt::DeviceIdentity third{kNvidia, 0x2335, 100, "NVIDIA H200", "cccc"};
  const auto newer_second = make(devices, {dated(1, 10, "2026-11-21T11:45:38.475Z"), dated(2, 20, "2026-12-01T05:19:02.001Z")});
  auto r = newer_second.lookup(query(third));
  EXPECT_EQ(r.match, rt::Match::model);
  EXPECT_EQ(tag_of(r), 20u);
  EXPECT_EQ(r.entry->updated_at, "2026-12-01T05:19:02.001Z");
  EXPECT_EQ(tag_of(newer_second.lookup(query({kNvidia, 0x2335, 100, "NVIDIA H200", "aaaa"}))), 10u);  // its own
  const auto newer_first = make(devices, {dated(1, 10, "2026-12-01T05:19:02.001Z"), dated(2, 20, "2026-11-21T11:45:38.475Z")});
  EXPECT_EQ(tag_of(newer_first.lookup(query(third))), 10u);
  const auto undated_first = make(devices, {dated(1, 10, ""), dated(2, 20, "2026-11-21T11:45:38.475Z")});
  EXPECT_EQ(tag_of(undated_first.lookup(query(third))), 20u);
  const auto same_time = make(devices, {dated(1, 10, "2026-11-21T11:45:38.475Z"), dated(2, 20, "2026-11-21T11:45:38.475Z")});
  EXPECT_EQ(tag_of(same_time.lookup(query(third))), 10u);
}
