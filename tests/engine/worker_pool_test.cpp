// The worker pool's order: a config the tuner is about to measure gets a
// worker before any config compiled ahead only as a guess, and a guess that
// becomes wanted while it waits is promoted. One worker, held by a job that
// hangs (VKTUNE_TEST_WORKER_HANG) until its short deadline ends it, so that
// the jobs queued behind it are served in the pool's order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"
#include "engine/worker_pool.hpp"

namespace vktune {
namespace {

constexpr const char* kHold = "HOLD_THE_ONLY_WORKER";

CompiledVariant add_variant(const std::string& marker) {
  CompiledVariant v;
  auto& stage = v.stages.emplace_back();
  stage.plan.template_file = "add.comp";
  stage.plan.defines = {{"WG_SIZE", "64"}, {"VEC", "1"}, {"EPT", "1"}, {marker, "1"}};
  v.variant_hash = marker;
  return v;
}

class WorkerPoolOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("VKTUNE_TEST_WORKER_HANG", (std::string("compile:") + kHold).c_str(), 1);
    IsolationSettings settings;
    settings.program = VKTUNE_BINARY;
    settings.workers = 1;
    settings.floor_seconds = 2.5;  // the holder's deadline: the others queue meanwhile
    settings.ceiling_seconds = 2.5;
    pool_ = std::make_unique<WorkerPool>(settings);
    holder_ = std::thread([this] {
      auto v = add_variant(kHold);
      WorkerPool::Durations d;
      try {
        pool_->run(v, templates_, std::nullopt, d);
        held_ = "returned";
      } catch (const Error& e) {
        held_ = e.what();
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the holder has the worker
  }
  void TearDown() override {
    if (holder_.joinable()) holder_.join();
    ::unsetenv("VKTUNE_TEST_WORKER_HANG");
  }

  // Runs a job on its own thread; its marker joins order_ when it is done.
  std::thread job(const std::string& marker, const std::atomic<bool>* wanted) {
    return std::thread([this, marker, wanted] {
      auto v = add_variant(marker);
      WorkerPool::Durations d;
      pool_->run(v, templates_, std::nullopt, d, std::nullopt, wanted);
      EXPECT_TRUE(v.compiled()) << marker;
      std::lock_guard lock(mutex_);
      order_.push_back(marker);
    });
  }

  TemplateLibrary templates_ = TemplateLibrary::from_directory(VKTUNE_SOURCE_DIR "/templates");
  std::unique_ptr<WorkerPool> pool_;
  std::thread holder_;
  std::string held_;
  std::mutex mutex_;
  std::vector<std::string> order_;
};

// Guesses queue before and after the wanted job, so that whichever order
// the waiting threads wake in, only the pool's rule puts the wanted one first.
TEST_F(WorkerPoolOrder, AConfigToBeMeasuredGoesAheadOfGuesses) {
  std::atomic<bool> early{false}, late{false};
  auto a = job("EARLY_GUESS", &early);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto b = job("WANTED", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto c = job("LATE_GUESS", &late);
  a.join();
  b.join();
  c.join();
  holder_.join();
  EXPECT_NE(held_.find("passed its deadline"), std::string::npos) << held_;
  ASSERT_EQ(order_.size(), 3u);
  EXPECT_EQ(order_.front(), "WANTED");
}

TEST_F(WorkerPoolOrder, AGuessThatBecomesWantedIsPromoted) {
  std::atomic<bool> first{false}, second{false}, third{false};
  auto a = job("FIRST_GUESS", &first);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto b = job("SECOND_GUESS", &second);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto c = job("THIRD_GUESS", &third);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  second = true;
  pool_->wake();
  a.join();
  b.join();
  c.join();
  ASSERT_EQ(order_.size(), 3u);
  EXPECT_EQ(order_.front(), "SECOND_GUESS");
}

}  // namespace
}  // namespace vktune
