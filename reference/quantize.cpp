#include "reference/quantize.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "reference/block_pack.hpp"
#include "reference/fp16.hpp"

namespace vktune::ref {

namespace {

// round(v) to the nearest integer (ties to even), clamped to [lo, hi]; NaN -> lo.
int round_clamp(float v, int lo, int hi) {
  if (!(v >= static_cast<float>(lo))) return lo;
  if (v >= static_cast<float>(hi)) return hi;
  return static_cast<int>(std::nearbyint(v));
}

// A scale stored as fp16: rounded to nearest, kept finite.
std::uint16_t scale_to_fp16(float scale) {
  return fp32_to_fp16(std::clamp(scale, -fp16_max, fp16_max));
}

// Squared error of x quantized with scale d (q = round(x/d) in [qmin, qmax]).
double symmetric_error(const float* x, std::size_t n, float d, int qmin, int qmax) {
  double error = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int q = d == 0.0f ? 0 : round_clamp(x[i] / d, qmin, qmax);
    const double diff = static_cast<double>(x[i]) - static_cast<double>(static_cast<float>(q) * d);
    error += diff * diff;
  }
  return error;
}

// The value of x with the largest magnitude (the first one, on ties).
float signed_absmax(const float* x, std::size_t n) {
  float best = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > std::fabs(best)) best = x[i];
  }
  return best;
}

// Searches the scale d for codes in [qmin, qmax]: candidates map the largest
// magnitude to qmin or qmax, or a little inside them. `round_scale` turns a
// candidate into the scale actually stored (e.g. through fp16).
template <class RoundScale>
float search_symmetric_scale(const float* x, std::size_t n, int qmin, int qmax, RoundScale round_scale) {
  const float vmax = signed_absmax(x, n);
  if (vmax == 0.0f) return 0.0f;
  float best_scale = round_scale(vmax / static_cast<float>(qmin));
  double best_error = symmetric_error(x, n, best_scale, qmin, qmax);
  for (int step = 0; step <= 8; ++step) {
    for (const int end : {qmin, qmax}) {
      const float target = static_cast<float>(end) + (end < 0 ? 0.125f : -0.125f) * static_cast<float>(step);
      const float candidate = round_scale(vmax / target);
      const double error = symmetric_error(x, n, candidate, qmin, qmax);
      if (error < best_error) {
        best_error = error;
        best_scale = candidate;
      }
    }
  }
  return best_scale;
}

float via_fp16(float scale) { return fp16_to_fp32(scale_to_fp16(scale)); }

// Blocks of N weights with one fp16 scale d and codes c in qmin..qmax,
// stored as c - qmin (Q4_0, Q5_0): y = d * c.
template <class Block, std::size_t N, class Pack>
void quantize_offset_codes(const float* x, std::uint8_t* out, std::size_t blocks, int qmin, int qmax, Pack pack) {
  for (std::size_t b = 0; b < blocks; ++b, x += N, out += sizeof(Block)) {
    const float d = search_symmetric_scale(x, N, qmin, qmax, via_fp16);
    std::uint8_t q[N];
    for (std::size_t i = 0; i < N; ++i) {
      q[i] = static_cast<std::uint8_t>((d == 0.0f ? 0 : round_clamp(x[i] / d, qmin, qmax)) - qmin);
    }
    store_block(pack(fp32_to_fp16(d), q), out);
  }
}

void quantize_q4_0(const float* x, std::uint8_t* out, std::size_t blocks) {
  quantize_offset_codes<BlockQ4_0, qk4_0>(x, out, blocks, -8, 7, pack_q4_0);
}

void quantize_q8_0(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk8_0, out += sizeof(BlockQ8_0)) {
    const float d = search_symmetric_scale(x, qk8_0, -128, 127, via_fp16);
    std::int8_t q[qk8_0];
    for (std::size_t i = 0; i < qk8_0; ++i) {
      q[i] = static_cast<std::int8_t>(d == 0.0f ? 0 : round_clamp(x[i] / d, -128, 127));
    }
    store_block(pack_q8_0(fp32_to_fp16(d), q), out);
  }
}

// An affine fit y = scale*q - min of one K-quant sub-block.
struct AffineFit {
  float scale = 0.0f;
  float min = 0.0f;  // subtracted; >= 0
};

double affine_error(const float* x, std::size_t n, AffineFit fit, int qmax) {
  double error = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int q = fit.scale == 0.0f ? 0 : round_clamp((x[i] + fit.min) / fit.scale, 0, qmax);
    const double diff = static_cast<double>(x[i]) - (static_cast<double>(fit.scale) * q - fit.min);
    error += diff * diff;
  }
  return error;
}

// Searches scale and min for codes 0..qmax: starts from the full range, tries
// narrowed ranges, and refines each by least squares over its code assignment.
AffineFit search_affine(const float* x, std::size_t n, int qmax) {
  const float lo = std::min(0.0f, *std::min_element(x, x + n));
  const float hi = *std::max_element(x, x + n);
  AffineFit best{(hi - lo) / static_cast<float>(qmax), -lo};
  if (best.scale <= 0.0f) return AffineFit{0.0f, -lo};
  double best_error = affine_error(x, n, best, qmax);
  for (int shrink = 0; shrink <= 6; ++shrink) {
    AffineFit fit{best.scale * (1.0f - 0.02f * static_cast<float>(shrink)), -lo};
    for (int iteration = 0; iteration < 3; ++iteration) {
      // Least squares for x ~ s*q - m with the current codes.
      double sq = 0, sqq = 0, sx = 0, sxq = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double q = round_clamp((x[i] + fit.min) / fit.scale, 0, qmax);
        sq += q;
        sqq += q * q;
        sx += x[i];
        sxq += x[i] * q;
      }
      const double count = static_cast<double>(n);
      const double det = count * sqq - sq * sq;
      if (det <= 0) break;
      double s = (count * sxq - sq * sx) / det;
      double m = (s * sq - sx) / count;
      if (m < 0) {  // mins are non-negative: refit the scale alone
        m = 0;
        s = sqq > 0 ? sxq / sqq : 0;
      }
      if (!(s > 0)) break;
      fit = AffineFit{static_cast<float>(s), static_cast<float>(m)};
      const double error = affine_error(x, n, fit, qmax);
      if (error < best_error) {
        best_error = error;
        best = fit;
      }
    }
  }
  return best;
}

// Q4_K and Q5_K: 8 sub-blocks of 32 with 6-bit scales and mins.
struct K4Quantized {
  std::uint16_t d = 0;
  std::uint16_t dmin = 0;
  std::uint8_t scales[8] = {};
  std::uint8_t mins[8] = {};
  std::uint8_t q[qk_k] = {};
};

K4Quantized quantize_k4_super_block(const float* x, int qmax) {
  std::array<AffineFit, 8> fits;
  float max_scale = 0.0f;
  float max_min = 0.0f;
  for (std::size_t j = 0; j < 8; ++j) {
    fits[j] = search_affine(x + 32 * j, 32, qmax);
    max_scale = std::max(max_scale, fits[j].scale);
    max_min = std::max(max_min, fits[j].min);
  }
  K4Quantized out;
  out.d = scale_to_fp16(max_scale / 63.0f);
  out.dmin = scale_to_fp16(max_min / 63.0f);
  const float d = fp16_to_fp32(out.d);
  const float dmin = fp16_to_fp32(out.dmin);
  for (std::size_t j = 0; j < 8; ++j) {
    out.scales[j] = static_cast<std::uint8_t>(d == 0.0f ? 0 : round_clamp(fits[j].scale / d, 0, 63));
    out.mins[j] = static_cast<std::uint8_t>(dmin == 0.0f ? 0 : round_clamp(fits[j].min / dmin, 0, 63));
    // The same float operations as dequantization, so codes are chosen
    // against the values a reader will actually see.
    const float d1 = d * static_cast<float>(out.scales[j]);
    const float m1 = dmin * static_cast<float>(out.mins[j]);
    for (std::size_t l = 0; l < 32; ++l) {
      const float v = x[32 * j + l];
      out.q[32 * j + l] = static_cast<std::uint8_t>(d1 == 0.0f ? 0 : round_clamp((v + m1) / d1, 0, qmax));
    }
  }
  return out;
}

void quantize_q4_k(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk_k, out += sizeof(BlockQ4_K)) {
    const K4Quantized k = quantize_k4_super_block(x, 15);
    store_block(pack_q4_k(k.d, k.dmin, k.scales, k.mins, k.q), out);
  }
}

void quantize_q5_k(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk_k, out += sizeof(BlockQ5_K)) {
    const K4Quantized k = quantize_k4_super_block(x, 31);
    store_block(pack_q5_k(k.d, k.dmin, k.scales, k.mins, k.q), out);
  }
}

// A super-block of 16 sub-blocks of 16 weights with symmetric codes in
// qmin..qmax, each sub-block's scale a signed whole multiple (within
// +-scale_max) of one fp16 scale d: y = d * scale * code (Q6_K, Q3_K).
struct SymmetricSubBlocks {
  std::uint16_t d16 = 0;
  int scales[16] = {};
  int codes[qk_k] = {};
};

SymmetricSubBlocks symmetric_sub_blocks(const float* x, int qmin, int qmax, int scale_min, int scale_max) {
  const auto identity = [](float s) { return s; };
  std::array<float, 16> sub_scales{};
  float max_abs = 0.0f;
  for (std::size_t j = 0; j < 16; ++j) {
    sub_scales[j] = search_symmetric_scale(x + 16 * j, 16, qmin, qmax, identity);
    max_abs = std::max(max_abs, std::fabs(sub_scales[j]));
  }
  SymmetricSubBlocks out;
  out.d16 = scale_to_fp16(max_abs / static_cast<float>(scale_max));
  const float d = fp16_to_fp32(out.d16);
  for (std::size_t j = 0; j < 16; ++j) {
    out.scales[j] = d == 0.0f ? 0 : round_clamp(sub_scales[j] / d, scale_min, scale_max);
    const float step = d * static_cast<float>(out.scales[j]);
    for (std::size_t l = 0; l < 16; ++l) {
      out.codes[16 * j + l] = step == 0.0f ? 0 : round_clamp(x[16 * j + l] / step, qmin, qmax);
    }
  }
  return out;
}

void quantize_q6_k(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk_k, out += sizeof(BlockQ6_K)) {
    const auto k = symmetric_sub_blocks(x, -32, 31, -128, 127);
    std::int8_t scales[16];
    std::uint8_t q[qk_k];
    for (std::size_t j = 0; j < 16; ++j) scales[j] = static_cast<std::int8_t>(k.scales[j]);
    for (std::size_t i = 0; i < qk_k; ++i) q[i] = static_cast<std::uint8_t>(k.codes[i] + 32);
    store_block(pack_q6_k(k.d16, scales, q), out);
  }
}

// Q5_0: as Q4_0 with codes -16..15.
void quantize_q5_0(const float* x, std::uint8_t* out, std::size_t blocks) {
  quantize_offset_codes<BlockQ5_0, qk5_0>(x, out, blocks, -16, 15, pack_q5_0);
}

// Q5_1: the affine fit of a K-quant sub-block, stored as d*q + m with m = -min.
void quantize_q5_1(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk5_0, out += sizeof(BlockQ5_1)) {
    const AffineFit fit = search_affine(x, qk5_0, 31);
    const std::uint16_t d16 = scale_to_fp16(fit.scale);
    const std::uint16_t m16 = scale_to_fp16(-fit.min);
    const float d = fp16_to_fp32(d16);
    const float m = fp16_to_fp32(m16);
    std::uint8_t q[qk5_0];
    for (std::size_t i = 0; i < qk5_0; ++i) {
      q[i] = static_cast<std::uint8_t>(d == 0.0f ? 0 : round_clamp((x[i] - m) / d, 0, 31));
    }
    store_block(pack_q5_1(d16, m16, q), out);
  }
}

// Q2_K: 16 sub-blocks of 16, affine fits with 4-bit scales and mins.
void quantize_q2_k(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk_k, out += sizeof(BlockQ2_K)) {
    std::array<AffineFit, 16> fits;
    float max_scale = 0.0f;
    float max_min = 0.0f;
    for (std::size_t s = 0; s < 16; ++s) {
      fits[s] = search_affine(x + 16 * s, 16, 3);
      max_scale = std::max(max_scale, fits[s].scale);
      max_min = std::max(max_min, fits[s].min);
    }
    const std::uint16_t d16 = scale_to_fp16(max_scale / 15.0f);
    const std::uint16_t dmin16 = scale_to_fp16(max_min / 15.0f);
    const float d = fp16_to_fp32(d16);
    const float dmin = fp16_to_fp32(dmin16);
    std::uint8_t scales[16];
    std::uint8_t mins[16];
    std::uint8_t q[qk_k];
    for (std::size_t s = 0; s < 16; ++s) {
      scales[s] = static_cast<std::uint8_t>(d == 0.0f ? 0 : round_clamp(fits[s].scale / d, 0, 15));
      mins[s] = static_cast<std::uint8_t>(dmin == 0.0f ? 0 : round_clamp(fits[s].min / dmin, 0, 15));
      const float dl = d * static_cast<float>(scales[s]);  // as dequantization computes them
      const float ml = dmin * static_cast<float>(mins[s]);
      for (std::size_t l = 0; l < 16; ++l) {
        q[16 * s + l] = static_cast<std::uint8_t>(dl == 0.0f ? 0 : round_clamp((x[16 * s + l] + ml) / dl, 0, 3));
      }
    }
    store_block(pack_q2_k(d16, dmin16, scales, mins, q), out);
  }
}

// Q3_K: 16 sub-blocks of 16, symmetric codes -4..3 and signed 6-bit scales.
void quantize_q3_k(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk_k, out += sizeof(BlockQ3_K)) {
    const auto k = symmetric_sub_blocks(x, -4, 3, -32, 31);
    std::uint8_t scales[16];
    std::uint8_t q[qk_k];
    for (std::size_t j = 0; j < 16; ++j) scales[j] = static_cast<std::uint8_t>(k.scales[j] + 32);
    for (std::size_t i = 0; i < qk_k; ++i) q[i] = static_cast<std::uint8_t>(k.codes[i] + 4);
    store_block(pack_q3_k(k.d16, scales, q), out);
  }
}

// The index of the iq4nl_values entry nearest to v (the lower one on ties).
std::uint8_t nearest_iq4nl_index(float v) {
  std::uint8_t best = 0;
  for (std::uint8_t i = 1; i < 16; ++i) {
    if (std::fabs(v - static_cast<float>(iq4nl_values[i])) < std::fabs(v - static_cast<float>(iq4nl_values[best]))) {
      best = i;
    }
  }
  return best;
}

double iq4nl_error(const float* x, std::size_t n, float d) {
  double error = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float y = d == 0.0f ? 0.0f : d * static_cast<float>(iq4nl_values[nearest_iq4nl_index(x[i] / d)]);
    const double diff = static_cast<double>(x[i]) - y;
    error += diff * diff;
  }
  return error;
}

// Searches the scale of the non-linear IQ4_NL grid: candidates map the
// largest magnitude to the grid's ends (-127, 113), or a little inside them.
template <class RoundScale>
float search_iq4nl_scale(const float* x, std::size_t n, RoundScale round_scale) {
  const float vmax = signed_absmax(x, n);
  if (vmax == 0.0f) return 0.0f;
  float best_scale = round_scale(vmax / -127.0f);
  double best_error = iq4nl_error(x, n, best_scale);
  for (int step = 0; step <= 16; ++step) {
    for (const float end : {-127.0f, 113.0f}) {
      const float target = end + (end < 0 ? 1.0f : -1.0f) * static_cast<float>(step);
      const float candidate = round_scale(vmax / target);
      const double error = iq4nl_error(x, n, candidate);
      if (error < best_error) {
        best_error = error;
        best_scale = candidate;
      }
    }
  }
  return best_scale;
}

void quantize_iq4_nl(const float* x, std::uint8_t* out, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, x += qk4_nl, out += sizeof(BlockIQ4_NL)) {
    const float d = search_iq4nl_scale(x, qk4_nl, via_fp16);
    std::uint8_t q[qk4_nl];
    for (std::size_t i = 0; i < qk4_nl; ++i) q[i] = d == 0.0f ? 8 : nearest_iq4nl_index(x[i] / d);
    store_block(pack_iq4_nl(fp32_to_fp16(d), q), out);
  }
}

// IQ4_XS: 8 sub-blocks of 32 on the IQ4_NL grid, signed 6-bit scales of an fp16 d.
void quantize_iq4_xs(const float* x, std::uint8_t* out, std::size_t blocks) {
  const auto identity = [](float s) { return s; };
  for (std::size_t b = 0; b < blocks; ++b, x += qk_k, out += sizeof(BlockIQ4_XS)) {
    std::array<float, 8> sub_scales{};
    float max_abs = 0.0f;
    for (std::size_t s = 0; s < 8; ++s) {
      sub_scales[s] = search_iq4nl_scale(x + 32 * s, 32, identity);
      max_abs = std::max(max_abs, std::fabs(sub_scales[s]));
    }
    const std::uint16_t d16 = scale_to_fp16(max_abs / 31.0f);
    const float d = fp16_to_fp32(d16);
    std::uint8_t scales[8];
    std::uint8_t q[qk_k];
    for (std::size_t s = 0; s < 8; ++s) {
      const int sc = d == 0.0f ? 0 : round_clamp(sub_scales[s] / d, -32, 31);
      scales[s] = static_cast<std::uint8_t>(sc + 32);
      const float step = d * static_cast<float>(sc);
      for (std::size_t l = 0; l < 32; ++l) {
        q[32 * s + l] = step == 0.0f ? 8 : nearest_iq4nl_index(x[32 * s + l] / step);
      }
    }
    store_block(pack_iq4_xs(d16, scales, q), out);
  }
}

}  // namespace

std::vector<std::uint8_t> quantize_row(GgmlType type, const float* src, std::size_t k) {
  std::vector<std::uint8_t> out(row_bytes(type, k));
  const std::size_t blocks = k / block_weights(type);
  switch (type) {
    case GgmlType::F32:
      if (k != 0) std::memcpy(out.data(), src, k * sizeof(float));
      break;
    case GgmlType::F16:
      for (std::size_t i = 0; i < k; ++i) {
        const std::uint16_t h = fp32_to_fp16(src[i]);
        std::memcpy(out.data() + 2 * i, &h, sizeof h);
      }
      break;
    case GgmlType::Q4_0: quantize_q4_0(src, out.data(), blocks); break;
    case GgmlType::Q5_0: quantize_q5_0(src, out.data(), blocks); break;
    case GgmlType::Q5_1: quantize_q5_1(src, out.data(), blocks); break;
    case GgmlType::Q8_0: quantize_q8_0(src, out.data(), blocks); break;
    case GgmlType::Q2_K: quantize_q2_k(src, out.data(), blocks); break;
    case GgmlType::Q3_K: quantize_q3_k(src, out.data(), blocks); break;
    case GgmlType::Q4_K: quantize_q4_k(src, out.data(), blocks); break;
    case GgmlType::Q5_K: quantize_q5_k(src, out.data(), blocks); break;
    case GgmlType::Q6_K: quantize_q6_k(src, out.data(), blocks); break;
    case GgmlType::IQ4_NL: quantize_iq4_nl(src, out.data(), blocks); break;
    case GgmlType::IQ4_XS: quantize_iq4_xs(src, out.data(), blocks); break;
  }
  return out;
}

std::vector<std::uint8_t> quantize_rows(GgmlType type, const float* src, std::size_t rows, std::size_t k) {
  const std::size_t stride = row_bytes(type, k);
  std::vector<std::uint8_t> out;
  out.reserve(rows * stride);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto row = quantize_row(type, src + r * k, k);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

}  // namespace vktune::ref
