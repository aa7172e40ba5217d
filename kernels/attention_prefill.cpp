// attention_prefill: a prompt's causal attention, many query tokens against
// an fp16 KV cache in one dispatch, flash-attention style (an online softmax:
// no score matrix in memory), with grouped-query heads, as
// reference/ops.hpp `causal_attention` defines it. Shape (tokens, heads,
// kv_heads, head_dim, kv_len): the prompt's `tokens` queries are the last
// `tokens` of the cache's kv_len entries (kv_len = tokens for a prompt from
// an empty cache; more for a prompt that continues a conversation), query t
// at position kv_len - tokens + t sees entries 0..that position. q fp32
// [tokens][heads][head_dim], K and V fp16 [kv_len][kv_heads][head_dim] (the
// cache attention_decode reads and kv_store writes), out fp32
// [tokens][heads][head_dim]; scale 1/sqrt(head_dim).
//
// Two paths, one template each (include/attention_prefill_io.glsl holds
// what they share): the walk (MMA=0, templates/attention_prefill.comp) on
// CUDA cores, a team of TEAM lanes per query, K and V staged in shared
// memory BC entries at a time, for every device with subgroup shuffles; and
// tensor-cores (MMA=1, templates/attention_prefill_mma.comp), 16*MT queries
// per subgroup as matrix products through GL_NV_cooperative_matrix. A
// workgroup takes consecutive queries of one head (of HPW heads that share
// a KV head, on tensor cores); x: query tiles (the longest first), y: heads
// (groups of HPW).
//
// constraint_violation holds legality only (what the templates implement,
// the device's features and limits, pinned parameters). The pruning rules
// are costs that hold on any GPU; no GPU's measurements prune this space
// yet (`vktune list attention_prefill`).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "kernels/attention_cache_inputs.hpp"
#include "kernels/attention_rules.hpp"
#include "kernels/coopmat.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels {
namespace {

constexpr std::uint32_t kMaxPrefillHeadDim = 256;
// Above this many multiply-adds of the reference (visible pairs × heads ×
// head_dim × 2) the CPU computes a sample of the queries (Problem::expected).
constexpr double kFullReferenceMacs = 3.0e8;
constexpr std::uint32_t kSampledQueries = 48;
constexpr coopmat::MatrixShape kMatrix{16, 16, 16};

// Query-key pairs under the causal mask.
double visible_pairs(const Shape& shape) {
  const double tokens = shape.at(0), before = static_cast<double>(shape.at(4)) - shape.at(0);
  return tokens * before + tokens * (tokens + 1) / 2;
}

std::uint64_t prefill_kv_values(const Shape& shape) { return std::uint64_t{shape.at(4)} * shape.at(2) * shape.at(3); }
std::uint64_t q_values(const Shape& shape) { return std::uint64_t{shape.at(0)} * shape.at(1) * shape.at(3); }

// Query rows (of all its heads) per workgroup.
std::uint32_t workgroup_rows(const Config& c) {
  const auto wg = static_cast<std::uint32_t>(c.at("WG_SIZE"));
  return c.at("MMA") == 1 ? wg / coopmat::kWarp * 16 * static_cast<std::uint32_t>(c.at("MT"))
                          : wg / static_cast<std::uint32_t>(c.at("TEAM"));
}

// Query tokens per workgroup: its rows over the HPW heads it takes.
std::uint32_t tile_rows(const Config& c) { return workgroup_rows(c) / static_cast<std::uint32_t>(c.at("HPW")); }

// The parameters a path does not read, at the one value it takes them.
const Config kWalkPins{{"MMA", 0}, {"MT", 1}, {"PREFETCH", 0}, {"HPW", 1}};
const Config kMmaPins{{"MMA", 1}, {"TEAM", 4}};

Space make_prefill_space() {
  Space space;
  space.name = "prefill";
  space.template_file = "attention_prefill.comp";
  space.parameters = {
      {"WG_SIZE", {64, 128, 256}, "invocations per workgroup"},
      {"TEAM",
       {4, 8, 16},
       "MMA=0: lanes per query (each holds head_dim/TEAM of q and of the accumulator; a team's dot products "
       "summed by shuffles)"},
      {"BC",
       {16, 32, 64, 128},
       "cache entries per staged block (K and V of BC entries in shared memory, read by every query of the "
       "workgroup)"},
      {"MMA",
       {0, 1},
       "0 = the CUDA-core walk; 1 = tensor cores (GL_NV_cooperative_matrix, fp16 16x16x16 into fp32): scores and "
       "weighted values as matrix products, q and the softmax weights in fp16"},
      {"MT", {1, 2}, "MMA=1: 16-query tiles per subgroup (each staged K and V tile used MT times)"},
      {"PREFETCH", {0, 1}, "MMA=1: 1 = the next block's K and V loads in flight during this block's products"},
      {"HPW",
       {1, 2, 4},
       "MMA=1: query heads per workgroup, of one KV head (grouped-query): each staged K and V block serves "
       "HPW heads, and a workgroup takes 1/HPW of the tokens"},
  };
  auto varied = [&](std::vector<std::string> names) {
    std::vector<Parameter> out;
    for (const auto& p : space.parameters) {
      if (std::find(names.begin(), names.end(), p.name) != names.end()) out.push_back(p);
    }
    return out;
  };
  space.paths = {Path{"walk", varied({"WG_SIZE", "TEAM", "BC"}), kWalkPins},
                 Path{"tensor-cores", varied({"WG_SIZE", "BC", "MT", "PREFETCH", "HPW"}), kMmaPins}};
  space.paths.back().tensor_cores = true;
  // head_dim is compiled in (register arrays and tiles are sized by it).
  for (auto& path : space.paths) path.specialized_dims = {3};
  space.bindings = {{"q", BindingRole::input, size_rule(4, {0, 1, 3})},
                    {"k", BindingRole::input, size_rule(2, {4, 2, 3})},
                    {"v", BindingRole::input, size_rule(2, {4, 2, 3})},
                    {"out", BindingRole::output, size_rule(4, {0, 1, 3})}};
  const DeviceFilter every{};
  space.pruning = {
      PruningRule{"tile-past-prompt",
                  "a workgroup of twice the prompt's queries or more leaves most of its invocations idle", every,
                  [](const Config& c, const Shape& s) { return tile_rows(c) >= 2 * s.at(0) && c.at("WG_SIZE") > 64; }},
      PruningRule{"block-past-cache", "a staged block of twice the cache's entries or more stages mostly nothing",
                  every,
                  [](const Config& c, const Shape& s) {
                    return c.at("BC") >= 2 * static_cast<int>(s.at(4)) && c.at("BC") > 16;
                  }},
  };
  return space;
}

class AttentionPrefill final : public Kernel {
  const Space space_ = make_prefill_space();

 public:
  std::string name() const override { return "attention_prefill"; }

  std::string description() const override {
    return "prefill attention: a prompt's fp32 queries [tokens][heads][head_dim], causal, against an fp16 KV cache "
           "[kv_len][kv_heads][head_dim] whose last `tokens` entries they are, grouped-query heads, scale "
           "1/sqrt(head_dim), fp32 out; one dispatch with an online softmax (flash-attention style), on CUDA cores or, "
           "MMA=1, on tensor cores";
  }

  std::vector<std::string> shape_dims() const override { return {"tokens", "heads", "kv_heads", "head_dim", "kv_len"}; }

  void validate_shape(const Shape& shape) const override {
    rowops::check_dim_count(name(), shape_dims(), shape);
    const std::uint32_t tokens = shape[0], heads = shape[1], kv_heads = shape[2], head_dim = shape[3],
                        kv_len = shape[4];
    if (heads % kv_heads != 0) {
      throw Error(ErrorKind::usage, name() + ": heads " + std::to_string(heads) + " must be a multiple of kv_heads " +
                                        std::to_string(kv_heads));
    }
    if (head_dim % 16 != 0 || head_dim > kMaxPrefillHeadDim) {
      throw Error(ErrorKind::usage, name() + ": head_dim " + std::to_string(head_dim) +
                                        " must be a multiple of 16 and at most " + std::to_string(kMaxPrefillHeadDim));
    }
    if (tokens > kv_len) {
      throw Error(ErrorKind::usage, name() + ": tokens " + std::to_string(tokens) + " exceed kv_len " +
                                        std::to_string(kv_len) + " (the prompt is the cache's last entries)");
    }
    if (q_values(shape) >= (1ull << 31) || prefill_kv_values(shape) >= (1ull << 31)) {
      throw Error(ErrorKind::usage, name() + ": shape " + shape_to_string(shape) + " is too large for 32-bit indexing");
    }
  }

  // Llama-3-8B (32 query heads on 8 KV heads of 128) at prompts of 512 and
  // 2048 tokens from an empty cache; head_dim 64 as Llama-3.2-1B has it (32
  // heads on 8) at 2048.
  std::vector<Shape> default_shapes() const override {
    return {{512, 32, 8, 128, 512}, {2048, 32, 8, 128, 2048}, {2048, 32, 8, 64, 2048}};
  }

  // A prompt from an empty cache with no multiple of any tile (37 queries,
  // head_dim 64, 2 heads per KV head), and one continuing a cache of 25
  // entries (20 queries at positions 25..44, head_dim 128, 4 per KV head).
  std::vector<Shape> check_shapes() const override { return {{37, 4, 2, 64, 37}, {20, 8, 2, 128, 45}}; }

  std::vector<Space> build_spaces() const override { return {space_}; }

  // The walk: 128 invocations, 8 lanes per query (16 queries per
  // workgroup; 16 or 8 dims per lane), blocks of 32 entries (16 KiB of K
  // and V at head_dim 128).
  Config baseline(const Shape&) const override {
    return {{"WG_SIZE", 128}, {"TEAM", 8}, {"BC", 32}, {"MMA", 0}, {"MT", 1}, {"PREFETCH", 0}, {"HPW", 1}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, space_); !problem.empty()) return problem;
    const bool mma = config.at("MMA") == 1;
    for (const auto& [name, value] : mma ? kMmaPins : kWalkPins) {
      if (config.at(name) != value) {
        return legality::kUnreadParameter(std::string(mma ? "MMA=1" : "MMA=0") + " does not use " + name +
                                          ": it stays at " + std::to_string(value));
      }
    }
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const std::uint32_t head_dim = shape[3];
    if (mma) {
      if (auto p = coopmat::device_violation(kMatrix, device, "MMA=1"); !p.empty()) return p;
      if (!device.subgroup_in_compute || !device.has_subgroup_operation("vote")) {
        return legality::kSubgroupOperations(
            "MMA=1 needs subgroup vote operations in compute shaders (a subgroup's choice of the slow path)");
      }
      const auto hpw = static_cast<std::uint32_t>(config.at("HPW"));
      if ((wg / coopmat::kWarp) % hpw != 0) {
        return attention::kSubgroupSplit("HPW=" + std::to_string(hpw) + ": WG_SIZE=" + std::to_string(wg) + " has " +
                                         std::to_string(wg / coopmat::kWarp) + " subgroups, not a multiple of HPW");
      }
      if ((shape[1] / shape[2]) % hpw != 0) {
        return attention::kSubgroupSplit("HPW=" + std::to_string(hpw) + " does not divide the " +
                                         std::to_string(shape[1] / shape[2]) + " query heads per KV head");
      }
    } else {
      const auto team = static_cast<std::uint32_t>(config.at("TEAM"));
      const std::uint32_t smallest = device.min_subgroup_size != 0 ? device.min_subgroup_size : device.subgroup_size;
      if (!device.subgroup_in_compute || !device.has_subgroup_operation("shuffle") || team > smallest) {
        return legality::kSubgroupSmallest("TEAM=" + std::to_string(team) +
                                           " needs subgroup shuffles in compute shaders and a team within the "
                                           "device's smallest subgroup of " +
                                           std::to_string(smallest));
      }
      if (head_dim % (2 * team) != 0) {
        return attention::kTeam("head_dim " + std::to_string(head_dim) +
                                " does not split into pairs of dims over TEAM=" + std::to_string(team) + " lanes");
      }
      if (team > wg) return attention::kTeam("TEAM=" + std::to_string(team) + " exceeds WG_SIZE=" + std::to_string(wg));
    }
    return plan_limits_violation(plan(config, shape), shape, 4, device);
  }

  ShaderPlan plan(const Config& config, const Shape& shape) const override {
    ShaderPlan plan;
    const bool mma = config.at("MMA") == 1;
    plan.template_file = mma ? "attention_prefill_mma.comp" : "attention_prefill.comp";
    plan.defines = rowops::config_defines(config, space_);
    const std::uint32_t head_dim = shape.at(3);
    plan.defines.emplace_back("HD", std::to_string(head_dim));
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto bc = static_cast<std::uint32_t>(config.at("BC"));
    plan.local_size = {wg, 1, 1};
    plan.dispatch = {DispatchAxis{0, tile_rows(config)}, DispatchAxis{1, static_cast<std::uint32_t>(config.at("HPW"))},
                     DispatchAxis{}};
    if (mma) {
      // K and V blocks (rows padded by 16 bytes; before them a 16×16 fp32
      // staging tile per subgroup), a row max per query, and the 16×16 fp16
      // tile per subgroup through which a module compiled for KHR
      // cooperative matrices hands P to P·V (VKTUNE_COOPMAT_KHR; an NV
      // module leaves it unused: counted always, so that a table's contract
      // holds for either).
      plan.shared_memory_bytes = std::max(2 * bc * (head_dim + 8) * 2, wg / coopmat::kWarp * 1024) +
                                 4 * workgroup_rows(config) + wg / coopmat::kWarp * 512;
    } else {
      plan.shared_memory_bytes = 2 * bc * head_dim * 2;
    }
    return plan;
  }

  // q uniform in [-2, 2) (scores of a few units), K and V uniform in [-1, 1)
  // rounded to fp16; the reference reads the rounded cache. Past
  // kFullReferenceMacs, a sample of queries: the first and last ones and
  // others spread evenly between.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    validate_shape(shape);
    const std::uint64_t seed = inputs.seed;
    const auto q = rowops::random_values(q_values(shape), seed, -2.0f, 2.0f, inputs.kind);
    auto cache = attention_cache::random_cache(prefill_kv_values(shape), inputs);
    Problem problem;
    problem.shape = shape;
    problem.buffers.push_back(rowops::input_buffer("q", q));
    problem.buffers.push_back(std::move(cache.k_buffer));
    problem.buffers.push_back(std::move(cache.v_buffer));
    problem.buffers.push_back(rowops::output_buffer("out", q_values(shape)));
    problem.output_index = 3;
    const std::size_t tokens = shape[0];
    std::vector<std::size_t> sample;
    const double macs = 2.0 * visible_pairs(shape) * shape[1] * shape[3];
    if (!inputs.full_reference && macs > kFullReferenceMacs) {
      for (std::size_t i = 0; i < kSampledQueries; ++i) sample.push_back(i * (tokens - 1) / (kSampledQueries - 1));
      sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
    }
    problem.expected = ref::causal_attention(q, cache.k, cache.v, {shape[1], shape[2], shape[3], shape[4]}, tokens, sample);
    return problem;
  }

  // MMA=0 computes in fp32: dot products of head_dim terms, exp2 (a few
  // ulps) and online rescaling; like attention_decode's walk (2e-7 to 4e-7
  // relative L2 measured there), so the same bound.
  Tolerance tolerance(const Shape&) const override { return Tolerance{2e-5, 1e-4}; }

  // MMA=1 rounds q and the softmax weights to fp16 (11 bits) for the
  // tensor cores, as flash attention's fp16 mode does: each score and
  // weight carries a relative error up to 2^-11. Measured on an H100 at the
  // default shapes (the winners): 8.6e-5 to 1.3e-4 relative L2; the bound
  // is 7.5 times the worst.
  Tolerance variant_tolerance(const Config& config, const Shape& shape) const override {
    if (config.at("MMA") == 1) return Tolerance{1e-3, 1e-2};
    return tolerance(shape);
  }

  // Reads q and the cache once, writes out; per visible query-entry pair
  // and head a dot product and a scaled accumulation (4 flops per dim).
  Metrics metrics(const Shape& shape) const override {
    return Metrics{8.0 * static_cast<double>(q_values(shape)) + 4.0 * static_cast<double>(prefill_kv_values(shape)),
                   4.0 * visible_pairs(shape) * shape.at(1) * shape.at(3)};
  }

  std::uint64_t device_bytes(const Shape& shape) const override { return 8 * q_values(shape) + 4 * prefill_kv_values(shape); }
};

const KernelRegistration attention_prefill_registration([] { return std::make_unique<AttentionPrefill>(); });

}  // namespace
}  // namespace vktune::kernels
