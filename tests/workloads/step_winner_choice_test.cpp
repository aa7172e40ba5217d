// Which chain `vktune step` builds from the stored winners (workloads/llm/
// model_step.cpp): the newest winner of the model's GPUs serves, and each
// fusion that has another way (a norm taken into its readers, a block's
// end taking in the next norm, gate and up storing their SwiGLU) is taken
// only where the stored medians say it pays. The chains' arithmetic: step_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "engine/device_identity.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "reference/gguf_types.hpp"
#include "step_test_support.hpp"
#include "tests/kernels/kernel_test_support.hpp"
#include "workloads/llm/model_description.hpp"

namespace vktune::step {
namespace {

// Two GPUs of this model in the store, each with its winner for an op: the
// most recently measured one serves, whichever GPU measured it (a re-tuned
// table imported beside an older one; this GPU's own winner is not
// preferred for being its own).
TEST(ModelStep, TheMostRecentWinnerOfTheModelsGpusServes) {
  vk::Instance instance;
  vk::Device device(instance, test_device_index());
  const auto file = tiny_model(35);
  const auto m = model::describe_model(file.contents(), "tiny.gguf");
  const auto db = std::filesystem::path(::testing::TempDir()) / "step_latest.db";
  std::filesystem::remove(db);
  auto store = results::Store::open(db);
  const auto self = store.upsert_device(identity_of(device.info()));
  auto twin = identity_of(device.info());
  twin.device_uuid = "0123456789abcdef0123456789abcdef";
  const auto other = store.upsert_device(twin);
  const auto rows = chain::winner_device_rows(store, device.info());
  ASSERT_EQ(rows, (std::vector<std::int64_t>{self, other}));
  const kernels::Shape shape{1, m.embedding};
  const auto configs =
      testing_support::covering_of(kernels::find_kernel("rmsnorm_mul"), shape, device.info(), [](const auto&) { return true; });
  ASSERT_GE(configs.size(), 2u);
  auto served = [&] {
    auto options = baselines(40, 4);
    options.tuned = true;
    ModelStep chain(m, file, options, &store, rows, device.info());
    EXPECT_EQ(chain.ops()[1].kernel, "rmsnorm_mul");
    EXPECT_TRUE(chain.ops()[1].tuned);
    return chain.ops()[1].config;
  };
  store_winner(store, self, "rmsnorm_mul", shape, configs[0], 1000, "2026-11-01T00:00:00.000Z");
  store_winner(store, other, "rmsnorm_mul", shape, configs[1], 2000, "2026-11-02T00:00:00.000Z");
  EXPECT_EQ(served(), configs[1]);
  store_winner(store, self, "rmsnorm_mul", shape, configs[0], 1000, "2026-11-03T00:00:00.000Z");
  EXPECT_EQ(served(), configs[0]);
}

// The tiny model's step of baselines at context 16, on the test device:
// where each way of a fusion is chosen from planted winners.
class FusionChoice : public ::testing::Test {
 protected:
  vk::Instance instance;
  vk::Device device{instance, test_device_index()};
  const ref::GgufFile file = tiny_model(5);
  const model::ModelDescription m = model::describe_model(file.contents(), "tiny.gguf");
  StepOptions options = baselines(16, 1);
};

// With stored winners of both ways, a norm is taken into its readers only
// where their medians say it pays (the _addnorm products' against the plain
// products' plus the norm's); with the winners of one way only, that way.
TEST_F(FusionChoice, TheNormIsTakenInWhereTheStoredWinnersSayItPays) {
  options.norm_into_products = true;
  ModelStep fused(m, file, options, nullptr, {}, device.info());
  options.norm_into_products = false;
  options.norm_at_block_end = false;  // the add_rmsnorm_mul chain (the _resnorm products: their own test)
  options.swiglu_in_gate_up = false;  // the stacked gate and up the norm's readers are (the _glu product: its own)
  ModelStep apart(m, file, options, nullptr, {}, device.info());
  // Every op its own kernel: the plain products, rope and the cache stores
  // stored too, against which the epilogue products (the apart chain's q,
  // k and v) pay at 1000 ns each (3000 against 6000) and not at 9000.
  options.fused = false;
  ModelStep plain(m, file, options, nullptr, {}, device.info());
  options.fused = true;
  const auto db = std::filesystem::path(::testing::TempDir()) / "step_norm_pays.db";
  std::filesystem::remove(db);
  auto store = results::Store::open(db);
  const auto device_row = store.upsert_device(identity_of(device.info()));
  // Every op of both chains stored at its baseline config; the head's
  // _addnorm product (1,128,256 Q6_K, which layer 1's v shares) slow.
  auto store_all = [&](double addnorm_head_ns, double epilogue_ns) {
    for (const auto* chain : {&fused, &apart, &plain}) {
      for (const auto& op : chain->ops()) {
        const bool slow = op.kernel == "matmul_q6k_addnorm" && op.shape[1] == 128;
        const bool epilogue = op.kernel.ends_with("_rope") || op.kernel.ends_with("_cache");
        store_winner(store, device_row, op.kernel, op.shape, op.config,
                     slow ? addnorm_head_ns : epilogue ? epilogue_ns : 1000);
      }
    }
  };
  auto count = [](const ModelStep& chain, const std::string& kernel) {
    return std::count_if(chain.ops().begin(), chain.ops().end(), [&](const StepOp& op) { return op.kernel == kernel; });
  };
  options.tuned = true;
  options.norm_into_products = true;
  // The epilogues slow: every norm pays, q, k and v 3000 ns taken in
  // against 4000 apart.
  store_all(1000, 9000);
  {
    ModelStep chain(m, file, options, &store, {device_row}, device.info());
    EXPECT_EQ(count(chain, "add_rmsnorm_mul") + count(chain, "rmsnorm_mul"), 0);
    EXPECT_EQ(chain.ops().size(), fused.ops().size());
  }
  {  // an empty store: every norm taken in, at the baselines
    auto empty = results::Store::open(std::filesystem::path(::testing::TempDir()) / "step_norm_pays_empty.db");
    ModelStep chain(m, file, options, &empty, {empty.upsert_device(identity_of(device.info()))}, device.info());
    EXPECT_EQ(chain.ops().size(), fused.ops().size());
  }
  store_all(9000, 9000);  // layer 1's q, k, v: 11000 against 4000; the head: 9000 against 2000
  {
    ModelStep chain(m, file, options, &store, {device_row}, device.info());
    EXPECT_EQ(count(chain, "add_rmsnorm_mul"), 2);  // before layer 1's q, k and v, and before the head
    EXPECT_EQ(count(chain, "matmul_q6k_addnorm"), 0);
    EXPECT_EQ(count(chain, "matmul_q4k_addnorm"), 5);  // layer 0's q, k and v, each layer's gate+up
    EXPECT_EQ(chain.ops().end()[-3].kernel, "add_rmsnorm_mul");
    EXPECT_EQ(chain.ops().end()[-2].kernel, "matmul_q6k_split");  // the plain head, its weight split
  }
  // Only the other ways' winners (those of the _addnorm products deleted),
  // the epilogues fast: every norm apart, q, k and v in the epilogues.
  store_all(9000, 1000);
  for (const auto& op : fused.ops()) {
    if (!op.kernel.ends_with("_addnorm")) continue;
    store.remove_winner(device_row, op.kernel, kernels::shape_to_string(op.shape), "cold");
  }
  {
    ModelStep chain(m, file, options, &store, {device_row}, device.info());
    EXPECT_EQ(chain.ops().size(), apart.ops().size());
    EXPECT_EQ(count(chain, "matmul_q4k_addnorm") + count(chain, "matmul_q6k_addnorm"), 0);
  }
}

// A block's last product takes in the residual add and the next norm (the
// _resnorm kernels) only where the stored medians say it pays against the
// plain product plus add_rmsnorm_mul; with one way's winners only, that way.
TEST_F(FusionChoice, TheBlockEndTakesTheNormWhereTheStoredWinnersSayItPays) {
  ModelStep ended(m, file, options, nullptr, {}, device.info());
  options.norm_at_block_end = false;
  ModelStep apart(m, file, options, nullptr, {}, device.info());
  options.norm_at_block_end = true;
  auto count = [](const ModelStep& chain, const std::string& suffix) {
    return std::count_if(chain.ops().begin(), chain.ops().end(),
                         [&](const StepOp& op) { return op.kernel.ends_with(suffix); });
  };
  // 2 layers: each attn_output and ffn_down one _resnorm product, no add_rmsnorm_mul.
  EXPECT_EQ(count(ended, "_resnorm"), 4);
  EXPECT_EQ(count(ended, "add_rmsnorm_mul"), 0);
  EXPECT_EQ(count(apart, "_resnorm"), 0);
  EXPECT_EQ(count(apart, "add_rmsnorm_mul"), 4);
  EXPECT_EQ(ended.ops().size() + 4, apart.ops().size());
  const auto db = std::filesystem::path(::testing::TempDir()) / "step_block_end_pays.db";
  std::filesystem::remove(db);
  auto store = results::Store::open(db);
  const auto device_row = store.upsert_device(identity_of(device.info()));
  auto store_all = [&](double resnorm_ns) {
    for (const auto* chain : {&ended, &apart}) {
      for (const auto& op : chain->ops()) {
        store_winner(store, device_row, op.kernel, op.shape, op.config,
                     op.kernel.ends_with("_resnorm") ? resnorm_ns : 1000);
      }
    }
  };
  options.tuned = true;
  store_all(1500);  // 1500 against 2000 apart (and the floor, none stored): taken in
  EXPECT_EQ(count(ModelStep(m, file, options, &store, {device_row}, device.info()), "_resnorm"), 4);
  store_all(2500);  // 2500 against 2000: apart
  EXPECT_EQ(count(ModelStep(m, file, options, &store, {device_row}, device.info()), "_resnorm"), 0);
  store_all(9000);  // add_rmsnorm_mul's winners deleted: taken in however slow
  for (const auto& op : apart.ops()) {
    if (op.kernel == "add_rmsnorm_mul") store.remove_winner(device_row, op.kernel, kernels::shape_to_string(op.shape), "cold");
  }
  EXPECT_EQ(count(ModelStep(m, file, options, &store, {device_row}, device.info()), "_resnorm"), 4);
  // The _resnorm winners deleted: apart.
  store_all(1);
  for (const auto& op : ended.ops()) {
    if (op.kernel.ends_with("_resnorm")) {
      store.remove_winner(device_row, op.kernel, kernels::shape_to_string(op.shape), "cold");
    }
  }
  EXPECT_EQ(count(ModelStep(m, file, options, &store, {device_row}, device.info()), "_resnorm"), 0);
}

// A Q6_K product reads its weight in the split layout (its _split twin, on
// a buffer of the weight rearranged) only where the stored medians say the
// twin is faster; with one way's winners only, that way; with none, the
// twin. The other ops are the same either way.
TEST_F(FusionChoice, AQ6KWeightIsReadSplitWhereTheStoredWinnersSayItPays) {
  ModelStep split(m, file, options, nullptr, {}, device.info());
  options.device_layouts = false;
  ModelStep gguf(m, file, options, nullptr, {}, device.info());
  options.device_layouts = true;
  auto twins = [](const ModelStep& chain) {
    return std::count_if(chain.ops().begin(), chain.ops().end(),
                         [](const StepOp& op) { return op.kernel.starts_with("matmul_q6k_split"); });
  };
  // The head, layer 1's v (its cache store) and layer 1's ffn_down (its
  // SwiGLU and residual norm): the tiny model's Q6_K weights.
  ASSERT_EQ(twins(split), 3);
  EXPECT_EQ(twins(gguf), 0);
  ASSERT_EQ(split.ops().size(), gguf.ops().size());
  for (std::size_t i = 0; i < split.ops().size(); ++i) {
    const auto& a = split.ops()[i];
    const auto& b = gguf.ops()[i];
    if (!a.kernel.starts_with("matmul_q6k_split")) {
      EXPECT_EQ(a.kernel, b.kernel);
      EXPECT_EQ(a.buffers, b.buffers);
      continue;
    }
    EXPECT_EQ(a.kernel, "matmul_q6k_split" + b.kernel.substr(std::string("matmul_q6k").size()));
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.buffers[1], laid_out_name(b.buffers[1], ref::WeightLayout::q6_k_split));
    EXPECT_EQ(a.weight, b.weight);
    // The reference reads the tensor's own bytes whatever buffer the op binds.
    EXPECT_EQ(split.weight_bytes(a.buffers[1]), gguf.weight_bytes(b.buffers[1]));
  }
  const auto db = std::filesystem::path(::testing::TempDir()) / "step_split_pays.db";
  std::filesystem::remove(db);
  auto store = results::Store::open(db);
  const auto device_row = store.upsert_device(identity_of(device.info()));
  auto store_all = [&](double split_ns) {
    for (const auto* chain : {&split, &gguf}) {
      for (const auto& op : chain->ops()) {
        store_winner(store, device_row, op.kernel, op.shape, op.config,
                     op.kernel.starts_with("matmul_q6k_split") ? split_ns : 1000);
      }
    }
  };
  auto remove = [&](const ModelStep& chain, bool twin) {
    for (const auto& op : chain.ops()) {
      if (op.kernel.starts_with("matmul_q6k") && op.kernel.starts_with("matmul_q6k_split") == twin) {
        store.remove_winner(device_row, op.kernel, kernels::shape_to_string(op.shape), "cold");
      }
    }
  };
  options.tuned = true;
  store_all(900);
  EXPECT_EQ(twins(ModelStep(m, file, options, &store, {device_row}, device.info())), 3);
  store_all(1100);
  EXPECT_EQ(twins(ModelStep(m, file, options, &store, {device_row}, device.info())), 0);
  remove(gguf, false);  // the twins' winners alone, however slow: split
  EXPECT_EQ(twins(ModelStep(m, file, options, &store, {device_row}, device.info())), 3);
  store_all(1);
  remove(split, true);  // GGUF's winners alone: an untuned twin never replaces them
  EXPECT_EQ(twins(ModelStep(m, file, options, &store, {device_row}, device.info())), 0);
}

// Gate and up run as the _glu product (their rows interleaved, storing their
// SwiGLU) and ffn_down as a plain-x product reading it only where the
// stored medians say that pays against the stacked product and the
// SwiGLU-reading ffn_down; with one way's winners only, that way; with
// none, the _glu product. Its weight buffer is the two tensors' rows
// alternating, gate's first.
TEST_F(FusionChoice, GateAndUpStoreTheirSwigluWhereTheStoredWinnersSayItPays) {
  ModelStep glu(m, file, options, nullptr, {}, device.info());
  options.swiglu_in_gate_up = false;
  ModelStep stacked(m, file, options, nullptr, {}, device.info());
  options.swiglu_in_gate_up = true;
  auto count = [](const ModelStep& chain, const std::string& suffix) {
    return std::count_if(chain.ops().begin(), chain.ops().end(),
                         [&](const StepOp& op) { return op.kernel.ends_with(suffix); });
  };
  ASSERT_EQ(count(glu, "_glu"), 2);  // one a layer
  EXPECT_EQ(count(glu, "_swiglu_resnorm"), 0);
  EXPECT_EQ(count(stacked, "_glu"), 0);
  EXPECT_EQ(count(stacked, "_swiglu_resnorm"), 2);
  ASSERT_EQ(glu.ops().size(), stacked.ops().size());
  for (const auto& op : glu.ops()) {
    if (!op.kernel.ends_with("_glu")) continue;
    const std::string blk = op.role.substr(0, op.role.find("ffn_gate"));
    const auto& gate = glu.weight_bytes(blk + "ffn_gate.weight");
    const auto& up = glu.weight_bytes(blk + "ffn_up.weight");
    const auto& both = glu.weight_bytes(op.buffers[1]);
    ASSERT_EQ(both.size(), gate.size() + up.size());
    const auto& t = m.tensors.at(blk + "ffn_gate.weight");
    const auto row = ref::row_bytes(t.type, t.row_length());
    for (std::size_t r = 0; r < t.rows(); ++r) {
      EXPECT_TRUE(std::equal(gate.begin() + r * row, gate.begin() + (r + 1) * row, both.begin() + 2 * r * row)) << r;
      EXPECT_TRUE(std::equal(up.begin() + r * row, up.begin() + (r + 1) * row, both.begin() + (2 * r + 1) * row)) << r;
    }
  }
  const auto db = std::filesystem::path(::testing::TempDir()) / "step_glu_pays.db";
  std::filesystem::remove(db);
  auto store = results::Store::open(db);
  const auto device_row = store.upsert_device(identity_of(device.info()));
  // The glu way's two products at `glu_ns` each, every other op at 1000.
  auto store_all = [&](double glu_ns) {
    for (const auto* chain : {&glu, &stacked}) {
      for (const auto& op : chain->ops()) {
        const bool glu_way = op.kernel.ends_with("_glu") ||
                             (op.kernel.ends_with("_resnorm") && op.role.find("swiglu") == std::string::npos &&
                              op.role.find("ffn_down") != std::string::npos);
        store_winner(store, device_row, op.kernel, op.shape, op.config, glu_way ? glu_ns : 1000);
      }
    }
  };
  options.tuned = true;
  auto glus = [&] { return count(ModelStep(m, file, options, &store, {device_row}, device.info()), "_glu"); };
  store_all(900);
  EXPECT_EQ(glus(), 2);
  store_all(1100);
  EXPECT_EQ(glus(), 0);
  for (const auto& op : stacked.ops()) {  // the glu way's winners alone, however slow: the glu way
    if (op.kernel == "matmul_q4k") store.remove_winner(device_row, op.kernel, kernels::shape_to_string(op.shape), "cold");
  }
  EXPECT_EQ(glus(), 2);
  store_all(1);
  for (const auto& op : glu.ops()) {  // the stacked way's alone: an untuned _glu product never replaces it
    if (op.kernel.ends_with("_glu")) store.remove_winner(device_row, op.kernel, kernels::shape_to_string(op.shape), "cold");
  }
  EXPECT_EQ(glus(), 0);
}

}  // namespace
}  // namespace vktune::step
