// `vktune model FILE.gguf` on the test device with the tiny random model
// `vktune gguf --make-random tiny Q4_K_M` writes: every op of the decode step
// tuned under one short budget, the prediction the sum of the ops' times, and
// `vktune export --model` the table of exactly those ops; bad models and
// options are one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <set>

#include "reference/gguf_reader.hpp"
#include "reference/gguf_writer.hpp"
#include "reference/random_blocks.hpp"
#include "tests/support/vktune_process.hpp"

namespace vktune {
namespace {

using nlohmann::json;

class ModelCli : public testing::VktuneProcessTest {
 protected:
  std::string tiny_model() {
    const auto path = (dir / "tiny.gguf").string();
    const auto made = run("gguf --make-random tiny Q4_K_M -o " + path + " --seed 5");
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return path;
  }
  // One line on stderr and exit 2.
  void expect_refused(const testing::RunResult& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
};

// `vktune step --prompt N`: the prompt's processing from an empty cache,
// checked against the CPU chain, N tokens over the step's time; a prompt
// the cache cannot hold is one line and exit 2.
TEST_F(ModelCli, StepProcessesAPromptAndRefusesOneLongerThanItsCache) {
  const auto model = tiny_model();
  const auto db = (dir / "empty.db").string();
  const auto r =
      run("step " + model + " --device 0 --prompt 12 --context 64 --check --json --samples 10 --baseline --db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc.at("prompt"), 12);
  EXPECT_EQ(doc.at("context"), 64);
  ASSERT_EQ(doc.at("runs").size(), 1u);  // the baselines' chain (the tuned one is the same code without winners)
  for (const auto& run : doc.at("runs")) {
    // 1 lookup, the first norm, 2 layers x 13, the last token's add and
    // norm, head, argmax (tests/workloads/step_test.cpp counts them).
    EXPECT_EQ(run.at("dispatches"), 1 + 1 + 2 * 13 + 2) << run.dump();
    EXPECT_TRUE(run.at("check").at("passed").get<bool>()) << run.dump();
    EXPECT_EQ(run.at("check").at("ops_failed"), 0);
    const double median = run.at("median_ns").get<double>();
    EXPECT_NEAR(run.at("tokens_per_second").get<double>(), 12e9 / median, 1e-9 * 12e9 / median);
  }
  expect_refused(run("step " + model + " --device 0 --prompt 65 --context 64 --db " + db),
                 "--prompt 65 does not fit a KV cache of --context 64");
}

// `vktune step --templates DIR` compiles the chain from DIR (a template
// change's A/B on the whole step): a copy of the templates whose RMS norms
// (rmsnorm.comp's, and the one the _resnorm products' last workgroup
// writes) scale by 1% too much fails --check at the norms and nowhere else;
// a directory that does not exist is one line and exit 2.
TEST_F(ModelCli, StepCompilesTheChainFromATemplatesDirectory) {
  const auto model = tiny_model();
  const auto templates = dir / "templates";
  std::filesystem::copy(std::filesystem::path(VKTUNE_SOURCE_DIR) / "templates", templates,
                        std::filesystem::copy_options::recursive);
  const auto norm = templates / "rmsnorm.comp";
  std::stringstream text;
  text << std::ifstream(norm).rdbuf();
  std::string source = text.str();
  const std::string scale = "inversesqrt(team_sum(acc) / float(N) + EPS)";
  const auto at = source.find(scale);
  ASSERT_NE(at, std::string::npos) << "rmsnorm.comp no longer computes its scale as the test expects";
  source.replace(at, scale.size(), "1.01 * " + scale);
  std::ofstream(norm) << source;
  const auto block_end = templates / "include" / "residual_norm.glsl";
  std::stringstream block_end_text;
  block_end_text << std::ifstream(block_end).rdbuf();
  source = block_end_text.str();
  const std::string block_end_scale = "inversesqrt(norm_workgroup_sum(tid, squares) / float(N) + EPS)";
  const auto block_end_at = source.find(block_end_scale);
  ASSERT_NE(block_end_at, std::string::npos) << "residual_norm.glsl no longer computes its scale as the test expects";
  source.replace(block_end_at, block_end_scale.size(), "1.01 * " + block_end_scale);
  std::ofstream(block_end) << source;

  const auto db = (dir / "empty.db").string();
  const auto r = run("step " + model + " --device 0 --context 64 --check --json --samples 10 --baseline --templates " +
                     templates.string() + " --db " + db);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc.at("runs").size(), 1u);
  const auto& check = doc.at("runs")[0].at("check");
  EXPECT_FALSE(check.at("passed").get<bool>()) << check.dump();
  // The norms: the first (rmsnorm_mul), then two a layer, each in the
  // product before it (after each residual add; the last one the output
  // norm).
  EXPECT_EQ(check.at("ops_failed"), 1 + 2 * 2) << check.dump();
  std::size_t block_ends = 0;
  for (const auto& failure : check.at("failures")) {
    const auto line = failure.get<std::string>();
    EXPECT_TRUE(line.find(" rmsnorm_mul ") != std::string::npos || line.find("_resnorm ") != std::string::npos)
        << failure;
    block_ends += line.find("_resnorm ") != std::string::npos;
  }
  EXPECT_EQ(block_ends, 4u);

  expect_refused(run("step " + model + " --device 0 --templates " + (dir / "none").string() + " --db " + db),
                 "--templates");
}

TEST_F(ModelCli, TunesEveryOpOfTheDecodeStepAndExportsTheirTable) {
  const auto model = tiny_model();
  const auto db = (dir / "m.db").string();
  // --budget 1: every op's baseline and one variant, then the run ends, long
  // before --time (the baselines took some 20 s idle, over 45 s beside the
  // other tests).
  const auto r =
      run("model " + model + " --device 0 --time 300s --budget 1 --prompt 0 --context 64 --seed 3 --json --db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = json::parse(r.out);
  EXPECT_EQ(report.at("format"), "vktune-model");
  EXPECT_EQ(report.at("version"), 1);
  EXPECT_EQ(report.at("variant_budget"), 1);
  const auto& ops = report.at("ops");
  ASSERT_EQ(ops.size(), 13u) << r.out;  // the distinct decode ops of the tiny model (tests/workloads/model_ops_test.cpp)
  double decode_us = 0, shares = 0;
  std::uint32_t dispatches = 0;
  std::set<std::pair<std::string, std::string>> tuned;
  for (const auto& op : ops) {
    EXPECT_TRUE(op.at("winner").get<bool>()) << op.dump();
    EXPECT_GT(op.at("baseline_ns").get<double>(), 0) << op.dump();
    EXPECT_GT(op.at("tuned_ns").get<double>(), 0) << op.dump();
    EXPECT_LE(op.at("variants_measured").get<std::size_t>(), 2u) << op.dump();  // the baseline and one
    decode_us += op.at("per_token").get<double>() * op.at("tuned_ns").get<double>() / 1e3;
    shares += op.at("share_of_decode").get<double>();
    dispatches += op.at("per_token").get<std::uint32_t>();
    tuned.emplace(op.at("kernel"), op.at("shape"));
  }
  // 1 lookup + the first norm + 2 layers x 7 (q turned, k turned into its
  // cache and v stored into its cache, each in its product's epilogue;
  // attention; the output product with the residual add and ffn_norm; gate
  // and up as one; down reading their SwiGLU, with the residual add and the
  // next norm) + head, argmax.
  EXPECT_EQ(dispatches, 1u + 1 + 2 * 7 + 2);
  EXPECT_TRUE(report.at("decode").at("complete").get<bool>());
  EXPECT_NEAR(report.at("decode").at("tuned_us").get<double>(), decode_us, 1e-6 * decode_us);
  EXPECT_NEAR(report.at("decode").at("tokens_per_second").get<double>(), 1e6 / decode_us, 1e-6 * 1e6 / decode_us);
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_TRUE(report.at("unserved").empty()) << report.at("unserved").dump();  // a decode step is all served
  EXPECT_TRUE(report.at("prefill").is_null());

  // The table of exactly these ops (attention at this context, no prefill).
  const auto exported = run("export --db " + db + " --model " + model + " --prompt 0 --context 64");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::set<std::pair<std::string, std::string>> in_table;
  const auto table = json::parse(exported.out);
  for (const auto& w : table.at("winners")) in_table.emplace(w.at("kernel"), w.at("shape"));
  EXPECT_EQ(in_table, tuned);
  // At another context attention and the k and v products that store
  // into their caches (Q4_K and Q6_K v) are other shapes: not in the
  // database. The export writes what it has, names the four it left out,
  // exits 1.
  const auto other = run("export --db " + db + " --model " + model + " --prompt 0 --context 128");
  EXPECT_EQ(other.exit_code, 1) << other.err;
  EXPECT_EQ(json::parse(other.out).at("winners").size(), tuned.size() - 4);
  EXPECT_NE(other.err.find("4 of " + std::to_string(tuned.size()) + " ops"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("attention_decode 4,2,64,128"), std::string::npos) << other.err;

  // The whole step on the device with those winners, and with the
  // baselines, each checked against the CPU chain.
  const auto step = run("step " + model + " --device 0 --context 64 --check --json --samples 10 --db " + db);
  ASSERT_EQ(step.exit_code, 0) << step.err << step.out;
  const auto steps = json::parse(step.out);
  EXPECT_EQ(steps.at("format"), "vktune-step");
  ASSERT_EQ(steps.at("runs").size(), 2u);
  const auto& tuned_run = steps.at("runs")[0];
  const auto& baseline_run = steps.at("runs")[1];
  EXPECT_EQ(tuned_run.at("variants"), "tuned");
  EXPECT_EQ(tuned_run.at("dispatches"), dispatches);
  // Every op of the step was tuned above.
  EXPECT_EQ(tuned_run.at("tuned_dispatches"), dispatches) << tuned_run.at("baseline_dispatches").dump();
  EXPECT_EQ(baseline_run.at("tuned_dispatches"), 0);
  for (const auto& run : steps.at("runs")) {
    const auto& check = run.at("check");
    EXPECT_TRUE(check.at("passed").get<bool>()) << run.dump();
    EXPECT_EQ(check.at("ops_checked"), dispatches);
    EXPECT_EQ(check.at("ops_failed"), 0);
    EXPECT_LE(check.at("chained_vs_op_by_op_rel_l2").get<double>(),
              steps.at("chained_vs_op_by_op_tolerance").get<double>());
    if (!check.at("approximate").get<bool>()) {
      EXPECT_LE(run.at("logits_rel_l2").get<double>(), steps.at("check_tolerance").get<double>()) << run.dump();
    }
    EXPECT_GT(run.at("tokens_per_second").get<double>(), 0) << run.dump();
    // The breakdown: every phase (run of ops between barriers) once, each timed.
    std::size_t phases = 0;
    for (const auto& b : run.at("breakdown")) {
      phases += b.at("per_token").get<std::size_t>();
      EXPECT_GT(b.at("ns_per_token").get<double>(), 0) << b.dump();
    }
    EXPECT_LE(phases, run.at("barriers").get<std::size_t>());
    EXPECT_GT(phases, run.at("dispatches").get<std::size_t>() / 2);
    EXPECT_GT(run.at("profiled_ns").get<double>(), 0);
  }
  EXPECT_TRUE(steps.at("fused").get<bool>());
  // A speedup is claimed only beyond both chains' p10-p90 spread.
  const auto& comparison = steps.at("comparison");
  const auto verdict = comparison.at("verdict").get<std::string>();
  const auto spread = std::max(tuned_run.at("p90_ns").get<double>() - tuned_run.at("p10_ns").get<double>(),
                               baseline_run.at("p90_ns").get<double>() - baseline_run.at("p10_ns").get<double>());
  const auto gap = std::abs(tuned_run.at("median_ns").get<double>() - baseline_run.at("median_ns").get<double>());
  if (verdict == "speedup") {
    EXPECT_GE(gap, spread) << steps.dump();
    EXPECT_NEAR(comparison.at("speedup").get<double>(),
                baseline_run.at("median_ns").get<double>() / tuned_run.at("median_ns").get<double>(), 1e-9);
  } else {
    EXPECT_TRUE(comparison.at("speedup").is_null()) << comparison.dump();
    EXPECT_TRUE(verdict == "same_code" || (verdict == "within_spread" && gap < spread)) << steps.dump();
  }

  // --unfused: every op its own kernel (1 lookup + 2 layers x 17 + the
  // output norm, head and argmax); the ops the fused chain does not run have
  // no stored winner, and say so.
  const auto unfused = run("step " + model + " --device 0 --context 64 --unfused --tuned --json --samples 10 --db " + db);
  ASSERT_EQ(unfused.exit_code, 0) << unfused.err << unfused.out;
  const auto apart = json::parse(unfused.out);
  EXPECT_FALSE(apart.at("fused").get<bool>());
  ASSERT_EQ(apart.at("runs").size(), 1u);
  EXPECT_EQ(apart.at("runs")[0].at("dispatches"), 1u + 2 * 17 + 3);
  EXPECT_GT(apart.at("runs")[0].at("barriers").get<std::size_t>(), tuned_run.at("barriers").get<std::size_t>());
  EXPECT_FALSE(apart.at("runs")[0].at("baseline_dispatches").empty());
  // Its baselines, one entry per op kind and reason, count every dispatch.
  std::size_t counted = 0;
  for (const auto& kind : apart.at("runs")[0].at("baseline_kinds")) counted += kind.at("dispatches").get<std::size_t>();
  EXPECT_EQ(counted, apart.at("runs")[0].at("baseline_dispatches").size());
  EXPECT_LT(apart.at("runs")[0].at("baseline_kinds").size(), counted);  // two layers share their kinds

  // --gguf-layouts: every weight in GGUF's layout. `model` tuned the Q6_K
  // products in the split layout (the head, layer 1's v with its cache
  // store and its ffn_down), so their GGUF kernels run their baselines, and
  // say so one by one.
  EXPECT_TRUE(steps.at("device_layouts").get<bool>());
  const auto gguf = run("step " + model + " --device 0 --context 64 --gguf-layouts --tuned --json --samples 10 --db " + db);
  ASSERT_EQ(gguf.exit_code, 0) << gguf.err << gguf.out;
  const auto gguf_steps = json::parse(gguf.out);
  EXPECT_FALSE(gguf_steps.at("device_layouts").get<bool>());
  const auto& gguf_run = gguf_steps.at("runs")[0];
  EXPECT_EQ(gguf_run.at("dispatches"), dispatches);
  const auto& untuned_q6k = gguf_run.at("baseline_dispatches");
  ASSERT_EQ(untuned_q6k.size(), 3u) << untuned_q6k.dump();
  for (const auto& op : untuned_q6k) {
    EXPECT_EQ(op.get<std::string>().rfind("matmul_q6k", 0), 0u) << op;
    EXPECT_EQ(op.get<std::string>().find("split"), std::string::npos) << op;
  }

  // --norm-into-products (never with the _resnorm products, whose chain
  // `model` tuned: the plain products and add_rmsnorm_mul tuned here):
  // without winners of the _addnorm products the
  // tuned products stay (1 lookup + the first norm + 2 layers x 9, q, k and
  // v in their epilogues + head, argmax); with them, each norm taken in
  // where the winners say it pays: the feed-forward's and the head's (the
  // attention norms would need rope and the stores after the _addnorm q, k
  // and v, which have no winners here), 19 to 22 dispatches, checked op by
  // op as the default chain is.
  EXPECT_FALSE(steps.at("norm_into_products").get<bool>());
  const auto norm_in = "step " + model + " --device 0 --context 64 --norm-into-products --tuned --check --json "
                                         "--samples 10 --db " + db;
  // (`model` tuned gate and up as the _glu product: the stacked one here.)
  for (const char* plain : {"matmul_q4k --shape 1,256,256 --shape 1,1024,256", "matmul_q4k_swiglu --shape 1,256,512",
                            "matmul_q6k_swiglu --shape 1,256,512", "add_rmsnorm_mul --shape 1,256"}) {
    const auto tuned_plain = run(std::string(plain) + " --device 0 --budget 1 --seed 3 --db " + db);
    ASSERT_EQ(tuned_plain.exit_code, 0) << plain << ": " << tuned_plain.err;
  }
  const auto untuned = run(norm_in);
  ASSERT_EQ(untuned.exit_code, 0) << untuned.err << untuned.out;
  const auto kept = json::parse(untuned.out);
  EXPECT_TRUE(kept.at("fused").get<bool>());
  EXPECT_TRUE(kept.at("norm_into_products").get<bool>());
  ASSERT_EQ(kept.at("runs").size(), 1u);
  EXPECT_EQ(kept.at("runs")[0].at("dispatches"), 1u + 1 + 2 * 9 + 2);
  const auto q4k = run("matmul_q4k_addnorm --device 0 --shape 1,256,256 --shape 1,128,256 --shape 1,1024,256 "
                       "--budget 1 --seed 3 --db " + db);
  ASSERT_EQ(q4k.exit_code, 0) << q4k.err;
  const auto q6k = run("matmul_q6k_addnorm --device 0 --shape 1,128,256 --budget 1 --seed 3 --db " + db);
  ASSERT_EQ(q6k.exit_code, 0) << q6k.err;
  const auto tuned_in = run(norm_in);
  ASSERT_EQ(tuned_in.exit_code, 0) << tuned_in.err << tuned_in.out;
  const auto taken_in = json::parse(tuned_in.out);
  const auto taken_dispatches = taken_in.at("runs")[0].at("dispatches").get<std::size_t>();
  EXPECT_GE(taken_dispatches, 1u + 1 + 2 * 8 + 1);
  EXPECT_LE(taken_dispatches, 1u + 1 + 2 * 9 + 2);
  EXPECT_EQ(taken_in.at("runs")[0].at("tuned_dispatches"), taken_dispatches);
  EXPECT_TRUE(taken_in.at("runs")[0].at("check").at("passed").get<bool>()) << taken_in.dump();
}

TEST_F(ModelCli, BadModelsAndOptionsAreOneLineAndExitTwo) {
  ref::GgufWriter gpt2;
  gpt2.set("general.architecture", std::string("gpt2"));
  gpt2.write(dir / "gpt2.gguf");
  const auto db = (dir / "m.db").string();
  expect_refused(run("model " + (dir / "gpt2.gguf").string() + " --device 0 --db " + db),
                 "architecture 'gpt2' is not supported (supported: llama, mistral, qwen2, qwen3)");
  const auto model = tiny_model();
  expect_refused(run("model " + model + " --device 0 --context 4096 --db " + db),
                 "--context 4096 is above " + model + "'s context length of 2048");
  expect_refused(run("model " + model + " --device 0 --context 64 --prompt 128 --db " + db),
                 "--prompt 128 does not fit a KV cache of --context 64");
  expect_refused(run("step " + model + " --device 0 --context 4096 --db " + db),
                 "--context 4096 is above " + model + "'s context length of 2048");
  EXPECT_FALSE(std::filesystem::exists(db));  // refused before the database
  expect_refused(run("gguf --make-random llama3-70b Q4_K_M -o " + (dir / "x.gguf").string()),
                 "no model preset 'llama3-70b' (presets: tiny, tiny-mistral, tiny-qwen2, tiny-qwen3, llama3-8b, "
                 "mistral-7b, qwen2.5-7b, qwen3-8b)");
  expect_refused(run("gguf --make-random tiny Q3_K_S -o " + (dir / "x.gguf").string()),
                 "no type mix 'Q3_K_S' (mixes: Q4_K_M, Q8_0, F16)");
  EXPECT_FALSE(std::filesystem::exists(dir / "x.gguf"));
}

// The other families vktune serves, each as a tiny random model: Mistral's
// shapes (one KV head for four query heads, a wider feed-forward), Qwen2's
// (a bias added to q, k and v; rope over half-rotated pairs) and Qwen3's (an
// rmsnorm over each head of q and k). `vktune model` keeps a budget too short
// for every op (--time is a bound: within 1.05 T + 10 s, the baselines
// included), names what it did not reach, and gives no tokens/s then; `vktune
// step --check` runs each family's chain and compares it op by op and with
// the CPU chain.
class ModelFamilies : public ModelCli, public ::testing::WithParamInterface<const char*> {};

TEST_P(ModelFamilies, ModelKeepsItsBudgetAndTheStepMatchesTheCpuChain) {
  const std::string preset = GetParam();
  const auto model = (dir / (preset + ".gguf")).string();
  const auto made = run("gguf --make-random " + preset + " Q4_K_M -o " + model + " --seed 7");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto db = (dir / "f.db").string();
  constexpr double kBudget = 4;
  const auto started = std::chrono::steady_clock::now();
  // --shared-device: beside other tests that hold the device, the wait
  // for it would join the measured time (the budget starts once it is held).
  const auto r = run("model " + model +
                     " --device 0 --time 4s --prompt 0 --context 64 --seed 3 --json --shared-device --db " + db);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LE(seconds, 1.05 * kBudget + 10);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // 1: some op has no winner
  const auto report = json::parse(r.out);
  std::uint32_t dispatches = 0;
  bool all_reached = true;
  for (const auto& op : report.at("ops")) {
    dispatches += op.at("per_token").get<std::uint32_t>();
    all_reached = all_reached && op.at("reached").get<bool>();
    if (!op.at("reached").get<bool>()) {
      EXPECT_EQ(op.at("untuned_reason"), "not reached: --time ran out before its baseline was timed") << op.dump();
    }
  }
  EXPECT_EQ(report.at("decode").at("complete").get<bool>(), all_reached) << r.out;
  EXPECT_EQ(report.at("decode").at("tokens_per_second").is_null(), !all_reached) << r.out;
  // Mistral's layer as llama's, 7 dispatches (ModelCli.TunesEveryOp...
  // above); qwen2's and qwen3's 10 with q, k and v apart from rope and the
  // stores (no epilogue takes NeoX pairs, a bias or a head norm), plus
  // qwen2's three bias adds or qwen3's two head norms per layer.
  const std::uint32_t per_layer =
      preset == "tiny-qwen2" ? 10 + 3 : preset == "tiny-qwen3" ? 10 + 2 : 7;
  EXPECT_EQ(dispatches, 1u + 1 + 2 * per_layer + 2) << r.out;

  const auto step = run("step " + model + " --device 0 --context 64 --check --baseline --json --samples 10");
  ASSERT_EQ(step.exit_code, 0) << step.err << step.out;
  const auto steps = json::parse(step.out);
  const auto& baseline_run = steps.at("runs").at(0);
  EXPECT_EQ(baseline_run.at("dispatches"), dispatches);
  const auto& check = baseline_run.at("check");
  EXPECT_TRUE(check.at("passed").get<bool>()) << baseline_run.dump();
  EXPECT_EQ(check.at("ops_checked"), dispatches);
}

INSTANTIATE_TEST_SUITE_P(Presets, ModelFamilies, ::testing::Values("tiny-mistral", "tiny-qwen2", "tiny-qwen3"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A model whose embedding table is Q6_K, which no get_rows kernel reads
// (the tiny model otherwise): `vktune model` refuses it in one line naming
// the tensor and its type; with --skip-unsupported it tunes the rest and
// reports the decode step as incomplete, with no tokens/s; `vktune step`
// cannot build the step and says so in one line.
TEST_F(ModelCli, ATensorTypeNoKernelReadsIsRefusedOrSkipped) {
  const auto tiny = ref::GgufFile::open(tiny_model());
  ref::GgufWriter writer;
  for (const auto& kv : tiny.contents().metadata) writer.set(kv.key, kv.value);
  for (const auto& t : tiny.contents().tensors) {
    if (t.name == "token_embd.weight") {
      writer.add_tensor(t.name, ref::GgmlType::Q6_K, t.shape,
                        ref::random_quantized_rows(ref::GgmlType::Q6_K, t.rows(), t.row_length(), 17));
    } else {
      writer.add_tensor(t.name, t.type, t.shape, tiny.tensor_data(t));
    }
  }
  const auto model = (dir / "q6k_embd.gguf").string();
  writer.write(model);
  const auto db = (dir / "u.db").string();
  expect_refused(run("model " + model + " --device 0 --context 32 --prompt 0 --db " + db),
                 model + ": tensor token_embd.weight has type Q6_K, which no vktune kernel reads");

  const auto r = run("model " + model + " --device 0 --time 3s --context 32 --prompt 0 --skip-unsupported --json --db " +
                     db);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // 1: 3 s did not reach every op
  const auto report = json::parse(r.out);
  ASSERT_EQ(report.at("unsupported").size(), 1u);
  EXPECT_EQ(report["unsupported"][0], (json{{"tensor", "token_embd.weight"}, {"type", "Q6_K"}}));
  EXPECT_FALSE(report.at("decode").at("complete").get<bool>());
  EXPECT_TRUE(report.at("decode").at("tokens_per_second").is_null());
  EXPECT_GT(report.at("ops").size(), 5u);  // the rest is listed, tuned as far as 3 s reach
  for (const auto& op : report.at("ops")) EXPECT_NE(op.at("kernel"), "get_rows_q4k") << op.dump();

  const auto step = run("step " + model + " --device 0 --context 32 --db " + db);
  EXPECT_EQ(step.exit_code, 2) << step.err;
  EXPECT_NE(step.err.find("no kernel serves token_embd"), std::string::npos) << step.err;
  EXPECT_EQ(std::count(step.err.begin(), step.err.end(), '\n'), 1) << step.err;
}

}  // namespace
}  // namespace vktune
