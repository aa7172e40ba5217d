#pragma once
// Dense reference ops, computed in double from float inputs (a buffer's
// values) or double ones (the intermediate arrays of a reference composed of
// several ops, which stay in double between its steps). These are the
// definitions GPU kernels are checked against, so each one states exactly what
// it computes. Rows are contiguous (row-major); `n` is the row length and the
// row count is x.size() / n. Sizes that do not fit give Error(usage).
// (Matrix multiplication lives in matmul.hpp.)
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vktune::ref {

// RMS norm, per row: y[i] = x[i] / sqrt(mean_j(x[j]^2) + eps) * w[i].
// eps is added inside the square root, to the mean of squares. An empty
// weight means w[i] = 1; otherwise weight has n entries, shared by all rows.
std::vector<double> rmsnorm(std::span<const float> x, std::size_t n, double eps,
                            std::span<const float> weight = {});
std::vector<double> rmsnorm(std::span<const double> x, std::size_t n, double eps,
                            std::span<const double> weight = {});

// Layer norm, per row: mean = sum(x)/n, var = sum((x - mean)^2)/n (biased),
// y[i] = (x[i] - mean) / sqrt(var + eps) * w[i] + b[i]; empty weight = 1,
// empty bias = 0.
std::vector<double> layernorm(std::span<const float> x, std::size_t n, double eps,
                              std::span<const float> weight = {}, std::span<const float> bias = {});
std::vector<double> layernorm(std::span<const double> x, std::size_t n, double eps,
                              std::span<const double> weight = {}, std::span<const double> bias = {});

// Softmax, per row, numerically stable: m = max(x), y[i] = exp(x[i] - m) /
// sum_j exp(x[j] - m). A row of all -inf gives NaN (0/0), as the formula says.
std::vector<double> softmax(std::span<const float> x, std::size_t n);
std::vector<double> softmax(std::span<const double> x, std::size_t n);

// Rotary position embedding. x holds positions.size() tokens, each of
// x.size() / positions.size() values = heads of head_dim (even) values; the
// token at index t is rotated by position p = positions[t]. For pair i in
// 0..head_dim/2: theta = p * freq_base^(-2i / head_dim), and the pair (a, b)
// becomes (a cos(theta) - b sin(theta), a sin(theta) + b cos(theta)).
//   normal layout: pair i is (x[2i], x[2i+1])                (GPT-J / llama "normal")
//   neox layout:   pair i is (x[i], x[i + head_dim/2])       (GPT-NeoX)
enum class RopeLayout { normal, neox };
std::vector<double> rope(std::span<const float> x, std::size_t head_dim, std::span<const std::int32_t> positions,
                         RopeLayout layout, double freq_base = 10000.0);
std::vector<double> rope(std::span<const double> x, std::size_t head_dim, std::span<const std::int32_t> positions,
                         RopeLayout layout, double freq_base = 10000.0);

// SwiGLU: y[i] = silu(a[i]) * b[i], silu(v) = v / (1 + exp(-v)).
std::vector<double> swiglu(std::span<const float> a, std::span<const float> b);
std::vector<double> swiglu(std::span<const double> a, std::span<const double> b);

// GELU, tanh form: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
std::vector<double> gelu_tanh(std::span<const float> x);
std::vector<double> gelu_tanh(std::span<const double> x);
// GELU, erf form (exact): y = 0.5 x (1 + erf(x / sqrt(2))).
std::vector<double> gelu_erf(std::span<const float> x);
std::vector<double> gelu_erf(std::span<const double> x);

// Elementwise: y[i] = a[i] + b[i] and y[i] = a[i] * b[i] (equal sizes).
std::vector<double> add(std::span<const float> a, std::span<const float> b);
std::vector<double> mul(std::span<const float> a, std::span<const float> b);
std::vector<double> add(std::span<const double> a, std::span<const double> b);
std::vector<double> mul(std::span<const double> a, std::span<const double> b);

// Index of the largest value; the lowest index wins ties; NaNs are skipped
// (an all-NaN input gives 0). Error(usage) for an empty input.
std::size_t argmax(std::span<const float> x);

// Single-query attention over a KV cache with grouped-query heads.
//   q:       n_head × head_dim (one token)
//   k, v:    n_tokens × n_kv_head × head_dim (the cache, token-major)
//   n_head must be a multiple of n_kv_head; query head h reads KV head
//   h / (n_head / n_kv_head).
// For each head: s[t] = scale * dot(q_h, k[t, kvh]), p = softmax(s) (as
// above), out_h = sum_t p[t] v[t, kvh]. scale <= 0 means 1/sqrt(head_dim).
// Returns n_head × head_dim.
struct AttentionShape {
  std::size_t n_head = 1;
  std::size_t n_kv_head = 1;
  std::size_t head_dim = 1;
  std::size_t n_tokens = 1;
};
std::vector<double> attention(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                              const AttentionShape& shape, double scale = 0.0);

// Causal attention of a prompt (prefill): q holds n_queries tokens
// (n_queries × n_head × head_dim), the last n_queries of the shape's
// n_tokens cache entries, so query i sits at position p = n_tokens -
// n_queries + i and is `attention` over cache entries 0..p (itself and
// everything before it). Returns n_queries × n_head × head_dim. With `only`
// non-empty just those queries are computed (in parallel, like all of them
// otherwise) and every other output is NaN: a sample for shapes whose whole
// reference takes too long.
std::vector<double> causal_attention(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                     const AttentionShape& shape, std::size_t n_queries,
                                     std::span<const std::size_t> only = {});

}  // namespace vktune::ref
