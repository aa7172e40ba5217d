#include "reference/dequantize.hpp"

#include <cstring>

#include "reference/fp16.hpp"
#include "reference/gguf_blocks.hpp"

namespace vktune::ref {

namespace {

void dequantize_q4_0(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ4_0), y += qk4_0) {
    const auto block = load_block<BlockQ4_0>(src);
    const float d = fp16_to_fp32(block.d);
    for (std::size_t j = 0; j < qk4_0 / 2; ++j) {
      const int low = (block.qs[j] & 0xf) - 8;
      const int high = (block.qs[j] >> 4) - 8;
      y[j] = static_cast<float>(low) * d;
      y[j + qk4_0 / 2] = static_cast<float>(high) * d;
    }
  }
}

// Q5_0 and Q5_1: the fifth bit of weight j is bit j of the 32-bit qh word.
int q5_code(const std::uint8_t (&qh)[4], const std::uint8_t (&qs)[qk5_0 / 2], std::size_t j) {
  const int nibble = j < qk5_0 / 2 ? qs[j] & 0xf : qs[j - qk5_0 / 2] >> 4;
  const int fifth = (qh[j / 8] >> (j % 8)) & 1;
  return nibble | (fifth << 4);
}

void dequantize_q5_0(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ5_0), y += qk5_0) {
    const auto block = load_block<BlockQ5_0>(src);
    const float d = fp16_to_fp32(block.d);
    for (std::size_t j = 0; j < qk5_0; ++j) y[j] = static_cast<float>(q5_code(block.qh, block.qs, j) - 16) * d;
  }
}

void dequantize_q5_1(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ5_1), y += qk5_0) {
    const auto block = load_block<BlockQ5_1>(src);
    const float d = fp16_to_fp32(block.d);
    const float m = fp16_to_fp32(block.m);
    for (std::size_t j = 0; j < qk5_0; ++j) y[j] = static_cast<float>(q5_code(block.qh, block.qs, j)) * d + m;
  }
}

void dequantize_q8_0(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ8_0), y += qk8_0) {
    const auto block = load_block<BlockQ8_0>(src);
    const float d = fp16_to_fp32(block.d);
    for (std::size_t j = 0; j < qk8_0; ++j) y[j] = static_cast<float>(block.qs[j]) * d;
  }
}

// Q2_K: weight 128h + 32p + l is bits 2p.. of qs[32h + l], in sub-block w / 16.
void dequantize_q2_k(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ2_K), y += qk_k) {
    const auto block = load_block<BlockQ2_K>(src);
    const float d = fp16_to_fp32(block.d);
    const float dmin = fp16_to_fp32(block.dmin);
    for (std::size_t s = 0; s < qk_k / 16; ++s) {
      const float dl = d * static_cast<float>(block.scales[s] & 0xf);
      const float ml = dmin * static_cast<float>(block.scales[s] >> 4);
      for (std::size_t i = 0; i < 16; ++i) {
        const std::size_t w = 16 * s + i;
        const std::size_t h = w / 128, p = (w % 128) / 32, l = w % 32;
        const int q = (block.qs[32 * h + l] >> (2 * p)) & 3;
        y[w] = dl * static_cast<float>(q) - ml;
      }
    }
  }
}

// Q3_K: as Q2_K's low bits, plus a third bit in hmask and signed scales.
void dequantize_q3_k(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ3_K), y += qk_k) {
    const auto block = load_block<BlockQ3_K>(src);
    const float d = fp16_to_fp32(block.d);
    for (int s = 0; s < 16; ++s) {
      const float dl = d * static_cast<float>(q3_k_scale(s, block.scales) - 32);
      for (int i = 0; i < 16; ++i) {
        const int w = 16 * s + i;
        const int h = w / 128, p = (w % 128) / 32, l = w % 32;
        const int low = (block.qs[32 * h + l] >> (2 * p)) & 3;
        const int third = (block.hmask[l] >> (4 * h + p)) & 1;
        y[w] = dl * static_cast<float>(low + 4 * third - 4);
      }
    }
  }
}

// Q4_K and Q5_K share everything but the fifth bit; qh is null for Q4_K.
void dequantize_k4_super_block(float d, float dmin, const std::uint8_t* scales, const std::uint8_t* qs,
                               const std::uint8_t* qh, float* y) {
  for (int chunk = 0; chunk < 4; ++chunk) {
    std::uint8_t sc = 0;
    std::uint8_t m = 0;
    get_scale_min_k4(2 * chunk, scales, sc, m);
    const float d1 = d * static_cast<float>(sc);
    const float m1 = dmin * static_cast<float>(m);
    get_scale_min_k4(2 * chunk + 1, scales, sc, m);
    const float d2 = d * static_cast<float>(sc);
    const float m2 = dmin * static_cast<float>(m);
    const std::uint8_t* q = qs + 32 * chunk;
    const unsigned bit_low = 1u << (2 * chunk);
    const unsigned bit_high = 1u << (2 * chunk + 1);
    for (int l = 0; l < 32; ++l) {
      const int high_bit = (qh != nullptr && (qh[l] & bit_low) != 0) ? 16 : 0;
      y[l] = d1 * static_cast<float>((q[l] & 0xf) + high_bit) - m1;
    }
    for (int l = 0; l < 32; ++l) {
      const int high_bit = (qh != nullptr && (qh[l] & bit_high) != 0) ? 16 : 0;
      y[32 + l] = d2 * static_cast<float>((q[l] >> 4) + high_bit) - m2;
    }
    y += 64;
  }
}

void dequantize_q4_k(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ4_K), y += qk_k) {
    const auto block = load_block<BlockQ4_K>(src);
    dequantize_k4_super_block(fp16_to_fp32(block.d), fp16_to_fp32(block.dmin), block.scales, block.qs, nullptr, y);
  }
}

void dequantize_q5_k(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ5_K), y += qk_k) {
    const auto block = load_block<BlockQ5_K>(src);
    dequantize_k4_super_block(fp16_to_fp32(block.d), fp16_to_fp32(block.dmin), block.scales, block.qs, block.qh,
                              y);
  }
}

void dequantize_q6_k(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ6_K)) {
    const auto block = load_block<BlockQ6_K>(src);
    const float d = fp16_to_fp32(block.d);
    for (int half = 0; half < 2; ++half, y += 128) {
      const std::uint8_t* ql = block.ql + 64 * half;
      const std::uint8_t* qh = block.qh + 32 * half;
      const std::int8_t* sc = block.scales + 8 * half;
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = ((ql[l] & 0xf) | ((qh[l] & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
        y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
        y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
        y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
      }
    }
  }
}

void dequantize_iq4_nl(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockIQ4_NL), y += qk4_nl) {
    const auto block = load_block<BlockIQ4_NL>(src);
    const float d = fp16_to_fp32(block.d);
    for (std::size_t j = 0; j < qk4_nl / 2; ++j) {
      y[j] = d * static_cast<float>(iq4nl_values[block.qs[j] & 0xf]);
      y[j + qk4_nl / 2] = d * static_cast<float>(iq4nl_values[block.qs[j] >> 4]);
    }
  }
}

void dequantize_iq4_xs(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockIQ4_XS)) {
    const auto block = load_block<BlockIQ4_XS>(src);
    const float d = fp16_to_fp32(block.d);
    for (int ib = 0; ib < 8; ++ib, y += 32) {
      const float dl = d * static_cast<float>(iq4_xs_scale(ib, block) - 32);
      const std::uint8_t* qs = block.qs + 16 * ib;
      for (int j = 0; j < 16; ++j) {
        y[j] = dl * static_cast<float>(iq4nl_values[qs[j] & 0xf]);
        y[j + 16] = dl * static_cast<float>(iq4nl_values[qs[j] >> 4]);
      }
    }
  }
}

}  // namespace

void dequantize_row(GgmlType type, const std::uint8_t* src, float* dst, std::size_t k) {
  (void)row_bytes(type, k);  // validates k against the block size
  const std::size_t blocks = k / block_weights(type);
  switch (type) {
    case GgmlType::F32:
      if (k != 0) std::memcpy(dst, src, k * sizeof(float));
      return;
    case GgmlType::F16:
      for (std::size_t i = 0; i < k; ++i) {
        std::uint16_t h = 0;
        std::memcpy(&h, src + 2 * i, sizeof h);
        dst[i] = fp16_to_fp32(h);
      }
      return;
    case GgmlType::Q4_0: dequantize_q4_0(src, dst, blocks); return;
    case GgmlType::Q5_0: dequantize_q5_0(src, dst, blocks); return;
    case GgmlType::Q5_1: dequantize_q5_1(src, dst, blocks); return;
    case GgmlType::Q8_0: dequantize_q8_0(src, dst, blocks); return;
    case GgmlType::Q2_K: dequantize_q2_k(src, dst, blocks); return;
    case GgmlType::Q3_K: dequantize_q3_k(src, dst, blocks); return;
    case GgmlType::Q4_K: dequantize_q4_k(src, dst, blocks); return;
    case GgmlType::Q5_K: dequantize_q5_k(src, dst, blocks); return;
    case GgmlType::Q6_K: dequantize_q6_k(src, dst, blocks); return;
    case GgmlType::IQ4_NL: dequantize_iq4_nl(src, dst, blocks); return;
    case GgmlType::IQ4_XS: dequantize_iq4_xs(src, dst, blocks); return;
  }
}

std::vector<float> dequantize_rows(GgmlType type, const std::uint8_t* src, std::size_t rows, std::size_t k) {
  const std::size_t stride = row_bytes(type, k);
  std::vector<float> out(rows * k);
  for (std::size_t r = 0; r < rows; ++r) dequantize_row(type, src + r * stride, out.data() + r * k, k);
  return out;
}

}  // namespace vktune::ref
