// A GGUF model's decode step and prefill as vktune ops (tuner/model/): the
// architecture and dimensions read from the metadata, every product at its
// tensor's real N, K and type, counts per token and per prefill; refusals
// of other architectures; and the time-sharing rule of `vktune model`.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "reference/gguf_reader.hpp"
#include "tests/support/synthetic_model.hpp"
#include "tuner/model/model_ops.hpp"
#include "tuner/model/model_tuning.hpp"

namespace vktune::model {
namespace {

ModelDescription describe(const ref::GgufWriter& writer) {
  const auto bytes = writer.bytes();
  return describe_model(ref::parse_gguf(bytes, "tiny.gguf"), "tiny.gguf");
}

using Counts = std::map<std::pair<std::string, std::string>, std::pair<std::uint32_t, std::uint32_t>>;

Counts counts_of(const ModelOps& ops) {
  Counts c;
  for (const auto& op : ops.ops) c[{op.kernel, kernels::shape_to_string(op.shape)}] = {op.per_token, op.per_prefill};
  return c;
}

TEST(ModelOps, TheTinyLlamasDecodeStepAndPrefill) {
  const auto m = describe(testing_support::tiny_model());
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(std::tie(m.layers, m.embedding, m.heads, m.kv_heads, m.head_dim, m.feed_forward, m.vocab),
            std::make_tuple(2u, 256u, 4u, 2u, 64u, 512u, 128u));
  EXPECT_FALSE(m.rope_neox);
  const auto ops = model_ops(m, 64, 8);
  // Written out from the model: 2 layers; T = 1 (decode) and 8 (prefill).
  const Counts want{
      {{"get_rows_f16", "1,128,256"}, {1, 0}},
      {{"get_rows_f16", "8,128,256"}, {0, 1}},
      {{"rmsnorm_mul", "1,256"}, {5, 1}},  // 2 per layer, the output norm (a prefill's on its last token)
      {{"rmsnorm_mul", "8,256"}, {0, 4}},
      {{"matmul_q8_0", "1,256,256"}, {2, 0}},
      {{"matmul_q8_0", "1,128,256"}, {4, 0}},
      {{"matmul_q8_0", "8,256,256"}, {0, 2}},
      {{"matmul_q8_0", "8,128,256"}, {0, 4}},
      {{"rope", "1,4,64"}, {2, 0}},
      {{"rope", "1,2,64"}, {2, 0}},
      {{"rope", "8,4,64"}, {0, 2}},
      {{"rope", "8,2,64"}, {0, 2}},
      {{"attention_decode", "4,2,64,64"}, {2, 0}},
      {{"kv_store", "1,128,64"}, {4, 0}},  // k and v per layer
      {{"kv_store", "8,128,64"}, {0, 4}},
      {{"matmul_q4k", "1,256,256"}, {2, 0}},
      {{"matmul_q4k", "8,256,256"}, {0, 2}},
      {{"add", "1,256"}, {4, 0}},
      {{"add", "8,256"}, {0, 4}},
      {{"matmul_q4k", "1,512,256"}, {4, 0}},
      {{"matmul_q4k", "8,512,256"}, {0, 4}},
      {{"swiglu", "1,512"}, {2, 0}},
      {{"swiglu", "8,512"}, {0, 2}},
      {{"matmul_q6k", "1,256,512"}, {1, 0}},
      {{"matmul_q6k", "8,256,512"}, {0, 1}},
      {{"matmul_q4k", "1,256,512"}, {1, 0}},
      {{"matmul_q4k", "8,256,512"}, {0, 1}},
      {{"matmul_q6k", "1,128,256"}, {1, 1}},  // the output head, last token only
      {{"argmax", "1,128"}, {1, 1}},
  };
  EXPECT_EQ(counts_of(ops), want);
  // What no kernel serves yet is listed, not dropped.
  std::map<std::string, std::uint32_t> unserved;  // "phase: first words" -> count
  for (const auto& u : ops.unserved) unserved[u.phase + ": " + u.what.substr(0, 14)] = u.count;
  const std::map<std::string, std::uint32_t> want_unserved{{"prefill: prefill attent", 2}};
  EXPECT_EQ(unserved, want_unserved);
  // Every op is a registered kernel that accepts its shape.
  for (const auto& op : ops.ops) EXPECT_NO_THROW(kernels::find_kernel(op.kernel).validate_shape(op.shape)) << op.kernel;
}

TEST(ModelOps, QwenRotatesNeoxStyle) {
  const auto ops = model_ops(describe(testing_support::tiny_model("qwen2")), 64, 0);
  const auto c = counts_of(ops);
  EXPECT_EQ(c.count({"rope", "1,4,64"}), 0u);
  EXPECT_EQ(c.at({"rope_neox", "1,4,64"}), std::make_pair(2u, 0u));
}

TEST(ModelOps, OtherArchitecturesAreRefusedInOneLine) {
  try {
    describe(testing_support::tiny_model("gpt2"));
    FAIL() << "described";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()),
              "tiny.gguf: architecture 'gpt2' is not supported (supported: llama, mistral, qwen2, qwen3)");
  }
  ref::GgufWriter no_layers;
  no_layers.set("general.architecture", std::string("llama"));
  EXPECT_THROW(describe(no_layers), Error);
}

TEST(ModelTuning, TimeIsSharedByPotentialGain) {
  const auto shares = share_time({3, 0, 1, -2}, 8.0);
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_DOUBLE_EQ(shares[0], 6.0);
  EXPECT_DOUBLE_EQ(shares[1], 0.0);
  EXPECT_DOUBLE_EQ(shares[2], 2.0);
  EXPECT_DOUBLE_EQ(shares[3], 0.0);
  EXPECT_EQ(share_time({0, 0}, 5.0), (std::vector<double>{0, 0}));
  ModelOp op{"add", {1, 256}, 4, 16, {}};
  EXPECT_DOUBLE_EQ(per_token_weight(op, 8), 4 + 2.0);
  EXPECT_DOUBLE_EQ(per_token_weight(op, 0), 4.0);
}

TEST(ModelTuning, AnOpsFloorIsItsRooflineOrOneDispatch) {
  const auto& kernel = kernels::find_kernel("add");
  const kernels::Shape shape{1, 1 << 20};
  const auto m = kernel.metrics(shape);
  Ceilings c{1000.0, 50000.0};  // GB/s, GFLOP/s
  c.dispatch_floor_ns = 2.0;
  EXPECT_DOUBLE_EQ(floor_ns(kernel, shape, c), std::max(m.bytes / 1000.0, m.flops / 50000.0));
  c.dispatch_floor_ns = 1e9;
  EXPECT_DOUBLE_EQ(floor_ns(kernel, shape, c), 1e9);
}

}  // namespace
}  // namespace vktune::model
