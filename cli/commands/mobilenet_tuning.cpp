#include "cli/commands/mobilenet_tuning.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands/options.hpp"
#include "cli/device_lock.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "engine/ceilings.hpp"
#include "engine/template_library.hpp"
#include "engine/worker_pool.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "tuner/session.hpp"
#include "workloads/llm/model_tuning.hpp"

namespace vktune::cli {

namespace {

// The network's layers as ops to tune: each distinct kernel and shape once,
// weighted by its layers in one run of the chain (ModelOp's per_token: its
// dispatches per run), so the budget goes where the chain's time is.
std::vector<model::ModelOp> layer_ops(const vision::Network& net) {
  std::vector<model::ModelOp> ops;
  for (const auto& layer : net.layers) {
    auto same = std::find_if(ops.begin(), ops.end(),
                             [&](const model::ModelOp& op) { return op.kernel == layer.kernel && op.shape == layer.shape; });
    if (same == ops.end()) {
      ops.push_back({layer.kernel, layer.shape, 1, 0, {layer.role}});
    } else {
      ++same->per_token;
      same->roles.push_back(layer.role);
    }
  }
  return ops;
}

}  // namespace

std::optional<ChainTuning> tune_layers(const ChainTuningRequest& request, const vision::Network& net,
                                       int& result_code) {
  const auto budget = request.budget;
  const auto ops = layer_ops(net);
  InterruptGuard interrupt;
  Progress progress(stderr_is_terminal(), false);
  progress.set_stopping([] { return InterruptGuard::reason(); });
  progress.phase("opening device " + std::to_string(request.device));
  vk::Instance instance({.validation = false});
  std::string lock_key, device_name;
  {
    vk::Device probe(instance, request.device);
    lock_key = device_lock_key(probe.info());
    device_name = probe.info().name;
  }
  DeviceLock device_lock(lock_key, device_name, std::cerr, [] { return InterruptGuard::reason().has_value(); });
  if (!device_lock.held()) {
    std::cerr << "vktune: " << *InterruptGuard::reason() << " while waiting for the device; nothing was tuned\n";
    result_code = InterruptGuard::exit_code();
    return std::nullopt;
  }
  // The budget runs from here, the device ours.
  const auto started = std::chrono::steady_clock::now();
  model::ModelTuneOptions options;
  options.deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget);
  options.tune.seed = request.seed;
  options.tune.interrupted = [] { return InterruptGuard::reason(); };
  auto store = open_store(request.db);
  auto templates = TemplateLibrary::select(std::nullopt);
  TuneSession session(instance, request.device, &store, templates, progress);
  WorkerPool workers(isolation_settings(request.device, session.device().info().is_cpu(),
                                        request.isolation.compile_timeout, request.isolation.jobs));
  session.isolate(&workers);
  const auto ceilings = stored_or_measured_ceilings(
      session.device(), store, *session.device_row(),
      [&](const std::string& step) { progress.phase("measuring device ceilings (once per device): " + step); });
  const auto results =
      model::tune_model(session, ops, ceilings, options, [&](const std::string& what) { progress.phase(what); });
  progress.hide();
  store.checkpoint();
  if (const auto why = InterruptGuard::reason()) {
    std::cerr << "vktune: " << *why << "; every measurement so far is stored in " << store.path().string()
              << ": run the same command again to resume\n";
    result_code = InterruptGuard::exit_code();
    return std::nullopt;
  }
  ChainTuning t;
  t.budget_seconds = budget.count();
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  t.shapes = ops.size();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto name = ops[i].kernel + " " + kernels::shape_to_string(ops[i].shape);
    if (!results[i].reached) {
      t.unreached.push_back(name);
    } else if (results[i].winner) {
      ++t.with_winner;
    } else {
      t.without_winner.push_back(name);
    }
  }
  return t;
}

void print_tuning(const ChainTuning& t, const std::string& database) {
  std::printf("tuned %zu distinct layer shapes in %.0f s of a %.0f-s budget: %zu with a winner, %zu not reached "
              "before the budget ran out, %zu without a validated variant; results in %s\n",
              t.shapes, t.seconds, t.budget_seconds, t.with_winner, t.unreached.size(), t.without_winner.size(),
              database.c_str());
  for (const auto& s : t.unreached) std::printf("  not reached (give a longer --tune): %s\n", s.c_str());
  for (const auto& s : t.without_winner) std::printf("  no validated variant: %s\n", s.c_str());
}

nlohmann::json tuning_json(const std::optional<ChainTuning>& t) {
  if (!t) return nullptr;
  return {{"budget_seconds", t->budget_seconds}, {"seconds", t->seconds},
          {"shapes", t->shapes},                 {"with_winner", t->with_winner},
          {"unreached", t->unreached},           {"without_winner", t->without_winner}};
}

}  // namespace vktune::cli
