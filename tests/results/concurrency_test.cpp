// Several connections at once: readers go on while a writer writes, and a
// second writer waits for the first instead of failing.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

using ConcurrencyTest = StoreTest;

TEST_F(ConcurrencyTest, ReadersReadWhileAWriterHoldsAWriteTransaction) {
  auto writer = Store::open(db_path());
  const auto device = writer.upsert_device(sample_device());
  writer.upsert_variant(sample_variant(1));
  writer.upsert_variant(sample_variant(2));
  writer.record_measurement(sample_measurement(device, "variant1", 100));

  auto reader = Store::open_read_only(db_path());
  writer.transaction([&] {
    writer.record_measurement(sample_measurement(device, "variant2", 200));
    // The write lock is held: readers neither wait nor see the uncommitted row.
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(reader.has_measurement(device, "variant1", default_shape, "cold"));
    EXPECT_FALSE(reader.has_measurement(device, "variant2", default_shape, "cold"));
    auto late_reader = Store::open_read_only(db_path());
    EXPECT_EQ(late_reader.measurements(device, "matmul_q4k", default_shape, "cold").size(), 1u);
    auto other_process_store = Store::open(db_path());  // a writer-capable open that only reads
    EXPECT_TRUE(other_process_store.has_measurement(device, "variant1", default_shape, "cold"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "a reader waited for the lock";
  });
  EXPECT_TRUE(reader.has_measurement(device, "variant2", default_shape, "cold"));  // committed: now visible
}

TEST_F(ConcurrencyTest, SecondWriterWaitsForTheFirstInsteadOfFailing) {
  auto first = Store::open(db_path());
  const auto device = first.upsert_device(sample_device());
  first.upsert_variant(sample_variant(1));
  first.upsert_variant(sample_variant(2));

  bool second_done = false;
  std::string second_error;
  std::chrono::steady_clock::duration second_waited{};
  std::thread second_writer;
  first.transaction([&] {
    first.record_measurement(sample_measurement(device, "variant1", 100));
    second_writer = std::thread([&] {
      try {
        auto second = Store::open(db_path());  // its own connection, as another process would have
        const auto start = std::chrono::steady_clock::now();
        second.record_measurement(sample_measurement(device, "variant2", 200));
        second_waited = std::chrono::steady_clock::now() - start;
        second_done = true;
      } catch (const std::exception& e) {
        second_error = e.what();
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // hold the write lock a while
  });
  // The first writer committed; the second got the lock within its busy timeout.
  second_writer.join();
  EXPECT_EQ(second_error, "");
  EXPECT_TRUE(second_done);
  EXPECT_GE(second_waited, std::chrono::milliseconds(100)) << "the second writer did not wait for the first";
  auto check = Store::open_read_only(db_path());
  EXPECT_EQ(check.measurements(device, "matmul_q4k", default_shape, "cold").size(), 2u);
}

}  // namespace
}  // namespace vktune::results::testing
