// Stored SPIR-V is checked against its content hash on every read (issue 16,
// item 11), and a row keyed by its content hash never takes other words
// (item 12): garbage written into the spirv table is never handed out.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "results/export.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

const std::vector<std::uint32_t> kWords = {0x07230203u, 0x00010300u, 0x00080001u, 12u, 0u};
const std::vector<std::uint32_t> kOtherWords = {0x07230203u, 0x00010300u, 0x00080001u, 99u, 0u};

class SpirvIntegrityTest : public StoreTest {
 protected:
  // Overwrites the words of a SPIR-V row behind the store's back, leaving
  // its key and content hash as they were.
  void overwrite_words(const std::string& key, const std::vector<std::uint32_t>& words) {
    auto raw = sqlite::Connection::open(db_path(), sqlite::Connection::Mode::read_write_create);
    sqlite::Statement(raw, "UPDATE spirv SET words = ?2 WHERE hash = ?1")
        .bind(1, key)
        .bind_blob(2, spirv_to_bytes(words))
        .run();
  }
};

TEST_F(SpirvIntegrityTest, GarbageInTheCompileCacheReadsAsNotCached) {
  auto store = Store::open(db_path());
  std::vector<std::string> warnings;
  store.set_warning_sink([&](const std::string& line) { warnings.push_back(line); });
  store.put_spirv("0123456789abcdef", kWords);  // keyed by a variant hash, as the tuner's cache is
  overwrite_words("0123456789abcdef", kOtherWords);

  EXPECT_FALSE(store.get_spirv("0123456789abcdef"));
  EXPECT_FALSE(store.get_spirv("0123456789abcdef"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("0123456789abcdef"), std::string::npos) << warnings[0];
  // The next compile's words replace the damaged row.
  store.put_spirv("0123456789abcdef", kWords);
  EXPECT_EQ(store.get_spirv("0123456789abcdef"), kWords);
}

TEST_F(SpirvIntegrityTest, AWinnerWithGarbageSpirvIsNeverHandedOut) {
  auto store = Store::open(db_path());
  store.set_warning_sink([](const std::string&) {});
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  auto w = sample_winner(device, default_shape);
  store.set_winner(w);
  const auto key = spirv_content_hash(w.spirv);
  overwrite_words(key, kOtherWords);

  EXPECT_FALSE(store.get_spirv(key));
  EXPECT_FALSE(store.find_winner(device, w.kernel, w.shape, w.cache_mode));  // a tune stores a new one
  try {
    store.winners();
    FAIL() << "winners() returned garbage SPIR-V";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
  EXPECT_THROW(export_table(store), Error);

  // Storing the winner again repairs the row: its words hash to its key.
  store.set_winner(w);
  EXPECT_EQ(store.get_spirv(key), w.spirv);
  ASSERT_TRUE(store.find_winner(device, w.kernel, w.shape, w.cache_mode));
}

TEST_F(SpirvIntegrityTest, AContentAddressedRowNeverTakesOtherWords) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  store.upsert_variant(sample_variant(2));
  auto first = sample_winner(device, default_shape);
  store.set_winner(first);
  const auto key = spirv_content_hash(first.spirv);

  // Another winner claims the first one's hash for its own words.
  auto second = sample_winner(device, "512,4096,4096");
  second.variant_hash = "variant2";
  second.spirv = kOtherWords;
  second.spirv_hash = key;
  try {
    store.set_winner(second);
    FAIL() << "a winner's SPIR-V was stored under another's hash";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
  EXPECT_EQ(store.get_spirv(key), first.spirv);
  EXPECT_FALSE(store.find_winner(device, second.kernel, second.shape, second.cache_mode));

  // Putting the same words under their hash again changes nothing.
  store.put_spirv(key, first.spirv);
  EXPECT_EQ(store.get_spirv(key), first.spirv);
}

TEST_F(SpirvIntegrityTest, MigrationGivesStoredRowsTheirContentHash) {
  {
    auto raw = sqlite::Connection::open(db_path(), sqlite::Connection::Mode::read_write_create);
    raw.exec("CREATE TABLE spirv (hash TEXT PRIMARY KEY NOT NULL, words BLOB NOT NULL); "
             "CREATE TABLE measurements (device INTEGER); PRAGMA user_version = 4;");
    sqlite::Statement(raw, "INSERT INTO spirv (hash, words) VALUES ('cachedvariant', ?1)")
        .bind_blob(1, spirv_to_bytes(kWords))
        .run();
  }
  // Only the tables versions 5 and 6 touch exist; the migration needs no others.
  auto store = Store::open(db_path());
  EXPECT_EQ(store.get_spirv("cachedvariant"), kWords);
  const auto raw = sqlite::Connection::open(db_path(), sqlite::Connection::Mode::read_only);
  sqlite::Statement check(raw, "SELECT content_hash FROM spirv WHERE hash = 'cachedvariant'");
  ASSERT_TRUE(check.step());
  EXPECT_EQ(check.column_text(0), spirv_content_hash(kWords));
}

}  // namespace
}  // namespace vktune::results::testing
