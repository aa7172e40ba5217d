#include "reference/random_blocks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "reference/block_pack.hpp"
#include "reference/fp16.hpp"
#include "reference/parallel_rows.hpp"

namespace vktune::ref {

namespace {

class BlockRandom {
 public:
  BlockRandom(std::uint64_t seed, InputKind kind) : engine_(seed), adversarial_(kind == InputKind::adversarial) {}

  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine_); }

  // A finite fp16 value with magnitude in [2^lo, 2^hi), log-uniform; when
  // adversarial, at either end of that range or 8 octaves below it (fp16
  // subnormals for the K-quants' small scales).
  std::uint16_t scale(float lo, float hi, bool allow_negative) {
    float exponent = std::uniform_real_distribution<float>(lo, hi)(engine_);
    if (adversarial_) {
      const int pick = uniform_int(0, 3);
      exponent = pick == 0 ? lo - 8 : pick == 1 ? lo : hi - 0.01f;
      if (pick == 3) exponent = std::uniform_real_distribution<float>(lo, hi)(engine_);
    }
    float value = std::exp2(exponent);
    if (allow_negative && uniform_int(0, 1) == 1) value = -value;
    return fp32_to_fp16(value);
  }

  // n codes in [0, levels), where each of the `levels` values appears at
  // least once (needs n >= levels), at random positions; when adversarial, a
  // third of the blocks have every code at the lowest or the highest value.
  template <std::size_t N>
  void codes_covering(std::uint8_t (&q)[N], int levels) {
    if (adversarial_ && uniform_int(0, 2) == 0) {
      const auto code = static_cast<std::uint8_t>(uniform_int(0, 1) == 0 ? 0 : levels - 1);
      for (auto& v : q) v = code;
      return;
    }
    std::array<std::size_t, N> positions;
    std::iota(positions.begin(), positions.end(), std::size_t{0});
    std::shuffle(positions.begin(), positions.end(), engine_);
    for (std::size_t i = 0; i < N; ++i) {
      q[positions[i]] = static_cast<std::uint8_t>(static_cast<int>(i) < levels ? static_cast<int>(i)
                                                                                : uniform_int(0, levels - 1));
    }
  }

  // A 6-bit K-quant or IQ4_XS scale or min; when adversarial, 0 or 63 half the time.
  std::uint8_t six_bits() {
    if (adversarial_ && uniform_int(0, 1) == 0) return static_cast<std::uint8_t>(uniform_int(0, 1) * 63);
    return static_cast<std::uint8_t>(uniform_int(0, 63));
  }

  // A 4-bit Q2_K scale or min; when adversarial, 0 or 15 half the time.
  std::uint8_t four_bits() {
    if (adversarial_ && uniform_int(0, 1) == 0) return static_cast<std::uint8_t>(uniform_int(0, 1) * 15);
    return static_cast<std::uint8_t>(uniform_int(0, 15));
  }

  bool adversarial() const { return adversarial_; }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
  bool adversarial_;
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
    case GgmlType::Q5_0: {
      std::uint8_t q[qk5_0];
      rng.codes_covering(q, 32);
      put(pack_q5_0(rng.scale(-8, -4, true), q), out);
      return;
    }
    case GgmlType::Q5_1: {
      std::uint8_t q[qk5_0];
      rng.codes_covering(q, 32);
      const std::uint16_t d = rng.scale(-9, -5, false);
      put(pack_q5_1(d, rng.scale(-10, -6, true), q), out);
      return;
    }
    case GgmlType::Q2_K: {
      std::uint8_t scales[16];
      std::uint8_t mins[16];
      for (int s = 0; s < 16; ++s) {
        scales[s] = rng.four_bits();
        mins[s] = rng.four_bits();
      }
      std::uint8_t q[qk_k];
      rng.codes_covering(q, 4);
      const std::uint16_t d = rng.scale(-10, -6, false);
      put(pack_q2_k(d, rng.scale(-10, -6, false), scales, mins, q), out);
      return;
    }
    case GgmlType::Q3_K: {
      std::uint8_t scales[16];
      for (auto& s : scales) s = rng.six_bits();
      std::uint8_t q[qk_k];
      rng.codes_covering(q, 8);
      put(pack_q3_k(rng.scale(-11, -7, true), scales, q), out);
      return;
    }
    case GgmlType::IQ4_NL: {
      std::uint8_t q[qk4_nl];
      rng.codes_covering(q, 16);
      put(pack_iq4_nl(rng.scale(-11, -7, true), q), out);
      return;
    }
    case GgmlType::IQ4_XS: {
      std::uint8_t scales[8];
      for (auto& s : scales) s = rng.six_bits();
      std::uint8_t q[qk_k];
      rng.codes_covering(q, 16);
      put(pack_iq4_xs(rng.scale(-16, -12, true), scales, q), out);
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
        scales[j] = rng.six_bits();
        mins[j] = rng.six_bits();
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
      for (auto& s : scales) {
        s = static_cast<std::int8_t>(rng.uniform_int(-128, 127));
        if (rng.adversarial() && rng.uniform_int(0, 1) == 0) s = rng.uniform_int(0, 1) == 0 ? -128 : 127;
      }
      std::uint8_t q[qk_k];
      rng.codes_covering(q, 64);
      put(pack_q6_k(rng.scale(-16, -12, true), scales, q), out);
      return;
    }
    case GgmlType::F32: {
      const float v = rng.adversarial() ? adversarial_floats(1, rng.engine()(), -1.0f, 1.0f)[0]
                                        : std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng.engine());
      std::memcpy(out, &v, sizeof v);
      out += sizeof v;
      return;
    }
    case GgmlType::F16: {
      const std::uint16_t h = fp32_to_fp16(rng.adversarial() ? adversarial_floats(1, rng.engine()(), -1.0f, 1.0f)[0]
                                                             : std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng.engine()));
      std::memcpy(out, &h, sizeof h);
      out += sizeof h;
      return;
    }
  }
}

}  // namespace

// Rows come in runs of kRowsPerStream, each from a random stream of its own,
// made on every core: a tensor as large as an output head (128256 rows,
// made again for each validation input) took a single core tens of seconds.
// The first run's stream is `seed` itself, so a tensor of up to 256 rows has
// the bytes it always had; the bytes never depend on the number of cores.
namespace {

constexpr std::size_t kRowsPerStream = 256;

std::uint64_t stream_seed(std::uint64_t seed, std::size_t run) {
  if (run == 0) return seed;
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * run;  // splitmix64's step and finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<std::uint8_t> random_quantized_rows(GgmlType type, std::size_t rows, std::size_t k,
                                                std::uint64_t seed, InputKind kind) {
  const std::size_t stride = row_bytes(type, k);
  std::vector<std::uint8_t> bytes(rows * stride);
  const std::size_t blocks_per_row = k / block_weights(type);
  parallel_rows((rows + kRowsPerStream - 1) / kRowsPerStream, [&](std::size_t begin, std::size_t end) {
    for (std::size_t run = begin; run < end; ++run) {
      BlockRandom rng(stream_seed(seed, run), kind);
      std::uint8_t* out = bytes.data() + run * kRowsPerStream * stride;
      const std::size_t blocks = std::min(kRowsPerStream, rows - run * kRowsPerStream) * blocks_per_row;
      for (std::size_t b = 0; b < blocks; ++b) random_block(type, rng, out);
    }
  });
  return bytes;
}

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo, float hi, InputKind kind) {
  if (kind == InputKind::adversarial) return adversarial_floats(count, seed, lo, hi);
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(count);
  for (auto& v : out) v = dist(engine);
  return out;
}

std::vector<float> adversarial_floats(std::size_t count, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int> pick(0, 15);
  std::uniform_real_distribution<float> octaves(0.0f, 24.0f);
  const float largest = std::max(std::fabs(lo), std::fabs(hi));
  const float top = std::nextafter(hi, lo);  // hi itself is outside the range
  const bool both_signs = lo < 0 && hi > 0;
  std::vector<float> out(count);
  for (auto& v : out) {
    const int p = pick(engine);
    if (p < 2) {
      v = p == 0 ? lo : top;  // the edges
    } else {
      const float magnitude = p == 2 ? largest * std::exp2(-24.0f) : largest * std::exp2(-octaves(engine));
      const bool negative = both_signs ? (engine() & 1) != 0 : lo < 0;
      v = negative ? -magnitude : magnitude;
      if (!both_signs) v = std::clamp(v, std::min(lo, top), std::max(lo, top));  // a one-signed range: kept inside
    }
    if (v == 0.0f) v = top;  // never exactly zero (lo or hi may be 0)
  }
  return out;
}

}  // namespace vktune::ref
