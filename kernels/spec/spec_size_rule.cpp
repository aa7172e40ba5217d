#include "kernels/spec/spec_size_rule.hpp"

#include <cmath>

#include "common/error.hpp"
#include "kernels/spec/spec_buffers.hpp"

namespace vktune::kernels::spec {

namespace {

// Bytes per value times the divisor: what turns an element count into bytes*divisor.
std::pair<double, std::uint64_t> bytes_per_element(const BufferSpec& b) {
  if (b.type == ElementType::gguf) {
    return {static_cast<double>(ref::block_bytes(b.gguf)), ref::block_weights(b.gguf)};
  }
  const double size = b.type == ElementType::f16 ? 2 : b.type == ElementType::i8 ? 1 : 4;
  return {size, 1};
}

}  // namespace

SizeRule fit_size_rule(const Definition& d, const BufferSpec& b) {
  const std::size_t dims = d.dims.size();
  const auto fail = [&](const std::string& problem) {
    throw Error(ErrorKind::usage, d.file + ": " + b.pointer + "/size: '" + b.elements.text() + "' " + problem);
  };
  std::vector<double> values(d.full_scope.size(), 0.0);
  auto at = [&](unsigned mask, double one) {
    for (std::size_t i = 0; i < dims; ++i) values[i] = (mask >> i) & 1u ? one : 0.0;
    return b.elements.evaluate(values.data());
  };
  // A multilinear polynomial's coefficient of the product of the dims in S
  // is the alternating sum of its values at the corners inside S (Möbius
  // inversion over subsets).
  const auto [per_element, divisor] = bytes_per_element(b);
  SizeRule rule;
  rule.divisor = divisor;
  rule.align = 4;
  for (unsigned s = 0; s < (1u << dims); ++s) {
    double coefficient = 0;
    for (unsigned t = s;; t = (t - 1) & s) {
      const int sign = (__builtin_popcount(s & ~t) % 2) ? -1 : 1;
      coefficient += sign * at(t, 1.0);
      if (t == 0) break;
    }
    const double scaled = coefficient * per_element;
    if (!std::isfinite(scaled) || scaled < 0 || scaled != std::floor(scaled) || scaled > 1e15) {
      fail("is not a sum of whole multiples of products of shape dimensions (the launch contract carries sizes as "
           "such polynomials)");
    }
    if (scaled == 0) continue;
    SizeTerm term{static_cast<std::uint64_t>(scaled), {}};
    for (std::size_t i = 0; i < dims; ++i)
      if ((s >> i) & 1u) term.dims.push_back(static_cast<int>(i));
    rule.terms.push_back(term);
  }
  // Verified away from the corners: a product of a dim with itself, a
  // division or a rounding would differ here.
  const double probes[][3] = {{3, 5, 7}, {17, 2, 11}, {256, 96, 4096}};
  for (const auto& probe : probes) {
    Shape shape(dims);
    for (std::size_t i = 0; i < dims; ++i) shape[i] = static_cast<std::uint32_t>(probe[i % 3] + i);
    for (std::size_t i = 0; i < dims; ++i) values[i] = shape[i];
    const double want = b.elements.evaluate(values.data()) * per_element;
    double have = 0;
    for (const auto& term : rule.terms) {
      double product = static_cast<double>(term.coefficient);
      for (int dim : term.dims) product *= shape[dim];
      have += product;
    }
    if (!(std::fabs(want - have) <= 1e-9 * std::fabs(have) + 1e-9)) {
      fail("is not a sum of products of distinct shape dimensions with whole coefficients (the launch contract "
           "carries sizes as such polynomials)");
    }
  }
  return rule;
}

}  // namespace vktune::kernels::spec
