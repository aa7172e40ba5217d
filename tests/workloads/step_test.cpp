// A decode step as a chain of kernels on the test device (workloads/llm/): the
// tiny random model's logits against the CPU reference of the same chain,
// and that reference's sensitivity (the token's position changes them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>

#include "common/error.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "tests/kernels/kernel_test_support.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/registry.hpp"
#include "results/store.hpp"
#include "tuner/session.hpp"
#include "engine/variant.hpp"
#include "workloads/llm/model_description.hpp"
#include "workloads/llm/random_model.hpp"
#include "workloads/llm/model_step.hpp"
#include "workloads/llm/step_op_check.hpp"
#include "workloads/llm/step_reference.hpp"
#include "step_test_support.hpp"

namespace vktune::step {
namespace {

double rel_l2(const std::vector<float>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff / norm);
}

TEST(ModelStep, TheChainsLogitsAreTheCpuChains) {
  for (const char* architecture : {"llama", "qwen2"}) {  // normal and NeoX rope
    SCOPED_TRACE(architecture);
    const auto file = tiny_model(21, architecture);
    const auto m = model::describe_model(file.contents(), "tiny.gguf");
    vk::Instance instance;
    vk::Device device(instance, test_device_index());
    auto chain_options = baselines(48, 9);
    chain_options.norm_at_block_end = false;
    chain_options.device_layouts = false;  // GGUF's Q6_K products (the split ones: `ended`, below)
    chain_options.swiglu_in_gate_up = false;  // ffn_down computes the SwiGLU (the _glu product: `ended`)
    ModelStep chain(m, file, chain_options, nullptr, {}, device.info());
    // 1 lookup, the first norm, then per layer: llama's q, k and v with
    // their rope and cache stores in the products' epilogues (9 ops), the
    // NeoX rope's q, k and v apart, rope, k rotated into its cache and v
    // stored (12; no epilogue turns NeoX pairs); each residual add fused
    // with the norm after it, gate and up one product whose SwiGLU
    // ffn_down reads; head and argmax. (The chain whose blocks end with
    // their add and norm in the product before them: below.)
    const bool llama = std::string(architecture) == "llama";
    const std::size_t per_layer = llama ? 9 : 12;
    ASSERT_EQ(chain.ops().size(), 1u + 1 + 2 * per_layer + 2);
    ASSERT_EQ(chain.ops()[1].kernel, "rmsnorm_mul");
    if (llama) {
      ASSERT_EQ(chain.ops()[2].kernel, "matmul_q4k_rope");
      ASSERT_EQ(chain.ops()[3].kernel, "matmul_q4k_rope_cache");
      ASSERT_EQ(chain.ops()[4].kernel, "matmul_q4k_cache");  // layer 1's v is Q6_K
      ASSERT_EQ(chain.ops()[2 + per_layer + 2].kernel, "matmul_q6k_cache");
    } else {
      ASSERT_EQ(chain.ops()[6].kernel, "rope_neox_cache");
    }
    const std::size_t gate_up = llama ? 8 : 11;
    ASSERT_EQ(chain.ops()[gate_up].kernel, "matmul_q4k");  // gate and up stacked: 2 x 512 rows
    ASSERT_EQ(chain.ops()[gate_up].shape, (kernels::Shape{1, 1024, 256}));
    ASSERT_EQ(chain.ops()[gate_up + 1].kernel, "matmul_q4k_swiglu");  // layer 0's ffn_down is Q4_K, layer 1's Q6_K
    ASSERT_EQ(chain.ops().end()[-4].kernel, "matmul_q6k_swiglu");
    ASSERT_EQ(chain.ops().end()[-3].kernel, "add_rmsnorm_mul");
    chain.prepare(device, TemplateLibrary::embedded());
    const auto logits = chain.run_once(device);
    ASSERT_EQ(logits.size(), 128u);
    // Baselines compute in fp32 throughout (measured on lavapipe: ~1e-5),
    // but llama's Q6_K v with its cache store, whose only template
    // quantizes x to 8 bits: the CPU chain with that arithmetic.
    EXPECT_LT(rel_l2(logits, reference_logits(m, chain, Activations::as_variants)), 1e-4);
    // The same weights and cache with the token one position earlier (its
    // rope angle, the entries attention reads) is another answer.
    EXPECT_GT(rel_l2(logits, reference_logits(m, chain, Activations::exact, -1)), 1e-3);
    // Steps repeat: the second writes the same cache row and reads the same.
    EXPECT_EQ(chain.run_once(device), logits);
    // Op by op: every op within its kernel's tolerance, and the same logits
    // as the chained run.
    const auto by_op = check_op_by_op(chain, device, m);
    EXPECT_EQ(by_op.failed, 0u);
    EXPECT_EQ(by_op.logits, logits);
    // Every op its own kernel: 1 lookup, 17 per layer, the output norm, head
    // and argmax, and the same arithmetic (the sums, norms and rotations as
    // the fused kernels compute them).
    auto options = chain_options;
    options.fused = false;
    ModelStep unfused(m, file, options, nullptr, {}, device.info());
    ASSERT_EQ(unfused.ops().size(), 1u + 2 * 17 + 3);
    unfused.prepare(device, TemplateLibrary::embedded());
    const auto apart = unfused.run_once(device);
    EXPECT_LT(rel_l2(apart, reference_logits(m, unfused)), 1e-4);
    // That Q6_K v's 8-bit activations are llama's only other arithmetic
    // (1.3e-4 measured on lavapipe); NeoX's chain has no epilogues.
    EXPECT_LT(rel_l2(apart, std::vector<double>(logits.begin(), logits.end())), llama ? 1e-3 : 1e-6);
    // Each block ending with its residual add and the next norm in its last
    // product (attn_output, ffn_down: the _resnorm kernels, taken in where
    // no winners are stored): 2 ops fewer per layer, the head's norm in
    // layer 1's ffn_down. Its Q6_K product (layer 1's ffn_down) quantizes x
    // to 8 bits, the only template of that format with an epilogue: every
    // op within its variant's tolerance op by op, the chained run the
    // op-by-op one, steps repeat; its logits are 6.9e-3 from the exact CPU
    // chain's on lavapipe (the 8-bit SwiGLU; `vktune step --check` says so),
    // 7.3e-4 from the CPU chain with those 8-bit activations (llama; the
    // device's silu rounds otherwise than the double one before the codes:
    // measured with GGUF's layouts).
    // Its Q6_K products read their weights in the split layout (the
    // default: the matmul_q6k_split kernels, whose template quantizes x
    // too, the head's and layer 1's v's and ffn_down's), and gate and up
    // run as one product of their rows interleaved that stores their
    // SwiGLU (the default: matmul_q4k_glu), ffn_down a plain-x _resnorm
    // product reading it.
    auto ended_options = baselines(48, 9);
    ModelStep ended(m, file, ended_options, nullptr, {}, device.info());
    ASSERT_EQ(ended.ops().size(), chain.ops().size() - 4);
    ASSERT_EQ(ended.ops()[gate_up - 2].kernel, "matmul_q4k_resnorm");  // attn_output, the add and ffn_norm
    ASSERT_EQ(ended.ops()[gate_up - 1].kernel, "matmul_q4k_glu");
    ASSERT_EQ(ended.ops()[gate_up - 1].shape, (kernels::Shape{1, 1024, 256}));
    ASSERT_EQ(ended.ops()[gate_up].kernel, "matmul_q4k_resnorm");
    ASSERT_EQ(ended.ops()[gate_up].shape, (kernels::Shape{1, 256, 512}));
    ASSERT_EQ(ended.ops().end()[-3].kernel, "matmul_q6k_split_resnorm");  // with the output norm
    ASSERT_EQ(ended.ops().end()[-2].kernel, "matmul_q6k_split");  // the head
    if (llama) {
      ASSERT_EQ(ended.ops()[2 + per_layer - 2 + 2].kernel, "matmul_q6k_split_cache");  // layer 1's v
    }
    ended.prepare(device, TemplateLibrary::embedded());
    const auto ended_logits = ended.run_once(device);
    EXPECT_EQ(ended.run_once(device), ended_logits);
    const auto ended_by_op = check_op_by_op(ended, device, m);
    EXPECT_EQ(ended_by_op.failed, 0u);
    EXPECT_EQ(ended_by_op.logits, ended_logits);
    // (With the split head's 8-bit x too, 3.8e-3 for llama, 5.8e-3 from the
    // same chain with GGUF's exact head: a code its input's 7e-4 flips moves
    // the logits by a code's step; op by op, above, every op is within its
    // tolerance on the inputs it was given.)
    EXPECT_LT(rel_l2(ended_logits, reference_logits(m, ended, Activations::as_variants)), 5e-3);
    // Each residual add and norm taken into the products that read it: 1
    // lookup, 10 per layer, head and argmax; the norms' squares summed in
    // another order than add_rmsnorm_mul sums them (fp32 rounding: 6.0e-6
    // and 6.1e-6 measured on lavapipe against the fused chain of session 45,
    // where the positions 48 and 47 differ by more than 1e-3, above), and
    // every op within its tolerance.
    options.fused = true;
    options.norm_into_products = true;
    ModelStep norm_in(m, file, options, nullptr, {}, device.info());
    ASSERT_EQ(norm_in.ops().size(), 1u + 2 * 10 + 2);
    ASSERT_EQ(norm_in.ops()[1].kernel, "matmul_q4k_addnorm");  // attn_q, with the first norm
    ASSERT_EQ(norm_in.ops()[3].kernel, "matmul_q4k_addnorm");  // attn_v (Q6_K in layer 1)
    ASSERT_EQ(norm_in.ops()[13].kernel, "matmul_q6k_addnorm");
    ASSERT_EQ(norm_in.ops()[5].kernel, std::string(architecture) == "llama" ? "rope_cache" : "rope_neox_cache");
    ASSERT_EQ(norm_in.ops()[9].kernel, "matmul_q4k_addnorm");  // gate and up stacked: 2 x 512 rows
    ASSERT_EQ(norm_in.ops()[9].shape, (kernels::Shape{1, 1024, 256}));
    ASSERT_EQ(norm_in.ops()[10].kernel, "matmul_q4k_swiglu");  // layer 0's ffn_down is Q4_K, layer 1's Q6_K
    ASSERT_EQ(norm_in.ops().end()[-3].kernel, "matmul_q6k_swiglu");
    ASSERT_EQ(norm_in.ops().end()[-2].kernel, "matmul_q6k_addnorm");  // the head, with the output norm
    norm_in.prepare(device, TemplateLibrary::embedded());
    // (No epilogue takes a norm in: q, k and v as the unfused chain's.)
    EXPECT_LT(rel_l2(norm_in.run_once(device), std::vector<double>(apart.begin(), apart.end())), 3e-5);
    EXPECT_EQ(check_op_by_op(norm_in, device, m).failed, 0u);
  }
}

// A prompt's processing (StepOptions::prompt) on fresh random weights, for
// three families (normal and NeoX rope; qwen2's q/k/v biases added to
// every token's row; qwen3's norm over every token's heads of q and k): its
// last token's logits against the CPU chain, which computes every token's
// rows and the prompt's causal attention in double; every op within its
// tolerance op by op; and the reference's sensitivity to the positions.
TEST(ModelStep, APromptsLogitsAreTheCpuChains) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";  // printed: a failure is reproducible
  for (const char* preset : {"tiny", "tiny-qwen2", "tiny-qwen3"}) {
    SCOPED_TRACE(std::string(preset) + ", seed " + std::to_string(seed));
    const auto file = ref::GgufFile::from_bytes(
        model::random_model(model::find_preset(preset), "Q4_K_M", seed).bytes(), "tiny.gguf");
    const auto m = model::describe_model(file.contents(), "tiny.gguf");
    vk::Instance instance;
    vk::Device device(instance, test_device_index());
    // 12 tokens: past the decode products' 8 rows, so gate and up run as
    // one stacked product, then swiglu_stacked and down, as in a long prompt.
    auto options = baselines(48, seed);
    options.prompt = 12;
    ModelStep chain(m, file, options, nullptr, {}, device.info());
    const std::size_t extra = m.architecture == "qwen2" ? 3 : m.qk_norm ? 2 : 0;
    // 1 lookup, the first norm, 13 per layer (and the bias adds or the head
    // norms; the last layer's second add and norm the last token's), head
    // and argmax.
    ASSERT_EQ(chain.ops().size(), 1u + 1 + 2 * (13 + extra) + 2);
    const auto stacked = std::count_if(chain.ops().begin(), chain.ops().end(), [&](const StepOp& op) {
      return op.kernel == "swiglu_stacked" && op.shape == kernels::Shape{12u, m.feed_forward};
    });
    EXPECT_EQ(stacked, 2);
    EXPECT_EQ(chain.ops()[0].shape, (kernels::Shape{12, m.vocab, 256}));
    const auto attention = std::count_if(chain.ops().begin(), chain.ops().end(), [&](const StepOp& op) {
      return op.kernel == "attention_prefill" && op.shape == kernels::Shape{12u, m.heads, m.kv_heads, m.head_dim, 12u};
    });
    EXPECT_EQ(attention, 2);
    // The last token's add and norm alone, its row bound from its offset.
    const auto& head_norm = chain.ops().end()[-3];
    ASSERT_EQ(head_norm.kernel, "add_rmsnorm_mul");
    EXPECT_EQ(head_norm.shape, (kernels::Shape{1, 256}));
    EXPECT_EQ(head_norm.offsets.front(), 11u * 256 * 4);
    EXPECT_EQ(chain.ops().end()[-2].shape, (kernels::Shape{1, m.vocab, 256}));
    chain.prepare(device, TemplateLibrary::embedded());
    const auto logits = chain.run_once(device);
    ASSERT_EQ(logits.size(), m.vocab);
    // Baselines compute in fp32 throughout: fp32 rounding over 12 tokens'
    // rows and two layers, 1.013e-4 at seed 3092751350 (tiny-qwen3, the
    // fresh-clone run of 63e9f06), so 3e-4, still a tenth of the 1e-3 a
    // position's shift moves them by, below.
    EXPECT_LT(rel_l2(logits, reference_logits(m, chain)), 3e-4);
    // Every token one position later (the rope angles; attention reaching
    // one more cache row) is another answer.
    EXPECT_GT(rel_l2(logits, reference_logits(m, chain, Activations::exact, 1)), 1e-3);
    const auto by_op = check_op_by_op(chain, device, m);
    EXPECT_EQ(by_op.failed, 0u);
    EXPECT_EQ(by_op.logits, logits);
    // Every op its own kernel: the same arithmetic (llama's chain; the
    // others differ only by the fused ops above).
    if (m.architecture != "llama") continue;
    options.fused = false;
    ModelStep unfused(m, file, options, nullptr, {}, device.info());
    ASSERT_EQ(unfused.ops().size(), 1u + 2 * (17 + extra) + 3);
    unfused.prepare(device, TemplateLibrary::embedded());
    EXPECT_LT(rel_l2(unfused.run_once(device), std::vector<double>(logits.begin(), logits.end())), 1e-6);
  }
  // A prompt longer than the cache is refused before anything is read.
  vk::Instance instance;
  vk::Device device(instance, test_device_index());
  const auto file = tiny_model(seed);
  auto options = baselines(16, seed);
  options.prompt = 17;
  try {
    ModelStep refused(model::describe_model(file.contents(), "tiny.gguf"), file, options, nullptr, {}, device.info());
    ADD_FAILURE() << "a prompt of 17 tokens was accepted into a cache of 16";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("--prompt 17 does not fit a KV cache of --context 16"), std::string::npos)
        << e.what();
  }
}

// Stored winners with 8-bit activations (X_QUANT=1) for every product
// shape of the tiny model, the first config of a covering array of that
// path: the chain of them passes op by op, each op within its variant's
// tolerance on the inputs the chain gave it. Its logits are not the exact
// chain's: a CPU chain with the same quantization is as far from the exact
// one, and a GPU chain does not follow that CPU chain bit for bit either
// (one code rounded the other way moves every later product), which is why
// the check is made op by op. A weight changed on the host after upload
// fails exactly the op that reads it, and no other.
TEST(ModelStep, ApproximateVariantsAreCheckedOpByOp) {
  vk::Instance instance;
  vk::Device device(instance, test_device_index());
  if (!device.info().features.integer_dot_product) GTEST_SKIP() << "no shaderIntegerDotProduct";
  const auto file = tiny_model(33);
  const auto m = model::describe_model(file.contents(), "tiny.gguf");
  auto options = baselines(40, 4);
  ModelStep baseline(m, file, options, nullptr, {}, device.info());

  const auto db = std::filesystem::path(::testing::TempDir()) / "step_x_q8.db";
  std::filesystem::remove(db);
  auto store = results::Store::open(db);
  const auto device_row = store.upsert_device(identity_of(device.info()));
  const auto templates = TemplateLibrary::embedded();
  std::set<std::string> stored;
  for (const auto& op : baseline.ops()) {
    if (op.weight.empty() || !stored.insert(op.kernel + " " + kernels::shape_to_string(op.shape)).second) continue;
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto configs = testing_support::covering_of(kernel, op.shape, device.info(), [](const kernels::Config& c) {
      return kernels::uses_quantized_activations(c);
    });
    ASSERT_FALSE(configs.empty()) << op.role;
    store_winner(store, device_row, op.kernel, op.shape, configs.front(), 0);
  }
  options.tuned = true;
  ModelStep tuned(m, file, options, &store, {device_row}, device.info());
  std::size_t quantized = 0;
  for (const auto& op : tuned.ops()) quantized += !op.weight.empty() && kernels::uses_quantized_activations(op.config);
  // Every product: 6 per layer (q, k, v, output, gate and up stacked, down
  // reading their SwiGLU) and the head.
  ASSERT_EQ(quantized, 2u * 6 + 1);
  tuned.prepare(device, templates);
  const auto chained = tuned.run_once(device);

  const auto check = check_op_by_op(tuned, device, m);
  ASSERT_EQ(check.ops.size(), tuned.ops().size());
  EXPECT_EQ(check.failed, 0u);
  for (const auto& v : check.ops) EXPECT_TRUE(v.passed) << tuned.ops()[v.op].role << ": " << v.why;
  EXPECT_EQ(check.logits, chained);  // deterministic kernels: the barriers lose nothing
  // Each product's error is that of 8-bit activations, not of fp32 rounding.
  double largest = 0;
  for (const auto& v : check.ops)
    if (!tuned.ops()[v.op].weight.empty()) largest = std::max(largest, v.rel_l2);
  EXPECT_GT(largest, 1e-3);
  // ... and each matches the CPU model of its 8-bit arithmetic (measured on lavapipe: about 1e-7).
  std::size_t modeled = 0;
  for (const auto& v : check.ops) {
    if (!v.model_rel_l2) continue;
    ++modeled;
    EXPECT_LT(*v.model_rel_l2, 1e-5) << tuned.ops()[v.op].role;
  }
  EXPECT_EQ(modeled, quantized);

  const auto exact = reference_logits(m, tuned);
  const auto approximated = reference_logits(m, tuned, Activations::as_variants);
  const double approximation = rel_l2(std::vector<float>(approximated.begin(), approximated.end()), exact);
  EXPECT_GT(approximation, 1e-3);
  EXPECT_GT(rel_l2(chained, exact), 1e-3);

  // attn_k of layer 1, changed on the host only: that op fails, the rest pass.
  auto& k1 = const_cast<std::vector<std::uint8_t>&>(tuned.weight_bytes("blk.1.attn_k.weight"));
  for (std::size_t i = 16; i < k1.size(); i += 144) k1[i] ^= 0x11;  // codes of every Q4_K block
  const auto tampered = check_op_by_op(tuned, device, m);
  ASSERT_EQ(tampered.failed, 1u);
  for (const auto& v : tampered.ops) {
    if (!v.passed) {
      EXPECT_EQ(tuned.ops()[v.op].role, "blk.1.attn_k+rope_k+store_k (Q4_K)");  // k with its epilogue
    }
  }
}

// Barriers are placed from the kernels' binding roles: between any two ops
// where the later reads what the earlier wrote, or writes what the earlier
// read or wrote, some op from the later back to just after the earlier waits
// (checked over every pair); and independent ops share a barrier: the q, k
// and v products run side by side, and the gate and up products.
TEST(ModelStep, BarriersSeparateEveryHazardAndOnlyThose) {
  const auto file = tiny_model(5);
  const auto m = model::describe_model(file.contents(), "tiny.gguf");
  vk::Instance instance;
  vk::Device device(instance, test_device_index());
  ModelStep chain(m, file, baselines(16, 1), nullptr, {}, device.info());
  const auto& ops = chain.ops();
  auto access = [&](const StepOp& op, bool writes) {
    std::set<std::string> names;
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto& bindings = kernel.spaces().at(kernel.space_index(op.shape)).bindings;
    for (std::size_t b = 0; b < bindings.size(); ++b) {
      const auto role = bindings[b].role;
      const bool w = role == kernels::BindingRole::output || role == kernels::BindingRole::scratch;
      const bool r = role != kernels::BindingRole::output;
      if (writes ? w : r) names.insert(op.buffers[b]);
    }
    return names;
  };
  auto meets = [](const std::set<std::string>& a, const std::set<std::string>& b) {
    for (const auto& x : a)
      if (b.count(x)) return true;
    return false;
  };
  EXPECT_TRUE(ops.front().barrier_before);
  std::size_t hazards = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t j = i + 1; j < ops.size(); ++j) {
      const bool hazard = meets(access(ops[j], false), access(ops[i], true)) ||
                          meets(access(ops[j], true), access(ops[i], false)) ||
                          meets(access(ops[j], true), access(ops[i], true));
      if (!hazard) continue;
      ++hazards;
      bool separated = false;
      for (std::size_t k = i + 1; k <= j; ++k) separated = separated || ops[k].barrier_before;
      EXPECT_TRUE(separated) << ops[i].role << " then " << ops[j].role;
    }
  }
  EXPECT_GT(hazards, ops.size());
  std::size_t waits = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    waits += ops[i].barrier_before;
    const auto& role = ops[i].role;
    // Beside the op before them: k and v beside q, and in the unfused
    // chains up beside gate (fused, the two are one product).
    if (role.find("attn_k") != std::string::npos || role.find("attn_v") != std::string::npos ||
        role.find("rope_k+store_k") != std::string::npos || role.find("store_v") != std::string::npos ||
        (role.find("ffn_up") != std::string::npos && role.find("ffn_gate") == std::string::npos)) {
      EXPECT_FALSE(ops[i].barrier_before) << role;
    }
    // Every op that waits has a reason: it meets the ops since the barrier before it.
    if (ops[i].barrier_before && i > 0) {
      bool reason = false;
      for (std::size_t k = i; k-- > 0;) {
        reason = reason || meets(access(ops[i], false), access(ops[k], true)) ||
                 meets(access(ops[i], true), access(ops[k], false)) ||
                 meets(access(ops[i], true), access(ops[k], true));
        if (ops[k].barrier_before) break;
      }
      EXPECT_TRUE(reason) << role << " waits for nothing";
    }
  }
  EXPECT_LE(waits, ops.size() - 2 * m.layers);  // at least k and v join q
  chain.prepare(device, TemplateLibrary::embedded());
  EXPECT_EQ(chain.barriers(), waits);  // single-stage baselines: no barriers between stages
  // --barrier-every-op: as before barriers were placed.
  auto every = baselines(16, 1);
  every.barrier_every_op = true;
  ModelStep serial(m, file, every, nullptr, {}, device.info());
  for (const auto& op : serial.ops()) EXPECT_TRUE(op.barrier_before) << op.role;
}

// A model whose step the kernels refuse, or that the device cannot hold, is
// refused before any weight is read: the model's file is cut after its
// header, so a read fails (an io error) where a check should have come
// first. Before, `vktune step` read every weight up to the op that refused
// its shape (gigabytes of a real model).
TEST(ModelStep, ARefusedShapeOrAModelTooLargeIsSaidBeforeAnyWeightIsRead) {
  const auto dir = std::filesystem::temp_directory_path() / ("vktune-step-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  vk::Instance instance;
  vk::Device device(instance, test_device_index());
  auto cut_model = [&](const model::ModelPreset& preset, const std::string& name) {
    const auto path = dir / name;
    const auto bytes = model::random_model(preset, "Q4_K_M", 3).bytes();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    auto file = ref::GgufFile::open(path);
    std::filesystem::resize_file(path, file.contents().data_offset);
    return file;
  };
  auto refusal = [&](const ref::GgufFile& file, const vk::DeviceInfo& info) -> std::pair<ErrorKind, std::string> {
    const auto m = model::describe_model(file.contents(), "cut.gguf");
    try {
      ModelStep chain(m, file, baselines(16, 1), nullptr, {}, info);
    } catch (const Error& e) {
      return {e.kind(), e.what()};
    }
    return {ErrorKind::internal, "no error"};
  };
  // Heads of 8 values, which attention_decode refuses (a multiple of 16),
  // in its first layer's attention: after the embedding's and q, k, v's weights.
  auto narrow_heads = model::find_preset("tiny");
  narrow_heads.heads = 32;
  const auto [kind, what] = refusal(cut_model(narrow_heads, "narrow.gguf"), device.info());
  EXPECT_EQ(kind, ErrorKind::usage) << what;
  EXPECT_NE(what.find("head_dim 8"), std::string::npos) << what;
  // The tiny model on a device description with 1 MiB of device memory.
  auto small = device.info();
  for (auto& heap : small.memory_heaps) heap.size_bytes = std::min<std::uint64_t>(heap.size_bytes, 1 << 20);
  const auto [small_kind, small_what] = refusal(cut_model(model::find_preset("tiny"), "tiny.gguf"), small);
  EXPECT_EQ(small_kind, ErrorKind::usage) << small_what;
  EXPECT_NE(small_what.find("MiB of device memory"), std::string::npos) << small_what;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vktune::step
