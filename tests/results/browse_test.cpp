// results/browse.hpp on a database built here: counts by status, the row a
// variant is judged by, the order of the search, winners with their speedup
// and share of the ceiling, and the filters.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "results/browse.hpp"
#include "store_fixture.hpp"

namespace vktune::results {
namespace {

using testing::sample_device;
using testing::sample_measurement;
using testing::sample_variant;
using testing::sample_winner;

class BrowseTest : public testing::StoreTest {
 protected:
  // Device A (two ceilings) with matmul_q4k at 1,4096,4096: variants 0..5
  // searched in the order 3, 0, 5, 1, 2, 4 (two fail), variants 0 and 1
  // re-timed in a confirmation; the winner is variant 1, baseline variant 0.
  // Device B with one measurement of rmsnorm.
  void SetUp() override {
    auto store = Store::open(db_path());
    device_a = store.upsert_device(sample_device());
    auto other = sample_device();
    other.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    other.vendor_id = 0x10005;
    device_b = store.upsert_device(other);
    store.put_ceiling(device_a, std::string(kReadBandwidthCeiling), 2000.0, "GB/s");
    store.put_ceiling(device_a, std::string(kFp32FmaCeiling), 50000.0, "GFLOP/s");
    store.put_ceiling(device_a, std::string(kDispatchFloorCeiling), 2600.0, "ns");
    store.put_ceiling(device_a, std::string(kTensorCeiling), 400000.0, "GFLOP/s");
    store.put_ceiling(device_a, std::string(kTensorSharedCeiling), 300000.0, "GFLOP/s");
    for (int i = 0; i < 6; ++i) store.upsert_variant(sample_variant(i));
    for (int i : {3, 0, 5, 1, 2, 4}) {
      auto m = sample_measurement(device_a, "variant" + std::to_string(i), 10000.0 * (i + 1));
      if (i == 2) {
        m.status = Status::wrong_result;
        m.reason = "rel L2 error 0.5 > 1e-05";
      }
      if (i == 4) {
        m.status = Status::compile_error;
        m.reason = "syntax error";
      }
      m.gbps = 1000.0 / (i + 1);
      m.gflops = 100.0 / (i + 1);
      store.record_measurement(m);
    }
    for (int i : {0, 1}) {
      auto m = sample_measurement(device_a, "variant" + std::to_string(i), 9000.0 * (i + 1));
      m.phase = Phase::confirm;
      store.record_measurement(m);
    }
    auto w = sample_winner(device_a, testing::default_shape);  // variant1, 21 us, baseline variant0 42 us
    store.set_winner(w);

    store.upsert_variant(sample_variant(7, "rmsnorm"));
    store.record_measurement(sample_measurement(device_b, "variant7", 5000.0, "4,1024"));
  }

  BrowseResult browse_with(const BrowseFilter& filter) {
    const auto store = Store::open_read_only(db_path());
    return browse(store, filter);
  }

  std::int64_t device_a = 0, device_b = 0;
};

TEST_F(BrowseTest, CountsVariantsByStatusAndKeepsTheSearchOrder) {
  const auto result = browse_with({});
  ASSERT_EQ(result.devices.size(), 2u);
  ASSERT_EQ(result.shapes.size(), 2u);
  const auto& s = result.shapes[0];
  EXPECT_EQ(s.key.device_id, device_a);
  EXPECT_EQ(s.key.kernel, "matmul_q4k");
  EXPECT_EQ(s.per_variant.size(), 6u);
  EXPECT_EQ(s.confirm_rows, 2u);
  const std::map<std::string, std::size_t> expected{{"ok", 4}, {"wrong_result", 1}, {"compile_error", 1}};
  EXPECT_EQ(s.status_counts(), expected);
  EXPECT_EQ(s.failures(), 2u);

  std::vector<std::string> order;
  for (const auto& row : s.search_order) order.push_back(row.variant_hash);
  const std::vector<std::string> measured{"variant3", "variant0", "variant5", "variant1", "variant2", "variant4"};
  EXPECT_EQ(order, measured);
  for (const auto& row : s.search_order) EXPECT_EQ(row.phase, Phase::search);
}

TEST_F(BrowseTest, AVariantIsJudgedByItsConfirmationRowFastestFirst) {
  const auto result = browse_with({});
  const auto& rows = result.shapes[0].per_variant;
  ASSERT_EQ(rows.size(), 6u);
  // Confirmed: variant0 at 9 us, variant1 at 18 us; searched only: variant3 40 us, variant5 60 us.
  EXPECT_EQ(rows[0].variant_hash, "variant0");
  EXPECT_EQ(rows[0].phase, Phase::confirm);
  EXPECT_DOUBLE_EQ(rows[0].median_ns, 9000.0);
  EXPECT_EQ(rows[1].variant_hash, "variant1");
  EXPECT_DOUBLE_EQ(rows[1].median_ns, 18000.0);
  EXPECT_EQ(rows[2].variant_hash, "variant3");
  EXPECT_EQ(rows[2].phase, Phase::search);
  EXPECT_EQ(rows[3].variant_hash, "variant5");
  EXPECT_FALSE(rows[4].ok());
  EXPECT_FALSE(rows[5].ok());
  EXPECT_EQ(rows[4].config_json, sample_variant(rows[4].variant_hash == "variant2" ? 2 : 4).config_json);
}

TEST_F(BrowseTest, WinnerCarriesItsSpeedupAndShareOfTheCeiling) {
  const auto result = browse_with({});
  const auto& s = result.shapes[0];
  ASSERT_TRUE(s.winner.has_value());
  const auto w = sample_winner(device_a, testing::default_shape);
  EXPECT_EQ(s.winner->variant_hash, w.variant_hash);
  EXPECT_EQ(s.winner->config_json, w.config_json);
  ASSERT_TRUE(s.winner->speedup().has_value());
  EXPECT_DOUBLE_EQ(*s.winner->speedup(), w.baseline_median_ns / w.median_ns);  // 42 / 21
  const auto& device = result.devices[0];
  ASSERT_TRUE(device.read_gbps && device.fp32_gflops && device.dispatch_floor_ns);
  EXPECT_DOUBLE_EQ(*device.dispatch_floor_ns, 2600.0);
  // 1500.25 GB/s of 2000 beats 1.5 GFLOP/s of 50000: the read ceiling binds.
  const auto pct = device.percent_of_ceiling(s.winner->gbps, s.winner->gflops);
  ASSERT_TRUE(pct.has_value());
  EXPECT_DOUBLE_EQ(*pct, 100.0 * w.gbps / 2000.0);
  EXPECT_DOUBLE_EQ(*device.percent_of_ceiling(10.0, 25000.0), 50.0);  // the FMA ceiling binds
  ASSERT_TRUE(device.tensor_gflops && device.tensor_shared_gflops);
  EXPECT_DOUBLE_EQ(*device.tensor_shared_gflops, 300000.0);
  // Above the FMA ceiling only the tensor cores run: 200 of their 400 TFLOP/s.
  EXPECT_DOUBLE_EQ(*device.percent_of_ceiling(10.0, 200000.0), 50.0);
  EXPECT_FALSE(result.devices[1].percent_of_ceiling(10.0, 10.0).has_value());  // no ceilings stored
  EXPECT_FALSE(result.shapes[1].winner.has_value());
}

TEST(PercentOfCompute, FmaCeilingUnlessOnlyTheTensorCoresReachTheRate) {
  EXPECT_DOUBLE_EQ(percent_of_compute(30000.0, 60000.0, 400000.0), 50.0);   // reachable with FMA
  EXPECT_DOUBLE_EQ(percent_of_compute(100000.0, 60000.0, 400000.0), 25.0);  // tensor cores only
  EXPECT_DOUBLE_EQ(percent_of_compute(90000.0, 60000.0, 0.0), 150.0);       // none measured: FMA
  EXPECT_DOUBLE_EQ(percent_of_compute(90000.0, 0.0, 400000.0), 0.0);        // no FMA ceiling
}

// A tensor-core path slower than the FMA ceiling is still measured against
// the tensor cores' (an attention variant at 55.8 TFLOP/s read 86% of the
// FMA ceiling before, 15% of the tensor cores' now).
TEST(PercentOfCompute, ATensorCorePathIsAlwaysOfTheTensorCeiling) {
  EXPECT_DOUBLE_EQ(percent_of_compute(30000.0, 60000.0, 400000.0, true), 7.5);
  EXPECT_DOUBLE_EQ(percent_of_compute(100000.0, 60000.0, 400000.0, true), 25.0);
  EXPECT_DOUBLE_EQ(percent_of_compute(30000.0, 60000.0, 0.0, true), 50.0);  // none measured: FMA
  StoredDevice device;
  device.read_gbps = 2000.0, device.fp32_gflops = 60000.0, device.tensor_gflops = 400000.0;
  EXPECT_DOUBLE_EQ(*device.percent_of_ceiling(10.0, 30000.0, true), 7.5);
  EXPECT_DOUBLE_EQ(*device.percent_of_ceiling(10.0, 30000.0), 50.0);
}

TEST_F(BrowseTest, FiltersSelectByDeviceKernelAndShape) {
  EXPECT_EQ(browse_with({"LLVMPIPE", "", ""}).shapes.size(), 1u);
  EXPECT_EQ(browse_with({"LLVMPIPE", "", ""}).shapes[0].key.kernel, "rmsnorm");
  EXPECT_EQ(browse_with({std::to_string(device_a), "", ""}).shapes.size(), 1u);
  EXPECT_EQ(browse_with({"", "rmsnorm", ""}).shapes.size(), 1u);
  EXPECT_EQ(browse_with({"", "", "4, 1024"}).shapes.size(), 1u);  // compared as numbers
  EXPECT_EQ(browse_with({"", "", "1,4096,4096"}).shapes[0].key.kernel, "matmul_q4k");
  // Filters that match nothing give an empty result, not an error.
  EXPECT_TRUE(browse_with({"no such gpu", "", ""}).devices.empty());
  EXPECT_TRUE(browse_with({"no such gpu", "", ""}).shapes.empty());
  EXPECT_TRUE(browse_with({"", "softmax", ""}).shapes.empty());
  EXPECT_TRUE(browse_with({"", "", "7,7"}).shapes.empty());
  try {
    browse_with({"", "", "1,x"});
    FAIL() << "a shape that is not numbers must be a usage error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("1,x"), std::string::npos) << e.what();
  }
}

TEST_F(BrowseTest, AWinnerWithoutMeasurementsIsListed) {
  {
    auto store = Store::open(db_path());
    auto w = sample_winner(device_b, "2,8,16");  // as an import stores it: no measurement rows
    store.set_winner(w);
  }
  const auto result = browse_with({std::to_string(device_b), "matmul_q4k", ""});
  ASSERT_EQ(result.shapes.size(), 1u);
  EXPECT_TRUE(result.shapes[0].per_variant.empty());
  EXPECT_TRUE(result.shapes[0].search_order.empty());
  ASSERT_TRUE(result.shapes[0].winner.has_value());
  EXPECT_DOUBLE_EQ(*result.shapes[0].winner->speedup(), 2.0);
}

}  // namespace
}  // namespace vktune::results
