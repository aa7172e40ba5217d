// What validation must catch beyond a wrong number on one input: stores and
// reads past a buffer's end (guard bands), variants wrong only on some
// inputs (more than one input per variant), and variants whose output drifts
// from run to run (the winner's final check). The test kernel's bugs are in
// tests/tuner/test_kernel.hpp; seeds are fresh, or searched for where a bug
// must be hidden from one input and shown by another.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>

#include "tests/test_device.hpp"
#include "tests/tuner/test_kernel.hpp"
#include "tuner/session.hpp"
#include "engine/device_problem.hpp"
#include "engine/validation_inputs.hpp"

namespace vktune {
namespace {

float first_x(const kernels::Kernel& kernel, const kernels::Shape& shape, const kernels::Inputs& inputs) {
  const auto problem = kernel.make_problem(shape, inputs);
  float x0 = 0;
  std::memcpy(&x0, problem.buffers[0].bytes.data(), sizeof x0);
  return x0;
}

// A tune with few timing samples: these tests are about correctness.
TuneOptions quick(std::uint64_t seed) {
  TuneOptions options;
  options.seed = seed;
  options.timer.samples = 3;
  options.timer.warmup_samples = 1;
  return options;
}

class ValidationSafetyTest : public ::testing::Test {
 protected:
  testing::TestTemplateDir dir;
  TemplateLibrary templates = TemplateLibrary::from_directory(dir.path());
  vk::Instance instance;
  SilentProgress progress;
  std::uint64_t seed = std::random_device{}();
};

TEST_F(ValidationSafetyTest, GuardBandsCatchStoresAndReadsPastTheEnd) {
  testing::TestScaleKernel kernel({0, 4, 5});
  TuneSession session(instance, test::test_device_index(), nullptr, templates, progress);
  const kernels::Shape shape{77};
  // A correct variant after each bad one: the bands and inputs are restored.
  const std::vector<kernels::Config> configs{{{"BUG", 4}, {"WG", 32}}, {{"BUG", 0}, {"WG", 32}},
                                             {{"BUG", 5}, {"WG", 64}}, {{"BUG", 0}, {"WG", 64}}};
  const auto result = session.check(kernel, shape, configs, seed);
  ASSERT_EQ(result.outcomes.size(), 4u);
  EXPECT_EQ(result.outcomes[0].status, results::Status::out_of_bounds) << result.outcomes[0].reason;
  EXPECT_NE(result.outcomes[0].reason.find("after buffer 'y'"), std::string::npos) << result.outcomes[0].reason;
  EXPECT_EQ(result.outcomes[1].status, results::Status::ok) << result.outcomes[1].reason;
  // The read of x[77] returns the band's NaN canary, which reaches y[0].
  EXPECT_EQ(result.outcomes[2].status, results::Status::wrong_result);
  EXPECT_EQ(result.outcomes[2].validation.non_finite, 1u);
  EXPECT_NE(result.outcomes[2].reason.find("index 0"), std::string::npos) << result.outcomes[2].reason;
  EXPECT_EQ(result.outcomes[3].status, results::Status::ok) << result.outcomes[3].reason;
}

// Past a 4-KiB band (issue 40, item 12): a store 4.4 KB past y landed
// outside the bound range, where lavapipe drops it, and a read 400 KB past x
// returned zero; both variants passed (the 1-GB one won its tune). The band
// validation runs on now reaches 1 MiB at least.
TEST_F(ValidationSafetyTest, WideValidationBandsCatchStoresAndReadsFarPastTheEnd) {
  testing::TestScaleKernel kernel({0, 8, 9});
  TuneSession session(instance, test::test_device_index(), nullptr, templates, progress);
  const kernels::Shape shape{77};
  const std::vector<kernels::Config> configs{{{"BUG", 8}, {"WG", 32}}, {{"BUG", 0}, {"WG", 32}},
                                             {{"BUG", 9}, {"WG", 64}}, {{"BUG", 0}, {"WG", 64}}};
  const auto result = session.check(kernel, shape, configs, seed);
  ASSERT_EQ(result.outcomes.size(), 4u);
  EXPECT_EQ(result.outcomes[0].status, results::Status::out_of_bounds) << result.outcomes[0].reason;
  EXPECT_NE(result.outcomes[0].reason.find("after buffer 'y'"), std::string::npos) << result.outcomes[0].reason;
  EXPECT_EQ(result.outcomes[1].status, results::Status::ok) << result.outcomes[1].reason;
  EXPECT_EQ(result.outcomes[2].status, results::Status::wrong_result) << result.outcomes[2].reason;
  EXPECT_EQ(result.outcomes[2].validation.non_finite, 1u);
  EXPECT_EQ(result.outcomes[3].status, results::Status::ok) << result.outcomes[3].reason;
}

// Beyond every band (issue 40, item 12): a store 1 GiB past y and a read
// 4 MiB past x pass plain validation on lavapipe (it drops the store and
// reads zero); bounds-instrumented validation fails both, and the accesses
// the bands catch as well, naming the buffer, and still passes correct
// variants after each.
TEST_F(ValidationSafetyTest, InstrumentedValidationCatchesAccessesPastEveryBand) {
  testing::TestScaleKernel kernel({0, 4, 5, 10, 11});
  TuneSession session(instance, test::test_device_index(), nullptr, templates, progress);
  const kernels::Shape shape{77};
  const std::vector<kernels::Config> configs{{{"BUG", 10}, {"WG", 32}}, {{"BUG", 0}, {"WG", 32}},
                                             {{"BUG", 11}, {"WG", 64}}, {{"BUG", 0}, {"WG", 64}},
                                             {{"BUG", 4}, {"WG", 32}},  {{"BUG", 5}, {"WG", 64}}};
  std::cout << "seed " << seed << "\n";
  const auto plain = session.check(kernel, shape, {configs[0], configs[2]}, seed);
  ASSERT_EQ(plain.outcomes.size(), 2u);
  EXPECT_EQ(plain.outcomes[0].status, results::Status::ok) << "the bands reach this far now: "
                                                            << plain.outcomes[0].reason;
  EXPECT_EQ(plain.outcomes[1].status, results::Status::ok) << plain.outcomes[1].reason;

  const auto result = session.check(kernel, shape, configs, seed, /*check_bounds=*/true);
  ASSERT_EQ(result.outcomes.size(), configs.size());
  // y has 77 floats (308 bytes): a float 2^28 past its end ends at byte
  // 4 * (77 + 2^28) + 3; x's read at 4 * (77 + 2^20) + 3.
  const std::vector<std::pair<std::string, std::uint64_t>> expected{
      {"buffer 'y' (308 bytes)", 4 * (77 + (std::uint64_t{1} << 28)) + 3},
      {"", 0},
      {"buffer 'x' (308 bytes)", 4 * (77 + (std::uint64_t{1} << 20)) + 3},
      {"", 0},
      {"buffer 'y' (308 bytes)", 4 * 77 + 3},
      {"buffer 'x' (308 bytes)", 4 * 77 + 3}};
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto& o = result.outcomes[i];
    SCOPED_TRACE(kernels::config_to_string(configs[i]) + ": " + o.reason);
    if (expected[i].first.empty()) {
      EXPECT_EQ(o.status, results::Status::ok);
      continue;
    }
    EXPECT_EQ(o.status, results::Status::out_of_bounds);
    EXPECT_NE(o.reason.find("reached byte " + std::to_string(expected[i].second) + " of " + expected[i].first),
              std::string::npos);
    EXPECT_NE(o.reason.find("1 such access"), std::string::npos);
  }
}

TEST(ValidationBand, ReachesTheDataSizeWithinItsBoundsAndTheDescriptorRange) {
  EXPECT_EQ(validation_band(4, 1u << 31), kValidationBandMin);
  EXPECT_EQ(validation_band(3u << 20, 1u << 31), VkDeviceSize{3} << 20);
  EXPECT_EQ(validation_band(VkDeviceSize{1} << 30, 1u << 31), kValidationBandMax);
  // Within maxStorageBufferRange, but never narrower than the timing copies' band.
  EXPECT_EQ(validation_band((VkDeviceSize{1} << 31) - (VkDeviceSize{2} << 20), 1u << 31), VkDeviceSize{2} << 20);
  EXPECT_EQ(validation_band((VkDeviceSize{1} << 31) - 16, 1u << 31), kGuardAfter);
}

TEST_F(ValidationSafetyTest, AVariantRightOnlyOnTheTimedInputFails) {
  testing::TestScaleKernel kernel({0, 6});
  const kernels::Shape shape{77};
  // A seed whose timed input hides BUG=6 (x[0] <= 0) and whose second input shows it.
  std::uint64_t chosen = seed;
  for (;; ++chosen) {
    const auto shape_s = shape_seed(chosen, shape);
    if (first_x(kernel, shape, shape_s) <= 0 && first_x(kernel, shape, further_validation_inputs(shape_s)[0]) > 0) break;
  }
  TuneSession session(instance, test::test_device_index(), nullptr, templates, progress);
  const auto result = session.check(kernel, shape, {{{"BUG", 6}, {"WG", 32}}, {{"BUG", 0}, {"WG", 32}}}, chosen);
  EXPECT_EQ(result.outcomes[0].status, results::Status::wrong_result);
  EXPECT_NE(result.outcomes[0].reason.find("on random input 2"), std::string::npos) << result.outcomes[0].reason;
  EXPECT_EQ(result.outcomes[1].status, results::Status::ok) << result.outcomes[1].reason;
}

TEST_F(ValidationSafetyTest, AdversarialInputsSpreadMagnitudesWithinTheRange) {
  const auto values = ref::adversarial_floats(4096, seed, -2.0f, 2.0f);
  std::size_t tiny = 0, edges = 0, negative = 0;
  for (const float v : values) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LT(v, 2.0f);
    ASSERT_NE(v, 0.0f);
    tiny += std::fabs(v) < 2.0f / 65536;
    edges += v == -2.0f || v == std::nextafter(2.0f, 0.0f);
    negative += v < 0;
  }
  // Shares of 1/16 + about 8/24 of 14/16, 1/8 and 1/2, each with a wide margin.
  EXPECT_GT(tiny, 4096u / 8);
  EXPECT_GT(edges, 4096u / 16);
  EXPECT_GT(negative, 4096u / 3);
  EXPECT_LT(negative, 4096u * 2 / 3);
}

TEST_F(ValidationSafetyTest, ARunToRunDriftIsNondeterministicAndNeverWins) {
  // Every candidate, the baseline included, drifts: none may be stored.
  testing::TestScaleKernel kernel({7}, 7);
  const auto db = std::filesystem::temp_directory_path() / ("vktune-drift-" + std::to_string(seed) + ".db");
  {
    auto store = results::Store::open(db);
    TuneSession session(instance, test::test_device_index(), &store, templates, progress);
    auto options = quick(seed);
    options.final_check_beside_search = true;  // its inputs made beside the search, as on a GPU
    const auto result = session.tune(kernel, {1000}, options);
    EXPECT_FALSE(result.winner.has_value());
    // Timing runs drift b[1] on the timed input, so a variant validated after
    // another was timed may already fail as wrong_result; the ones that won
    // failed the final check's repeated run.
    std::size_t drifting = 0;
    for (const auto& o : result.outcomes) {
      EXPECT_NE(o.status, results::Status::ok) << kernels::config_to_string(o.config);
      if (o.status != results::Status::nondeterministic) continue;
      ++drifting;
      EXPECT_NE(o.reason.find("two runs on the same input differ"), std::string::npos) << o.reason;
    }
    EXPECT_GE(drifting, 1u);
    EXPECT_EQ(drifting, result.final_check_rejected);
    EXPECT_FALSE(store.find_winner(*session.device_row(), kernel.name(), "1000", "cold").has_value());
    // Recorded as failed: a resumed run takes none of them as a winner.
    for (const auto& m : store.measurements(*session.device_row(), kernel.name(), "1000", "cold"))
      EXPECT_NE(m.status, results::Status::ok);
  }
  std::filesystem::remove(db);
}

// Its inputs made after the search or on a thread beside it (as on a GPU).
TEST_F(ValidationSafetyTest, TheFinalCheckPassesACorrectWinner) {
  testing::TestScaleKernel kernel({0});
  TuneSession session(instance, test::test_device_index(), nullptr, templates, progress);
  for (const bool beside : {false, true}) {
    auto options = quick(seed);
    options.final_check_beside_search = beside;
    const auto result = session.tune(kernel, {1000}, options);
    ASSERT_TRUE(result.winner.has_value()) << beside;
    EXPECT_TRUE(result.final_check_passed) << beside;
    EXPECT_EQ(result.final_check_rejected, 0u) << beside;
  }
}

}  // namespace
}  // namespace vktune
