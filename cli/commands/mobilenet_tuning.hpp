#pragma once
// `vktune mobilenet --tune`: every distinct layer shape of MobileNet V2's
// chain at one batch and resolution tuned under one budget, before the chain
// runs on the winners.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands/options.hpp"
#include "workloads/vision/mobilenet_layers.hpp"

namespace vktune::cli {

struct ChainTuningRequest {
  std::uint32_t device = 0;
  std::string db;  // --db; empty: the default store
  std::uint64_t seed = 1;
  std::chrono::duration<double> budget{0};
  IsolationArgs isolation;  // --compile-timeout, --jobs
};

// What --tune did: the network's distinct layer shapes, how many ended with
// a winner, and those its budget never reached.
struct ChainTuning {
  double budget_seconds = 0, seconds = 0;
  std::size_t shapes = 0, with_winner = 0;
  std::vector<std::string> unreached, without_winner;  // "kernel shape"
};

// Tunes the network's distinct layer shapes, shared as `vktune model` shares
// its budget (workloads/llm/model_tuning.hpp: each shape's baseline and one
// variant, the heaviest first, then the rest by what tuning can still gain
// the chain), stored like any tune. Returns nothing when interrupted, with
// `result_code` set.
std::optional<ChainTuning> tune_layers(const ChainTuningRequest& request, const vision::Network& net,
                                       int& result_code);

// One line for the outcome, then one per shape left without a winner.
void print_tuning(const ChainTuning& tuning, const std::string& database);
// The vktune-mobilenet document's `tuning` (null without --tune).
nlohmann::json tuning_json(const std::optional<ChainTuning>& tuning);

}  // namespace vktune::cli
