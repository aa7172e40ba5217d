// A store whose pages are damaged (issue 16, item 9): opening it for
// writing (tune, import) and checking it before an export stop with one line
// that names the file and the problem, and write nothing.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/sqlite_damage.hpp"
#include "common/error.hpp"
#include "results/export.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

class CorruptionTest : public StoreTest {
 protected:
  // A store with measurements over several pages, then the measurements
  // table's root page damaged. Nothing the store reads when it opens lies on
  // that page, so only a check of every page finds it.
  void make_damaged_store() {
    {
      auto store = Store::open(db_path());
      const auto device = store.upsert_device(sample_device());
      for (int i = 0; i < 40; ++i) {
        store.upsert_variant(sample_variant(i));
        store.record_measurement(sample_measurement(device, "variant" + std::to_string(i), 1000.0 + i));
      }
      store.upsert_variant(sample_variant(1));
      store.set_winner(sample_winner(device, default_shape));
    }
    vktune_test::corrupt_table_page(db_path(), "measurements");
  }

  std::string file_bytes() const {
    std::ifstream in(db_path(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

void expect_one_line_naming(const Error& e, const std::filesystem::path& file) {
  const std::string message = e.what();
  EXPECT_EQ(e.kind(), ErrorKind::database);
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(CorruptionTest, OpeningForWritingStopsBeforeWritingAnything) {
  make_damaged_store();
  const auto before = file_bytes();
  try {
    Store::open(db_path());
    FAIL() << "a store with a damaged page opened for writing";
  } catch (const Error& e) {
    expect_one_line_naming(e, db_path());
  }
  EXPECT_EQ(file_bytes(), before);
}

TEST_F(CorruptionTest, CheckBeforeExportFindsTheDamage) {
  make_damaged_store();
  // The winners sit on pages of their own: an export that did not check
  // every page would succeed.
  const auto store = Store::open_for_reading(db_path());
  EXPECT_TRUE(store.read_only());
  try {
    store.check_integrity();
    FAIL() << "quick_check passed a damaged page";
  } catch (const Error& e) {
    expect_one_line_naming(e, db_path());
  }
  EXPECT_THROW(store.write_snapshot(dir_.path() / "copy.db"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "copy.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "copy.db.partial"));
}

TEST_F(CorruptionTest, AnIntactStorePassesTheCheck) {
  {
    auto store = Store::open(db_path());
    store.upsert_device(sample_device());
  }
  EXPECT_NO_THROW(Store::open(db_path()).check_integrity());
  EXPECT_NO_THROW(Store::open_read_only(db_path()).check_integrity());
}

}  // namespace
}  // namespace vktune::results::testing
