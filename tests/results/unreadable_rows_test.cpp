// A measurement row this vktune cannot read (issue 16, item 10: a status
// 'bogus') counts as not measured, with one warning, instead of aborting
// every later tune and the CSV export.
#include <gtest/gtest.h>

#include <sstream>

#include "results/export_csv.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

class UnreadableRowsTest : public StoreTest {
 protected:
  // Three measured variants of one kernel; variant2's row then says 'bogus'.
  std::int64_t fill(Store& store) {
    const auto device = store.upsert_device(sample_device());
    for (int i = 1; i <= 3; ++i) {
      store.upsert_variant(sample_variant(i));
      store.record_measurement(sample_measurement(device, "variant" + std::to_string(i), 1000.0 * i));
    }
    sqlite::Connection::open(db_path(), sqlite::Connection::Mode::read_write_create)
        .exec("UPDATE measurements SET status = 'bogus' WHERE variant = 'variant2'");
    return device;
  }
};

TEST_F(UnreadableRowsTest, CountsAsNotMeasuredAndWarnsOnce) {
  auto store = Store::open(db_path());
  std::vector<std::string> warnings;
  store.set_warning_sink([&](const std::string& line) { warnings.push_back(line); });
  const auto device = fill(store);

  EXPECT_FALSE(store.has_measurement(device, "variant2", default_shape, "cold"));
  EXPECT_FALSE(store.find_measurement(device, "variant2", default_shape, "cold"));
  EXPECT_TRUE(store.has_measurement(device, "variant1", default_shape, "cold"));
  const auto rows = store.measurements(device, "matmul_q4k", default_shape, "cold");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].variant_hash, "variant1");
  EXPECT_EQ(rows[1].variant_hash, "variant3");
  EXPECT_EQ(store.all_measurements().size(), 2u);

  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("bogus"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("variant2"), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find('\n'), std::string::npos) << warnings[0];
}

TEST_F(UnreadableRowsTest, ANewMeasurementReplacesIt) {
  auto store = Store::open(db_path());
  store.set_warning_sink([](const std::string&) {});
  const auto device = fill(store);
  auto again = sample_measurement(device, "variant2", 1500);
  store.record_measurement(again);
  const auto got = store.find_measurement(device, "variant2", default_shape, "cold");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, Status::ok);
  EXPECT_EQ(got->median_ns, 1500);
  EXPECT_EQ(store.measurements(device, "matmul_q4k", default_shape, "cold").size(), 3u);
}

TEST_F(UnreadableRowsTest, CsvExportLeavesItOut) {
  auto store = Store::open(db_path());
  store.set_warning_sink([](const std::string&) {});
  fill(store);
  std::ostringstream csv;
  export_csv(csv, store, {});
  const auto text = csv.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);  // the header and two rows
  EXPECT_EQ(text.find("variant2"), std::string::npos) << text;
  EXPECT_EQ(text.find("bogus"), std::string::npos) << text;
}

}  // namespace
}  // namespace vktune::results::testing
