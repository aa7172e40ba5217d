// A GGUF model's decode step and prefill as vktune ops (workloads/llm/): the
// architecture and dimensions read from the metadata, every product at its
// tensor's real N, K and type, counts per token and per prefill; refusals
// of other architectures, missing tensors and shapes that disagree with the
// metadata; tensors no kernel reads; the random models `vktune gguf
// --make-random` writes; and the time-sharing rule of `vktune model`.
#include "workloads/llm/model_ops.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "reference/gguf_reader.hpp"
#include "reference/gguf_types.hpp"
#include "workloads/llm/model_tuning.hpp"
#include "workloads/llm/random_model.hpp"

namespace vktune::model {
namespace {

ModelPreset tiny(const std::string& architecture = "llama") {
  auto preset = find_preset("tiny");
  preset.architecture = architecture;
  return preset;
}

ModelDescription describe(const ref::GgufWriter& writer) {
  const auto bytes = writer.bytes();
  return describe_model(ref::parse_gguf(bytes, "tiny.gguf"), "tiny.gguf");
}

// The one-line usage error describing `writer` gives.
std::string refusal(const ref::GgufWriter& writer) {
  try {
    describe(writer);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  ADD_FAILURE() << "described";
  return {};
}

using Counts = std::map<std::pair<std::string, std::string>, std::pair<std::uint32_t, std::uint32_t>>;

Counts counts_of(const ModelOps& ops) {
  Counts c;
  for (const auto& op : ops.ops) c[{op.kernel, kernels::shape_to_string(op.shape)}] = {op.per_token, op.per_prefill};
  return c;
}

TEST(ModelOps, TheTinyLlamasDecodeStepAndPrefill) {
  const auto m = describe(random_model(tiny(), "Q4_K_M", 1));
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(std::tie(m.layers, m.embedding, m.heads, m.kv_heads, m.head_dim, m.feed_forward, m.vocab, m.context_length),
            std::make_tuple(2u, 256u, 4u, 2u, 64u, 512u, 128u, 2048u));
  EXPECT_FALSE(m.rope_neox);
  const auto ops = model_ops(m, 64, 8);
  // Written out from the model: 2 layers, Q4_K_M (layer 1 of 2 takes Q6_K
  // for attn_v and ffn_down, as llama.cpp gives the last eighth more bits;
  // a Q6_K output head); T = 1 (decode) and 8 (prefill).
  const Counts want{
      {{"get_rows_q4k", "1,128,256"}, {1, 0}},
      {{"get_rows_q4k", "8,128,256"}, {0, 1}},
      // Layer 0's attention norm; every other norm follows a residual add,
      // fused with it: in a decode step into the product before them (the
      // attention output, and ffn_down reading the SwiGLU), in a prefill an
      // add_rmsnorm_mul, 2 per layer, the last one's before the output
      // norm on the last token's row alone.
      {{"rmsnorm_mul", "1,256"}, {1, 0}},
      {{"rmsnorm_mul", "8,256"}, {0, 1}},
      {{"add_rmsnorm_mul", "1,256"}, {0, 1}},
      {{"add_rmsnorm_mul", "8,256"}, {0, 3}},
      {{"matmul_q4k_resnorm", "1,256,256"}, {2, 0}},  // the attention output
      {{"matmul_q4k", "8,256,256"}, {0, 2}},
      // A decode step's Q6_K products read their weights in the split
      // layout (model::layout_twin), a prefill's GGUF's.
      {{"matmul_q6k_split", "1,128,256"}, {1, 0}},  // the output head, last token only
      {{"matmul_q6k", "1,128,256"}, {0, 1}},
      // q, k and v with their rope and cache stores in the products'
      // epilogues (normal rope, no biases or q/k norms; M <= 8 in both
      // phases): q turned, k turned into its cache, v into its cache (Q4_K
      // in layer 0, Q6_K in layer 1).
      {{"matmul_q4k_rope", "1,256,256,64"}, {2, 0}},
      {{"matmul_q4k_rope", "8,256,256,64"}, {0, 2}},
      {{"matmul_q4k_rope_cache", "1,128,256,64,64"}, {2, 0}},
      {{"matmul_q4k_rope_cache", "8,128,256,64,64"}, {0, 2}},
      {{"matmul_q4k_cache", "1,128,256,64"}, {1, 0}},
      {{"matmul_q4k_cache", "8,128,256,64"}, {0, 1}},
      {{"matmul_q6k_split_cache", "1,128,256,64"}, {1, 0}},
      {{"matmul_q6k_cache", "8,128,256,64"}, {0, 1}},
      {{"attention_decode", "4,2,64,64"}, {2, 0}},
      {{"attention_prefill", "8,4,2,64,8"}, {0, 2}},  // the prompt from an empty cache
      // Gate and up as one product: in a decode step of their rows
      // interleaved, storing their SwiGLU, which ffn_down reads as plain x
      // (ending the block with its norm); in the prefill of their stacked
      // weights, whose SwiGLU ffn_down computes: its 8 rows are within the
      // decode products' M (below, a longer prompt runs the four apart).
      {{"matmul_q4k_glu", "1,1024,256"}, {2, 0}},
      {{"matmul_q4k", "8,1024,256"}, {0, 2}},
      {{"matmul_q4k_swiglu", "8,256,512"}, {0, 1}},
      {{"matmul_q4k_resnorm", "1,256,512"}, {1, 0}},
      {{"matmul_q6k_split_resnorm", "1,256,512"}, {1, 0}},
      {{"matmul_q6k_swiglu", "8,256,512"}, {0, 1}},
      {{"argmax", "1,128"}, {1, 1}},
  };
  EXPECT_EQ(counts_of(ops), want);
  // Every op of both phases is served.
  EXPECT_TRUE(ops.unserved.empty());
  EXPECT_TRUE(ops.complete("decode"));
  EXPECT_TRUE(ops.complete("prefill"));
  // Every op is a registered kernel that accepts its shape.
  for (const auto& op : ops.ops) EXPECT_NO_THROW(kernels::find_kernel(op.kernel).validate_shape(op.shape)) << op.kernel;
  // A prompt longer than the decode products' M: gate and up still one
  // stacked product, their SwiGLU its own op reading them side by side,
  // then down.
  const auto longer = counts_of(model_ops(m, 64, 16));
  EXPECT_EQ(longer.at({"matmul_q4k", "16,1024,256"}), std::make_pair(0u, 2u));
  EXPECT_EQ(longer.at({"swiglu_stacked", "16,512"}), std::make_pair(0u, 2u));
  EXPECT_EQ(longer.count({"swiglu", "16,512"}), 0u);
  EXPECT_EQ(longer.count({"matmul_q4k", "16,512,256"}), 0u);
  EXPECT_EQ(longer.at({"matmul_q4k", "16,256,512"}), std::make_pair(0u, 1u));
  EXPECT_EQ(longer.at({"matmul_q6k", "16,256,512"}), std::make_pair(0u, 1u));
  EXPECT_EQ(longer.count({"matmul_q6k_swiglu", "16,256,512"}), 0u);
  // No epilogue product takes M = 16: q, k and v, then rope, k rotated into
  // its cache, v stored.
  EXPECT_EQ(longer.count({"matmul_q4k_rope", "16,256,256,64"}), 0u);
  EXPECT_EQ(longer.at({"matmul_q4k", "16,256,256"}), std::make_pair(0u, 4u));  // q and output
  EXPECT_EQ(longer.at({"rope", "16,4,64"}), std::make_pair(0u, 2u));
  EXPECT_EQ(longer.at({"rope_cache", "16,2,64,64"}), std::make_pair(0u, 2u));
  EXPECT_EQ(longer.at({"kv_store", "16,128,64"}), std::make_pair(0u, 2u));
}

TEST(ModelOps, QwenRotatesNeoxStyle) {
  const auto ops = model_ops(describe(random_model(tiny("qwen2"), "Q8_0", 1)), 64, 0);
  const auto c = counts_of(ops);
  EXPECT_EQ(c.count({"rope", "1,4,64"}), 0u);
  EXPECT_EQ(c.at({"rope_neox", "1,4,64"}), std::make_pair(2u, 0u));
  EXPECT_EQ(c.at({"rope_neox_cache", "1,2,64,64"}), std::make_pair(2u, 0u));
  EXPECT_EQ(c.at({"get_rows_q8_0", "1,128,256"}), std::make_pair(1u, 0u));
}

TEST(ModelOps, OtherArchitecturesMissingTensorsAndWrongShapesAreRefusedInOneLine) {
  EXPECT_EQ(refusal(random_model(tiny("gpt2"), "F16", 1)),
            "tiny.gguf: architecture 'gpt2' is not supported (supported: llama, mistral, qwen2, qwen3)");
  ref::GgufWriter no_layers;
  no_layers.set("general.architecture", std::string("llama"));
  EXPECT_EQ(refusal(no_layers), "tiny.gguf: metadata key llama.block_count is missing");
}

TEST(ModelOps, AMissingTensorOrAShapeOffTheMetadataIsNamed) {
  // The tensors are 512 wide; the rebuilt metadata says 640.
  const auto wider = random_model(tiny(), "F16", 1);
  ref::GgufWriter renamed;  // rebuilt with one key changed
  const auto contents = ref::parse_gguf(wider.bytes(), "tiny.gguf");
  for (const auto& kv : contents.metadata) {
    renamed.set(kv.key, kv.key == "llama.feed_forward_length" ? ref::GgufValue(std::uint32_t{640}) : kv.value);
  }
  const auto file = ref::GgufFile::from_bytes(wider.bytes(), "tiny.gguf");
  for (const auto& t : contents.tensors) {
    if (t.name == "blk.1.ffn_up.weight") continue;  // and this one left out
    renamed.add_tensor(t.name, t.type, t.shape, file.tensor_data(t));
  }
  EXPECT_EQ(refusal(renamed), "tiny.gguf: tensor blk.0.ffn_gate.weight is 256 x 512, the metadata says 256 x 640");
  ref::GgufWriter missing;
  for (const auto& kv : contents.metadata) missing.set(kv.key, kv.value);
  for (const auto& t : contents.tensors) {
    if (t.name != "blk.1.ffn_up.weight") missing.add_tensor(t.name, t.type, t.shape, file.tensor_data(t));
  }
  EXPECT_EQ(refusal(missing), "tiny.gguf: tensor blk.1.ffn_up.weight is missing");
}

// The tiny llama's parsed contents with `edit` applied, described; the
// refusal's text, or "" when it was described.
template <typename Edit>
std::string refusal_of_edited(Edit edit) {
  const auto bytes = random_model(tiny(), "F16", 1).bytes();
  auto contents = ref::parse_gguf(bytes, "tiny.gguf");
  edit(contents);
  try {
    describe_model(contents, "tiny.gguf");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  return {};
}

// Sets `key` (adding it when absent).
void set_u32(ref::GgufContents& contents, const std::string& key, std::uint32_t value) {
  for (auto& kv : contents.metadata)
    if (kv.key == key) {
      kv.value = ref::GgufValue(value);
      return;
    }
  contents.metadata.push_back({key, ref::GgufValue(value)});
}

// Dimensions from the metadata went into 32-bit products: a vocabulary of
// 2^32 became 0 rows (SIGFPE in `step`), 2^32 + 256 became 256, and 2 x a
// feed-forward of 2^31 became 0. Each is now refused, naming the product.
TEST(ModelOps, DimensionsAndProductsAbove32BitsAreRefusedNotTruncated) {
  for (const std::uint64_t rows : {std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 256}) {
    const auto why = refusal_of_edited([rows](ref::GgufContents& c) {
      for (auto& t : c.tensors)
        if (t.name == "token_embd.weight") t.shape[1] = rows;
      std::erase_if(c.tensors, [](const auto& t) { return t.name == "output.weight"; });  // tied
    });
    EXPECT_EQ(why, "tiny.gguf: the vocabulary (token_embd.weight's rows) is " + std::to_string(rows) +
                       ", above 2^32-1");
  }
  EXPECT_EQ(refusal_of_edited([](ref::GgufContents& c) { set_u32(c, "llama.feed_forward_length", 1u << 31); }),
            "tiny.gguf: 2 x feed_forward_length (gate and up stacked) is 4294967296, above 2^32-1");
  EXPECT_EQ(refusal_of_edited([](ref::GgufContents& c) {
              set_u32(c, "llama.attention.head_count_kv", 2);
              set_u32(c, "llama.attention.head_count", 4);
              set_u32(c, "llama.attention.key_length", 1u << 31);
            }),
            "tiny.gguf: head_count x key_length is 8589934592, above 2^32-1");
}

// A norm weight of another type than F32 bound 144 or 512 bytes where the
// kernel reads 1024 (an out-of-bounds read per layer on a GPU).
TEST(ModelOps, NormWeightsOfAnotherTypeThanF32AreRefused) {
  for (const auto type : {ref::GgmlType::Q4_K, ref::GgmlType::F16}) {
    const auto why = refusal_of_edited([type](ref::GgufContents& c) {
      for (auto& t : c.tensors)
        if (t.name == "blk.1.ffn_norm.weight") t.type = type;
    });
    EXPECT_EQ(why, "tiny.gguf: tensor blk.1.ffn_norm.weight is " + std::string(ref::type_name(type)) +
                       "; norm weights and biases are read as F32");
  }
}

TEST(ModelOps, TensorsNoKernelReadsAreListedOnce) {
  // A Q6_K embedding: there is no Q6_K row lookup.
  const auto writer = random_model(
      tiny(),
      [](const std::string& role, std::uint32_t) {
        return role == "token_embd" ? ref::GgmlType::Q6_K : ref::GgmlType::Q8_0;
      },
      "test", 1);
  const auto ops = model_ops(describe(writer), 64, 8);
  ASSERT_EQ(ops.unsupported.size(), 1u);
  EXPECT_EQ(ops.unsupported[0].tensor, "token_embd.weight");
  EXPECT_EQ(ops.unsupported[0].type, "Q6_K");
  EXPECT_FALSE(ops.complete("decode"));
}

// Every type the reference library reads but no matrix product serves (Q3_K,
// IQ4_XS, ...: read from the library's list, not written here): a model whose
// ffn_down weights use it is read, and each such tensor is listed as
// unsupported with its type, which `vktune model` turns into its one-line
// refusal, instead of failing anywhere else.
TEST(ModelOps, WeightTypesWithoutAKernelAreListedWithTheirType) {
  int checked = 0;
  for (const ref::GgmlType type : ref::all_ggml_types()) {
    if (!matmul_kernel(type).empty()) continue;
    ++checked;
    const std::string name(ref::type_name(type));
    const auto writer = random_model(
        tiny(),
        [type](const std::string& role, std::uint32_t) { return role == "ffn_down" ? type : ref::GgmlType::Q8_0; },
        "test", 1);
    const auto ops = model_ops(describe(writer), 64, 8);
    ASSERT_EQ(ops.unsupported.size(), 2u) << name;
    EXPECT_EQ(ops.unsupported[0].tensor, "blk.0.ffn_down.weight") << name;
    EXPECT_EQ(ops.unsupported[1].tensor, "blk.1.ffn_down.weight") << name;
    EXPECT_EQ(ops.unsupported[0].type, name);
    EXPECT_FALSE(ops.complete("decode")) << name;
  }
  EXPECT_GT(checked, 0) << "every type has a matrix-product kernel: this test no longer tests anything";
}

TEST(ModelOps, RandomModelsHaveTheirPresetsShapesAndMixes) {
  EXPECT_THROW(find_preset("llama3-70b"), Error);
  EXPECT_THROW(check_type_mix("Q3_K_S"), Error);
  const auto bytes = random_model(tiny(), "Q4_K_M", 7).bytes();
  const auto contents = ref::parse_gguf(bytes, "tiny.gguf");
  EXPECT_EQ(contents.find_tensor("blk.1.ffn_down.weight")->type, ref::GgmlType::Q6_K);
  EXPECT_EQ(contents.find_tensor("blk.0.ffn_down.weight")->type, ref::GgmlType::Q4_K);
  EXPECT_EQ(contents.find_tensor("output.weight")->type, ref::GgmlType::Q6_K);
  // Random, reproducible from the seed.
  const auto file = ref::GgufFile::from_bytes(bytes, "tiny.gguf");
  const auto again = ref::GgufFile::from_bytes(random_model(tiny(), "Q4_K_M", 7).bytes(), "again");
  const auto other = ref::GgufFile::from_bytes(random_model(tiny(), "Q4_K_M", 8).bytes(), "other");
  const auto* q = contents.find_tensor("blk.0.attn_q.weight");
  EXPECT_EQ(file.tensor_data(*q), again.tensor_data(*again.contents().find_tensor("blk.0.attn_q.weight")));
  EXPECT_NE(file.tensor_data(*q), other.tensor_data(*other.contents().find_tensor("blk.0.attn_q.weight")));
  const auto values = file.dequantize(*q);
  EXPECT_TRUE(std::any_of(values.begin(), values.end(), [](float v) { return v != 0; }));
}

// preset_contents: what random_model writes, as parse_gguf reads it back,
// without the weights' bytes; every tiny preset in every mix.
TEST(ModelOps, PresetContentsAreWhatRandomModelsWrite) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  int compared = 0;
  for (const auto& preset : model_presets()) {
    if (preset.name.rfind("tiny", 0) != 0) continue;
    for (const auto& mix : type_mixes()) {
      SCOPED_TRACE(preset.name + " " + mix);
      const auto bytes = random_model(preset, mix, seed).bytes();
      const auto written = ref::parse_gguf(bytes, "written.gguf");
      const auto planned = preset_contents(preset, mix);
      ASSERT_EQ(planned.metadata.size(), written.metadata.size());
      for (std::size_t i = 0; i < written.metadata.size(); ++i) {
        EXPECT_EQ(planned.metadata[i].key, written.metadata[i].key);
        EXPECT_EQ(planned.metadata[i].value.data, written.metadata[i].value.data) << written.metadata[i].key;
      }
      ASSERT_EQ(planned.tensors.size(), written.tensors.size());
      for (std::size_t i = 0; i < written.tensors.size(); ++i) {
        const auto &a = planned.tensors[i], &b = written.tensors[i];
        EXPECT_EQ(std::tie(a.name, a.type, a.shape, a.offset, a.elements, a.bytes),
                  std::tie(b.name, b.type, b.shape, b.offset, b.elements, b.bytes))
            << b.name;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 12) << "four tiny presets in three mixes";
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

TEST(ModelTuning, APrefillProductsFloorIsAtTheTensorCoresRateWhereTheDeviceHasThem) {
  const auto& kernel = kernels::find_kernel("matmul_q4k");
  const kernels::Shape shape{512, 4096, 4096};
  const auto m = kernel.metrics(shape);
  Ceilings c{4000.0, 60000.0};  // GB/s, GFLOP/s
  c.dispatch_floor_ns = 2600.0;
  ASSERT_GT(m.flops / 60000.0, m.bytes / 4000.0);  // compute-bound at the FMA rate
  EXPECT_DOUBLE_EQ(floor_ns(kernel, shape, c), m.flops / 60000.0);
  c.tensor_gflops = 380000.0;
  EXPECT_DOUBLE_EQ(floor_ns(kernel, shape, c), std::max(m.flops / 380000.0, m.bytes / 4000.0));
}

}  // namespace
}  // namespace vktune::model
