#include "reference/random_blocks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "reference/block_pack.hpp"
#include "reference/fp16.hpp"

namespace vktune::ref {

namespace {

class BlockRandom {
 public:
  explicit BlockRandom(std::uint64_t seed) : engine_(seed) {}

  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine_); }

  // A finite fp16 value with magnitude in [2^lo, 2^hi), log-uniform.
  std::uint16_t scale(float lo, float hi, bool allow_negative) {
    const float exponent = std::uniform_real_distribution<float>(lo, hi)(engine_);
    float value = std::exp2(exponent);
    if (allow_negative && uniform_int(0, 1) == 1) value = -value;
    return fp32_to_fp16(value);
  }

  // n codes in [0, levels), where each of the `levels` values appears at
  // least once (needs n >= levels), at random positions.
  template <std::size_t N>
  void codes_covering(std::uint8_t (&q)[N], int levels) {
    std::array<std::size_t, N> positions;
    std::iota(positions.begin(), positions.end(), std::size_t{0});
    std::shuffle(positions.begin(), positions.end(), engine_);
    for (std::size_t i = 0; i < N; ++i) {
      q[positions[i]] = static_cast<std::uint8_t>(static_cast<int>(i) < levels ? static_cast<int>(i)
                                                                                : uniform_int(0, levels - 1));
    }
  }

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

template <class Block>
void put(const Block& block, std::uint8_t*& out) {
  store_block(block, out);
  out += sizeof(Block);
}

void random_block(GgmlType type, BlockRandom& rng, std::uint8_t*& out) {
  switch (type) {
    case GgmlType::Q4_0: {
      std::uint8_t q[qk4_0];
      rng.codes_covering(q, 16);
      put(pack_q4_0(rng.scale(-7, -3, true), q), out);
      return;
    }
    case GgmlType::Q8_0: {
      std::int8_t q[qk8_0];
      for (auto& v : q) v = static_cast<std::int8_t>(rng.uniform_int(-128, 127));
      const int lowest = rng.uniform_int(0, qk8_0 - 1);
      const int highest = (lowest + rng.uniform_int(1, qk8_0 - 1)) % static_cast<int>(qk8_0);
      q[lowest] = -128;
      q[highest] = 127;
      put(pack_q8_0(rng.scale(-11, -7, true), q), out);
      return;
    }
    case GgmlType::Q4_K:
    case GgmlType::Q5_K: {
      std::uint8_t scales[8];
      std::uint8_t mins[8];
      for (int j = 0; j < 8; ++j) {
        scales[j] = static_cast<std::uint8_t>(rng.uniform_int(0, 63));
        mins[j] = static_cast<std::uint8_t>(rng.uniform_int(0, 63));
      }
      std::uint8_t q[qk_k];
      rng.codes_covering(q, type == GgmlType::Q4_K ? 16 : 32);
      const std::uint16_t d = type == GgmlType::Q4_K ? rng.scale(-14, -10, false) : rng.scale(-15, -11, false);
      const std::uint16_t dmin = rng.scale(-10, -6, false);
      if (type == GgmlType::Q4_K) {
        put(pack_q4_k(d, dmin, scales, mins, q), out);
      } else {
        put(pack_q5_k(d, dmin, scales, mins, q), out);
      }
      return;
    }
    case GgmlType::Q6_K: {
      std::int8_t scales[16];
      for (auto& s : scales) s = static_cast<std::int8_t>(rng.uniform_int(-128, 127));
      std::uint8_t q[qk_k];
      rng.codes_covering(q, 64);
      put(pack_q6_k(rng.scale(-16, -12, true), scales, q), out);
      return;
    }
    case GgmlType::F32: {
      const float v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng.engine());
      std::memcpy(out, &v, sizeof v);
      out += sizeof v;
      return;
    }
    case GgmlType::F16: {
      const std::uint16_t h = fp32_to_fp16(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng.engine()));
      std::memcpy(out, &h, sizeof h);
      out += sizeof h;
      return;
    }
  }
}

}  // namespace

std::vector<std::uint8_t> random_quantized_rows(GgmlType type, std::size_t rows, std::size_t k,
                                                std::uint64_t seed) {
  const std::size_t stride = row_bytes(type, k);
  std::vector<std::uint8_t> bytes(rows * stride);
  BlockRandom rng(seed);
  std::uint8_t* out = bytes.data();
  const std::size_t blocks = rows * (k / block_weights(type));
  for (std::size_t b = 0; b < blocks; ++b) random_block(type, rng, out);
  return bytes;
}

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(count);
  for (auto& v : out) v = dist(engine);
  return out;
}

}  // namespace vktune::ref
