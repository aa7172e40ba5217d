// `vktune import`: a table merged into another store, the newer winner per
// key, conflicts, and malformed tables rejected with the store unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include "common/error.hpp"
#include "export_test_data.hpp"
#include "results/export.hpp"
#include "results/import.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

class ImportTest : public StoreTest {
 protected:
  std::filesystem::path other_path() const { return dir_.path() / "other.db"; }
};

// The table without what differs between databases by design: row ids and
// the time each store set its winners.
nlohmann::json comparable(nlohmann::json table) {
  std::map<std::int64_t, nlohmann::json> identity;
  for (auto& d : table["devices"]) {
    const auto id = d["id"].get<std::int64_t>();
    d.erase("id");
    identity[id] = d;
  }
  for (auto& w : table["winners"]) {
    w["device"] = identity.at(w["device"].get<std::int64_t>())["name"];
    w.erase("updated_at");
    w.erase("entry_hash");  // covers updated_at
  }
  return table;
}

TEST_F(ImportTest, RoundTripIntoAFreshStoreGivesIdenticalWinners) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto source = Store::open(db_path());
  const auto stored = fill_store(source, random);
  const auto table = export_table(source);

  auto target = Store::open(other_path());
  const auto report = import_table_text(target, table.dump(2), "table.json");
  EXPECT_EQ(report.devices, 2u);
  EXPECT_EQ(report.winners_added, stored.size());
  EXPECT_EQ(report.winners_replaced, 0u);
  EXPECT_TRUE(report.conflicts.empty());

  const auto source_devices = source.devices();
  for (const auto& w : stored) {
    const auto identity = std::find_if(source_devices.begin(), source_devices.end(),
                                       [&](const auto& d) { return d.first == w.device_id; })->second;
    const auto device = target.find_device(identity);
    ASSERT_TRUE(device) << identity.name;
    const auto got = target.find_winner(*device, w.kernel, w.shape, w.cache_mode);
    const auto want = source.find_winner(w.device_id, w.kernel, w.shape, w.cache_mode);
    ASSERT_TRUE(got && want) << w.kernel << " " << w.shape;
    EXPECT_EQ(got->spirv, w.spirv);
    EXPECT_EQ(got->variant_hash, w.variant_hash);
    auto expected = *want;
    expected.device_id = *device;
    expected.updated_at = got->updated_at;
    EXPECT_EQ(*got, expected) << w.kernel << " " << w.shape;
    EXPECT_EQ(target.find_variant(w.variant_hash), source.find_variant(w.variant_hash));
  }
  for (const auto& [id, identity] : source_devices) {
    EXPECT_EQ(target.ceilings(*target.find_device(identity)).size(), source.ceilings(id).size());
  }
  EXPECT_EQ(comparable(export_table(target)), comparable(table));

  // Importing the same table again changes nothing: the stored copies are newer.
  const auto again = import_table(target, table, "table.json");
  EXPECT_EQ(again.winners_kept, stored.size());
  EXPECT_TRUE(again.conflicts.empty());
}

TEST_F(ImportTest, TheNewerWinnerStaysEitherWayAndConflictsAreReported) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  const auto identity = random.device(0x10de, "GPU");
  // The other machine's table: one winner of variant "theirs".
  auto other = Store::open(other_path());
  const auto theirs = random.variant("matmul_q4k");
  other.upsert_variant(theirs);
  other.set_winner(random.winner(other.upsert_device(identity), theirs, "1,4096,4096"));
  auto table = export_table(other);

  auto store = Store::open(db_path());
  const auto ours = random.variant("matmul_q4k");
  store.upsert_variant(ours);
  const auto device = store.upsert_device(identity);
  store.set_winner(random.winner(device, ours, "1,4096,4096"));

  // Older than ours: ours stays.
  table["winners"][0]["updated_at"] = "2000-01-01T00:00:00.000Z";
  rehash(table);
  auto report = import_table(store, table, "old.json");
  EXPECT_EQ(report.winners_kept, 1u);
  ASSERT_EQ(report.conflicts.size(), 1u);
  EXPECT_FALSE(report.conflicts[0].imported_won);
  EXPECT_EQ(report.conflicts[0].stored_variant, ours.variant_hash);
  EXPECT_EQ(report.conflicts[0].imported_variant, theirs.variant_hash);
  EXPECT_EQ(store.find_winner(device, "matmul_q4k", "1,4096,4096", "cold")->variant_hash, ours.variant_hash);
  EXPECT_NE(describe(report.conflicts[0]).find("kept the stored one"), std::string::npos);

  // Newer than ours (an hour ahead: later than a day from now is refused):
  // theirs replaces it, SPIR-V and all.
  const auto ahead = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + std::chrono::hours(1));
  std::tm utc{};
  gmtime_r(&ahead, &utc);
  char newer[32];
  std::strftime(newer, sizeof newer, "%Y-%m-%dT%H:%M:%S.000Z", &utc);
  table["winners"][0]["updated_at"] = newer;
  rehash(table);
  report = import_table(store, table, "new.json");
  EXPECT_EQ(report.winners_replaced, 1u);
  ASSERT_EQ(report.conflicts.size(), 1u);
  EXPECT_TRUE(report.conflicts[0].imported_won);
  const auto got = store.find_winner(device, "matmul_q4k", "1,4096,4096", "cold");
  EXPECT_EQ(got->variant_hash, theirs.variant_hash);
  EXPECT_EQ(got->spirv, other.winners()[0].spirv);
  EXPECT_EQ(describe(report.conflicts[0]),
            "conflict: GPU matmul_q4k 1,4096,4096 (cold): stored " + ours.variant_hash + " (" +
                report.conflicts[0].stored_updated_at + ") vs imported " + theirs.variant_hash +
                " (" + newer + "): kept the imported one");

  // A table without times never replaces a stored winner, but fills empty keys.
  table["winners"][0].erase("updated_at");
  table["winners"][0]["variant_hash"] = ours.variant_hash;
  auto second = table["winners"][0];
  second["shape"] = "2,4096,4096";
  table["winners"].push_back(second);
  rehash(table);
  report = import_table(store, table, "untimed.json");
  EXPECT_EQ(report.winners_kept, 1u);
  EXPECT_EQ(report.winners_added, 1u);
  EXPECT_EQ(report.conflicts.size(), 1u);
}

// Two physical GPUs of one model (other UUIDs) tuned the same key at other
// times, in tables imported in either order: by default both winners stand;
// with newest_per_model only the newest stays, whichever table held it, and a
// GPU of another model is untouched.
TEST_F(ImportTest, NewestPerModelKeepsOnlyTheNewestWinnerOfAnyGpuOfTheModel) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  const auto first_gpu = random.device(0x10de, "H200");
  auto second_gpu = random.device(0x10de, "H200");
  second_gpu.device_id = first_gpu.device_id;  // same model, another physical GPU (UUID)
  auto other_model = random.device(0x10de, "H100");
  other_model.device_id = first_gpu.device_id ^ 1u;

  // One table per GPU, each winner with its own time; the older is given last.
  const std::vector<std::pair<DeviceIdentity, std::string>> runs = {
      {second_gpu, "2026-11-25T10:00:00.000Z"}, {other_model, "2026-11-20T10:00:00.000Z"},
      {first_gpu, "2026-11-01T10:00:00.000Z"}};
  std::vector<nlohmann::json> tables;
  std::vector<std::string> variants;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto source = Store::open(dir_.path() / ("gpu" + std::to_string(i) + ".db"));
    const auto v = random.variant("matmul_q4k");
    source.upsert_variant(v);
    auto w = random.winner(source.upsert_device(runs[i].first), v, "1,4096,4096");
    w.updated_at = runs[i].second;
    source.set_winner(w);
    tables.push_back(export_table(source));
    variants.push_back(v.variant_hash);
  }

  const auto winners_by_name = [](const Store& store) {
    std::multimap<std::string, std::string> found;  // device name -> variant
    for (const auto& [row, identity] : store.devices())
      for (const auto& w : store.winners(row)) found.emplace(identity.name, w.variant_hash);
    return found;
  };

  auto side_by_side = Store::open(db_path());
  for (const auto& t : tables) import_table(side_by_side, read_table(t, "t.json"));
  EXPECT_EQ(side_by_side.winners().size(), 3u);

  auto merged = Store::open(other_path());
  std::size_t superseded = 0;
  for (const auto& t : tables) superseded += import_table(merged, read_table(t, "t.json"), {.newest_per_model = true}).winners_superseded;
  EXPECT_EQ(superseded, 1u);
  const auto got = winners_by_name(merged);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got.count("H200"), 1u);
  EXPECT_EQ(got.find("H200")->second, variants[0]);  // the newest H200 winner, imported first
  EXPECT_EQ(got.find("H100")->second, variants[1]);
  // The older GPU's winner is gone, its device and measurements are not.
  EXPECT_TRUE(merged.find_device(first_gpu));
  EXPECT_FALSE(merged.find_winner(*merged.find_device(first_gpu), "matmul_q4k", "1,4096,4096", "cold"));
}

TEST_F(ImportTest, MalformedOrWrongVersionTablesAreOneLineFormatErrorsAndChangeNothing) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto other = Store::open(other_path());
  fill_store(other, random);
  const auto good = export_table(other);

  auto store = Store::open(db_path());
  const auto ours = random.variant("matmul_q4k");
  store.upsert_variant(ours);
  store.set_winner(random.winner(store.upsert_device(random.device(0x8086, "Intel")), ours, "1,4096,4096"));
  const auto before = export_table(store).dump();
  const auto devices_before = store.devices().size();

  auto mutate = [&](auto change) {
    auto table = good;
    change(table);
    return table.dump();
  };
  // The good table with one winner's config nested `levels` deep.
  auto nested = [&](std::size_t levels) {
    auto text = mutate([](auto& t) { t["winners"].back()["config"] = "DEEP"; });
    return text.replace(text.find("\"DEEP\""), 6, std::string(levels, '[') + std::string(levels, ']'));
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "{\"format\": \"vktune-table\", "},
      {"not an object", "[1, 2]"},
      {"other format", mutate([](auto& t) { t["format"] = "something-else"; })},
      {"version 3", mutate([](auto& t) { t["version"] = 3; })},
      {"version text", mutate([](auto& t) { t["version"] = "1"; })},
      {"no winners", mutate([](auto& t) { t.erase("winners"); })},
      {"negative vendor", mutate([](auto& t) { t["devices"][1]["vendor_id"] = -1; })},
      {"bad base64", mutate([](auto& t) { t["spirv"].begin().value() = "AwI*Bw=="; })},
      {"edited divisor", mutate([](auto& t) { t["winners"].back()["contract"]["stages"][0]["dispatch"][0]["divisor"] = 99; })},
      {"no entry hash", mutate([](auto& t) { t["winners"].back().erase("entry_hash"); })},
      {"unknown stage spirv", mutate([](auto& t) {
         auto& w = t["winners"].back();
         w["contract"]["stages"][0]["spirv_hash"] = "0000000000000000";
         w["entry_hash"] = table_entry_hash(t["devices"][0], w);  // a consistent hash: the reference itself is bad
       })},
      {"unknown device", mutate([](auto& t) { t["winners"].back()["device"] = 12345; })},
      {"missing kernel", mutate([](auto& t) { t["winners"].back().erase("kernel"); })},
      {"median text", mutate([](auto& t) { t["winners"].back()["median_ns"] = "fast"; })},
      {"duplicate key", mutate([](auto& t) { t["winners"].push_back(t["winners"][0]); })},
      // Nesting this deep overflowed the stack after parsing (in dump()).
      {"nested 100,000 deep", nested(100000)},
  };
  for (const auto& [name, text] : cases) {
    try {
      import_table_text(store, text, "bad.json");
      ADD_FAILURE() << name << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::format) << name;
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << name << ": " << message;
      EXPECT_EQ(message.rfind("table 'bad.json'", 0), 0u) << name << ": " << message;
    }
    EXPECT_EQ(export_table(store).dump(), before) << name;
    EXPECT_EQ(store.devices().size(), devices_before) << name;
  }
  // The good table itself imports.
  EXPECT_EQ(import_table(store, good, "good.json").winners_added, good["winners"].size());
}

}  // namespace
}  // namespace vktune::results::testing
