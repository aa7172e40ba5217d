// Exporters: the tuned table as JSON (content, order, filters), measurements
// as CSV, SPIR-V as base64.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "common/error.hpp"
#include "common/version.hpp"
#include "results/export.hpp"
#include "results/export_csv.hpp"
#include "results/import_csv.hpp"
#include "export_test_data.hpp"
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
  w.dispatch_json = R"([{"divisor":8,"shape_dim":1},{"divisor":1,"shape_dim":0},{"divisor":1,"shape_dim":-1}])";
  w.contract_json = row_contract(w);
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
  const auto& stage = row["contract"]["stages"][0];
  EXPECT_EQ(stage["specialization"]["0"], 128);
  EXPECT_EQ(stage["local_size"], nlohmann::json({128, 1, 1}));
  // Each SPIR-V module once, under its content hash; every field under the entry hash.
  const auto hash = stage["spirv_hash"].get<std::string>();
  EXPECT_EQ(hash, spirv_content_hash(w.spirv));
  EXPECT_EQ(spirv_from_base64(table["spirv"][hash].get<std::string>()), w.spirv);
  EXPECT_FALSE(row.contains("spirv_base64"));
  EXPECT_EQ(row["entry_hash"], table_entry_hash(table["devices"][0], row));
  auto edited = row;
  edited["contract"]["stages"][0]["dispatch"][0]["divisor"] = 16;
  EXPECT_NE(table_entry_hash(table["devices"][0], edited), row["entry_hash"]);

  // The text form parses back to the same document.
  EXPECT_EQ(nlohmann::json::parse(table.dump(2)), table);
  EXPECT_TRUE(export_table(store, {"", "matmul"})["winners"].size() == 1u);
}

TEST_F(ExportTest, TableIsSortedByDeviceIdentityKernelAndNumericShape) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  const auto stored = fill_store(store, random);
  const auto table = export_table(store);
  EXPECT_EQ(table["generator"], std::string("vktune ") + VKTUNE_VERSION);
  ASSERT_EQ(table["devices"].size(), 2u);
  EXPECT_EQ(table["devices"][0]["name"], "AMD A");  // vendor 0x1002 before 0x10de, though stored second
  EXPECT_EQ(table["devices"][1]["name"], "NVIDIA \"B\", rev 2");
  ASSERT_EQ(table["winners"].size(), stored.size());
  std::vector<std::string> order;
  for (const auto& row : table["winners"]) {
    const auto device = row["device"] == table["devices"][0]["id"] ? "A" : "B";
    order.push_back(device + std::string(" ") + row["kernel"].get<std::string>() + " " + row["shape"].get<std::string>());
  }
  const std::vector<std::string> expected = {
      "A matmul_q4k 1,4096,4096",     "A matmul_q4k 2,4096,4096",     "A matmul_q4k 16,4096,4096",
      "A matmul_q4k_big 1,4096,4096", "A matmul_q4k_big 2,4096,4096", "A matmul_q4k_big 16,4096,4096",
      "B matmul_q4k 1,4096,4096",     "B matmul_q4k 2,4096,4096",     "B matmul_q4k 16,4096,4096",
      "B matmul_q4k_big 1,4096,4096", "B matmul_q4k_big 2,4096,4096", "B matmul_q4k_big 16,4096,4096"};
  EXPECT_EQ(order, expected);
  // Every stored value is in the table.
  for (const auto& w : stored) {
    const auto row = std::find_if(table["winners"].begin(), table["winners"].end(),
                                  [&](const auto& r) { return r["variant_hash"] == w.variant_hash; });
    ASSERT_NE(row, table["winners"].end());
    const auto& stage = (*row)["contract"]["stages"][0];
    EXPECT_EQ(spirv_from_base64(table["spirv"][stage["spirv_hash"].get<std::string>()].get<std::string>()), w.spirv);
    EXPECT_EQ((*row)["median_ns"].get<double>(), w.median_ns);
    EXPECT_EQ((*row)["gbps"].get<double>(), w.gbps);
    EXPECT_EQ((*row)["baseline_median_ns"].get<double>(), w.baseline_median_ns);
    EXPECT_EQ(stage["dispatch"].dump(), w.dispatch_json);
    EXPECT_EQ((*row)["template_name"], w.kernel + ".comp");
    EXPECT_EQ(stage["local_size"], nlohmann::json({w.local_size[0], w.local_size[1], w.local_size[2]}));
  }
}

// Two physical GPUs of one model with a winner for the same key are named
// (only the newest serves a GPU that tuned none of them); the same key on
// another model, another shape or the other cache mode is not.
TEST_F(ExportTest, KeysWithWinnersOfSeveralGpusOfOneModelAreNamed) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  const auto first_gpu = random.device(0x10de, "H200");
  auto second_gpu = random.device(0x10de, "H200");
  second_gpu.device_id = first_gpu.device_id;  // same model, another UUID
  auto other_model = random.device(0x10de, "H100");
  other_model.device_id = first_gpu.device_id ^ 1u;
  auto store = Store::open(db_path());
  auto put = [&](const DeviceIdentity& gpu, const std::string& shape, const std::string& mode) {
    const auto v = random.variant("matmul_q4k");
    store.upsert_variant(v);
    store.set_winner(random.winner(store.upsert_device(gpu), v, shape, mode));
  };
  put(first_gpu, "1,4096,4096", "cold");
  put(other_model, "1,4096,4096", "cold");
  put(first_gpu, "2,4096,4096", "cold");
  put(second_gpu, "1,4096,4096", "hot");
  EXPECT_TRUE(keys_of_several_gpus_of_one_model(export_table(store)).empty());
  put(second_gpu, "1,4096,4096", "cold");
  EXPECT_EQ(keys_of_several_gpus_of_one_model(export_table(store)),
            std::vector<std::string>{"matmul_q4k 1,4096,4096 cold on H200 (2 GPUs)"});
}

TEST_F(ExportTest, ExportingTwiceGivesTheSameBytes) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  {
    auto store = Store::open(db_path());
    fill_store(store, random);
  }
  const auto first = export_table(Store::open(db_path())).dump(2);
  const auto second = export_table(Store::open_read_only(db_path())).dump(2);
  EXPECT_EQ(first, second);
  // Keys are sorted at every level.
  EXPECT_LT(first.find("\"devices\""), first.find("\"format\""));
  EXPECT_LT(first.find("\"format\""), first.find("\"generator\""));
  EXPECT_LT(first.find("\"generator\""), first.find("\"version\""));
  EXPECT_LT(first.find("\"version\""), first.find("\"winners\""));
}

TEST_F(ExportTest, FiltersSelectDevicesByIdOrNameAndKernelsExactlyOrBySubstring) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  fill_store(store, random);
  const auto nvidia = store.devices()[0].first;  // stored first: "NVIDIA ..."
  const auto count = [&](const ExportFilter& filter) { return export_table(store, filter)["winners"].size(); };
  EXPECT_EQ(count({}), 12u);
  EXPECT_EQ(count({std::to_string(nvidia), ""}), 6u);
  EXPECT_EQ(count({"nvidia", ""}), 6u);  // case-insensitive substring
  EXPECT_EQ(count({"", "matmul_q4k"}), 6u);  // an exact name selects that kernel only
  EXPECT_EQ(count({"", "q4k"}), 12u);        // otherwise a substring
  EXPECT_EQ(count({"amd", "big"}), 3u);
  const auto table = export_table(store, {std::to_string(nvidia), ""});
  ASSERT_EQ(table["devices"].size(), 1u);
  EXPECT_EQ(table["devices"][0]["id"], nvidia);
  for (const auto& filter : {ExportFilter{"intel", ""}, ExportFilter{"999", ""}, ExportFilter{"", "softmax"}}) {
    try {
      export_table(store, filter);
      ADD_FAILURE() << "matched " << filter.device << filter.kernel;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find("stored:"), std::string::npos) << e.what();
    }
  }
}

// A small RFC 4180 reader for checking what the CSV writer wrote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(std::move(field));
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "CSV does not end with a line break";
  rows.pop_back();
  return rows;
}

TEST_F(ExportTest, CsvHasOneQuotedRowPerMeasurement) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  const auto winners = fill_store(store, random);  // 12 measurements, one per winner
  const auto device = winners.front().device_id;
  // Extra measurements of the first winner's key: a failure whose reason needs quoting, and a slower success.
  const auto failed = random.variant(winners.front().kernel);
  store.upsert_variant(failed);
  auto failure = random.measurement(device, failed.variant_hash, winners.front().shape);
  failure.status = Status::wrong_result;
  failure.reason = "rel_l2 0.5 > 1e-3,\n\"NaN\" at 7";
  store.record_measurement(failure);

  std::ostringstream out;
  export_csv(out, store);
  const auto rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 1u + 13u);
  const auto& header = rows[0];
  ASSERT_EQ(header.size(), 32u);
  EXPECT_EQ(header[0], "device_row");
  EXPECT_EQ(header[11], "winner");
  EXPECT_EQ(header[24], "created_at");  // the older columns keep their places
  EXPECT_EQ(header[25], "phase");
  EXPECT_EQ(header[30], "timing_ms");
  EXPECT_EQ(header[31], "pipeline_statistics");
  std::size_t winners_marked = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), header.size()) << "row " << i;
    winners_marked += rows[i][11] == "1";
  }
  EXPECT_EQ(winners_marked, 12u);
  // The failure: quoted reason read back whole, after the key's success.
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r[9] == failed.variant_hash; });
  ASSERT_NE(row, rows.end());
  EXPECT_EQ((*row)[12], "wrong_result");
  EXPECT_EQ((*row)[13], failure.reason);
  EXPECT_EQ(std::stod((*row)[14]), failure.median_ns);  // shortest text reads back exactly
  EXPECT_EQ(std::stod((*row)[22]), failure.gbps);
  EXPECT_EQ((*row)[11], "0");
  EXPECT_EQ((*(row - 1))[9], winners.front().variant_hash);
  EXPECT_EQ((*row)[4], "NVIDIA \"B\", rev 2");
  EXPECT_NE(out.str().find(R"("NVIDIA ""B"", rev 2")"), std::string::npos);
  EXPECT_NE(out.str().find("\"rel_l2 0.5 > 1e-3,\n\"\"NaN\"\" at 7\""), std::string::npos);

  std::ostringstream filtered;
  export_csv(filtered, store, {"amd", "matmul_q4k"});
  EXPECT_EQ(parse_csv(filtered.str()).size(), 1u + 3u);
}

// Every field of the rows read back from a CSV, against what was written.
void expect_same_rows(const std::vector<MeasurementRow>& got, const std::vector<MeasurementRow>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(got[i].measurement, expected[i].measurement);
    EXPECT_EQ(got[i].device_row, expected[i].device_row);
    EXPECT_EQ(got[i].kernel, expected[i].kernel);
    EXPECT_EQ(got[i].config_json, expected[i].config_json);
    EXPECT_EQ(got[i].is_winner, expected[i].is_winner);
    // The CSV carries these of the device's identity.
    EXPECT_EQ(got[i].device.vendor_id, expected[i].device.vendor_id);
    EXPECT_EQ(got[i].device.device_id, expected[i].device.device_id);
    EXPECT_EQ(got[i].device.driver_version, expected[i].device.driver_version);
    EXPECT_EQ(got[i].device.name, expected[i].device.name);
    EXPECT_EQ(got[i].device.driver_version_text, expected[i].device.driver_version_text);
  }
}

std::vector<MeasurementRow> read_back(const std::filesystem::path& file, const std::string& text) {
  { std::ofstream(file, std::ios::binary) << text; }
  return read_measurements_csv(file);
}

TEST_F(ExportTest, CsvRoundTripKeepsEveryColumnOfSearchAndConfirmationRows) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  const auto winners = fill_store(store, random);  // 12 search rows, one per winner
  for (const auto& w : winners) {                  // each winner re-timed
    auto confirm = random.measurement(w.device_id, w.variant_hash, w.shape);
    confirm.phase = Phase::confirm;
    store.record_measurement(confirm);
  }
  const auto rows = measurement_rows(store, select(store, {}));
  ASSERT_EQ(rows.size(), 24u);
  std::ostringstream out;
  write_measurements_csv(out, rows);
  const auto got = read_back(dir_.path() / "measurements.csv", out.str());
  expect_same_rows(got, rows);
  std::size_t confirm_rows = 0, marked = 0;
  for (const auto& row : got) {
    confirm_rows += row.measurement.phase == Phase::confirm;
    if (row.is_winner) {
      ++marked;
      EXPECT_EQ(row.measurement.phase, Phase::confirm) << "the winner is marked on the row it was chosen from";
    }
  }
  EXPECT_EQ(confirm_rows, 12u);
  EXPECT_EQ(marked, 12u);
}

TEST_F(ExportTest, CsvWithoutPhaseAndDurationColumnsReadsAsSearchRowsWithZeroDurations) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  fill_store(store, random);
  const auto rows = measurement_rows(store, select(store, {}));
  std::ostringstream out;
  write_measurements_csv(out, rows);
  // The same file as an export from before schema version 3 would have it:
  // without the last seven columns (every field quoted, which RFC 4180 allows).
  std::string old_format;
  bool header = true;
  for (auto record : parse_csv(out.str())) {
    ASSERT_EQ(record.size(), 32u);
    if (std::exchange(header, false)) {
      EXPECT_EQ(std::vector<std::string>(record.begin() + 25, record.end()),
                (std::vector<std::string>{"phase", "compile_ms", "pipeline_ms", "validation_ms", "warmup_ms",
                                          "timing_ms", "pipeline_statistics"}));
    }
    record.resize(25);
    for (std::size_t i = 0; i < record.size(); ++i) {
      std::string quoted;
      for (const char c : record[i]) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      old_format += (i ? ",\"" : "\"") + quoted + "\"";
    }
    old_format += "\n";
  }
  auto expected = rows;
  for (auto& row : expected) {
    ASSERT_NE(row.measurement.durations, PhaseDurations{});  // the test would prove nothing otherwise
    row.measurement.durations = {};
    row.measurement.statistics_json.clear();
  }
  expect_same_rows(read_back(dir_.path() / "old.csv", old_format), expected);
}

// Found by fuzz_measurements_csv: a device id beyond 32 bits was cast from
// double to uint32 (undefined behaviour); now it is a format error naming the
// column, as is a count beyond int.
TEST_F(ExportTest, CsvNumbersOutsideTheirColumnsRangeAreFormatErrors) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  fill_store(store, random);
  std::ostringstream out;
  write_measurements_csv(out, measurement_rows(store, select(store, {})));
  const auto records = parse_csv(out.str());
  for (const auto& [column, value] : std::vector<std::pair<std::string, std::string>>{
           {"vendor_id", "92135300000"}, {"driver_version", "4294967296"}, {"repetitions", "3000000000"},
           {"pipeline_statistics", R"({"Register Count": "many"})"}, {"pipeline_statistics", "[1]"},
           {"pipeline_statistics", "{"}, {"pipeline_statistics", std::string(100000, '[')}}) {
    std::string text;
    for (std::size_t r = 0; r < records.size(); ++r) {
      auto record = records[r];
      const auto at = std::find(records[0].begin(), records[0].end(), column) - records[0].begin();
      ASSERT_LT(static_cast<std::size_t>(at), record.size());
      if (r == 1) record[static_cast<std::size_t>(at)] = value;
      for (std::size_t i = 0; i < record.size(); ++i) {  // every field quoted (RFC 4180)
        std::string quoted;
        for (const char c : record[i]) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        text += (i ? ",\"" : "\"") + quoted + "\"";
      }
      text += "\n";
    }
    try {
      read_back(dir_.path() / "bad.csv", text);
      ADD_FAILURE() << column << " = " << value << " was accepted";
    } catch (const vktune::Error& e) {
      EXPECT_EQ(e.kind(), vktune::ErrorKind::format);
      EXPECT_NE(std::string(e.what()).find(column), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace vktune::results::testing
