// `vktune step FILE.gguf`: one decode token of a model, or with --prompt a
// prompt's processing, run on the GPU as a chain of vktune kernels in one
// command buffer (workloads/llm/), timed to tokens per second, tuned against
// baseline, and with --check compared with the CPU reference of the same
// chain.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "harness/instance.hpp"
#include "reference/gguf_reader.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "workloads/kernel_chain.hpp"
#include "common/json_formats.hpp"
#include "workloads/llm/model_description.hpp"
#include "tuner/device_baseline.hpp"
#include "tuner/session.hpp"
#include "workloads/llm/model_step.hpp"
#include "kernels/registry.hpp"
#include "workloads/llm/step_op_check.hpp"
#include "workloads/llm/step_reference.hpp"
#include "engine/template_library.hpp"
#include "engine/validation.hpp"

namespace vktune::cli {

namespace {

// --check, three ways:
// - op by op (workloads/llm/step_op_check.hpp): every op on the inputs the
//   chain gave it, within its variant's own tolerance;
// - the chained run (one command buffer, barriers only where ops meet)
//   against the op-by-op run (a submission per op): the same logits, or a
//   barrier is missing. Deterministic kernels give the same bits; the bound
//   leaves room for a kernel that sums with atomics in any order;
// - the logits against the exact CPU chain in double: a chain of fp32
//   variants stays within kStepTolerance (measured 1.2e-5 on Llama-3-8B).
//   A chain with approximate variants (8-bit activations) is not held to it:
//   a random network amplifies their documented error over its layers (the
//   CPU chain with the same approximation shows by how much, and is
//   reported beside it).
constexpr double kStepTolerance = 1e-3;
constexpr double kChainedVsOpByOp = 1e-6;
constexpr std::size_t kBreakdownRows = 14;  // of the text report; --json lists them all

struct StepArgs {
  std::string file;
  std::uint32_t device = 0;
  std::optional<std::uint32_t> context;  // default: model::default_context
  std::uint32_t prompt = 0;              // > 0: a prefill of this many tokens
  bool random_weights = false;
  bool tuned_only = false, baseline_only = false;
  bool check = false;
  std::string db;
  bool json = false;
  std::uint64_t seed = 1;
  int samples = 15;
  std::vector<std::string> tuned_kernels;
  bool barrier_every_op = false;
  bool unfused = false;
  bool norm_into_products = false;
  bool norm_apart_from_block_end = false;
  bool gguf_layouts = false;
  bool swiglu_in_down = false;
  std::string templates;  // empty: the built-in templates
};

struct Measured {
  std::string name;  // "tuned", "baseline"
  std::size_t tuned_ops = 0, ops = 0, barriers = 0;
  std::vector<std::string> baselines;  // in a tuned chain: "kernel shape (role): why", one per dispatch
  // The same, one per op kind, kernel, shape and reason: "attn_q (matmul_q4k 1,4096,4096): why" -> dispatches.
  std::map<std::string, std::size_t> baseline_kinds;
  std::size_t winners_as_baseline = 0;  // tuned ops whose stored winner is the baseline's own config
  vk::TimingResult timing;
  std::optional<double> rel_l2;                // logits vs the exact CPU chain
  std::optional<double> approximation_rel_l2;  // the CPU chain with the variants' approximation vs the exact one
  std::optional<double> chained_vs_op_by_op;
  std::size_t ops_checked = 0, ops_failed = 0;
  double worst_share = 0;
  std::vector<std::string> failures;  // "role kernel shape [config]: why"
  bool approximate = false;           // some op's variant has a looser tolerance than its kernel
  bool passed = true;
  // Where the step's time goes: phases (runs of ops between barriers) of the
  // same ops, summed over the layers, largest first.
  struct Share {
    std::string ops;  // "attn_q (Q4_K)+attn_k (Q4_K)+attn_v (Q4_K)"
    std::size_t per_token = 0;
    double ns_per_token = 0;
  };
  std::vector<Share> breakdown;
  double profiled_ns = 0;  // the step with a timestamp at every barrier
};

void profile_chain(step::ModelStep& chain, vk::Device& device, int samples, Measured& m) {
  const auto profile = chain.profile(device, samples);
  std::map<std::string, Measured::Share> by_ops;
  for (const auto& phase : profile.phases) {
    std::string ops;
    for (std::size_t i = phase.first_op; i < phase.end_op; ++i)
      ops += (ops.empty() ? "" : "+") + step::op_kind(chain.ops()[i].role);
    auto& share = by_ops[ops];
    share.ops = ops;
    ++share.per_token;
    share.ns_per_token += phase.median_ns;
  }
  for (auto& [ops, share] : by_ops) m.breakdown.push_back(share);
  std::sort(m.breakdown.begin(), m.breakdown.end(),
            [](const auto& a, const auto& b) { return a.ns_per_token > b.ns_per_token; });
  m.profiled_ns = profile.total_ns.median;
}

// NaN when any value is not finite, so that every bound fails.
double relative_l2(const std::vector<float>& got, const std::vector<double>& want) {
  const auto v = compare_output(got, want, {});
  return v.non_finite > 0 ? std::nan("") : v.rel_l2;
}

void check_chain(step::ModelStep& chain, vk::Device& device, const model::ModelDescription& model, Measured& m) {
  const auto chained = chain.run_once(device);
  const auto by_op = step::check_op_by_op(chain, device, model);
  m.ops_checked = by_op.ops.size();
  m.ops_failed = by_op.failed;
  m.worst_share = by_op.worst_share;
  for (const auto& v : by_op.ops) {
    if (v.passed) continue;
    const auto& op = chain.ops()[v.op];
    std::string line = op.role + " " + op.kernel + " " + kernels::shape_to_string(op.shape) + " [" +
                       kernels::config_to_string(op.config) + "]: " + v.why;
    if (v.model_rel_l2) {
      char more[160];
      std::snprintf(more, sizeof more, "; against the CPU model of its 8-bit activations %.3g; input max/rms %.3g",
                    *v.model_rel_l2, v.input_crest);
      line += more;
    }
    m.failures.push_back(line);
  }
  m.chained_vs_op_by_op = relative_l2(chained, std::vector<double>(by_op.logits.begin(), by_op.logits.end()));
  for (const auto& op : chain.ops()) {
    const auto& kernel = kernels::find_kernel(op.kernel);
    const auto own = kernel.tolerance(op.shape), variant = kernel.variant_tolerance(op.config, op.shape);
    m.approximate = m.approximate || variant.rel_l2 > own.rel_l2 || variant.max_rel > own.max_rel;
  }
  const auto exact = step::reference_logits(model, chain);
  m.rel_l2 = relative_l2(chained, exact);
  if (m.approximate) {
    const auto approximated = step::reference_logits(model, chain, step::Activations::as_variants);
    m.approximation_rel_l2 = relative_l2(std::vector<float>(approximated.begin(), approximated.end()), exact);
  }
  // NaN fails every comparison.
  m.passed = m.ops_failed == 0 && *m.chained_vs_op_by_op <= kChainedVsOpByOp &&
             (m.approximate || *m.rel_l2 <= kStepTolerance);
}

nlohmann::json baseline_kinds_json(const Measured& m) {
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& [kind, count] : m.baseline_kinds) kinds.push_back({{"ops", kind}, {"dispatches", count}});
  return kinds;
}

// What the tuned chain gains over the baseline chain, said only where it is
// measured: two chains whose medians differ by less than the wider of their
// p10-p90 spreads are within each other's noise, and a chain whose every
// stored winner is its op's baseline config runs the baseline's code.
struct Comparison {
  std::string verdict;  // "speedup", "within_spread", "same_code", "no_winners"
  double ratio = 0;     // the baseline's median over the tuned one's
  std::string text;
};

Comparison compare_chains(const Measured& tuned, const Measured& baseline, const std::string& per_step) {
  const auto& t = tuned.timing.per_dispatch_ns;
  const auto& b = baseline.timing.per_dispatch_ns;
  const double spread = std::max(t.p90 - t.p10, b.p90 - b.p10);
  Comparison c;
  c.ratio = t.median > 0 ? b.median / t.median : 0;
  char line[320];
  if (tuned.tuned_ops == 0 || tuned.winners_as_baseline == tuned.tuned_ops) {
    c.verdict = tuned.tuned_ops == 0 ? "no_winners" : "same_code";
    std::snprintf(line, sizeof line, "tuned vs baseline: no speedup to report: %s (%.1f vs %.1f us %s is noise)",
                  tuned.tuned_ops == 0 ? "no op has a stored winner"
                                       : "every stored winner is its op's baseline config, the same code",
                  t.median / 1e3, b.median / 1e3, per_step.c_str());
  } else if (std::abs(t.median - b.median) < spread) {
    c.verdict = "within_spread";
    std::snprintf(line, sizeof line,
                  "tuned vs baseline: within the chains' spread (medians %.1f and %.1f us %s differ by less "
                  "than the wider p10-p90 of %.1f us): not a measured speedup",
                  t.median / 1e3, b.median / 1e3, per_step.c_str(), spread / 1e3);
  } else {
    c.verdict = "speedup";
    std::snprintf(line, sizeof line, "tuned vs baseline: %.2fx the baseline's tokens/s (%zu of %zu dispatches tuned)",
                  c.ratio, tuned.tuned_ops, tuned.ops);
  }
  c.text = line;
  return c;
}

void run_step(const StepArgs& args, int& result_code) {
  const auto file = ref::GgufFile::open(args.file);
  const auto model = model::describe_model(file.contents(), args.file);
  const std::uint32_t context = args.context.value_or(model::default_context(model));
  if (model.context_length > 0 && context > model.context_length) {
    throw Error(ErrorKind::usage, "--context " + std::to_string(context) + " is above " + args.file +
                                      "'s context length of " + std::to_string(model.context_length));
  }
  std::optional<results::Store> store;
  const std::filesystem::path db = args.db.empty() ? results::Store::default_path() : std::filesystem::path(args.db);
  if (std::filesystem::exists(db)) store.emplace(results::Store::open_for_reading(db));
  if (args.baseline_only && args.tuned_only) throw Error(ErrorKind::usage, "--tuned and --baseline exclude each other");

  vk::Instance instance({.validation = false});
  vk::Device device(instance, args.device);
  const auto rows = store ? chain::winner_device_rows(*store, device.info()) : std::vector<std::int64_t>{};
  const auto templates =
      TemplateLibrary::select(args.templates.empty() ? std::nullopt : std::optional(args.templates));
  std::vector<Measured> measured;
  for (const bool tuned : {true, false}) {
    if ((tuned && args.baseline_only) || (!tuned && args.tuned_only)) continue;
    step::StepOptions options;
    options.context = context;
    options.prompt = args.prompt;
    options.tuned = tuned;
    options.random_weights = args.random_weights;
    options.seed = args.seed;
    options.tuned_kernels = args.tuned_kernels;
    options.barrier_every_op = args.barrier_every_op;
    options.fused = !args.unfused;
    options.norm_into_products = args.norm_into_products;
    options.norm_at_block_end = !args.norm_apart_from_block_end;
    options.device_layouts = !args.gguf_layouts;
    options.swiglu_in_gate_up = !args.swiglu_in_down;
    step::ModelStep chain(model, file, options, store ? &*store : nullptr, rows, device.info());
    if (!args.json) std::cerr << "vktune step: " << (tuned ? "tuned" : "baseline") << ": compiling and uploading\n";
    chain.prepare(device, templates);
    Measured m;
    m.name = tuned ? "tuned" : "baseline";
    m.ops = chain.ops().size();
    m.barriers = chain.barriers();
    for (const auto& op : chain.ops()) {
      m.tuned_ops += op.tuned;
      if (op.tuned && op.config == device_baseline(kernels::find_kernel(op.kernel), op.shape, device.info())) {
        ++m.winners_as_baseline;
      }
      if (tuned && !op.tuned) {
        const auto what = op.kernel + " " + kernels::shape_to_string(op.shape);
        m.baselines.push_back(what + " (" + op.role + "): " + op.why_baseline);
        ++m.baseline_kinds[step::op_kind(op.role) + " (" + what + "): " + op.why_baseline];
      }
    }
    if (args.check) {
      if (!args.json) std::cerr << "vktune step: " << m.name << ": checking op by op and against the CPU chain\n";
      check_chain(chain, device, model, m);
      if (!m.passed) result_code = exit_code::failure;
    }
    if (!args.json) std::cerr << "vktune step: " << m.name << ": timing " << args.samples << " steps\n";
    m.timing = chain.time(device, args.samples);
    profile_chain(chain, device, args.samples, m);
    measured.push_back(std::move(m));
  }
  // A step's tokens, and what the text calls one step.
  const double tokens = args.prompt > 0 ? args.prompt : 1;
  const std::string per_step = args.prompt > 0 ? "per prompt" : "per token";
  if (args.json) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& m : measured) {
      const double ns = m.timing.per_dispatch_ns.median;
      nlohmann::json breakdown = nlohmann::json::array();
      for (const auto& b : m.breakdown) {
        breakdown.push_back({{"ops", b.ops},
                             {"per_token", b.per_token},
                             {"ns_per_token", b.ns_per_token},
                             {"share", m.profiled_ns > 0 ? b.ns_per_token / m.profiled_ns : 0.0}});
      }
      runs.push_back({{"variants", m.name},
                      {"dispatches", m.ops},
                      {"barriers", m.barriers},
                      {"tuned_dispatches", m.tuned_ops},
                      {"baseline_dispatches", m.baselines},
                      {"baseline_kinds", baseline_kinds_json(m)},
                      {"winners_that_are_baselines", m.winners_as_baseline},
                      {"median_ns", ns},
                      {"p10_ns", m.timing.per_dispatch_ns.p10},
                      {"p90_ns", m.timing.per_dispatch_ns.p90},
                      {"tokens_per_second", ns > 0 ? tokens * 1e9 / ns : 0.0},
                      {"profiled_ns", m.profiled_ns},
                      {"breakdown", breakdown},
                      {"logits_rel_l2", m.rel_l2 ? nlohmann::json(*m.rel_l2) : nlohmann::json(nullptr)},
                      {"check", m.rel_l2 ? nlohmann::json{{"passed", m.passed},
                                                          {"ops_checked", m.ops_checked},
                                                          {"ops_failed", m.ops_failed},
                                                          {"failures", m.failures},
                                                          {"worst_share_of_tolerance", m.worst_share},
                                                          {"chained_vs_op_by_op_rel_l2", *m.chained_vs_op_by_op},
                                                          {"approximate", m.approximate},
                                                          {"approximation_rel_l2",
                                                           m.approximation_rel_l2
                                                               ? nlohmann::json(*m.approximation_rel_l2)
                                                               : nlohmann::json(nullptr)}}
                                         : nlohmann::json(nullptr)}});
    }
    auto doc = json_document(kStepJson);
    doc.update({{"file", args.file},
                {"device", device.info().name},
                {"context", context},
                {"prompt", args.prompt},
                {"fused", !args.unfused},
                {"norm_into_products", !args.unfused && args.norm_into_products},
                {"norm_at_block_end", !args.unfused && !args.norm_into_products && !args.norm_apart_from_block_end},
                {"device_layouts", !args.gguf_layouts},
                {"swiglu_in_gate_up", !args.unfused && !args.norm_into_products && !args.swiglu_in_down},
                {"database", store ? store->path().string() : std::string()},
                {"check_tolerance", kStepTolerance},
                {"chained_vs_op_by_op_tolerance", kChainedVsOpByOp},
                {"runs", runs}});
    if (measured.size() == 2) {
      const auto c = compare_chains(measured[0], measured[1], per_step);
      doc["comparison"] = {{"verdict", c.verdict}, {"speedup", c.verdict == "speedup" ? nlohmann::json(c.ratio)
                                                                                        : nlohmann::json(nullptr)}};
    }
    std::cout << doc.dump(2) << "\n";
  } else {
    std::cout << escape_text(model.name.empty() ? model.architecture : model.name) << ": "
              << (args.prompt > 0 ? "a prompt of " + std::to_string(args.prompt) + " tokens from an empty cache of "
                                  : std::string("one decode token at context "))
              << context << " on " << device.info().name << ", as one command buffer"
              << (args.unfused              ? " (unfused: every op its own kernel)"
                  : args.norm_into_products ? " (each residual add and norm taken into the products that read it)"
                                            : "")
              << "\n";
    for (const auto& m : measured) {
      const double ns = m.timing.per_dispatch_ns.median;
      char line[256];
      std::snprintf(line, sizeof line,
                    "  %-8s %4zu dispatches (%zu tuned), %zu barriers: %.1f us %s (p10 %.1f, p90 %.1f), "
                    "%.1f tokens/s",
                    m.name.c_str(), m.ops, m.tuned_ops, m.barriers, ns / 1e3, per_step.c_str(),
                    m.timing.per_dispatch_ns.p10 / 1e3, m.timing.per_dispatch_ns.p90 / 1e3,
                    ns > 0 ? tokens * 1e9 / ns : 0.0);
      std::cout << line << "\n";
      if (m.rel_l2) {
        std::cout << "    check: " << (m.passed ? "passed" : "FAILED") << "; op by op " << m.ops_checked - m.ops_failed
                  << " of " << m.ops_checked << " within their variants' tolerance (worst at "
                  << 100 * m.worst_share << "% of it); chained vs op by op: relative L2 " << *m.chained_vs_op_by_op
                  << "; logits vs the exact CPU chain: relative L2 " << *m.rel_l2;
        if (m.approximation_rel_l2) {
          std::cout << " (approximate variants: the CPU chain with their 8-bit activations is "
                    << *m.approximation_rel_l2 << " from the exact one)";
        } else {
          std::cout << (*m.rel_l2 <= kStepTolerance ? " (ok)" : " (FAILED)");
        }
        std::cout << "\n";
        for (const auto& f : m.failures) std::cout << "    failed: " << f << "\n";
      }
      std::printf("    where the time goes (a timestamp at each barrier: %.1f us %s):\n", m.profiled_ns / 1e3,
                  per_step.c_str());
      for (std::size_t i = 0; i < m.breakdown.size() && i < kBreakdownRows; ++i) {
        const auto& b = m.breakdown[i];
        std::printf("      %6.1f%% %8.1f us  %3zu x %7.2f us  %s\n", 100 * b.ns_per_token / m.profiled_ns,
                    b.ns_per_token / 1e3, b.per_token, b.ns_per_token / 1e3 / static_cast<double>(b.per_token),
                    b.ops.c_str());
      }
      std::fflush(stdout);
      for (const auto& [kind, count] : m.baseline_kinds) {
        std::cout << "    baseline: " << count << " x " << escape_text(kind) << "\n";  // tensor names are the file's
      }
    }
    if (measured.size() == 2) std::cout << "  " << compare_chains(measured[0], measured[1], per_step).text << "\n";
  }
}

}  // namespace

void add_step_command(CLI::App& root, int& result_code) {
  auto args = std::make_shared<StepArgs>();
  auto* cmd = root.add_subcommand("step",
                                  "Run one decode token (or with --prompt a prompt's processing) of a GGUF model on "
                                  "the GPU as a chain of vktune kernels in one command buffer, and time it (tuned "
                                  "and baseline variants)");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Runs one decode token on the GPU: the embedding lookup, every layer's ops in
model order (with the k and v stores into fp16 caches of --context entries,
the earlier ones random) and the output head and argmax, as one command buffer
with a barrier only before a dispatch that reads what an earlier one since the
last barrier wrote or writes what it touched (so the q, k and v products run
side by side). Each op runs the most recently measured stored winner of this
GPU or another GPU of its model, or its baseline.

--prompt N runs a prompt's processing instead (a prefill): N tokens at
positions 0..N-1 from an empty cache, every op over the N rows (the products
at M = N, the norms, rope, the k and v stores into the cache, the prompt's
causal attention over its own entries), then the last token's residual add
and norm, the output head and argmax; tokens/s is N over the step's time.
The ops are those `vktune model --prompt N` tunes for the prefill (with the
same --context, which sizes the cache the stores write).

Timed back to back after a warm-up to steady clocks (median of --samples, 15),
reported as us and tokens/s, tuned and baseline, with where the time goes
(each run of ops between barriers timed with timestamps, summed over the
layers) and the ops that ran their baseline in the tuned chain and why.

--check runs the chain op by op and compares each op with the CPU reference of
that op on the inputs the chain gave it, within its variant's own tolerance;
the chained run's logits with the op-by-op run's; and the logits with the CPU
chain (double precision, the same weights, cache and token; a chain with
8-bit-activation variants is reported beside the CPU chain with the same
approximation rather than held to the exact one's bound). Exit 1 on a failure.

--random-weights replaces the file's weights with random ones of its shapes
and types. --tuned-kernels takes stored winners only for the kernels named (to
find which kernel's winners move the result). --barrier-every-op puts a
barrier before every dispatch (to measure what placing them saves). --unfused
runs every op as its own kernel (each residual add and the norm after it apart
rather than one add_rmsnorm_mul; k rotated, then stored, rather than
rope_cache writing it into its cache row; gate, up, SwiGLU and down apart
rather than one product of the stacked gate and up weights and a _swiglu down
product): to measure what the fused kernels save. --norm-into-products takes
each residual add and norm into the products that read it (matmul_q4k_addnorm,
matmul_q6k_addnorm, where every reader's weight type has one) wherever the
stored winners of both ways say it pays (where only one way has winners, that
way), rather than one add_rmsnorm_mul before them: 2 dispatches and barriers fewer per layer, each product reading h, d and
the norm's weight where it read one vector (on H200s: +1.2% tokens/s at
context 128, -4.4% at 4096). Otherwise a decode step ends each block with
its residual add and the next norm in its last product (attn_output, or
ffn_down after its SwiGLU: matmul_q4k_resnorm, matmul_q4k_swiglu_resnorm,
matmul_q6k_swiglu_resnorm; the workgroup that finishes last writes the norm)
where the stored winners say it pays; --norm-apart-from-block-end runs the
add_rmsnorm_mul after the product instead (to measure what that saves).
In a decode step a Q6_K product reads its weight in the split layout (every
block's codes and scales 16-byte aligned, the d values after them:
matmul_q6k_split, matmul_q6k_split_swiglu_resnorm, ...) where the stored
winners say it pays; --gguf-layouts keeps every weight in GGUF's layout.
In a decode step the product of gate and up (their rows interleaved) stores
their SwiGLU, which ffn_down reads as it is (matmul_q4k_glu, then
matmul_q6k_split_resnorm, ...), where the stored winners say that pays
against ffn_down computing the SwiGLU from both outputs in every workgroup;
--swiglu-in-down keeps the latter.
--json prints vktune-step version 1.

See docs/TUNING_A_MODEL.md.
)vkt");
  cmd->add_option("file", args->file, "The model (.gguf)")->required()->check(CLI::ExistingFile);
  add_device_option(*cmd, args->device, "Vulkan device index (see `vktune devices`)");
  cmd->add_option("--context", args->context,
                  "KV-cache length: the token is at position context - 1 (default: 4096, or the model's context "
                  "length where that is less)")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--prompt", args->prompt,
                  "Process a prompt of this many tokens (a prefill from an empty cache, at most --context) rather "
                  "than one decode token")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_flag("--random-weights", args->random_weights, "Random weights of the file's shapes and types");
  cmd->add_option("--templates", args->templates,
                  "Read templates from DIR instead of the built-in ones (the stored winners' configs compiled "
                  "from them: an A/B of a template change on the whole step)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--tuned", args->tuned_only, "Only the stored winners' chain");
  cmd->add_flag("--baseline", args->baseline_only, "Only the baselines' chain");
  cmd->add_option("--tuned-kernels", args->tuned_kernels,
                  "Stored winners only for these kernels (comma-separated), baselines for the rest: to find which "
                  "kernel's winners move the result")
      ->delimiter(',');
  cmd->add_flag("--barrier-every-op", args->barrier_every_op,
                "A barrier before every dispatch rather than only where ops meet (to measure what that saves)");
  cmd->add_flag("--unfused", args->unfused,
                "Every op its own kernel: each residual add and the norm after it apart (else one add_rmsnorm_mul), "
                "k rotated and then stored (else rope_cache rotates it into its cache row), gate, up, SwiGLU and "
                "down apart (else one product of the stacked gate and up weights, and a _swiglu down product)");
  cmd->add_flag("--norm-into-products", args->norm_into_products,
                "Each residual add and the norm after it taken into the products that read the norm (the _addnorm "
                "kernels) where the stored winners say it pays, rather than one add_rmsnorm_mul before them");
  cmd->add_flag("--norm-apart-from-block-end", args->norm_apart_from_block_end,
                "Each block's residual add and the next norm as one add_rmsnorm_mul after its last product, never "
                "in that product (the _resnorm kernels)");
  cmd->add_flag("--gguf-layouts", args->gguf_layouts,
                "Every weight read in GGUF's own layout, never rearranged for a faster product (the _split "
                "kernels): to measure what the layouts save");
  cmd->add_flag("--swiglu-in-down", args->swiglu_in_down,
                "ffn_down computes the SwiGLU of the stacked gate and up product's outputs (the _swiglu kernels), "
                "never the gate and up product storing it (the _glu kernels): to measure what that saves");
  cmd->add_flag("--check", args->check,
                "Check the chain op by op (each op on the inputs the chain gave it, within its variant's tolerance), "
                "the chained run against the op-by-op run, and the logits against the CPU chain in double (exit 1 "
                "on a failure)");
  cmd->add_option("--samples", args->samples, "Steps timed (the median is reported)")
      ->capture_default_str()
      ->check(CLI::Range(10, 1000));
  cmd->add_option("--db", args->db,
                  "SQLite database with the winners (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
                      ->check(database_validator());
  cmd->add_option("--seed", args->seed, "Seed of the token, the cache's earlier entries and random weights")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the vktune-step document on stdout");
  cmd->callback([args, &result_code] {
    result_code = exit_code::ok;
    run_step(*args, result_code);
  });
}

}  // namespace vktune::cli
