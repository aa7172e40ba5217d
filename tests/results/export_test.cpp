// Exporters: the tuned table as JSON, measurements as CSV, SPIR-V as base64.
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.hpp"
#include "results/export.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

using ExportTest = StoreTest;

TEST(SpirvBase64, KnownEncodingOfTheMagicNumber) {
  const std::vector<std::uint32_t> magic = {0x07230203u};  // bytes 03 02 23 07
  EXPECT_EQ(spirv_to_base64(magic), "AwIjBw==");
  EXPECT_EQ(spirv_from_base64("AwIjBw=="), magic);
  EXPECT_EQ(spirv_to_base64({}), "");
  EXPECT_TRUE(spirv_from_base64("").empty());
}

TEST(SpirvBase64, RoundTripsEveryPaddingLength) {
  std::vector<std::uint32_t> words;
  for (std::uint32_t i = 0; i < 7; ++i) {
    words.push_back(0x9e3779b9u * (i + 1));
    EXPECT_EQ(spirv_from_base64(spirv_to_base64(words)), words) << words.size() << " words";
  }
}

TEST(SpirvBase64, MalformedTextIsAFormatError) {
  for (const char* bad : {"AwIjBw=", "AwI*Bw==", "AwIj", "A=IjBw==", "AwIjBw=A"}) {
    try {
      spirv_from_base64(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::format) << bad;
    }
  }
}

TEST_F(ExportTest, TableHoldsWinnersWithSpirvDevicesAndCeilings) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_device(sample_device(1));  // no winners: not in the table
  store.put_ceiling(device, "read_bandwidth", 1900, "GB/s");
  store.upsert_variant(sample_variant(1));
  auto w = sample_winner(device, default_shape);
  w.specialization_json = R"({"0":128})";
  w.local_size[0] = 128;
  w.local_size[1] = 1;
  w.dispatch_json = "not json";
  store.set_winner(w);

  const auto table = export_table(store);
  EXPECT_EQ(table["format"], "vktune-table");
  EXPECT_EQ(table["version"], table_format_version);
  ASSERT_EQ(table["devices"].size(), 1u);
  EXPECT_EQ(table["devices"][0]["id"], device);
  EXPECT_EQ(table["devices"][0]["name"], sample_device().name);
  EXPECT_EQ(table["devices"][0]["ceilings"]["read_bandwidth"]["value"], 1900.0);
  ASSERT_EQ(table["winners"].size(), 1u);
  const auto& row = table["winners"][0];
  EXPECT_EQ(row["config"]["rows_per_wg"], 1);  // JSON text became JSON
  EXPECT_EQ(row["specialization"]["0"], 128);
  EXPECT_EQ(row["dispatch"], "not json");  // kept, not lost
  EXPECT_EQ(row["local_size"], nlohmann::json({128, 1, 1}));
  EXPECT_EQ(spirv_from_base64(row["spirv_base64"].get<std::string>()), w.spirv);

  // The text form parses back to the same document.
  EXPECT_EQ(nlohmann::json::parse(table.dump(2)), table);
  EXPECT_TRUE(export_table(store, {}, "other_kernel")["winners"].empty());
}

TEST(MeasurementsCsv, QuotesFieldsThatNeedItAndKeepsFullPrecision) {
  Measurement m = sample_measurement(3, "variant1", 1234.5678901234);
  m.status = Status::wrong_result;
  m.reason = "rel_l2 0.5 > 1e-3, \"NaN\" at 7";
  m.created_at = "2024-05-01T12:00:00.000Z";
  std::ostringstream out;
  write_measurements_csv(out, std::vector<Measurement>{m});
  std::istringstream lines(out.str());
  std::string header, row, extra;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_FALSE(std::getline(lines, extra));
  EXPECT_EQ(header.substr(0, 33), "device,variant_hash,shape,cache_m");
  EXPECT_EQ(row.substr(0, 46), R"(3,variant1,"1,4096,4096",cold,wrong_result,"re)");
  EXPECT_NE(row.find(R"("rel_l2 0.5 > 1e-3, ""NaN"" at 7")"), std::string::npos) << row;
  EXPECT_NE(row.find(",1234.5678901234,"), std::string::npos) << row;
  EXPECT_EQ(row.substr(row.size() - 25), ",2024-05-01T12:00:00.000Z");
}

}  // namespace
}  // namespace vktune::results::testing
