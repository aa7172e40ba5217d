#include "workloads/llm/model_report.hpp"

#include <cstdio>

namespace vktune::model {

namespace {

Prediction predict(const std::vector<ModelOp>& ops, const std::vector<OpResult>& results, bool prefill) {
  Prediction p;
  for (std::size_t i = 0; i < ops.size() && i < results.size(); ++i) {
    const double n = prefill ? ops[i].per_prefill : ops[i].per_token;
    p.baseline_us += n * results[i].baseline_ns / 1e3;
    p.tuned_us += n * results[i].tuned_ns / 1e3;
  }
  return p;
}

std::string roles_text(const ModelOp& op) {
  std::string text;
  for (const auto& r : op.roles) text += (text.empty() ? "" : ",") + r;
  return text;
}

std::string unserved_text(const ModelOps& ops, const std::string& phase) {
  std::string text;
  for (const auto& u : ops.unserved) {
    if (u.phase == phase) text += (text.empty() ? "" : "; ") + u.what + " x" + std::to_string(u.count);
  }
  return text;
}

// A phase is complete when no kernel is missing and every op it runs was
// reached (an op the budget never came to has no time to sum).
bool phase_complete(const ModelOps& ops, const std::vector<OpResult>& results, const std::string& phase) {
  for (std::size_t i = 0; i < ops.ops.size() && i < results.size(); ++i) {
    const auto n = phase == "prefill" ? ops.ops[i].per_prefill : ops.ops[i].per_token;
    if (n > 0 && !results[i].reached) return false;
  }
  return ops.complete(phase);
}

}  // namespace

std::string untuned_reason(const OpResult& r) {
  if (!r.reached) return "not reached: --time ran out before its baseline was timed";
  if (!r.winner) return "no validated variant";
  if (r.tuned_ns < r.baseline_ns) return "";
  if (r.variants <= 1) return "only its baseline was timed: the rest of --time went to ops with more to gain";
  return "none of the " + std::to_string(r.variants) + " variants measured beat its baseline";
}

Prediction decode_prediction(const std::vector<ModelOp>& ops, const std::vector<OpResult>& results) {
  return predict(ops, results, false);
}

Prediction prefill_prediction(const std::vector<ModelOp>& ops, const std::vector<OpResult>& results) {
  return predict(ops, results, true);
}

void print_model_report(std::ostream& out, const ModelDescription& model, const ModelOps& ops,
                        const std::vector<OpResult>& results, std::uint32_t context, std::uint32_t prompt) {
  const auto decode = decode_prediction(ops.ops, results);
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %-18s %6s %8s %12s %10s %7s  %s\n", "kernel", "shape", "/token", "/prefill",
                "baseline us", "tuned us", "share", "roles");
  out << line;
  for (std::size_t i = 0; i < ops.ops.size() && i < results.size(); ++i) {
    const auto& op = ops.ops[i];
    const auto& r = results[i];
    const double share = decode.tuned_us > 0 ? op.per_token * r.tuned_ns / 1e3 / decode.tuned_us : 0;
    std::snprintf(line, sizeof line, "%-16s %-18s %6u %8u %12.2f %10.2f %6.1f%%  %s%s\n", op.kernel.c_str(),
                  kernels::shape_to_string(op.shape).c_str(), op.per_token, op.per_prefill, r.baseline_ns / 1e3,
                  r.tuned_ns / 1e3, 100 * share, roles_text(op).c_str(), r.winner ? "" : " (no validated winner)");
    out << line;
  }
  std::size_t untuned = 0;
  for (const auto& r : results) untuned += !untuned_reason(r).empty();
  if (untuned > 0) {
    out << untuned << " of " << results.size() << " ops run their baseline's time:\n";
    for (std::size_t i = 0; i < ops.ops.size() && i < results.size(); ++i) {
      if (const auto why = untuned_reason(results[i]); !why.empty()) {
        out << "  " << ops.ops[i].kernel << " " << kernels::shape_to_string(ops.ops[i].shape) << ": " << why << "\n";
      }
    }
  }
  // A phase with ops left out is a partial sum, never a tokens/s figure.
  auto rate = [&](const std::string& phase, double tokens, double us) -> std::string {
    if (!phase_complete(ops, results, phase)) return "incomplete: no tokens/s";
    char text[64];
    std::snprintf(text, sizeof text, "%.1f tokens/s", us > 0 ? tokens * 1e6 / us : 0.0);
    return text;
  };
  std::snprintf(line, sizeof line,
                "decode step at context %u: %.1f us baseline, %.1f us tuned (predicted: the sum of the ops' times; "
                "%s)\n",
                context, decode.baseline_us, decode.tuned_us, rate("decode", 1, decode.tuned_us).c_str());
  out << line;
  if (auto left = unserved_text(ops, "decode"); !left.empty()) out << "  not counted: " << left << "\n";
  if (prompt > 0) {
    const auto prefill = prefill_prediction(ops.ops, results);
    std::snprintf(line, sizeof line, "prefill of %u tokens: %.1f us baseline, %.1f us tuned (predicted; %s)\n", prompt,
                  prefill.baseline_us, prefill.tuned_us, rate("prefill", prompt, prefill.tuned_us).c_str());
    out << line;
    if (auto left = unserved_text(ops, "prefill"); !left.empty()) out << "  not counted: " << left << "\n";
  }
  out << "(" << model.source << ": " << model.architecture << ", " << model.layers << " layers; `vktune export --model "
      << model.source << "` writes the table of these ops)\n";
}

nlohmann::json model_report_json(const ModelDescription& model, const ModelOps& ops,
                                 const std::vector<OpResult>& results, std::uint32_t context, std::uint32_t prompt) {
  const auto decode = decode_prediction(ops.ops, results);
  const auto prefill = prefill_prediction(ops.ops, results);
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < ops.ops.size() && i < results.size(); ++i) {
    const auto& op = ops.ops[i];
    const auto& r = results[i];
    list.push_back({{"kernel", op.kernel},
                    {"shape", kernels::shape_to_string(op.shape)},
                    {"roles", op.roles},
                    {"per_token", op.per_token},
                    {"per_prefill", op.per_prefill},
                    {"baseline_ns", r.baseline_ns},
                    {"tuned_ns", r.tuned_ns},
                    {"floor_ns", r.floor_ns},
                    {"share_of_decode", decode.tuned_us > 0 ? op.per_token * r.tuned_ns / 1e3 / decode.tuned_us : 0.0},
                    {"variants_measured", r.variants},
                    {"winner", r.winner},
                    {"reached", r.reached},
                    {"untuned_reason", untuned_reason(r).empty() ? nlohmann::json(nullptr)
                                                                 : nlohmann::json(untuned_reason(r))},
                    {"seconds", r.seconds}});
  }
  nlohmann::json unserved = nlohmann::json::array();
  for (const auto& u : ops.unserved) unserved.push_back({{"what", u.what}, {"phase", u.phase}, {"count", u.count}});
  nlohmann::json j = {{"format", "vktune-model"},
                      {"version", kModelJsonVersion},
                      {"model",
                       {{"file", model.source},
                        {"architecture", model.architecture},
                        {"name", model.name},
                        {"layers", model.layers},
                        {"embedding", model.embedding},
                        {"heads", model.heads},
                        {"kv_heads", model.kv_heads},
                        {"head_dim", model.head_dim},
                        {"feed_forward", model.feed_forward},
                        {"vocab", model.vocab}}},
                      {"context", context},
                      {"prompt", prompt},
                      {"ops", list},
                      {"unserved", unserved},
                      {"prefill", nullptr}};
  // A phase with ops left out has no tokens/s (null) and says it is incomplete.
  auto phase_json = [&](const std::string& phase, const Prediction& p, double tokens) {
    const bool complete = phase_complete(ops, results, phase);
    return nlohmann::json{{"baseline_us", p.baseline_us},
                          {"tuned_us", p.tuned_us},
                          {"complete", complete},
                          {"tokens_per_second", complete && p.tuned_us > 0 ? nlohmann::json(tokens * 1e6 / p.tuned_us)
                                                                           : nlohmann::json(nullptr)}};
  };
  j["decode"] = phase_json("decode", decode, 1);
  if (prompt > 0) j["prefill"] = phase_json("prefill", prefill, prompt);
  nlohmann::json unsupported = nlohmann::json::array();
  for (const auto& u : ops.unsupported) unsupported.push_back({{"tensor", u.tensor}, {"type", u.type}});
  j["unsupported"] = unsupported;
  return j;
}

}  // namespace vktune::model
