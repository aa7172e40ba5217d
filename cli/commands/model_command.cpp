// `vktune model FILE.gguf`: tune every op of a GGUF model's decode step and
// prefill under one time budget, and predict the step's time from them
// (workloads/llm/).
#include <chrono>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "reference/gguf_reader.hpp"
#include "engine/ceilings.hpp"
#include "engine/device_problem.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "cli/device_lock.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "workloads/llm/model_ops.hpp"
#include "workloads/llm/model_report.hpp"
#include "workloads/llm/model_tuning.hpp"
#include "tuner/session.hpp"

namespace vktune::cli {

namespace {

struct ModelArgs {
  std::string file;
  IsolationArgs isolation;
  std::uint32_t device = 0;
  std::string time = "20m";
  std::size_t budget = 0;  // --budget; 0: none
  std::optional<std::uint32_t> prompt, context;  // defaults from the model (model_description.hpp)
  std::string db;
  std::string cache = to_string(CacheMode::cold);  // --cache, parsed where it is used
  bool json = false;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool shared_device = false;
  bool skip_unsupported = false;
};

// The weight types a kernel serves (`kernel_of` non-empty), as a list: read
// from the model's own choice of kernels, so it never goes stale.
std::string served_types(std::string (*kernel_of)(ref::GgmlType)) {
  std::string list;
  for (const ref::GgmlType type : ref::all_ggml_types()) {
    if (kernel_of(type).empty()) continue;
    list += (list.empty() ? "" : ", ") + std::string(ref::type_name(type));
  }
  return list;
}

// One line for tensors no kernel reads: the first named, the rest counted.
[[noreturn]] void refuse_unsupported(const std::string& file, const std::vector<model::Unsupported>& unsupported) {
  const auto& first = unsupported.front();
  std::string more = unsupported.size() > 1 ? " (and " + std::to_string(unsupported.size() - 1) + " more)" : "";
  throw Error(ErrorKind::usage, file + ": tensor " + first.tensor + " has type " + first.type + more +
                                    ", which no vktune kernel reads (matrix products: " +
                                    served_types(model::matmul_kernel) + "; the embedding: " +
                                    served_types(model::get_rows_kernel) +
                                    "); --skip-unsupported tunes the rest and reports the step as incomplete");
}

void run_model(ModelArgs args, int& result_code) {
  const auto budget = parse_duration(args.time);
  const auto file = ref::GgufFile::open(args.file);
  const auto model = model::describe_model(file.contents(), args.file);
  if (!args.context) args.context = model::default_context(model);
  if (model.context_length > 0 && *args.context > model.context_length) {
    throw Error(ErrorKind::usage, "--context " + std::to_string(*args.context) + " is above " + args.file +
                                      "'s context length of " + std::to_string(model.context_length));
  }
  if (!args.prompt) args.prompt = model::default_prompt(*args.context);
  if (*args.prompt > *args.context) {
    throw Error(ErrorKind::usage, "--prompt " + std::to_string(*args.prompt) +
                                      " does not fit a KV cache of --context " + std::to_string(*args.context));
  }
  const std::uint32_t context = *args.context, prompt = *args.prompt;
  auto ops = model::model_ops(model, context, prompt);
  if (!ops.unsupported.empty() && !args.skip_unsupported) refuse_unsupported(args.file, ops.unsupported);
  // Shapes a kernel refuses, and (below) products the device cannot hold,
  // join what the prediction leaves out.
  auto leave_out = [&ops](const model::ModelOp& op, const std::string& why) {
    const auto what = op.kernel + " " + kernels::shape_to_string(op.shape) + " (" + why + ")";
    if (op.per_token) ops.unserved.push_back({what, "decode", op.per_token});
    if (op.per_prefill) ops.unserved.push_back({what, "prefill", op.per_prefill});
  };
  std::vector<model::ModelOp> served;
  for (auto& op : ops.ops) {
    try {
      kernels::find_kernel(op.kernel).validate_shape(op.shape);
      served.push_back(op);
    } catch (const Error& e) {
      leave_out(op, e.what());
    }
  }
  ops.ops = served;
  auto templates = TemplateLibrary::select(std::nullopt);

  InterruptGuard interrupt;
  Progress progress(stderr_is_terminal(), false);  // on stderr, --json or not
  progress.set_stopping([] { return InterruptGuard::reason(); });
  progress.phase("opening device " + std::to_string(args.device));
  vk::Instance instance({.validation = false});
  std::string lock_key, device_name;
  {
    vk::Device probe(instance, args.device);
    lock_key = device_lock_key(probe.info());
    device_name = probe.info().name;
    // Before any op is tuned: an op the device cannot hold would otherwise
    // have its inputs made and its CPU reference computed (minutes for a
    // large product) only to be refused when its turn comes.
    std::vector<model::ModelOp> fitting;
    for (auto& op : ops.ops) {
      try {
        require_device_fits(kernels::find_kernel(op.kernel), op.shape, probe.info());
        fitting.push_back(op);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::usage) throw;
        leave_out(op, e.what());
      }
    }
    ops.ops = fitting;
  }
  if (!args.seed_given) args.seed = std::random_device{}();
  std::unique_ptr<DeviceLock> device_lock;
  if (!args.shared_device) {
    device_lock = std::make_unique<DeviceLock>(lock_key, device_name, std::cerr,
                                               [] { return InterruptGuard::reason().has_value(); });
    if (!device_lock->held()) {
      std::cerr << "vktune: " << *InterruptGuard::reason() << " while waiting for the device; nothing was tuned\n";
      result_code = InterruptGuard::exit_code();
      return;
    }
  }
  // The budget runs from here, the device ours: time spent waiting for
  // another vktune to release it is not time this run could tune in.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget);
  auto store = open_store(args.db);
  TuneSession session(instance, args.device, &store, templates, progress);
  WorkerPool workers(isolation_settings(args.device, session.device().info().is_cpu(),
                                        args.isolation.compile_timeout, args.isolation.jobs));
  session.isolate(&workers);
  const auto ceilings = stored_or_measured_ceilings(
      session.device(), store, *session.device_row(),
      [&](const std::string& step) { progress.phase("measuring device ceilings (once per device): " + step); });
  if (!args.json) {
    std::cout << escape_text(model.name.empty() ? model.architecture : model.name) << " (" << escape_text(args.file) << "): " << ops.ops.size()
              << " distinct ops for a decode step at context " << context
              << (prompt ? " and a prefill of " + std::to_string(prompt) + " tokens" : std::string())
              << ", tuned on " << session.device().info().name << " within " << args.time << "; results in "
              << store.path().string() << "\n";
    std::cout.flush();
  }
  model::ModelTuneOptions options;
  options.deadline = deadline;
  options.prompt = prompt;
  if (args.budget) options.budget = args.budget;
  options.tune.seed = args.seed;
  options.tune.cache_mode = parse_cache_mode(args.cache);
  options.tune.interrupted = [] { return InterruptGuard::reason(); };
  const auto results =
      model::tune_model(session, ops.ops, ceilings, options, [&](const std::string& what) { progress.phase(what); });
  progress.hide();
  if (const auto why = InterruptGuard::reason()) {
    store.checkpoint();
    std::cerr << "vktune: " << *why << "; every measurement so far is stored in " << store.path().string()
              << ": run the same command again to resume\n";
    result_code = InterruptGuard::exit_code();
    return;
  }
  if (args.json) {
    auto report = model::model_report_json(model, ops, results, context, prompt);
    report["device"] = session.device().info().name;
    report["database"] = store.path().string();
    report["seed"] = args.seed;
    report["time_budget_seconds"] = budget.count();
    report["variant_budget"] = args.budget ? nlohmann::json(args.budget) : nlohmann::json(nullptr);
    std::cout << report.dump(2) << "\n";
  } else {
    model::print_model_report(std::cout, model, ops, results, context, prompt);
  }
  bool all = true;
  for (const auto& r : results) all = all && r.winner;
  result_code = all ? exit_code::ok : exit_code::failure;
}

}  // namespace

void add_model_command(CLI::App& root, int& result_code) {
  auto args = std::make_shared<ModelArgs>();
  auto* cmd = root.add_subcommand(
      "model",
      "Tune every op of a GGUF model's decode step and prefill (llama, mistral, qwen2, qwen3) under one time "
      "budget, spent where tuning can gain the most, and predict the step's time");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Tunes a model, not a kernel. Reads a llama-family GGUF (llama, mistral, qwen2,
qwen3; another architecture is one line and exit 2) and derives every op of
one decode token at --context and of a prefill of --prompt tokens: each matrix
product at its tensor's real N, K and weight type; rmsnorm; rope on q, k
rotated straight into its fp16 cache row (rope_cache) and v stored into its
own (kv_store); decode attention and a prefill's causal prompt attention
(attention_prefill); SwiGLU; each residual add fused with the norm after it
(add_rmsnorm_mul); in a decode step gate and up as one product of their
rows interleaved that stores their SwiGLU (matmul_q4k_glu), ffn_down reading
it, with the residual add and the next norm where a _resnorm kernel serves
(matmul_q4k_resnorm, matmul_q6k_split_resnorm); the embedding lookup, the output head, argmax: the
ops vktune step chains.

Deduplicates them, times every op's baseline with one searched variant, then
shares the rest of --time among the ops in proportion to what tuning can still
gain: dispatches per token (a prefill's per prompt token) times the gap
between the op's best time and its roofline floor (its least bytes at the read
bandwidth or its FLOPs at the fastest compute rate, the tensor cores' where
the device has them).

Prints per op its dispatches per token and per prefill, baseline and tuned us
and share of the decode step, then the predicted decode step (the sum over
ops; tokens/s) and prefill, naming what no kernel serves (a weight type
without a product, a shape its kernel refuses) that the prediction leaves out;
such a phase gets no tokens/s.

A tensor whose type no kernel reads is refused in one line naming it, exit 2
(--skip-unsupported tunes the rest and reports the step incomplete), as are a
missing tensor, a shape that disagrees with the metadata, a --context above
the model's context length and a --prompt longer than --context. Everything is
stored like a tune; --json prints vktune-model version 1.

See docs/TUNING_A_MODEL.md.
)vkt");
  cmd->add_option("file", args->file, "The model (.gguf)")->required()->check(CLI::ExistingFile);
  add_device_option(*cmd, args->device, "Vulkan device index (see `vktune devices`)");
  add_isolation_options(*cmd, args->isolation);
  cmd->add_option("--time", args->time, "One budget for the whole run, e.g. 20m, 90s")
      ->capture_default_str()
      ->check(duration_validator());
  cmd->add_option("--budget", args->budget,
                  "At most N variants per op beside its baseline; the run ends once every op has had them, or at "
                  "--time (default: --time alone)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_option("--prompt", args->prompt,
                  "Prefill length in tokens (0: decode only; default: 512, or --context where that is less)")
      ->check(CLI::Range(0u, 1u << 20));
  cmd->add_option("--context", args->context,
                  "KV-cache length the decode step attends over (default: 4096, or the model's context length where "
                  "that is less)")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--db", args->db, "SQLite database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(database_validator());
  add_cache_option(*cmd, args->cache, "cold: rotate weight copies larger than the GPU caches; hot: reuse one");
  cmd->add_flag("--json", args->json, "Print the vktune-model document on stdout (no progress)");
  cmd->add_option("--seed", args->seed, "Seed for inputs and the search (default: fresh each run)")
      ->transform(count_validator(std::numeric_limits<std::uint64_t>::max()))
      ->each([args](const std::string&) { args->seed_given = true; });
  cmd->add_flag("--skip-unsupported", args->skip_unsupported,
                "Tune the ops of a model with tensors of types no kernel reads, and report its step as incomplete "
                "(no tokens/s) instead of refusing it");
  cmd->add_flag("--shared-device", args->shared_device,
                "Tune even while another vktune tunes this device (the two skew each other's timings)");
  cmd->callback([args, &result_code] { run_model(*args, result_code); });
}

}  // namespace vktune::cli
