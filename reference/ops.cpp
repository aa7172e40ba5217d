#include "reference/ops.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "common/error.hpp"
#include "reference/parallel_rows.hpp"

namespace vktune::ref {

namespace {

[[noreturn]] void usage(const std::string& message) { throw Error(ErrorKind::usage, message); }

template <class T>
std::size_t row_count(std::span<const T> x, std::size_t n, const char* op) {
  if (n == 0 || x.size() % n != 0) {
    usage(std::string(op) + ": " + std::to_string(x.size()) + " values are not whole rows of " + std::to_string(n));
  }
  return x.size() / n;
}

template <class T>
void check_optional(std::span<const T> param, std::size_t n, const char* op, const char* what) {
  if (!param.empty() && param.size() != n) {
    usage(std::string(op) + ": " + what + " has " + std::to_string(param.size()) + " values, expected " +
          std::to_string(n));
  }
}

template <class T>
void check_same_size(std::span<const T> a, std::span<const T> b, const char* op) {
  if (a.size() != b.size()) {
    usage(std::string(op) + ": sizes differ (" + std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")");
  }
}

template <class T, class F>
std::vector<double> elementwise(std::span<const T> x, F f) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = f(static_cast<double>(x[i]));
  return y;
}

template <class T, class F>
std::vector<double> elementwise(std::span<const T> a, std::span<const T> b, const char* op, F f) {
  check_same_size(a, b, op);
  std::vector<double> y(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) y[i] = f(static_cast<double>(a[i]), static_cast<double>(b[i]));
  return y;
}

template <class T>
double weight_at(std::span<const T> w, std::size_t i, double fallback) {
  return w.empty() ? fallback : static_cast<double>(w[i]);
}

// Softmax of one row of doubles, in place.
void softmax_in_place(double* row, std::size_t n) {
  const double m = *std::max_element(row, row + n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    row[i] = std::exp(row[i] - m);
    sum += row[i];
  }
  for (std::size_t i = 0; i < n; ++i) row[i] /= sum;
}

template <class T>
std::vector<double> rmsnorm_of(std::span<const T> x, std::size_t n, double eps, std::span<const T> weight) {
  const std::size_t rows = row_count(x, n, "rmsnorm");
  check_optional(weight, n, "rmsnorm", "weight");
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    const T* row = x.data() + r * n;
    double sum_squares = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum_squares += static_cast<double>(row[i]) * row[i];
    const double inv = 1.0 / std::sqrt(sum_squares / static_cast<double>(n) + eps);
    for (std::size_t i = 0; i < n; ++i) y[r * n + i] = static_cast<double>(row[i]) * inv * weight_at(weight, i, 1.0);
  }
  return y;
}

template <class T>
std::vector<double> layernorm_of(std::span<const T> x, std::size_t n, double eps, std::span<const T> weight,
                              std::span<const T> bias) {
  const std::size_t rows = row_count(x, n, "layernorm");
  check_optional(weight, n, "layernorm", "weight");
  check_optional(bias, n, "layernorm", "bias");
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    const T* row = x.data() + r * n;
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += row[i];
    const double mean = sum / static_cast<double>(n);
    double sum_squares = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum_squares += (row[i] - mean) * (row[i] - mean);
    const double inv = 1.0 / std::sqrt(sum_squares / static_cast<double>(n) + eps);
    for (std::size_t i = 0; i < n; ++i) {
      y[r * n + i] = (row[i] - mean) * inv * weight_at(weight, i, 1.0) + weight_at(bias, i, 0.0);
    }
  }
  return y;
}

template <class T>
std::vector<double> softmax_of(std::span<const T> x, std::size_t n) {
  const std::size_t rows = row_count(x, n, "softmax");
  std::vector<double> y(x.begin(), x.end());
  for (std::size_t r = 0; r < rows; ++r) softmax_in_place(y.data() + r * n, n);
  return y;
}

template <class T>
std::vector<double> rope_of(std::span<const T> x, std::size_t head_dim, std::span<const std::int32_t> positions,
                         RopeLayout layout, double freq_base) {
  if (head_dim == 0 || head_dim % 2 != 0) usage("rope: head_dim " + std::to_string(head_dim) + " must be even");
  if (positions.empty() || x.size() % positions.size() != 0 || (x.size() / positions.size()) % head_dim != 0) {
    usage("rope: " + std::to_string(x.size()) + " values are not " + std::to_string(positions.size()) +
          " tokens of whole heads of " + std::to_string(head_dim));
  }
  const std::size_t per_token = x.size() / positions.size();
  const std::size_t half = head_dim / 2;
  std::vector<double> y(x.begin(), x.end());
  for (std::size_t t = 0; t < positions.size(); ++t) {
    for (std::size_t head = 0; head < per_token / head_dim; ++head) {
      double* h = y.data() + t * per_token + head * head_dim;
      for (std::size_t i = 0; i < half; ++i) {
        const double theta = static_cast<double>(positions[t]) *
                             std::pow(freq_base, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim));
        const double c = std::cos(theta);
        const double s = std::sin(theta);
        const std::size_t ia = layout == RopeLayout::normal ? 2 * i : i;
        const std::size_t ib = layout == RopeLayout::normal ? 2 * i + 1 : i + half;
        const double a = h[ia];
        const double b = h[ib];
        h[ia] = a * c - b * s;
        h[ib] = a * s + b * c;
      }
    }
  }
  return y;
}

template <class T>
std::vector<double> swiglu_of(std::span<const T> a, std::span<const T> b) {
  return elementwise(a, b, "swiglu", [](double u, double v) { return u / (1.0 + std::exp(-u)) * v; });
}

template <class T>
std::vector<double> gelu_tanh_of(std::span<const T> x) {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return elementwise(x, [k](double v) { return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))); });
}

template <class T>
std::vector<double> gelu_erf_of(std::span<const T> x) {
  return elementwise(x, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2)); });
}

template <class T>
std::vector<double> add_of(std::span<const T> a, std::span<const T> b) {
  return elementwise(a, b, "add", [](double u, double v) { return u + v; });
}

template <class T>
std::vector<double> mul_of(std::span<const T> a, std::span<const T> b) {
  return elementwise(a, b, "mul", [](double u, double v) { return u * v; });
}

}  // namespace

// Each op for float inputs (a buffer's values) and for double ones (a
// composed reference's intermediate arrays, kept in double between steps).
std::vector<double> rmsnorm(std::span<const float> x, std::size_t n, double eps, std::span<const float> weight) {
  return rmsnorm_of(x, n, eps, weight);
}
std::vector<double> rmsnorm(std::span<const double> x, std::size_t n, double eps, std::span<const double> weight) {
  return rmsnorm_of(x, n, eps, weight);
}
std::vector<double> layernorm(std::span<const float> x, std::size_t n, double eps, std::span<const float> weight,
                              std::span<const float> bias) {
  return layernorm_of(x, n, eps, weight, bias);
}
std::vector<double> layernorm(std::span<const double> x, std::size_t n, double eps, std::span<const double> weight,
                              std::span<const double> bias) {
  return layernorm_of(x, n, eps, weight, bias);
}
std::vector<double> softmax(std::span<const float> x, std::size_t n) { return softmax_of(x, n); }
std::vector<double> softmax(std::span<const double> x, std::size_t n) { return softmax_of(x, n); }
std::vector<double> rope(std::span<const float> x, std::size_t head_dim, std::span<const std::int32_t> positions,
                         RopeLayout layout, double freq_base) {
  return rope_of(x, head_dim, positions, layout, freq_base);
}
std::vector<double> rope(std::span<const double> x, std::size_t head_dim, std::span<const std::int32_t> positions,
                         RopeLayout layout, double freq_base) {
  return rope_of(x, head_dim, positions, layout, freq_base);
}
std::vector<double> swiglu(std::span<const float> a, std::span<const float> b) { return swiglu_of(a, b); }
std::vector<double> swiglu(std::span<const double> a, std::span<const double> b) { return swiglu_of(a, b); }
std::vector<double> gelu_tanh(std::span<const float> x) { return gelu_tanh_of(x); }
std::vector<double> gelu_tanh(std::span<const double> x) { return gelu_tanh_of(x); }
std::vector<double> gelu_erf(std::span<const float> x) { return gelu_erf_of(x); }
std::vector<double> gelu_erf(std::span<const double> x) { return gelu_erf_of(x); }
std::vector<double> add(std::span<const float> a, std::span<const float> b) { return add_of(a, b); }
std::vector<double> add(std::span<const double> a, std::span<const double> b) { return add_of(a, b); }
std::vector<double> mul(std::span<const float> a, std::span<const float> b) { return mul_of(a, b); }
std::vector<double> mul(std::span<const double> a, std::span<const double> b) { return mul_of(a, b); }

std::size_t argmax(std::span<const float> x) {
  if (x.empty()) usage("argmax of an empty input");
  std::size_t best = x.size();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;
    if (best == x.size() || x[i] > x[best]) best = i;
  }
  return best == x.size() ? 0 : best;
}

std::vector<double> attention(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                              const AttentionShape& shape, double scale) {
  const auto [n_head, n_kv_head, head_dim, n_tokens] = shape;
  if (n_head == 0 || n_kv_head == 0 || head_dim == 0 || n_tokens == 0 || n_head % n_kv_head != 0) {
    usage("attention: n_head " + std::to_string(n_head) + " must be a non-zero multiple of n_kv_head " +
          std::to_string(n_kv_head) + ", with non-zero head_dim and tokens");
  }
  const std::size_t kv_size = n_tokens * n_kv_head * head_dim;
  if (q.size() != n_head * head_dim || k.size() != kv_size || v.size() != kv_size) {
    usage("attention: expected q of " + std::to_string(n_head * head_dim) + " and k, v of " +
          std::to_string(kv_size) + " values");
  }
  if (scale <= 0.0) scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  const std::size_t group = n_head / n_kv_head;
  std::vector<double> out(n_head * head_dim, 0.0);
  std::vector<double> scores(n_tokens);
  for (std::size_t h = 0; h < n_head; ++h) {
    const std::size_t kvh = h / group;
    const float* qh = q.data() + h * head_dim;
    for (std::size_t t = 0; t < n_tokens; ++t) {
      const float* kt = k.data() + (t * n_kv_head + kvh) * head_dim;
      double dot = 0.0;
      for (std::size_t i = 0; i < head_dim; ++i) dot += static_cast<double>(qh[i]) * kt[i];
      scores[t] = scale * dot;
    }
    softmax_in_place(scores.data(), n_tokens);
    for (std::size_t t = 0; t < n_tokens; ++t) {
      const float* vt = v.data() + (t * n_kv_head + kvh) * head_dim;
      for (std::size_t i = 0; i < head_dim; ++i) out[h * head_dim + i] += scores[t] * vt[i];
    }
  }
  return out;
}

std::vector<double> causal_attention(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                     const AttentionShape& shape, std::size_t n_queries,
                                     std::span<const std::size_t> only) {
  // Plain names rather than a structured binding: the lambda below uses them,
  // and clang before 16 (the fuzzers' compiler) cannot capture bindings.
  const std::size_t n_head = shape.n_head, n_kv_head = shape.n_kv_head, head_dim = shape.head_dim;
  const std::size_t n_tokens = shape.n_tokens;
  const std::size_t row = n_head * head_dim, entry = n_kv_head * head_dim;
  if (n_queries == 0 || n_queries > n_tokens || q.size() != n_queries * row) {
    usage("causal_attention: expected 1 to " + std::to_string(n_tokens) + " queries of " + std::to_string(row) +
          " values each, got " + std::to_string(q.size()) + " values for " + std::to_string(n_queries));
  }
  for (const std::size_t i : only) {
    if (i >= n_queries) usage("causal_attention: query " + std::to_string(i) + " of " + std::to_string(n_queries));
  }
  std::vector<double> out(n_queries * row, std::nan(""));
  const std::size_t count = only.empty() ? n_queries : only.size();
  parallel_rows(count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) {
      const std::size_t i = only.empty() ? j : only[j];
      const std::size_t seen = n_tokens - n_queries + i + 1;  // entries 0..position
      const auto o = attention(q.subspan(i * row, row), k.first(seen * entry), v.first(seen * entry),
                               {n_head, n_kv_head, head_dim, seen});
      std::copy(o.begin(), o.end(), out.begin() + static_cast<std::ptrdiff_t>(i * row));
    }
  });
  return out;
}

}  // namespace vktune::ref
