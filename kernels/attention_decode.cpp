// attention_decode: one query token per head against an fp16 KV cache, with
// grouped-query heads, as reference/ops.hpp `attention` defines it (scale
// 1/sqrt(head_dim); the query sees all kv_len cache entries). Shape
// (heads, kv_heads, head_dim, kv_len); q fp32 [heads][head_dim], K and V fp16
// [kv_len][kv_heads][head_dim], out fp32 [heads][head_dim]. One template,
// templates/attention_decode.comp.
//
// A workgroup takes the QH query heads of one KV head (grouped-query: QH =
// heads/kv_heads, at most 8), so each K and V byte is read once, not once per
// query head; QH is a parameter only because the template needs it at
// compile time (the registers of QH queries and accumulators): the shape
// sets it (Space::shape_values), no path searches it. A team of lanes takes a cache entry with
// 16-byte loads (LOADS per lane), TOKENS entries per step with their loads
// issued together (PREFETCH=1: a step ahead); see the template for the walk
// and the merges, for LEAN (the load order and the merges trimmed for the
// fixed cost of short walks), REDUCTION=2 (a reduce-scatter team sum) and
// PREFETCH=3 (q in shared memory, three steps of loads in flight).
//
// The KV split is the parameter KV_CHUNK, cache entries per workgroup
// (0 = all: one workgroup per head group). It is a chunk length rather than
// a split count because a dispatch rule divides a shape dim by a constant:
// the splits are ceil(kv_len / KV_CHUNK) workgroups along x, so a tuned
// chunk keeps its meaning at any cache length. The kernel interface has one
// dispatch per variant, so the splits are merged inside it (no second
// dispatch and its ~4 us launch-and-barrier floor): each workgroup writes
// per head a partial (max, sum, accumulator) to a scratch buffer and the
// last one of its head group to finish (an atomic counter per group, reset
// by that workgroup) merges them. The scratch buffer is sized for the most
// splits of any path (STREAM=1's 256; the walk and MMA=1 take at most 64),
// so one problem serves every variant.
//
// MMA=1 is a second template, templates/attention_decode_mma.comp: the
// products on tensor cores (kernels/attention_mma.hpp), with the same
// problem, scratch layout and split merge. STREAM=1 is a third,
// templates/attention_decode_stream.comp (kernels/attention_stream.hpp): a
// whole round of loads in flight per lane, teams without barriers, up to
// attention_stream::kMaxSplits splits (its records of a head are
// attention_stream::kMaxSplits apart; the other paths'
// attention_walk::kMaxSplits). The walk (MMA=0, STREAM=0) is
// kernels/attention_walk.hpp: its checks, pruning rules and plan.
//
// The space has three paths, one per template, each varying only what its
// template reads and pinning the rest at the values stored variants carry
// (so their hashes stay): walk (MMA=0, STREAM=0; STEP=32, ENTRIES=4),
// tensor-cores (MMA=1: WG_SIZE, STEP, KV_CHUNK, PREFETCH) and stream
// (STREAM=1: WG_SIZE, LOADS, ENTRIES, PREFETCH, KV_CHUNK). constraint_violation
// holds legality only: device limits, what the templates implement (a team
// of at least 4 lanes, shuffles within the smallest subgroup, whole rounds
// and stages, the scratch's splits), and no config that builds another's
// code. Everything else is a named pruning rule (`vktune list
// attention_decode`): costs that hold on any GPU (a split shorter than two
// steps, idle lanes, a prefetch with nothing to overlap) for every device,
// and what the H200's tuning measured or kept its gate small with (spills,
// pairings with its winners, values that never won) for NVIDIA only, so
// that other GPUs search the whole legal space (`--space full` everywhere).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "kernels/attention_cache_inputs.hpp"
#include "kernels/attention_mma.hpp"
#include "kernels/attention_stream.hpp"
#include "kernels/attention_walk.hpp"
#include "kernels/early_rules.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr std::uint32_t kMaxHeads = 256;  // counters in the scratch buffer (MAX_HEADS)

std::uint64_t scratch_bytes(const Shape& shape) {
  const std::uint64_t splits = std::max(attention_walk::kMaxSplits, attention_stream::kMaxSplits);
  return 4 * (kMaxHeads + std::uint64_t{shape.at(0)} * splits * (shape.at(2) + 4));
}

std::uint64_t kv_values(const Shape& shape) { return std::uint64_t{shape.at(3)} * shape.at(1) * shape.at(2); }

// The query heads a workgroup takes: all the heads per KV head
// (grouped-query) where they are at most 8, else the most of 8, 4 and 2
// that divides them.
std::uint32_t group_heads(const Shape& shape) {
  const std::uint32_t group = shape.at(0) / shape.at(1);
  std::uint32_t qh = 1;
  for (std::uint32_t c : {2u, 4u, 8u}) {
    if (group % c == 0) qh = c;
  }
  return qh;
}

// The space's parameter `name` with `values`, for a path.
Parameter path_parameter(const std::vector<Parameter>& parameters, const std::string& name, std::vector<int> values) {
  for (const auto& p : parameters) {
    if (p.name == name) return {name, std::move(values), p.help};
  }
  throw Error(ErrorKind::internal, "attention_decode has no parameter " + name);
}

// A path of `space`: `varied` (values only) over `pinned`; every parameter
// but QH (the shape's) is one or the other.
Path make_path(const Space& space, std::string name, const std::vector<Parameter>& varied, const Config& pinned) {
  Path path{std::move(name), {}, pinned};
  for (const auto& v : varied) path.parameters.push_back(path_parameter(space.parameters, v.name, v.values));
  for (const auto& p : space.parameters) {
    const bool is_varied = std::any_of(varied.begin(), varied.end(), [&](const Parameter& v) { return v.name == p.name; });
    if (p.name != "QH" && is_varied == (pinned.count(p.name) > 0)) {
      throw Error(ErrorKind::internal, "attention_decode path " + path.name + ": " + p.name +
                                           " must be either varied or pinned");
    }
  }
  return path;
}

// The one space; built once.
Space make_space() {
  Space space;
  space.name = "decode";
  space.template_file = "attention_decode.comp";
  space.parameters = {
      {"WG_SIZE", {128, 256, 512},
       "invocations per workgroup (64 was never the fastest on the H200; 512 was added for STREAM=1, and NVIDIA's "
       "walk and tensor-core paths are pruned to 128 and 256)"},
      {"LOADS", {1, 2, 4},
       "K (and V) loads per lane per cache entry: a team of head_dim/(LOADS*VEC) lanes (rounded up to a power of "
       "two) takes an entry"},
      {"VEC", {4, 8}, "fp16 values per K/V load (uvec2, uvec4)"},
      {"QH", {1, 2, 4, 8},
       "query heads per workgroup, of one KV head: all of heads/kv_heads where they are at most 8 (else the most of "
       "8, 4 and 2 dividing them), so K and V are read once; set by the shape, never searched (a define: the "
       "template's register arrays are sized by it)"},
      {"TOKENS", {2, 4}, "cache entries per team per step, their loads issued together"},
      {"PREFETCH", {0, 1, 2, 3},
       "1 = issue the next step's loads before this step's arithmetic (software pipelining); 2 = two steps ahead "
       "(twice the bytes in flight, for few workgroups per SM); 3 = three steps ahead, q in shared memory read at "
       "each use (its registers hold the third step)"},
      {"KV_CHUNK", {0, 32, 64, 128, 256, 512, 1024, 2048},
       "cache entries per workgroup (ceil(kv_len/KV_CHUNK) workgroups per head group, merged through scratch "
       "memory and a per-group atomic counter); 0 = one workgroup per head group; 32: short caches over about "
       "one workgroup per SM (two steps of TOKENS=2)"},
      {"REDUCTION", {0, 1, 2},
       "a team's dot products: 0 = subgroup shuffle-xor butterfly, 1 = shared-memory sum, 2 = subgroup "
       "reduce-scatter (a score per lane, one exp each, the weights shuffled back; QH*TOKENS <= team)"},
      {"MERGE", {0, 1},
       "the split merge by the last workgroup (KV_CHUNK > 0): 0 = in phases ((m, l) of every split, the weights in "
       "shared memory, then the accumulators); 1 = one pass, each invocation loads (m, l) with its accumulator "
       "vec4, 16 splits a round, merged online (fewer serial load round trips)"},
      {"WIDEN", {0, 1},
       "fp16 to fp32: 0 = unpackHalf2x16 (a conversion per value); 1 = the bits moved into an fp32 unrebiased "
       "(integer operations; the 2^112 folded into q and the softmax weights; fp16 subnormals may flush)"},
      {"LEAN", {0, 1},
       "the fixed cost: 1 = first K/V loads before q's, no prefetches past the chunk, a one-barrier team merge "
       "(weights computed by the summing invocations); 0 = the previous order"},
  };
  for (auto& p : attention_mma::parameters()) space.parameters.push_back(std::move(p));
  for (auto& p : attention_stream::parameters()) space.parameters.push_back(std::move(p));
  for (auto& p : attention_stream::merge_stage_parameters()) space.parameters.push_back(std::move(p));

  // The paths: each varies what its template reads; the rest stays at the
  // values stored variants carry (their hashes cover every define).
  const Config not_mma{{"MMA", 0}, {"STEP", 32}}, not_stream{{"STREAM", 0}, {"ENTRIES", attention_stream::kPinnedEntries}};
  const Config merged_inside = attention_stream::merged_inside();
  Config walk_pins = not_mma, mma_pins = attention_mma::pinned(), stream_pins = attention_stream::pinned();
  walk_pins.insert(not_stream.begin(), not_stream.end());
  mma_pins.insert(not_stream.begin(), not_stream.end());
  for (auto* pins : {&walk_pins, &mma_pins, &stream_pins}) pins->insert(merged_inside.begin(), merged_inside.end());
  // The streaming path with its split merge as a second dispatch: after the
  // in-dispatch one, so that a stored config without MERGE_STAGE completes
  // on the stream path (MERGE_STAGE=0, the shader it was measured as).
  auto staged_varied = attention_stream::varied();
  for (auto& p : attention_stream::merge_stage_varied()) staged_varied.push_back(std::move(p));
  std::vector<Parameter> walk_varied;
  for (const auto& p : space.parameters) {
    if (p.name != "QH" && walk_pins.count(p.name) == 0) walk_varied.push_back(p);
  }
  auto tensor_cores = make_path(space, "tensor-cores", attention_mma::varied(), mma_pins);
  tensor_cores.tensor_cores = true;
  space.paths = {make_path(space, "walk", walk_varied, walk_pins),
                 std::move(tensor_cores),
                 make_path(space, "stream", attention_stream::varied(), stream_pins),
                 make_path(space, "stream-merge-stage", staged_varied, attention_stream::merge_stage_pinned())};
  // Every path compiles QH = heads/kv_heads in (the contract keeps both
  // heads and kv_heads equal to the tuned shape's: stricter than the ratio,
  // and data a reader can check); the tensor-core and streaming paths also
  // compile head_dim in.
  space.paths[0].specialized_dims = {0, 1};
  space.paths[1].specialized_dims = space.paths[2].specialized_dims = space.paths[3].specialized_dims = {0, 1, 2};
  // heads × head_dim floats of q and out; kv_len × kv_heads × head_dim fp16
  // values of K and V; the scratch of scratch_bytes.
  const std::uint64_t splits = std::max(attention_walk::kMaxSplits, attention_stream::kMaxSplits);
  space.bindings = {{"q", BindingRole::input, size_rule(4, {0, 2})},
                    {"k", BindingRole::input, size_rule(2, {3, 1, 2})},
                    {"v", BindingRole::input, size_rule(2, {3, 1, 2})},
                    {"scratch", BindingRole::scratch,
                     size_rule(4 * kMaxHeads, {}) + size_rule(4 * splits, {0, 2}) + size_rule(16 * splits, {0})},
                    {"out", BindingRole::output, size_rule(4, {0, 2})}};
  space.shape_values = [](const Shape& shape) { return Config{{"QH", static_cast<int>(group_heads(shape))}}; };
  space.pruning = attention_walk::pruning();
  for (auto& r : attention_mma::pruning()) space.pruning.push_back(std::move(r));
  for (auto& r : attention_stream::pruning()) space.pruning.push_back(std::move(r));
  return space;
}

class AttentionDecode final : public Kernel {
  const Space space_ = make_space();

 public:
  std::string name() const override { return "attention_decode"; }

  std::string description() const override {
    return "decode attention: one fp32 query token per head against an fp16 KV cache [kv_len][kv_heads][head_dim], "
           "grouped-query heads, scale 1/sqrt(head_dim), fp32 out; a workgroup takes the query heads of one KV head "
           "(K and V read once), KV length split across workgroups (KV_CHUNK entries each) merged in the same dispatch; "
           "the products on CUDA cores or, MMA=1, on tensor cores";
  }

  std::vector<std::string> shape_dims() const override { return {"heads", "kv_heads", "head_dim", "kv_len"}; }

  void validate_shape(const Shape& shape) const override {
    rowops::check_dims(name(), shape_dims(), shape);
    if (shape[0] % shape[1] != 0) {
      throw Error(ErrorKind::usage, name() + ": heads " + std::to_string(shape[0]) +
                                        " must be a multiple of kv_heads " + std::to_string(shape[1]));
    }
    if (shape[0] > kMaxHeads) {
      throw Error(ErrorKind::usage, name() + ": at most " + std::to_string(kMaxHeads) + " heads");
    }
    if (shape[2] % 16 != 0 || shape[2] > attention_walk::kMaxHeadDim) {
      throw Error(ErrorKind::usage, name() + ": head_dim " + std::to_string(shape[2]) +
                                        " must be a multiple of 16 and at most " +
                                        std::to_string(attention_walk::kMaxHeadDim));
    }
    if (kv_values(shape) >= (1ull << 31)) {
      throw Error(ErrorKind::usage, name() + ": a cache of " + std::to_string(kv_values(shape)) +
                                        " values is too large for 32-bit indexing");
    }
  }

  // Llama-3-8B: 32 query heads on 8 KV heads of 128, short to long caches.
  std::vector<Shape> default_shapes() const override {
    return {{32, 8, 128, 512}, {32, 8, 128, 4096}, {32, 8, 128, 8192}};
  }

  // Grouped heads (2 and 4 per KV head), a cache length that is no multiple
  // of any slot count or split, head_dim 64 and 128.
  // (150 entries rather than 300: the gate's longest kernel on lavapipe, and
  // every split length still ends in a partial chunk.)
  std::vector<Shape> check_shapes() const override { return {{4, 2, 64, 37}, {8, 2, 128, 150}}; }

  std::vector<Space> build_spaces() const override { return {space_}; }


  // 16-byte loads, one per lane per entry where that leaves a team of at most
  // 8 lanes (head_dim 64), else two (head_dim 128: 8 lanes, within any
  // subgroup) where the registers allow, all the heads of a KV head per
  // workgroup, 128 invocations, two entries per team per step, subgroup sums;
  // no prefetch; the cache split in chunks of about a sixteenth (at least 64
  // entries, merged in one pass): 8192 entries, 16 workgroups of 512 entries
  // per KV head; the fixed-cost cuts (LEAN=1).
  Config baseline(const Shape& shape) const override {
    const auto qh = static_cast<int>(group_heads(shape));
    const int loads = shape.at(2) > 64 && qh * 16 <= static_cast<int>(attention_walk::kMaxHeadFloats) ? 2 : 1;
    int chunk = 64;
    while (chunk < 2048 && chunk * 32 <= static_cast<int>(shape.at(3))) chunk *= 2;
    if (static_cast<std::uint32_t>(chunk) >= shape.at(3)) chunk = 0;
    return {{"WG_SIZE", 128}, {"LOADS", loads}, {"VEC", 8},        {"QH", qh},
            {"TOKENS", 2},    {"PREFETCH", 0},  {"KV_CHUNK", chunk}, {"REDUCTION", 0},
            {"MERGE", chunk > 0 ? 1 : 0}, {"WIDEN", 0}, {"LEAN", 1}, {"MMA", 0}, {"STEP", 32},
            {"STREAM", 0}, {"ENTRIES", attention_stream::kPinnedEntries}, {"MERGE_STAGE", 0}, {"MERGE_WG", 0}};
  }

  // Legality only: what the templates implement, the device's limits, and
  // no config that builds another's code (parameters a path does not read
  // stay pinned). What is merely not worth measuring is the space's pruning.
  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, space_); !problem.empty()) return problem;
    if (const auto qh = static_cast<std::uint32_t>(config.at("QH")); qh != group_heads(shape)) {
      return legality::kShapeValue("QH=" + std::to_string(qh) + ": the shape sets QH=" +
                                   std::to_string(group_heads(shape)) + " (of the " +
                                   std::to_string(shape[0] / shape[1]) +
                                   " query heads per KV head; fewer reread K and V)");
    }
    if (config.at("STREAM") == 1) {
      if (auto problem = attention_stream::violation(config, shape, device); !problem.empty()) return problem;
      return stages_limits_violation(stages(config, shape), shape, 5, device);
    }
    if (config.at("MERGE_STAGE") != 0 || config.at("MERGE_WG") != 0) {
      return legality::kUnreadParameter("MERGE_STAGE and MERGE_WG are only varied with STREAM=1 (0 otherwise)");
    }
    if (config.at("ENTRIES") != attention_stream::kPinnedEntries) {
      return legality::kUnreadParameter("ENTRIES is only varied with STREAM=1");
    }
    if (config.at("MMA") == 1) {
      if (auto problem = attention_mma::violation(config, shape, device, attention_walk::kMaxSplits); !problem.empty()) {
        return problem;
      }
      return plan_limits_violation(plan(config, shape), shape, 5, device);
    }
    if (config.at("STEP") != 32) return legality::kUnreadParameter("STEP is only varied with MMA=1");
    return attention_walk::violation(config, shape, device);
  }

  // The walk's checks decided prefix by prefix (kernels/early_rules.hpp):
  // the walk's 27,648 configs per shape, checked one by one, took up to 71
  // ms on two idle cores, 56 ms so (most are legal: what is left is their
  // whole check; ci/logs/2026-11-29-enumeration-early-rules.txt). Each
  // holds where constraint_violation reaches the walk's checks (MMA=0,
  // STREAM=0), as early_rules.hpp asks.
  std::unique_ptr<PrefixChecker> prefix_checker(const Path& path, const Shape& shape, const vk::DeviceInfo& device,
                                                const std::vector<const PruningRule*>& pruning) const override {
    validate_shape(shape);
    std::vector<EarlyRule> rules;
    for (const auto& check : attention_walk::checks()) {
      auto reads = check.reads;
      reads.insert(reads.end(), {"STREAM", "MMA"});
      rules.push_back({std::move(reads), [&check, shape, &device](const Config& c) {
                         if (c.at("STREAM") == 1 || c.at("MMA") == 1) return Violation{};
                         return check.violation(c, shape, device);
                       }});
    }
    return make_early_rules_checker(*this, path, shape, device, pruning, std::move(rules));
  }

  // Stage 0 of every path; the defines carry neither MERGE_STAGE nor
  // MERGE_WG unless the splits are merged in a stage of their own (so that the
  // walk's variants keep their hashes).
  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    auto plan = first_stage(config, shape);
    std::erase_if(plan.defines, [](const auto& d) { return d.first == "MERGE_STAGE" || d.first == "MERGE_WG"; });
    if (config.at("STREAM") == 1 && config.at("MERGE_STAGE") == 1) plan.defines.emplace_back("MERGE_STAGE", "1");
    return plan;
  }

  // STREAM=1 with MERGE_STAGE=1: the streaming pass writes every split's
  // records, and attention_merge.comp merges them in a second dispatch.
  std::vector<ShaderPlan> stages(const Config& config, const Shape& shape) const override {
    std::vector<ShaderPlan> all{plan(config, shape)};
    if (config.at("STREAM") == 1 && config.at("MERGE_STAGE") == 1) {
      all.push_back(attention_stream::merge_plan(config, shape, kMaxHeads));
    }
    return all;
  }

 private:
  ShaderPlan first_stage(const Config& config, const Shape& shape) const {
    if (config.at("STREAM") == 1) return attention_stream::plan(config, shape, space_, kMaxHeads);
    if (config.at("MMA") == 1) return attention_mma::plan(config, shape, space_, kMaxHeads, attention_walk::kMaxSplits);
    return attention_walk::plan(config, space_, kMaxHeads);
  }

 public:

  // q uniform in [-2, 2) (scores of a few units: a softmax that is neither
  // flat nor one-hot), K and V uniform in [-1, 1) rounded to fp16; the
  // reference reads the rounded cache.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::size_t heads = shape[0], head_dim = shape[2];
    const auto q = rowops::random_values(heads * head_dim, seed, -2.0f, 2.0f, inputs.kind);
    auto cache = attention_cache::random_cache(kv_values(shape), inputs);
    Problem problem;
    problem.shape = shape;
    problem.buffers.push_back(rowops::input_buffer("q", q));
    problem.buffers.push_back(std::move(cache.k_buffer));
    problem.buffers.push_back(std::move(cache.v_buffer));
    problem.buffers.push_back(HostBuffer{"scratch", std::vector<std::uint8_t>(scratch_bytes(shape)), false, false});
    problem.buffers.push_back(rowops::output_buffer("out", heads * head_dim));
    problem.output_index = 4;
    problem.expected = ref::attention(q, cache.k, cache.v, {shape[0], shape[1], shape[2], shape[3]});
    return problem;
  }

  // fp32 throughout: head_dim-term dot products, exp (a few ulps), and per
  // team an online softmax over KV_CHUNK/teams entries, merged by sums over
  // teams and splits. The output is an average of values of either sign, so
  // it is ~1/sqrt(kv_len) of |v| while the errors scale with the sum of
  // |p v|: measured 2e-7 to 4e-7 relative L2 at every default shape on
  // lavapipe. A wrong KV head or scale moves it by O(1), a dropped or
  // doubled entry by ~1e-2 relative at 8192 entries. MMA=1 keeps the same
  // tolerance: q and the weights enter the fp16 products as two terms each
  // (about 22 bits), measured 2e-7 to 9e-7 on the H200 at every default shape.
  Tolerance tolerance(const Shape&) const override { return Tolerance{2e-5, 1e-4}; }

  // Reads q and the two caches, writes out; per entry and head a dot product
  // and a scaled accumulation (4 flops per value).
  Metrics metrics(const Shape& shape) const override {
    const double heads = shape.at(0), head_dim = shape.at(2), kv_len = shape.at(3);
    return Metrics{heads * head_dim * 8 + 2.0 * 2.0 * static_cast<double>(kv_values(shape)),
                   4 * heads * kv_len * head_dim};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t out = std::uint64_t{shape.at(0)} * shape.at(2) * 4;
    return 2 * out + 2 * 2 * kv_values(shape) + scratch_bytes(shape);
  }
};

const KernelRegistration attention_decode_registration([] { return std::make_unique<AttentionDecode>(); });

}  // namespace
}  // namespace vktune::kernels
