#pragma once
// What the q, k and v products of an attention block do with their outputs
// besides storing them (templates/include/matvec_pair_store.glsl): the
// kernels named KERNEL_rope (q turned by the rope, normal layout: pairs 2i,
// 2i+1), KERNEL_rope_cache (k turned and stored as fp16 into the KV cache at
// its position's row) and KERNEL_cache (v stored into the cache). A decode
// step otherwise runs those as dispatches of their own after the products
// (rope, rope_cache, kv_store), a barrier between: one phase per layer
// fewer. fp32 activations and decode shapes (M <= 8) only.
//
// KERNEL_resnorm (attn_output) and KERNEL_swiglu_resnorm (ffn_down after its
// SwiGLU) store y = x·Wᵀ + r, the residual stream after the block's add,
// and the workgroup that finishes last writes xn, the RMS norm of each y row
// times the next block's norm weight (templates/include/residual_norm.glsl):
// the add_rmsnorm_mul a decode step otherwise runs after the product, one
// phase per block fewer. Bindings after x, W and y: r (M×N), w (N), xn
// (M×N), a counter (scratch). Any reduction that goes through
// matvec_slot_reduce.glsl serves it (the dedicated layouts, REDUCTION=0),
// rows stored one by one.
//
// KERNEL_glu (a feed-forward block's gate and up) takes W with gate's and
// up's rows interleaved (gate row i at row 2i, up row i at 2i+1) and stores
// h_i = silu(x·W[2i]ᵀ) · x·W[2i+1]ᵀ, N/2 values an x row: the SwiGLU that
// ffn_down would otherwise compute from both products' outputs in every one
// of its workgroups, computed once by the invocation that holds the pair
// (include/matvec_pair_store.glsl).
//
// Shapes: M,N,K then head_dim (the rope epilogues; N a multiple of it) then
// kv_len (the cache epilogues; M distinct positions below it). Bindings: x,
// W, y (the cache epilogues: the fp16 cache, kv_len rows of N), pos (one
// int32 per x row), base (the rope epilogues: one float). Outputs are stored
// by pairs of rows of W, so N and ROWS_PER_WG are even, and only the
// templates that reduce through include/matvec_slot_reduce.glsl serve them:
// the formats' dedicated layouts (SUPER_BLOCK=1 or BLOCK_PAIRS=1) with
// REDUCTION=0.
#include <cstdint>
#include <string>
#include <vector>

#include "common/violation.hpp"
#include "kernels/kernel.hpp"

namespace vktune::kernels {

enum class Epilogue { none, rope, rope_cache, cache, residual_norm, glu };

namespace matmul_epilogue {

// Its rules (kernels/legality.hpp has the shared ones).
inline constexpr RuleId kPairTemplate{"epilogue.pair_template"};  // a template that stores pairs of rows
inline constexpr RuleId kPairRows{"epilogue.pair_rows"};          // ROWS_PER_WG even
inline constexpr RuleId kSlotReduce{"epilogue.slot_reduce"};      // the residual norm's stores

std::string suffix(Epilogue epilogue);  // "", "_rope", "_rope_cache", "_cache", "_resnorm", "_glu"
std::string description(Epilogue epilogue);
bool rotates(Epilogue epilogue);
bool caches(Epilogue epilogue);
// The epilogues that store outputs in pairs of rows (rope, cache, glu).
bool stores_pairs(Epilogue epilogue);
// The shape's dimensions after M, N and K.
std::vector<std::string> extra_dims(Epilogue epilogue);
// Index of kv_len in the shape (caches only).
std::size_t kv_len_dim(Epilogue epilogue);

// Throws a usage error naming `kernel` for a shape the epilogue cannot take
// (its dimension count is checked by the caller).
void validate_shape(Epilogue epilogue, const std::string& kernel, const Shape& shape);
// Llama-3-8B's q (4096 rows, heads of 128), k and v (1024 rows; a cache of 4096).
std::vector<Shape> default_shapes(Epilogue epilogue);
// One x row on a row of `aligned_k` (the dedicated layouts' aligned rows) and
// three on a single block of `block_weights`, N never a multiple of the rows
// per workgroup: small caches (lavapipe runs them in the CI gate).
std::vector<Shape> check_shapes(Epilogue epilogue, std::uint32_t aligned_k, std::uint32_t block_weights);

// The product's bindings (x, W, y) made the epilogue's: y the fp16 cache
// where it caches; then pos, and base where it rotates.
void adapt_bindings(Epilogue epilogue, std::vector<Binding>& bindings);
// The only paths it takes: those pinning `layout_parameter` to 1, ROWS_PER_WG
// even and REDUCTION 0 within them.
void adapt_paths(Epilogue epilogue, const std::string& layout_parameter, std::vector<Path>& paths);
// Y_ROPE and Y_CACHE.
void add_defines(Epilogue epilogue, std::vector<ShaderPlan>& stages);
// What the pair stores need of a config (`layout`: it takes its format's
// dedicated layout).
Violation violation(Epilogue epilogue, const Config& config, bool layout);

// The problem of the product (x, W, y; expected: y's full reference) made
// the epilogue's: positions drawn from the seed, y's reference turned and/or
// placed into the cache, the buffers adapted.
void adapt_problem(Epilogue epilogue, const Shape& shape, std::uint64_t seed, Problem& problem);

// The product's tolerance with what the epilogue adds: the rope angle's
// (kernels/rope_angle.hpp, which covers an fp16 store too), or the fp16
// rounding of a plain cache store.
Tolerance tolerance(Epilogue epilogue, const Tolerance& product);
// Bytes it reads and writes beyond the product's: positions, and the
// cache's fp16 rows in place of fp32 y.
double extra_bytes(Epilogue epilogue, const Shape& shape);
// Device bytes beyond x, W and y: the positions and base, the whole cache
// in place of y.
std::uint64_t extra_device_bytes(Epilogue epilogue, const Shape& shape);

}  // namespace matmul_epilogue
}  // namespace vktune::kernels
