#include "workloads/llm/model_tuning.hpp"

#include <algorithm>
#include <numeric>

#include "kernels/registry.hpp"

namespace vktune::model {

double floor_ns(const kernels::Kernel& kernel, const kernels::Shape& shape, const Ceilings& ceilings) {
  const auto m = kernel.metrics(shape);
  const double memory = ceilings.read_gbps > 0 ? m.bytes / ceilings.read_gbps : 0;  // bytes / (GB/s) = ns
  // The fastest arithmetic the device has: with tensor cores, their rate.
  // Against the FMA rate a tensor-core prefill product (512×4096×4096 in 113
  // µs on an H200, the FMA floor 283 µs) sat below its floor and got no time.
  // For an op that cannot use them the floor is then lower than it could
  // reach, which only gives it more time.
  const double rate = std::max(ceilings.fp32_gflops, ceilings.tensor_gflops);
  const double compute = rate > 0 ? m.flops / rate : 0;
  return std::max({memory, compute, ceilings.dispatch_floor_ns});
}

std::vector<double> share_time(const std::vector<double>& potential, double seconds) {
  double total = 0;
  for (double p : potential) total += std::max(0.0, p);
  std::vector<double> shares(potential.size(), 0.0);
  if (total <= 0 || seconds <= 0) return shares;
  for (std::size_t i = 0; i < potential.size(); ++i) shares[i] = seconds * std::max(0.0, potential[i]) / total;
  return shares;
}

double per_token_weight(const ModelOp& op, std::uint32_t prompt) {
  return op.per_token + (prompt > 0 ? static_cast<double>(op.per_prefill) / prompt : 0.0);
}

namespace {

void record(OpResult& r, const ShapeResult& shape, double seconds) {
  if (shape.baseline) r.baseline_ns = shape.outcomes[*shape.baseline].timing.median;
  r.winner = shape.winner.has_value();
  r.tuned_ns = shape.winner ? shape.outcomes[*shape.winner].timing.median : r.baseline_ns;
  if (shape.kept_stored_winner_ns) r.tuned_ns = std::min(r.tuned_ns, *shape.kept_stored_winner_ns);
  for (const auto& o : shape.outcomes) r.variants += o.resumed ? 0 : 1;
  r.seconds += seconds;
}

}  // namespace

std::vector<OpResult> tune_model(TuneSession& session, const std::vector<ModelOp>& ops, const Ceilings& ceilings,
                                 const ModelTuneOptions& options,
                                 const std::function<void(const std::string&)>& progress) {
  std::vector<OpResult> results(ops.size());
  auto stopped = [&] { return options.tune.interrupted && options.tune.interrupted(); };
  auto run = [&](std::size_t i, TuneOptions tune, const std::string& phase) {
    const auto& kernel = kernels::find_kernel(ops[i].kernel);
    progress(phase + " " + std::to_string(i + 1) + " of " + std::to_string(ops.size()) + ": " + ops[i].kernel + " " +
             kernels::shape_to_string(ops[i].shape));
    const auto started = std::chrono::steady_clock::now();
    results[i].reached = true;
    const auto shape = session.tune(kernel, ops[i].shape, tune);
    record(results[i], shape, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  // Phase 1: every op's baseline and one variant, the heaviest first (so a
  // short budget spends itself where the time is).
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> weight(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    results[i].floor_ns = floor_ns(kernels::find_kernel(ops[i].kernel), ops[i].shape, ceilings);
    weight[i] = per_token_weight(ops[i], options.prompt) * results[i].floor_ns;
  }
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return weight[a] > weight[b]; });
  TuneOptions first = options.tune;
  first.budget = 1;
  first.deadline = options.deadline;
  // The budget bounds this phase too: an op not begun by the deadline is
  // left unreached (the report names it) rather than overrunning --time.
  for (const auto i : order) {
    if (stopped() || std::chrono::steady_clock::now() >= options.deadline) return results;
    run(i, first, "timing baselines: op");
  }
  // Phase 2: the time left, by potential gain, recomputed after each op so
  // that time an op did not use goes to the others.
  std::vector<bool> done(ops.size(), false);
  if (options.budget && *options.budget <= first.budget) return results;
  while (!stopped()) {
    const double left = std::chrono::duration<double>(options.deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    std::vector<double> potential(ops.size(), 0.0);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!done[i])
        potential[i] = per_token_weight(ops[i], options.prompt) * (results[i].tuned_ns - results[i].floor_ns);
    }
    const auto share = share_time(potential, left);
    const auto next = std::max_element(share.begin(), share.end()) - share.begin();
    if (share[next] <= 0) break;
    done[next] = true;
    TuneOptions more = options.tune;
    if (options.budget) more.budget = *options.budget - *first.budget;
    more.deadline = std::min(options.deadline, std::chrono::steady_clock::now() +
                                                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(share[next])));
    run(static_cast<std::size_t>(next), more, "tuning by potential gain: op");
  }
  return results;
}

}  // namespace vktune::model
