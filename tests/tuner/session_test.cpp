// The evaluate loop on a real Vulkan device (lavapipe in CI) with the
// test-only kernel: wrong and partial variants are caught, failures are
// recorded and the run goes on, and a second run resumes from the store.
#include "tuner/session.hpp"

#include <gtest/gtest.h>

#include <random>

#include "tests/tuner/test_kernel.hpp"

namespace vktune {
namespace {

std::uint32_t test_device() {
  const char* env = std::getenv("VKTUNE_TEST_DEVICE");
  return env ? static_cast<std::uint32_t>(std::stoul(env)) : 0;
}

class SessionTest : public ::testing::Test {
 protected:
  testing::TestScaleKernel kernel;
  testing::TestTemplateDir dir;
  TemplateLibrary templates = TemplateLibrary::from_directory(dir.path());
  vk::Instance instance;
  Progress progress{false, true};
  std::uint64_t seed = std::random_device{}();

  const Outcome& find(const ShapeResult& r, int wg, int bug) {
    for (const auto& o : r.outcomes)
      if (o.config.at("WG") == wg && o.config.at("BUG") == bug) return o;
    throw std::runtime_error("no outcome for that config");
  }
};

TEST_F(SessionTest, CheckCatchesWrongPartialAndBrokenVariants) {
  TuneSession session(instance, test_device(), nullptr, templates, progress);
  const kernels::Shape shape{77};  // not a multiple of any workgroup size
  auto space = enumerate_space(kernel, shape, session.device().info());
  auto result = session.check(kernel, shape, space.valid, seed);
  ASSERT_EQ(result.outcomes.size(), space.valid.size());
  for (int wg : {32, 64}) {
    EXPECT_EQ(find(result, wg, 0).status, results::Status::ok) << find(result, wg, 0).reason;
    EXPECT_LT(find(result, wg, 0).validation.rel_l2, 1e-6);
    const auto& wrong = find(result, wg, 1);
    EXPECT_EQ(wrong.status, results::Status::wrong_result);
    EXPECT_EQ(wrong.validation.non_finite, 0u);
    EXPECT_GT(wrong.validation.max_abs, 0.2);
    const auto& partial = find(result, wg, 2);
    EXPECT_EQ(partial.status, results::Status::wrong_result);
    EXPECT_EQ(partial.validation.non_finite, 1u);
    EXPECT_NE(partial.reason.find("index 76"), std::string::npos) << partial.reason;
    const auto& broken = find(result, wg, 3);
    EXPECT_EQ(broken.status, results::Status::compile_error);
    EXPECT_NE(broken.reason.find("test_scale.comp:"), std::string::npos) << broken.reason;
  }
}

TEST_F(SessionTest, TuneRecordsEveryOutcomeAndResumes) {
  const auto db = std::filesystem::temp_directory_path() / ("vktune-session-" + std::to_string(seed) + ".db");
  {
    auto store = results::Store::open(db);
    TuneSession session(instance, test_device(), &store, templates, progress);
    TuneOptions options;
    options.seed = seed;
    options.timer.samples = 3;
    options.timer.warmup_samples = 1;
    auto first = session.tune(kernel, {1000}, options);
    ASSERT_EQ(first.outcomes.size(), 8u);  // baseline + 7 others
    EXPECT_TRUE(first.outcomes[0].is_baseline);
    ASSERT_TRUE(first.winner.has_value());
    EXPECT_EQ(first.outcomes[*first.winner].config.at("BUG"), 0);
    EXPECT_GT(first.outcomes[*first.winner].timing.median, 0);
    // The confirmation pass re-timed the fastest variants and the baseline.
    EXPECT_TRUE(first.outcomes[*first.winner].confirmed);
    EXPECT_TRUE(first.outcomes[0].confirmed);
    ASSERT_TRUE(first.drift.has_value());  // baseline re-measured / first measurement
    EXPECT_GT(*first.drift, 0.0);
    for (const auto& o : first.outcomes) {
      if (o.confirmed) {
        EXPECT_EQ(o.status, results::Status::ok);
      }
    }
    for (const auto& o : first.outcomes) {
      EXPECT_FALSE(o.resumed);
      EXPECT_TRUE(store.has_measurement(*session.device_row(), o.variant_hash, "1000", "cold"));
    }
    auto winner = store.find_winner(*session.device_row(), "test_scale", "1000", "cold");
    ASSERT_TRUE(winner.has_value());
    EXPECT_FALSE(winner->spirv.empty());
    EXPECT_EQ(winner->spirv[0], 0x07230203u);  // SPIR-V magic

    auto second = session.tune(kernel, {1000}, options);
    ASSERT_EQ(second.outcomes.size(), first.outcomes.size());
    for (std::size_t i = 0; i < second.outcomes.size(); ++i) {
      EXPECT_TRUE(second.outcomes[i].resumed);
      EXPECT_EQ(second.outcomes[i].status, first.outcomes[i].status);
      EXPECT_EQ(second.outcomes[i].variant_hash, first.outcomes[i].variant_hash);
    }
  }
  std::filesystem::remove(db);
  std::filesystem::remove(db.string() + "-wal");
  std::filesystem::remove(db.string() + "-shm");
}

// A run never replaces a faster stored winner of another variant (say, from
// a longer run): the stored one stays and is reported as kept.
TEST_F(SessionTest, FasterStoredWinnerStays) {
  const auto db = std::filesystem::temp_directory_path() / ("vktune-kept-" + std::to_string(seed) + ".db");
  {
    auto store = results::Store::open(db);
    TuneSession session(instance, test_device(), &store, templates, progress);
    TuneOptions options;
    options.seed = seed;
    options.timer.samples = 3;
    options.timer.warmup_samples = 1;
    options.confirm_top = 0;  // so that a resumed run picks the same winner
    options.only = {{"WG", {32}}, {"BUG", {0}}};  // with the baseline: two correct variants
    auto first = session.tune(kernel, {1000}, options);
    ASSERT_TRUE(first.winner.has_value());
    const auto& won = first.outcomes[*first.winner];
    const Outcome* other = nullptr;
    for (const auto& o : first.outcomes)
      if (o.status == results::Status::ok && o.variant_hash != won.variant_hash) other = &o;
    ASSERT_NE(other, nullptr);

    // Pretend an earlier run measured the other variant faster than anything.
    auto stored = store.find_winner(*session.device_row(), "test_scale", "1000", "cold");
    ASSERT_TRUE(stored.has_value());
    stored->variant_hash = other->variant_hash;
    stored->config_json = kernels::config_to_json(other->config);
    stored->median_ns = 1.0;
    stored->updated_at.clear();
    store.set_winner(*stored);

    auto second = session.tune(kernel, {1000}, options);  // resumes: the same winner
    ASSERT_TRUE(second.winner.has_value());
    EXPECT_EQ(second.outcomes[*second.winner].variant_hash, won.variant_hash);
    ASSERT_TRUE(second.kept_stored_winner_ns.has_value());
    EXPECT_EQ(*second.kept_stored_winner_ns, 1.0);
    EXPECT_EQ(store.find_winner(*session.device_row(), "test_scale", "1000", "cold")->variant_hash,
              other->variant_hash);
  }
  std::filesystem::remove(db);
  std::filesystem::remove(db.string() + "-wal");
  std::filesystem::remove(db.string() + "-shm");
}

TEST_F(SessionTest, BudgetLimitsProposalsButAlwaysRunsBaseline) {
  TuneSession session(instance, test_device(), nullptr, templates, progress);
  TuneOptions options;
  options.seed = seed;
  options.budget = 2;
  options.strategy = "random";
  options.time_variants = false;
  auto result = session.tune(kernel, {100}, options);
  EXPECT_EQ(result.outcomes.size(), 3u);
  EXPECT_TRUE(result.outcomes[0].is_baseline);
  EXPECT_TRUE(result.stopped_early);
}

}  // namespace
}  // namespace vktune
