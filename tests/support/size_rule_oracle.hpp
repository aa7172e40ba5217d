#pragma once
// Random size rules and what they should come to, computed in 128-bit
// arithmetic: the oracle for vktune's and the runtime's checked 64-bit
// evaluation (runtime/src/size_rule.inc), each on its own SizeRule type.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace size_rule_oracle {

// A value of up to `bits` bits, log-uniform (as many small values as large).
inline std::uint64_t log_uniform(std::mt19937_64& rng, int bits) {
  const int width = static_cast<int>(rng() % static_cast<std::uint64_t>(bits + 1));
  return width == 0 ? rng() % 2 : (rng() >> (64 - width)) | (std::uint64_t{1} << (width - 1));
}

// A shape of 1 to 4 dimensions of up to 32 bits, and a rule of 1 to 3 terms
// of up to two of its dimensions each, coefficients up to 2^40 (what a
// table's contract may hold), divisor up to 2^33, align 1, 2, 4 or 16.
template <class Rule, class Shape>
void draw(std::mt19937_64& rng, Rule& rule, Shape& shape) {
  shape.assign(1 + rng() % 4, 0);
  for (auto& v : shape) v = static_cast<std::uint32_t>(log_uniform(rng, 32));
  rule.terms.clear();
  rule.terms.resize(1 + rng() % 3);
  for (auto& term : rule.terms) {
    term.coefficient = log_uniform(rng, 40);
    term.dims.clear();
    for (std::uint64_t i = rng() % 3; i > 0; --i) term.dims.push_back(static_cast<int>(rng() % shape.size()));
  }
  rule.divisor = rng() % 2 ? 1 : log_uniform(rng, 33);
  static constexpr std::uint64_t aligns[] = {1, 2, 4, 16};
  rule.align = aligns[rng() % 4];
}

// ceil(sum / divisor) up to a multiple of align, or nothing where the sum
// or the rounded bytes pass 2^64 - 1 (the evaluation refuses those).
template <class Rule, class Shape>
std::optional<std::uint64_t> expected_bytes(const Rule& rule, const Shape& shape) {
  // GCC and Clang have 128-bit integers; -Wpedantic says ISO C++ does not.
  __extension__ typedef unsigned __int128 Wide;
  const Wide most = ~std::uint64_t{0};
  Wide sum = 0;
  for (const auto& term : rule.terms) {
    Wide product = term.coefficient;
    for (const int d : term.dims) product *= shape.at(static_cast<std::size_t>(d));
    sum += product;
  }
  if (sum > most) return std::nullopt;
  const Wide divisor = rule.divisor <= 1 ? 1 : rule.divisor, align = rule.align <= 1 ? 1 : rule.align;
  const Wide whole = (sum + divisor - 1) / divisor;
  const Wide rounded = (whole + align - 1) / align * align;
  if (rounded > most) return std::nullopt;
  return static_cast<std::uint64_t>(rounded);
}

// `rule.bytes(shape)`, or nothing where it throws an `ErrorType` that
// `is_usage` accepts (any other exception goes on).
template <class ErrorType, class Rule, class Shape, class IsUsage>
std::optional<std::uint64_t> bytes_or_refusal(const Rule& rule, const Shape& shape, IsUsage is_usage) {
  try {
    return rule.bytes(shape);
  } catch (const ErrorType& e) {
    if (!is_usage(e)) throw;
    return std::nullopt;
  }
}

// `count` rules drawn from `seed`, each evaluated by `evaluate` (the bytes,
// or nothing where it refused the rule with its usage error) against
// expected_bytes: how many were sized and refused as expected, and the
// first disagreement (empty when none).
struct Tally {
  int sized = 0, refused = 0;
  std::string disagreement;
};
template <class Rule, class Shape, class Evaluate>
Tally compare(std::uint64_t seed, int count, Evaluate evaluate) {
  std::mt19937_64 rng(seed);
  Tally tally;
  for (int i = 0; i < count && tally.disagreement.empty(); ++i) {
    Rule rule;
    Shape shape;
    draw(rng, rule, shape);
    const auto expected = expected_bytes(rule, shape);
    const std::optional<std::uint64_t> got = evaluate(rule, shape);
    if (got == expected) {
      ++(expected ? tally.sized : tally.refused);
      continue;
    }
    tally.disagreement = "rule " + std::to_string(i) + " of seed " + std::to_string(seed) + ": " +
                         (got ? std::to_string(*got) + " bytes" : std::string("refused")) + ", expected " +
                         (expected ? std::to_string(*expected) + " bytes" : std::string("a refusal"));
  }
  return tally;
}

}  // namespace size_rule_oracle
