#pragma once
// What `vktune model` prints: per op its dispatches per token and per
// prefill, baseline and tuned times and share of the decode step, then the
// predicted decode step and prefill (and what they leave out); as a table or
// as the "vktune-model" JSON document (docs/JSON_OUTPUT.md).
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "workloads/llm/model_description.hpp"
#include "workloads/llm/model_ops.hpp"
#include "workloads/llm/model_tuning.hpp"

namespace vktune::model {

inline constexpr int kModelJsonVersion = 1;

struct Prediction {
  double baseline_us = 0, tuned_us = 0;  // sum over served ops of dispatches × time
};

// Why an op runs at its baseline's time after tune_model ("" when a tuned
// variant beat it): not reached within --time, no validated variant, only
// its baseline timed, or no variant measured beat it.
std::string untuned_reason(const OpResult& result);

// Decode step (per token) and prefill (per prompt) from the ops' times.
Prediction decode_prediction(const std::vector<ModelOp>& ops, const std::vector<OpResult>& results);
Prediction prefill_prediction(const std::vector<ModelOp>& ops, const std::vector<OpResult>& results);

void print_model_report(std::ostream& out, const ModelDescription& model, const ModelOps& ops,
                        const std::vector<OpResult>& results, std::uint32_t context, std::uint32_t prompt);

nlohmann::json model_report_json(const ModelDescription& model, const ModelOps& ops,
                                 const std::vector<OpResult>& results, std::uint32_t context, std::uint32_t prompt);

}  // namespace vktune::model
