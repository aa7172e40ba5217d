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

void dequantize_q8_0(const std::uint8_t* src, float* y, std::size_t blocks) {
  for (std::size_t b = 0; b < blocks; ++b, src += sizeof(BlockQ8_0), y += qk8_0) {
    const auto block = load_block<BlockQ8_0>(src);
    const float d = fp16_to_fp32(block.d);
    for (std::size_t j = 0; j < qk8_0; ++j) y[j] = static_cast<float>(block.qs[j]) * d;
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
    case GgmlType::Q8_0: dequantize_q8_0(src, dst, blocks); return;
    case GgmlType::Q4_K: dequantize_q4_k(src, dst, blocks); return;
    case GgmlType::Q5_K: dequantize_q5_k(src, dst, blocks); return;
    case GgmlType::Q6_K: dequantize_q6_k(src, dst, blocks); return;
  }
}

std::vector<float> dequantize_rows(GgmlType type, const std::uint8_t* src, std::size_t rows, std::size_t k) {
  const std::size_t stride = row_bytes(type, k);
  std::vector<float> out(rows * k);
  for (std::size_t r = 0; r < rows; ++r) dequantize_row(type, src + r * stride, out.data() + r * k, k);
  return out;
}

}  // namespace vktune::ref
