// results/export_t4: a store's measurements in the T4 open auto-tuning
// results format (schema 1.0.0): every search row a result with the
// schema's required fields, its time and status carried over, failures as
// T4's invalidity; vktune's own fields beside them.
#include <gtest/gtest.h>

#include <set>

#include "export_test_data.hpp"
#include "results/export_t4.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

using ExportT4 = StoreTest;

TEST_F(ExportT4, EverySearchRowIsAResultWithTheSchemasRequiredFields) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  fill_store(store, random);
  // A failed row and a confirmation row besides the filled ones.
  const auto device = store.upsert_device(random.device(0x8086, "Intel C"));
  const auto variant = random.variant("matmul_q4k");
  store.upsert_variant(variant);
  auto failed = random.measurement(device, variant.variant_hash, "1,4096,4096");
  failed.status = Status::compile_timeout;
  failed.reason = "compile passed its deadline";
  store.record_measurement(failed);
  auto confirm = random.measurement(device, variant.variant_hash, "2,4096,4096");
  confirm.phase = Phase::confirm;
  store.record_measurement(confirm);

  const auto t4 = export_t4(store);
  EXPECT_EQ(t4.at("schema_version"), "1.0.0");
  std::size_t search_rows = 0;
  for (const auto& found : store.all_measurements()) search_rows += found.measurement.phase == Phase::search;
  const auto& results = t4.at("results");
  ASSERT_EQ(results.size(), search_rows);
  const std::set<std::string> invalidities = {"timeout", "compile", "runtime", "correctness", "constraints", "correct"};
  bool saw_failure = false;
  for (const auto& r : results) {
    for (const char* field : {"configuration", "times", "invalidity", "correctness"}) {
      ASSERT_TRUE(r.contains(field)) << field << ": " << r.dump();
    }
    EXPECT_TRUE(r.at("configuration").is_object());
    EXPECT_EQ(invalidities.count(r.at("invalidity").get<std::string>()), 1u) << r.dump();
    // The row this result came from, found by its variant, shape and device.
    const auto& v = r.at("vktune");
    const Measurement* row = nullptr;
    const auto all = store.all_measurements();
    for (const auto& found : all) {
      const auto& m = found.measurement;
      if (m.variant_hash == v.at("variant_hash") && m.shape == v.at("shape") && m.device_id == v.at("device_row") &&
          m.phase == Phase::search) {
        row = &found.measurement;
        const bool ok = m.status == Status::ok;
        EXPECT_EQ(r.at("correctness"), ok ? 1 : 0);
        if (ok) {
          ASSERT_EQ(r.at("times").at("runtimes").size(), 1u);
          EXPECT_DOUBLE_EQ(r.at("times").at("runtimes")[0].get<double>() * 1e6, m.median_ns);
          EXPECT_DOUBLE_EQ(r.at("measurements")[0].at("value").get<double>(), m.median_ns / 1e6);
          EXPECT_EQ(r.at("measurements")[0].at("unit"), "ms");
          EXPECT_EQ(r.at("invalidity"), "correct");
        } else {
          saw_failure = true;
          EXPECT_EQ(r.at("invalidity"), "compile");
          EXPECT_EQ(v.at("status"), "compile_timeout");
          EXPECT_EQ(v.at("reason"), "compile passed its deadline");
          EXPECT_TRUE(r.at("times").at("runtimes").empty());
        }
        EXPECT_DOUBLE_EQ(r.at("times").at("compilation_time").get<double>(),
                         m.durations.compile_ms + m.durations.pipeline_ms);
        break;
      }
    }
    EXPECT_NE(row, nullptr) << r.dump();
  }
  EXPECT_TRUE(saw_failure);
  EXPECT_EQ(t4.at("vktune").at("devices").size(), 3u);

  // One kernel's rows only, with the filter every export takes.
  ExportFilter only;
  only.kernel = "matmul_q4k_big";
  for (const auto& r : export_t4(store, only).at("results")) EXPECT_EQ(r.at("vktune").at("kernel"), "matmul_q4k_big");
}

TEST(ExportT4Invalidity, EachStatusMapsToOneOfTheSchemasValues) {
  EXPECT_STREQ(t4_invalidity(Status::ok), "correct");
  EXPECT_STREQ(t4_invalidity(Status::compile_error), "compile");
  EXPECT_STREQ(t4_invalidity(Status::wrong_result), "correctness");
  EXPECT_STREQ(t4_invalidity(Status::out_of_bounds), "correctness");
  EXPECT_STREQ(t4_invalidity(Status::timeout), "timeout");
  EXPECT_STREQ(t4_invalidity(Status::device_limit), "constraints");
  EXPECT_STREQ(t4_invalidity(Status::pipeline_crash), "runtime");
}

}  // namespace
}  // namespace vktune::results::testing
