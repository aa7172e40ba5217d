// `vktune mobilenet`: MobileNet V2's convolution chain (random weights, a
// fixed seed) run on the GPU as one command buffer with each layer's stored
// winner for this device (else its spec's baseline), timed beside the sum
// of the per-layer winners' stored times, and with --check held to the CPU
// chain (workloads/vision/).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "workloads/kernel_chain.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/mobilenet_tuning.hpp"
#include "cli/commands/options.hpp"
#include "common/json_formats.hpp"
#include "engine/template_library.hpp"
#include "workloads/vision/mobilenet_chain.hpp"
#include "workloads/vision/mobilenet_check.hpp"
#include "workloads/vision/mobilenet_layers.hpp"
#include "workloads/vision/mobilenet_specs.hpp"
#include "workloads/vision/mobilenet_weights.hpp"

namespace vktune::cli {

namespace {

struct MobileNetArgs {
  std::uint32_t device = 0;
  std::uint32_t batch = 1;
  std::uint32_t resolution = 224;
  bool baseline = false;
  bool check = false;
  int samples = 15;
  std::string db;
  std::string specs;
  std::uint64_t seed = 1;
  bool json = false;
  std::string tune;  // --tune DURATION; empty: run the stored winners as they are
  IsolationArgs isolation;  // --tune's compile workers
};

// What the run measured, per layer and in all.
struct MeasuredChain {
  std::vector<std::optional<double>> layer_ns;  // each layer's phase in the profiled chain
  vk::TimingResult timing;
  double profiled_ns = 0;
  std::size_t winners = 0;
  double winners_ns = 0;                            // the stored winners' times, summed
  double winner_layers_ns = 0;                      // the same layers in the chain
  double baseline_layers_ns = 0;                    // the other layers in the chain
  std::map<std::string, std::size_t> why_baseline;  // reason -> layers
};

std::string feature_map(const vision::Network& net) {
  const auto& l = net.last();
  return std::to_string(net.batch) + "x" + std::to_string(l.out_height) + "x" + std::to_string(l.out_width) + "x" +
         std::to_string(l.out_channels);
}

MeasuredChain measure(chain::KernelChain& chain, vk::Device& device, int samples) {
  MeasuredChain m;
  m.timing = chain.time(device, samples);
  const auto profile = chain.profile(device, samples);
  m.profiled_ns = profile.total_ns.median;
  m.layer_ns.resize(chain.ops().size());
  for (const auto& phase : profile.phases) {
    if (phase.end_op - phase.first_op == 1) m.layer_ns[phase.first_op] = phase.median_ns;
  }
  for (std::size_t i = 0; i < chain.ops().size(); ++i) {
    const auto& op = chain.ops()[i];
    const double in_chain = m.layer_ns[i].value_or(0);
    if (op.winner_ns) {
      ++m.winners, m.winners_ns += *op.winner_ns, m.winner_layers_ns += in_chain;
    } else {
      ++m.why_baseline[op.why_baseline.empty() ? "--baseline" : op.why_baseline];
      m.baseline_layers_ns += in_chain;
    }
  }
  return m;
}

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

void print_json(const MobileNetArgs& args, const vision::Network& net, const chain::KernelChain& chain,
                const vk::Device& device, const std::string& database, const MeasuredChain& m,
                const std::optional<vision::ChainCheck>& check, const std::optional<ChainTuning>& tuning) {
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t i = 0; i < chain.ops().size(); ++i) {
    const auto& op = chain.ops()[i];
    nlohmann::json layer{{"layer", i + 1},
                         {"role", net.layers[i].role},
                         {"kernel", op.kernel},
                         {"shape", kernels::shape_to_string(op.shape)},
                         {"variant", op.tuned ? "winner" : "baseline"},
                         {"config", nlohmann::json::parse(kernels::config_to_json(op.config))},
                         {"why_baseline", op.tuned ? nlohmann::json() : nlohmann::json(op.why_baseline)},
                         {"winner_ns", optional_number(op.winner_ns)},
                         {"chain_ns", optional_number(m.layer_ns[i])}};
    if (check) {
      const auto& c = check->layers[i];
      layer["check"] = {{"passed", c.passed},
                        {"rel_l2", c.rel_l2},
                        {"max_rel", c.max_rel},
                        {"tolerance_rel_l2", c.tolerance.rel_l2},
                        {"why", c.why}};
    }
    layers.push_back(std::move(layer));
  }
  auto doc = json_document(kMobileNetJson);
  doc.update({{"device", device.info().name},
              {"batch", net.batch},
              {"resolution", net.resolution},
              {"seed", args.seed},
              {"database", database},
              {"tuning", tuning_json(tuning)},
              {"feature_map", feature_map(net)},
              {"layers", layers},
              {"dispatches", chain.ops().size()},
              {"barriers", chain.barriers()},
              {"median_ns", m.timing.per_dispatch_ns.median},
              {"p10_ns", m.timing.per_dispatch_ns.p10},
              {"p90_ns", m.timing.per_dispatch_ns.p90},
              {"profiled_ns", m.profiled_ns},
              {"winner_layers", m.winners},
              {"winners_sum_ns", m.winners_ns},
              {"winner_layers_chain_ns", m.winner_layers_ns},
              {"baseline_layers_chain_ns", m.baseline_layers_ns},
              {"check", check ? nlohmann::json{{"passed", check->passed},
                                               {"layers_failed", check->failed},
                                               {"worst_share_of_tolerance", check->worst_share},
                                               {"final_rel_l2", check->final_rel_l2},
                                               {"final_max_rel", check->final_max_rel},
                                               {"final_tolerance", vision::kFinalMapTolerance},
                                               {"final_rms", check->final_rms},
                                               {"final_share_zero", check->final_share_zero},
                                               {"final_share_six", check->final_share_six}}
                              : nlohmann::json()}});
  std::cout << doc.dump(2) << "\n";
}

void print_text(const vision::Network& net, const chain::KernelChain& chain, const vk::Device& device,
                const MeasuredChain& m, const std::optional<vision::ChainCheck>& check) {
  std::printf(
      "MobileNet V2's convolutions, batch %u at %ux%u -> %s, on %s: %zu dispatches (%zu stored %s), "
      "%zu barriers, one command buffer\n",
      net.batch, net.resolution, net.resolution, feature_map(net).c_str(), device.info().name.c_str(),
      chain.ops().size(), m.winners, m.winners == 1 ? "winner" : "winners", chain.barriers());
  std::printf("  %3s  %-20s %-20s %-26s %-8s %10s %12s%s\n", "#", "layer", "kernel", "shape", "variant", "winner us",
              "in chain us", check ? "  check (rel L2 / its tolerance)" : "");
  for (std::size_t i = 0; i < chain.ops().size(); ++i) {
    const auto& op = chain.ops()[i];
    char winner[32] = "-", in_chain[32] = "-";
    if (op.winner_ns) std::snprintf(winner, sizeof winner, "%.1f", *op.winner_ns / 1e3);
    if (m.layer_ns[i]) std::snprintf(in_chain, sizeof in_chain, "%.1f", *m.layer_ns[i] / 1e3);
    std::string verdict;
    if (check) {
      const auto& c = check->layers[i];
      char text[96];
      std::snprintf(text, sizeof text, "  %s %.2g / %.0e", c.passed ? "ok" : "FAILED", c.rel_l2, c.tolerance.rel_l2);
      verdict = text;
    }
    std::printf("  %3zu  %-20s %-20s %-26s %-8s %10s %12s%s\n", i + 1, net.layers[i].role.c_str(), op.kernel.c_str(),
                kernels::shape_to_string(op.shape).c_str(), op.tuned ? "winner" : "baseline", winner, in_chain,
                verdict.c_str());
  }
  const double ns = m.timing.per_dispatch_ns.median;
  std::printf(
      "  the chain: %.1f us per batch (p10 %.1f, p90 %.1f), %.1f images/s; layer by layer with a timestamp "
      "at each barrier: %.1f us\n",
      ns / 1e3, m.timing.per_dispatch_ns.p10 / 1e3, m.timing.per_dispatch_ns.p90 / 1e3,
      ns > 0 ? 1e9 * net.batch / ns : 0.0, m.profiled_ns / 1e3);
  std::printf("  the per-layer winners: %zu of %zu layers, their stored times sum to %.1f us (%.1f us in this chain)",
              m.winners, chain.ops().size(), m.winners_ns / 1e3, m.winner_layers_ns / 1e3);
  if (m.winners < chain.ops().size()) {
    std::printf("; with the other layers' %.1f us in this chain: %.1f us", m.baseline_layers_ns / 1e3,
                (m.winners_ns + m.baseline_layers_ns) / 1e3);
  }
  std::printf("\n");
  for (const auto& [why, layers] : m.why_baseline) std::printf("  baseline (%zu layers): %s\n", layers, why.c_str());
  if (check) {
    std::printf(
        "  check: %s; layer by layer %zu of %zu within their variants' tolerance (worst at %.0f%% of it); the "
        "final map vs the CPU chain in double: relative L2 %.2g (%s, tolerance %.0e); the map's rms %.3g, "
        "%.0f%% of it 0 and %.0f%% 6 (ReLU6)\n",
        check->passed ? "passed" : "FAILED", check->layers.size() - check->failed, check->layers.size(),
        100 * check->worst_share, check->final_rel_l2, check->final_passed ? "ok" : "FAILED",
        vision::kFinalMapTolerance, check->final_rms, 100 * check->final_share_zero, 100 * check->final_share_six);
    for (const auto& c : check->layers) {
      if (!c.passed) std::printf("  failed: layer %s: %s\n", chain.ops()[c.layer].role.c_str(), c.why.c_str());
    }
  }
}

void run_mobilenet(const MobileNetArgs& args, int& result_code) {
  // Bad input is refused before any device work.
  const auto net = vision::mobilenet_v2(args.batch, args.resolution);
  vision::register_mobilenet_kernels(args.specs.empty() ? std::nullopt
                                                        : std::optional<std::filesystem::path>(args.specs));
  std::optional<ChainTuning> tuning;
  if (!args.tune.empty()) {
    tuning = tune_layers({args.device, args.db, args.seed, parse_duration(args.tune), args.isolation}, net,
                         result_code);
    if (!tuning) return;
    // A shape that validated no variant, not even its baseline, is a
    // failure; one the budget did not reach is only reported.
    if (!tuning->without_winner.empty()) result_code = exit_code::failure;
  }
  std::optional<results::Store> store;
  const std::filesystem::path db = args.db.empty() ? results::Store::default_path() : std::filesystem::path(args.db);
  if (std::filesystem::exists(db)) store.emplace(results::Store::open_for_reading(db));
  const auto weights = vision::random_weights(net, args.seed);

  vk::Instance instance({.validation = false});
  vk::Device device(instance, args.device);
  chain::VariantSource source;
  source.tuned = !args.baseline;
  source.store = store ? &*store : nullptr;
  if (store) source.device_rows = chain::winner_device_rows(*store, device.info());
  chain::KernelChain chain(source, device.info());
  vision::add_mobilenet_ops(chain, net, weights, device.info());
  if (!args.json) std::cerr << "vktune mobilenet: compiling " << chain.ops().size() << " layers and uploading\n";
  chain.prepare(device, TemplateLibrary::select(std::nullopt));
  std::optional<vision::ChainCheck> check;
  if (args.check) {
    if (!args.json) std::cerr << "vktune mobilenet: checking layer by layer and against the CPU chain\n";
    chain.run_once(device);
    check = vision::check_mobilenet(net, weights, chain);
    if (!check->passed) result_code = exit_code::failure;
  }
  if (!args.json) std::cerr << "vktune mobilenet: timing " << args.samples << " runs\n";
  const auto m = measure(chain, device, args.samples);
  if (args.json) {
    print_json(args, net, chain, device, store ? store->path().string() : std::string(), m, check, tuning);
  } else {
    if (tuning) print_tuning(*tuning, store ? store->path().string() : std::string());
    print_text(net, chain, device, m, check);
  }
}

}  // namespace

void add_mobilenet_command(CLI::App& root, int& result_code) {
  auto args = std::make_shared<MobileNetArgs>();
  auto* cmd = root.add_subcommand("mobilenet",
                                  "Run MobileNet V2's convolution chain (random weights) on the GPU with each layer's "
                                  "stored winner (else its spec's baseline) in one command buffer, time it beside "
                                  "the sum of the per-layer winners, and check it against the CPU chain");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Runs MobileNet V2's convolution chain on the GPU (random weights of a fixed
seed; --resolution 32 to 1024 in steps of 32, else one line and exit 2): the
3x3 stem, the 17 inverted-residual blocks (expansion, depthwise, projection,
residual add) and the final 1x1, 62 dispatches of the examples/ MobileNet
specs (built into vktune; --specs DIR reads edited copies) and add, one
command buffer with a barrier before each. Each layer runs the most recently
measured stored winner of this GPU or another of its model, or its spec's
baseline (--baseline: every layer).

Prints per layer its kernel, shape, variant, the stored winner's us and its us
in the chain, then the chain's time beside the sum of the per-layer winners'
stored times.

--check (exit 1 on a failure) holds each layer to its CPU reference on the
input the chain gave it and the final feature map to the CPU chain in double
(relative L2 1e-4). --json prints vktune-mobilenet version 1.

--tune DURATION first tunes every distinct layer shape (35 at 224x224) under
one budget, shared as `vktune model` shares its own: each shape's baseline
and one variant, the heaviest first, then the rest by what tuning can still
gain the chain; stored in --db like any tune, then the chain runs on the
winners. It names the shapes the budget did not reach; a shape with no
validated variant exits 1 (with --baseline: a usage error). Or tune the
spec kernels at the network's shapes yourself, e.g.
    vktune examples/mobilenet_pointwise/pointwise.json --device 0 --shape 3136,24,144,2

See docs/TUNING_A_MODEL.md, "A vision model's chain".
)vkt");
  add_device_option(*cmd, args->device, "Vulkan device index (see `vktune devices`)");
  cmd->add_option("--batch", args->batch, "Images per run (1 to 8)")->capture_default_str();
  cmd->add_option("--resolution", args->resolution, "Input height and width: 32 to 1024 in steps of 32")
      ->capture_default_str();
  auto* baseline =
      cmd->add_flag("--baseline", args->baseline, "Every layer its spec's baseline, whatever the database holds");
  cmd->add_flag("--check", args->check,
                "Check each layer against its CPU reference on the input the chain gave it, and the final feature "
                "map against the CPU chain in double (exit 1 on a failure)");
  cmd->add_option("--samples", args->samples, "Runs timed (the median is reported)")
      ->capture_default_str()
      ->check(CLI::Range(10, 1000));
  cmd->add_option("--db", args->db,
                  "SQLite database with the winners (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
                      ->check(database_validator());
  cmd->add_option("--seed", args->seed, "Seed of the random weights and image, and of --tune's inputs and search")
      ->capture_default_str();
  cmd->add_option("--specs", args->specs,
                  "Folder holding mobilenet_stem/, mobilenet_depthwise/, mobilenet_pointwise/ and include/ (edited "
                  "copies of examples/); default: the specs built into vktune")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--json", args->json, "Print the vktune-mobilenet document on stdout");
  cmd->add_option("--tune", args->tune,
                  "First tune every distinct layer shape of this --batch and --resolution under one budget (e.g. "
                  "5m, 90s; stored in --db), then run the chain on the winners")
      ->check(duration_validator())
      // The chain would run none of what the tuning finds.
      ->excludes(baseline);
  add_isolation_options(*cmd, args->isolation);
  cmd->callback([args, &result_code] {
    result_code = exit_code::ok;
    run_mobilenet(*args, result_code);
  });
}

}  // namespace vktune::cli
