// What the quantized matmul spaces search (kernels/quant_matmul.hpp): one
// path per template, and the pruning rules, those measured on the H200 keyed
// to NVIDIA and those that hold on any GPU. Legality stays with the kernel
// (kernels/quant_matmul.cpp).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernels/matvec_rules.hpp"
#include "kernels/quant_coopmat.hpp"
#include "kernels/quant_matmul.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels {

Path pinned_path(const Space& space, std::string name, Config pinned,
                     const std::map<std::string, std::vector<int>>& values) {
  Path path{std::move(name), {}, std::move(pinned)};
  for (const auto& p : space.parameters) {
    if (path.pinned.count(p.name) != 0) continue;
    path.parameters.push_back(p);
    if (const auto it = values.find(p.name); it != values.end()) path.parameters.back().values = it->second;
  }
  return path;
}

PruningRule few_invocations_rule() {
  return {"prefill.few-invocations",
          "fp32 tiles of fewer than 32 invocations per workgroup fill less than one subgroup of most GPUs",
          DeviceFilter{}, [](const Config& c, const Shape&) {
            return !quant_coopmat::uses_coopmat(c) &&
                   (c.at("TILE_M") / c.at("THREAD_M")) * (c.at("TILE_N") / c.at("THREAD_N")) < 32;
          }};
}

// One path per decode template: matvec_quant.comp (fp32 activations),
// matvec_quant_q8.comp (W_STAGE=0), matvec_quant_q8_staged.comp (W_STAGE > 0)
// and the format's dedicated layout. Each pins what its template does not
// read at the value the other paths' configs carry, so the defines (and the
// variant hashes) are those of the configs before paths existed.
std::vector<Path> QuantMatmul::decode_paths(const Space& decode) const {
  const auto layout = layout_parameter();
  auto with = [&](Config pinned, int w_stage, int dedicated, int x_scope = 0) {
    if (w_stage >= 0) pinned["W_STAGE"] = w_stage;
    if (!layout.empty()) {
      pinned[layout] = dedicated;
      pinned["X_SCOPE"] = x_scope;
    }
    return pinned;
  };
  Config x_q8 = quantized_activations();
  x_q8["REDUCTION"] = 0;
  std::vector<Path> paths{
      pinned_path(decode, "fp32", with(fp32_activations(), 0, 0)),
      pinned_path(decode, "x-q8", with(x_q8, 0, 0)),
      pinned_path(decode, "x-q8-staged", with(x_q8, -1, 0), {{"W_STAGE", {1024, 2048}}}),
  };
  if (!layout.empty()) {
    std::map<std::string, std::vector<int>> values;
    // Q6_K's template once split a super-block in halves (8 invocations at
    // least); it no longer does, but THREADS_PER_ROW=4 (one slot) stays out
    // of the path: never measured, and a quarter more of the gate's variants.
    if (format_.type == ref::GgmlType::Q6_K) values["THREADS_PER_ROW"] = {8, 16, 32, 64};
    const std::string name = format_.block_pairs ? "x-q8-block-pairs" : "x-q8-super-block";
    paths.push_back(pinned_path(decode, name, with(x_q8, 0, 1), values));
    // X_SCOPE=1 last: a config stored before X_SCOPE existed is completed
    // by the first path that agrees with it, the workgroup-scope one above.
    // Its UNROLL takes 1 and 2: a slot's region holds UNROLL units of x, and
    // 4 (in the gate's array, not on NVIDIA: quant_matmul.x-q8-unroll4) would
    // take it past 96 variants.
    auto slot_x = with(x_q8, 0, 1, 1);
    slot_x["X_SEGMENT"] = kSlotScopeSegment;
    values["UNROLL"] = {1, 2};
    paths.push_back(pinned_path(decode, name + "-slot-x", slot_x, values));
  }
  if (format_.type == ref::GgmlType::Q4_K) {  // matvec_q4k.comp: 8 invocations per super-block
    paths.push_back(pinned_path(decode, "fp32-super-block", with(fp32_activations(), 0, 1),
                                {{"THREADS_PER_ROW", {8, 16, 32, 64}}}));
  }
  return paths;
}

std::vector<PruningRule> QuantMatmul::decode_pruning() const {
  const QuantFormat f = format_;
  const std::string layout = layout_parameter();
  const auto dedicated = [layout](const Config& c) { return !layout.empty() && c.at(layout) == 1; };
  // The integer-dot dedicated layouts (all but Q4_K's exact one, matvec_q4k.comp).
  const auto dedicated_q8 = [dedicated](const Config& c) { return dedicated(c) && uses_quantized_activations(c); };
  // Invocations per unit of a dedicated layout: 4, or 8 in Q4_K's exact one.
  const auto parts = [](const Config& c) { return uses_quantized_activations(c) ? 4 : 8; };
  const auto rows_per_thread = [](const Config& c) {
    return matvec::rows_per_invocation(c.at("WG_SIZE"), c.at("ROWS_PER_WG"), c.at("THREADS_PER_ROW"));
  };
  const auto units = [f](const Shape& s) { return s.at(2) / f.block_weights * f.units; };
  const auto x_q8 = [](const Config& c) { return uses_quantized_activations(c); };
  const auto staged = [](const Config& c) { return c.at("W_STAGE") != 0; };
  const DeviceFilter nvidia{kVendorNvidia, ""};
  const DeviceFilter any{};
  std::vector<PruningRule> rules{
      // Measured on the H200, or kept out of its gate.
      {"quant_matmul.rows32-dedicated-only",
       "ROWS_PER_WG=32 was matmul_q4k's integer-path winner on the H200; offered with the dedicated layouts only",
       nvidia, [dedicated_q8](const Config& c, const Shape&) { return c.at("ROWS_PER_WG") > 16 && !dedicated_q8(c); }},
      {"quant_matmul.x-q8-rows",
       "X_QUANT=1 with fewer than 4 rows per workgroup (x quantized per workgroup) was kept out of the H200 gate",
       nvidia, [x_q8](const Config& c, const Shape&) { return x_q8(c) && c.at("ROWS_PER_WG") < 4; }},
      {"quant_matmul.x-q8-unroll4", "X_QUANT=1 with W_STAGE=0 and UNROLL=4 was never among the best on the H200",
       nvidia,
       [x_q8](const Config& c, const Shape&) { return x_q8(c) && c.at("W_STAGE") == 0 && c.at("UNROLL") > 2; }},
      {"quant_matmul.staged-whole-subgroup",
       "W_STAGE > 0: a row group of one whole 32-wide subgroup (512-byte loads, the widest its barriers allow) on "
       "the H200; narrower row groups were not measured",
       nvidia,
       [staged](const Config& c, const Shape&) {
         const int sg = c.at("SUBGROUP_SIZE");
         return staged(c) && c.at("THREADS_PER_ROW") != (sg != 0 ? sg : 32);
       }},
      {"quant_matmul.staged-rows", "W_STAGE > 0 with fewer than 8 rows per workgroup: as matmul_q4k's integer path "
                                   "on the H200, the staged x and weights serve 8 or more",
       nvidia, [staged](const Config& c, const Shape&) { return staged(c) && c.at("ROWS_PER_WG") < 8; }},
      {"quant_matmul.dedicated-threads",
       "dedicated layouts: THREADS_PER_ROW 16 or 32 (4 or 8 slots), the BLOCK_SLOTS matmul_q4k's integer path won "
       "with on the H200; Q6_K's also 8 (2 slots), its best at 1x14336x4096 in the full space on an H100 "
       "(24.4 against 26.0 us, measurements/nvidia-h100/session13/); the slot-scope x (X_SCOPE=1) also 64 (16 slots), its "
       "best at Q8_0 1x14336x4096 and Q4_0 1x4096x14336 in the full space on an H100 (24.8 against 26.5 us, "
       "10.7 against 11.5; measurements/nvidia-h100/session20/)",
       nvidia,
       [dedicated_q8, f](const Config& c, const Shape&) {
         const int t = c.at("THREADS_PER_ROW");
         return dedicated_q8(c) && t != 16 && t != 32 && !(t == 8 && f.type == ref::GgmlType::Q6_K) &&
                !(t == 64 && c.at("X_SCOPE") == 1);
       }},
      {"quant_matmul.dedicated-rows", "dedicated layouts with fewer than 8 rows per workgroup waste the quantized x; "
                                      "not among matmul_q4k's integer-path winners on the H200",
       nvidia, [dedicated_q8](const Config& c, const Shape&) { return dedicated_q8(c) && c.at("ROWS_PER_WG") < 8; }},
      {"quant_matmul.dedicated-wg", "dedicated layouts at 64 invocations: matmul_q4k's integer-path winners on the "
                                    "H200 ran 128 or 256; kept out of the gate",
       nvidia, [dedicated_q8](const Config& c, const Shape&) { return dedicated_q8(c) && c.at("WG_SIZE") < 128; }},
      {"quant_matmul.dedicated-one-row", "dedicated layouts with one row per invocation: matmul_q4k's integer-path "
                                         "winners on the H200 took 2 or more (each x word serving them all); not "
                                         "Q6_K's, whose best at 1x14336x4096 on an H100 took one (session 13)",
       nvidia,
       [dedicated_q8, rows_per_thread, f](const Config& c, const Shape&) {
         return dedicated_q8(c) && rows_per_thread(c) == 1 && f.type != ref::GgmlType::Q6_K;
       }},
      {"quant_matmul.tree-sums", "REDUCTION=1 over more than 4 sums per invocation was never worth it on the H200",
       nvidia,
       [rows_per_thread](const Config& c, const Shape&) {
         return c.at("REDUCTION") == 1 && rows_per_thread(c) * c.at("COLS_PER_PASS") > 4;
       }},
      // What any GPU wastes.
      {"matvec.idle-threads", "THREADS_PER_ROW past the units of a row: some invocations never work", any,
       [units](const Config& c, const Shape& s) { return matvec::idle_threads(c.at("THREADS_PER_ROW"), units(s)); }},
      {"matvec.unroll-past-row", "THREADS_PER_ROW*UNROLL past the units of a row: the unrolled loop never runs", any,
       [units](const Config& c, const Shape& s) {
         return matvec::unroll_past_row(c.at("THREADS_PER_ROW"), c.at("UNROLL"), units(s));
       }},
      {"matvec.sums", "more than 16 sums (rows per invocation * COLS_PER_PASS) per invocation spill registers", any,
       [rows_per_thread](const Config& c, const Shape&) {
         return matvec::too_many_sums(rows_per_thread(c), c.at("COLS_PER_PASS"));
       }},
      {"quant_matmul.weights-in-flight", "more than 64 weights (rows per invocation * UNROLL units) in flight per "
                                         "invocation only cost registers",
       any,
       [f, rows_per_thread](const Config& c, const Shape&) {
         return static_cast<std::uint32_t>(rows_per_thread(c) * c.at("UNROLL")) * (f.block_weights / f.units) > 64;
       }},
      {"quant_matmul.tree-narrow-rows",
       "REDUCTION=1 below THREADS_PER_ROW=16: so few invocations are summed by shuffles on every device", any,
       [](const Config& c, const Shape&) { return c.at("REDUCTION") == 1 && c.at("THREADS_PER_ROW") < 16; }},
      long_segment_rule(),
      {"quant_matmul.staged-half-run", "W_STAGE=2048 where a run of 1024 bytes already holds the whole row: more "
                                       "shared memory for the same runs",
       any,
       [this, staged](const Config& c, const Shape& s) {
         if (!staged(c) || c.at("W_STAGE") <= 1024) return false;
         Config half = c;
         half["W_STAGE"] = c.at("W_STAGE") / 2;
         return stage_blocks(half) >= s.at(2) / format_.block_weights;
       }},
      {"quant_matmul.staged-registers", "W_STAGE > 0 holding more than 16 uvec4 registers (rows per invocation * "
                                        "16-byte loads per lane) for the run in flight",
       any,
       [this, staged, rows_per_thread](const Config& c, const Shape&) {
         if (!staged(c)) return false;
         const std::uint32_t vec4s = stage_blocks(c) * format_.block_bytes / 16;
         const auto t = static_cast<std::uint32_t>(c.at("THREADS_PER_ROW"));
         return static_cast<std::uint32_t>(rows_per_thread(c)) * ((vec4s + t - 1) / t) > 16;
       }},
      {"quant_matmul.dedicated-in-flight", "dedicated layouts with rows per invocation * UNROLL above 4 (256 "
                                           "weights in flight, as matmul_q4k's integer path) only cost registers",
       any,
       [dedicated_q8, rows_per_thread](const Config& c, const Shape&) {
         return dedicated_q8(c) && rows_per_thread(c) * c.at("UNROLL") > 4;
       }},
  };
  if (f.type == ref::GgmlType::Q4_K) {
    // matvec_q4k.comp (Q4_K's exact layout): the rules matmul_q4k's fp32
    // template had before it joined the family.
    const auto exact = [dedicated](const Config& c) { return dedicated(c) && !uses_quantized_activations(c); };
    rules.push_back({"quant_matmul.exact-weight-registers",
                     "SUPER_BLOCK=1 with X_QUANT=0: more than 32 registers of weights (rows per invocation * 4 words "
                     "* UNROLL) per invocation",
                     any, [exact, rows_per_thread](const Config& c, const Shape&) {
                       return exact(c) && rows_per_thread(c) * 4 * c.at("UNROLL") > 32;
                     }});
    rules.push_back({"quant_matmul.exact-tree-plain",
                     "SUPER_BLOCK=1 with X_QUANT=0: REDUCTION=1 only varied with UNROLL=1 on the H200", nvidia,
                     [exact](const Config& c, const Shape&) {
                       return exact(c) && c.at("REDUCTION") == 1 && c.at("UNROLL") > 1;
                     }});
  }
  if (f.super_block) {
    // A slot past the row's super-blocks never works, and unrolling past them
    // never runs the unrolled loop (as matmul_q4k's BLOCK_SLOTS). Rows of 4096
    // or more weights fill 8 slots; on shorter rows a few idle slots are
    // allowed (Q5_K's first check shape, 3 super-blocks, runs 4 slots, one
    // idle), more than half are not.
    rules.push_back({"quant_matmul.super-block-idle-slots",
                     "SUPER_BLOCK=1 with more than half of its slots (THREADS_PER_ROW/4; /8 in Q4_K's exact "
                     "layout) past the super-blocks of a row (idle)",
                     any, [dedicated, parts, f](const Config& c, const Shape& s) {
                       return dedicated(c) && static_cast<std::uint32_t>(c.at("THREADS_PER_ROW") / parts(c)) >
                                                  2 * (s.at(2) / f.block_weights);
                     }});
    rules.push_back({"quant_matmul.super-block-unroll-past-row",
                     "SUPER_BLOCK=1 with its slots * UNROLL past the super-blocks of a row: the unrolled loop "
                     "never runs",
                     any, [dedicated, parts, f](const Config& c, const Shape& s) {
                       const int slots = c.at("THREADS_PER_ROW") / parts(c);
                       return dedicated(c) && matvec::unroll_past_row(slots, c.at("UNROLL"), s.at(2) / f.block_weights);
                     }});
  }
  return rules;
}

std::vector<PruningRule> QuantMatmul::prefill_pruning() const {
  std::vector<PruningRule> rules{
      {"prefill.tile-k-past-k", "TILE_K past K rounded up to a power of two: the rest of the slice is zeros",
       DeviceFilter{},
       [](const Config& c, const Shape& s) {
         return static_cast<std::uint32_t>(c.at("TILE_K")) > matvec::next_pow2(s.at(2));
       }},
      few_invocations_rule(),
      {"prefill.register-tile-2x2", "a 2×2 register tile does one FMA per shared-memory load: never competitive",
       DeviceFilter{},
       [](const Config& c, const Shape&) {
         return !quant_coopmat::uses_coopmat(c) && c.at("THREAD_M") * c.at("THREAD_N") < 8;
       }},
      {"prefill.tile-past-shape", "fp32 tiles past M or N rounded up to a power of two (at least 32): idle work",
       DeviceFilter{},
       [](const Config& c, const Shape& s) {
         return !quant_coopmat::uses_coopmat(c) &&
                (static_cast<std::uint32_t>(c.at("TILE_M")) > std::max(32u, matvec::next_pow2(s.at(0))) ||
                 static_cast<std::uint32_t>(c.at("TILE_N")) > std::max(32u, matvec::next_pow2(s.at(1))));
       }},
  };
  for (auto& rule : quant_coopmat::pruning()) rules.push_back(std::move(rule));
  return rules;
}

}  // namespace vktune::kernels
