// Round trips of every record type through the store.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

using RecordsTest = StoreTest;

TEST(Status, EveryStatusRoundTripsThroughItsText) {
  for (const Status s : {Status::ok, Status::compile_error, Status::pipeline_error, Status::device_limit,
                         Status::wrong_result, Status::timeout, Status::device_lost, Status::error, Status::attempt,
                         Status::crashed}) {
    EXPECT_EQ(status_from_string(to_string(s)), s) << to_string(s);
  }
  EXPECT_EQ(to_string(Status::wrong_result), "wrong_result");
  EXPECT_EQ(to_string(Status::crashed), "crashed");
  EXPECT_THROW(status_from_string("fast"), Error);
}

TEST_F(RecordsTest, SameDeviceIdentityGivesSameRowId) {
  auto store = Store::open(db_path());
  const auto device = sample_device();
  const auto id = store.upsert_device(device);
  EXPECT_EQ(store.upsert_device(device), id);

  auto renamed_driver = device;
  renamed_driver.driver_version_text = "550.54.15-custom";  // descriptive, not identity
  EXPECT_EQ(store.upsert_device(renamed_driver), id);

  auto new_driver = device;
  new_driver.driver_version += 1;  // identity: a new driver is a new device row
  EXPECT_NE(store.upsert_device(new_driver), id);

  auto twin = device;
  twin.device_uuid = "ffffffffffffffffffffffffffffffff";  // a second card of the same model
  EXPECT_NE(store.upsert_device(twin), id);

  const auto devices = store.devices();
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].first, id);
  EXPECT_EQ(devices[0].second, renamed_driver);
  EXPECT_EQ(store.find_device(device), id);
  auto unknown = device;
  unknown.name = "Other";
  EXPECT_FALSE(store.find_device(unknown));
}

TEST_F(RecordsTest, VariantRoundTripsAndRegistersItsKernel) {
  auto store = Store::open(db_path());
  const auto variant = sample_variant(4);
  store.upsert_variant(variant);
  store.upsert_variant(sample_variant(5, "matvec_q4k"));
  EXPECT_EQ(store.find_variant(variant.variant_hash), variant);
  EXPECT_FALSE(store.find_variant("nope"));
  EXPECT_EQ(store.kernels(), (std::vector<std::string>{"matmul_q4k", "matvec_q4k"}));

  auto updated = variant;
  updated.compiler_version = "shaderc 2024.1";
  store.upsert_variant(updated);
  EXPECT_EQ(store.find_variant(variant.variant_hash), updated);
}

TEST_F(RecordsTest, SpirvRoundTripsWordForWord) {
  auto store = Store::open(db_path());
  const std::vector<std::uint32_t> words = {0x07230203u, 0x00010500u, 0x0008000bu, 0xdeadbeefu, 0u, 0xffffffffu};
  store.put_spirv("abc", words);
  EXPECT_EQ(store.get_spirv("abc"), words);
  EXPECT_FALSE(store.get_spirv("missing"));
  EXPECT_THROW(store.put_spirv("empty", {}), Error);
}

TEST_F(RecordsTest, MeasurementRoundTripsWithEveryField) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  auto m = sample_measurement(device, "variant1", 12345.5);
  m.cache_mode = "hot";
  m.statistics_json = R"({"Register Count":96,"Spill count":0})";
  store.record_measurement(m);

  const auto got = store.find_measurement(device, "variant1", m.shape, "hot");
  ASSERT_TRUE(got);
  EXPECT_FALSE(got->created_at.empty());
  EXPECT_EQ(got->created_at.size(), 24u) << got->created_at;  // 2024-05-01T12:00:00.000Z
  EXPECT_EQ(got->created_at.back(), 'Z');
  m.created_at = got->created_at;
  EXPECT_EQ(*got, m);
  EXPECT_FALSE(store.find_measurement(device, "variant1", m.shape, "cold"));
}

TEST_F(RecordsTest, FailedMeasurementKeepsStatusAndReason) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(2));
  Measurement m;
  m.device_id = device;
  m.variant_hash = "variant2";
  m.shape = "8,4096,4096";
  m.cache_mode = "cold";
  m.status = Status::compile_error;
  m.reason = "ERROR: 0:12: 'x' : undeclared identifier";
  store.record_measurement(m);
  const auto got = store.find_measurement(device, "variant2", m.shape, "cold");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, Status::compile_error);
  EXPECT_EQ(got->reason, m.reason);
}

TEST_F(RecordsTest, MeasurementsOfAKernelListSuccessesFastestFirstThenFailures) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  for (int i = 0; i < 4; ++i) store.upsert_variant(sample_variant(i));
  store.upsert_variant(sample_variant(9, "other_kernel"));
  store.record_measurement(sample_measurement(device, "variant0", 300));
  auto failed = sample_measurement(device, "variant1", 0);
  failed.status = Status::wrong_result;
  store.record_measurement(failed);
  store.record_measurement(sample_measurement(device, "variant2", 100));
  store.record_measurement(sample_measurement(device, "variant3", 200, "512,4096,4096"));  // other shape
  store.record_measurement(sample_measurement(device, "variant9", 50));                    // other kernel

  const auto list = store.measurements(device, "matmul_q4k", "1,4096,4096", "cold");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].variant_hash, "variant2");
  EXPECT_EQ(list[1].variant_hash, "variant0");
  EXPECT_EQ(list[2].variant_hash, "variant1");
  EXPECT_EQ(list[2].status, Status::wrong_result);
  EXPECT_TRUE(store.measurements(device, "matmul_q4k", "1,4096,4096", "hot").empty());
}

TEST_F(RecordsTest, ConfirmationRowStandsBesideTheSearchRow) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  const auto search = sample_measurement(device, "variant1", 1000);
  store.record_measurement(search);
  auto confirm = sample_measurement(device, "variant1", 900);
  confirm.phase = Phase::confirm;
  confirm.repetitions = 150;
  confirm.durations = {0, 3.5, 0, 160.25, 24.75};
  store.record_measurement(confirm);

  const auto got_search = store.find_measurement(device, "variant1", default_shape, "cold");
  const auto got_confirm = store.find_measurement(device, "variant1", default_shape, "cold", Phase::confirm);
  ASSERT_TRUE(got_search && got_confirm);
  auto expected_search = search;
  expected_search.created_at = got_search->created_at;
  EXPECT_EQ(*got_search, expected_search);  // not overwritten
  auto expected_confirm = confirm;
  expected_confirm.created_at = got_confirm->created_at;
  EXPECT_EQ(*got_confirm, expected_confirm);
  EXPECT_TRUE(store.has_measurement(device, "variant1", default_shape, "cold", Phase::confirm));

  // A later confirmation replaces the earlier one, and only it.
  confirm.median_ns = 950;
  store.record_measurement(confirm);
  EXPECT_EQ(store.find_measurement(device, "variant1", default_shape, "cold", Phase::confirm)->median_ns, 950);
  EXPECT_EQ(store.find_measurement(device, "variant1", default_shape, "cold")->median_ns, 1000);
  EXPECT_EQ(store.all_measurements().size(), 2u);
}

TEST_F(RecordsTest, BestOfListsAndTheWinnerMarkUseTheConfirmationRowWhereThereIsOne) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  for (int i = 0; i < 3; ++i) store.upsert_variant(sample_variant(i));
  // variant1 searched slowest but confirmed fastest; variant0 never confirmed.
  store.record_measurement(sample_measurement(device, "variant0", 500));
  store.record_measurement(sample_measurement(device, "variant1", 700));
  store.record_measurement(sample_measurement(device, "variant2", 600));
  for (const auto& [variant, ns] : {std::pair{"variant1", 400.0}, std::pair{"variant2", 650.0}}) {
    auto confirm = sample_measurement(device, variant, ns);
    confirm.phase = Phase::confirm;
    store.record_measurement(confirm);
  }
  EXPECT_FALSE(store.has_measurement(device, "variant0", default_shape, "cold", Phase::confirm));

  const auto list = store.measurements(device, "matmul_q4k", default_shape, "cold");
  ASSERT_EQ(list.size(), 3u);  // one per variant
  EXPECT_EQ(list[0].variant_hash, "variant1");
  EXPECT_EQ(list[0].median_ns, 400);
  EXPECT_EQ(list[0].phase, Phase::confirm);
  EXPECT_EQ(list[1].variant_hash, "variant0");
  EXPECT_EQ(list[1].phase, Phase::search);
  EXPECT_EQ(list[2].variant_hash, "variant2");
  EXPECT_EQ(list[2].median_ns, 650);

  store.set_winner(sample_winner(device, default_shape));  // variant1
  std::size_t rows = 0, marked = 0;
  for (const auto& row : store.all_measurements()) {
    ++rows;
    if (!row.is_winner) continue;
    ++marked;
    EXPECT_EQ(row.measurement.variant_hash, "variant1");
    EXPECT_EQ(row.measurement.phase, Phase::confirm);
  }
  EXPECT_EQ(rows, 5u);
  EXPECT_EQ(marked, 1u);
}

TEST_F(RecordsTest, PhaseTextRoundTripsAndUnknownTextIsRefused) {
  EXPECT_EQ(to_string(Phase::search), "search");
  EXPECT_EQ(to_string(Phase::confirm), "confirm");
  EXPECT_EQ(phase_from_string("confirm"), Phase::confirm);
  EXPECT_EQ(phase_from_string("search"), Phase::search);
  EXPECT_THROW(phase_from_string("Confirm"), Error);
}

TEST_F(RecordsTest, MeasurementOfAnUnknownVariantIsRefused) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  try {
    store.record_measurement(sample_measurement(device, "never-stored", 1));
    FAIL() << "expected a foreign key error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::database);
    EXPECT_NE(std::string(e.what()).find("FOREIGN KEY"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(db_path().string()), std::string::npos) << e.what();
  }
}

TEST_F(RecordsTest, CeilingsRoundTripAndUpdate) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  EXPECT_FALSE(store.ceiling(device, "read_bandwidth"));
  store.put_ceiling(device, "read_bandwidth", 1800.0, "GB/s");
  store.put_ceiling(device, "fp32_fma", 51000.0, "GFLOP/s");
  store.put_ceiling(device, "read_bandwidth", 1850.5, "GB/s");
  EXPECT_EQ(store.ceiling(device, "read_bandwidth"), 1850.5);
  const auto all = store.ceilings(device);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "fp32_fma");
  EXPECT_EQ(all[0].unit, "GFLOP/s");
  EXPECT_EQ(all[1].value, 1850.5);
  EXPECT_FALSE(all[1].measured_at.empty());
}

TEST_F(RecordsTest, WinnerRoundTripsWithEverythingARuntimeNeeds) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  auto w = sample_winner(device, "1,4096,4096");
  store.set_winner(w);

  const auto got = store.find_winner(device, "matmul_q4k", "1,4096,4096", "cold");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->spirv_hash.size(), 16u);  // content hash chosen by the store
  EXPECT_EQ(store.get_spirv(got->spirv_hash), w.spirv);
  EXPECT_FALSE(got->updated_at.empty());
  w.spirv_hash = got->spirv_hash;
  w.updated_at = got->updated_at;
  EXPECT_EQ(*got, w);
}

TEST_F(RecordsTest, WinnerKeepsAGivenUpdateTime) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  auto w = sample_winner(device, "1,4096,4096");
  w.updated_at = "2020-02-03T04:05:06.789Z";  // as an import from another machine gives it
  store.set_winner(w);
  EXPECT_EQ(store.find_winner(device, "matmul_q4k", "1,4096,4096", "cold")->updated_at, w.updated_at);
}

TEST_F(RecordsTest, WinnerIsReplacedPerDeviceKernelShapeAndCacheMode) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  store.upsert_variant(sample_variant(2));
  store.set_winner(sample_winner(device, "1,4096,4096"));
  auto better = sample_winner(device, "1,4096,4096");
  better.variant_hash = "variant2";
  better.spirv = {0x07230203u, 99u};
  better.median_ns = 15000;
  store.set_winner(better);

  const auto all = store.winners();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].variant_hash, "variant2");
  EXPECT_EQ(all[0].spirv_hash, spirv_content_hash(better.spirv));  // winners' SPIR-V is content-addressed
  EXPECT_EQ(all[0].spirv, better.spirv);
  EXPECT_EQ(all[0].median_ns, 15000);
}

TEST_F(RecordsTest, WinnersFilterByDeviceAndKernel) {
  auto store = Store::open(db_path());
  const auto a = store.upsert_device(sample_device());
  const auto b = store.upsert_device(sample_device(1));
  store.upsert_variant(sample_variant(1));
  store.set_winner(sample_winner(a, "1,4096,4096"));
  store.set_winner(sample_winner(a, "512,4096,4096"));
  auto other = sample_winner(b, "1,4096,4096");
  other.kernel = "matvec_q4k";
  store.set_winner(other);

  EXPECT_EQ(store.winners().size(), 3u);
  EXPECT_EQ(store.winners(a).size(), 2u);
  EXPECT_EQ(store.winners(b).size(), 1u);
  EXPECT_EQ(store.winners({}, "matvec_q4k").size(), 1u);
  EXPECT_EQ(store.winners(a, "matvec_q4k").size(), 0u);
  const auto ordered = store.winners(a);
  EXPECT_EQ(ordered[0].shape, "1,4096,4096");
  EXPECT_EQ(ordered[1].shape, "512,4096,4096");
}

TEST_F(RecordsTest, WinnerWithoutSpirvIsRefused) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  auto w = sample_winner(device, "1,4096,4096");
  w.spirv.clear();
  EXPECT_THROW(store.set_winner(w), Error);
  w.spirv_hash = "not-stored";
  EXPECT_THROW(store.set_winner(w), Error);  // foreign key: the SPIR-V must exist
  EXPECT_TRUE(store.winners().empty());

  store.put_spirv("stored", std::vector<std::uint32_t>{0x07230203u});
  w.spirv_hash = "stored";
  store.set_winner(w);
  EXPECT_EQ(store.winners().at(0).spirv, std::vector<std::uint32_t>{0x07230203u});
}

}  // namespace
}  // namespace vktune::results::testing
