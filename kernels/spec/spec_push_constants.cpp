#include "kernels/spec/spec_push_constants.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/push_word_value.hpp"
#include "kernels/spec/spec_node.hpp"

namespace vktune::kernels::spec {

namespace {

// Subsets of the dimensions are enumerated: more dimensions than this is not a shape.
constexpr std::size_t kMaxFitDims = 16;

// The word's expression at a shape (the other names read 0).
struct Sampler {
  const Expression& e;
  std::vector<double> values;

  double at(const std::vector<double>& point) {
    for (std::size_t i = 0; i < point.size(); ++i) values[i] = point[i];
    return e.evaluate(values.data());
  }
};

// The shapes a fitted word is checked at: small ones (every residue of a
// small divisor, dims of 1), large ones (beyond the corners the fit reads)
// and the spec's own.
std::vector<std::vector<double>> probe_shapes(const Definition& d) {
  const std::size_t dims = d.dims.size();
  std::vector<std::vector<double>> probes;
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&state](std::uint64_t range) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(1 + (state >> 33) % range);
  };
  // Large enough to leave the corners' pattern, small enough that a product
  // of every dimension stays exact in a double.
  const auto large = static_cast<std::uint64_t>(std::min(70000.0, std::ldexp(1.0, static_cast<int>(40 / std::max<std::size_t>(dims, 1)))));
  for (int k = 0; k < 48; ++k) {
    std::vector<double> shape(dims);
    for (auto& v : shape) v = next(k < 32 ? 17 : large);
    probes.push_back(std::move(shape));
  }
  probes.emplace_back(dims, 1.0);
  for (const auto* shapes : {&d.default_shapes, &d.check_shapes}) {
    for (const auto& s : *shapes) probes.emplace_back(s.begin(), s.end());
  }
  return probes;
}

const char* push_type_name(PushType type) {
  return type == PushType::f32 ? "f32" : type == PushType::i32 ? "i32" : "u32";
}

std::optional<PushWord> carry_as_expression(const Definition& d, const PushConstant& pc, const std::string& pointer,
                                            std::string& why) {
  PushWord word{pc.name, SizeRule{}, push_type_name(pc.type), pc.value.text(), d.dims};
  const std::string where = d.file + ": " + pointer + ": '" + pc.value.text() + "'";
  Sampler f{pc.value, std::vector<double>(d.full_scope.size(), 0.0)};
  for (const auto& probe : probe_shapes(d)) {
    const Shape shape(probe.begin(), probe.end());
    std::string unread;
    const auto runtime_value = push_expression_value(word, shape, unread);
    if (!runtime_value) {
      why = where + " is no word the launch contract can carry (" + unread +
            "): its variants tune, but no launch contract is written for them";
      return std::nullopt;
    }
    // The same bits, or no word at all, at every probe: the text is only
    // carried where the runtime's evaluation cannot push other bits than
    // the tune did.
    const auto spec_bits = kernels::push_word_bits(f.at(probe), word.type);
    const auto runtime_bits = kernels::push_word_bits(*runtime_value, word.type);
    if (spec_bits != runtime_bits) {
      why = where + " evaluates otherwise in the runtime library's expressions at shape " + shape_text(shape) +
            ": its variants tune, but no launch contract is written for them";
      return std::nullopt;
    }
  }
  why.clear();
  return word;
}

}  // namespace

std::optional<std::uint32_t> push_word_bits(const PushConstant& pc, const double* values) {
  return kernels::push_word_bits(pc.value.evaluate(values), push_type_name(pc.type));
}

const char* push_type_range(PushType type) {
  switch (type) {
    case PushType::f32: return "a finite 32-bit float";
    case PushType::i32: return "a 32-bit signed integer";
    case PushType::u32: return "a 32-bit unsigned integer";
  }
  return "a 32-bit word";
}

std::optional<PushWord> fit_push_word(const Definition& d, std::size_t index, std::string& why) {
  return fit_push_word(d, d.push_constants.at(index), "/push_constants/" + std::to_string(index) + "/value", why);
}

std::optional<PushWord> fit_push_word(const Definition& d, const PushConstant& pc, const std::string& pointer,
                                      std::string& why) {
  const std::size_t dims = d.dims.size();
  why = d.file + ": " + pointer + ": '" + pc.value.text() +
        "' is not ceil(a sum of whole multiples of products of distinct shape dimensions / a divisor of at most " +
        std::to_string(kMaxPushDivisor) +
        "), the form the launch contract carries: its variants tune, but no launch contract is written for them";
  if (dims > kMaxFitDims) return std::nullopt;
  Sampler f{pc.value, std::vector<double>(d.full_scope.size(), 0.0)};

  // The polynomial inside the ceiling, read off corners far from the origin:
  // there the ceiling moves a value by less than 1, which the Möbius sum over
  // the corners of a subset S turns into an error below 2^|S| / scale^|S| of
  // the coefficient of S. The divisor then is the least q that makes every
  // coefficient whole.
  const unsigned subsets = 1u << dims;
  std::vector<double> coefficient(subsets, 0.0);
  for (unsigned s = 1; s < subsets; ++s) {
    const int size = __builtin_popcount(s);
    const double scale = std::ldexp(1.0, 40 / size);
    double sum = 0;
    for (unsigned t = s;; t = (t - 1) & s) {
      std::vector<double> corner(dims, 0.0);
      for (std::size_t i = 0; i < dims; ++i) corner[i] = (t >> i) & 1u ? scale : 0.0;
      sum += (__builtin_popcount(s & ~t) % 2 ? -1.0 : 1.0) * f.at(corner);
      if (t == 0) break;
    }
    coefficient[s] = sum / std::pow(scale, size);
    if (!std::isfinite(coefficient[s]) || coefficient[s] < -1e-6 || coefficient[s] > 1e12) return std::nullopt;
  }
  const double at_origin = f.at(std::vector<double>(dims, 0.0));
  if (!std::isfinite(at_origin) || at_origin < 0 || at_origin != std::floor(at_origin) || at_origin > 4294967295.0) {
    return std::nullopt;
  }

  const auto probes = probe_shapes(d);
  std::vector<double> want;
  for (const auto& p : probes) {
    const double v = f.at(p);
    if (!std::isfinite(v) || v < 0 || v != std::floor(v)) return std::nullopt;
    want.push_back(v);
  }
  // Per probe, the product of each subset's dimensions.
  std::vector<std::vector<double>> product(probes.size(), std::vector<double>(subsets, 1.0));
  for (std::size_t p = 0; p < probes.size(); ++p) {
    for (unsigned s = 0; s < subsets; ++s) {
      for (std::size_t i = 0; i < dims; ++i)
        if ((s >> i) & 1u) product[p][s] *= probes[p][i];
    }
  }

  for (std::uint64_t q = 1; q <= kMaxPushDivisor; ++q) {
    std::vector<std::uint64_t> numerator(subsets, 0);
    bool whole = true;
    for (unsigned s = 1; s < subsets && whole; ++s) {
      const double scaled = coefficient[s] * static_cast<double>(q);
      const double rounded = std::round(scaled);
      whole = std::fabs(scaled - rounded) < 1e-3 && rounded >= 0 && rounded <= std::ldexp(1.0, 40);
      numerator[s] = static_cast<std::uint64_t>(rounded);
    }
    if (!whole) continue;
    std::vector<double> sum(probes.size(), 0.0);  // without the constant
    for (std::size_t p = 0; p < probes.size(); ++p) {
      for (unsigned s = 1; s < subsets; ++s) sum[p] += static_cast<double>(numerator[s]) * product[p][s];
    }
    // ceil(a0 / q) is the value at the origin: a0 in (q * (f(0) - 1), q * f(0)].
    const auto top = static_cast<std::uint64_t>(at_origin) * q;
    for (std::uint64_t a0 = top + 1; a0-- > (top >= q ? top - q + 1 : 0);) {
      bool agrees = true;
      for (std::size_t p = 0; p < probes.size() && agrees; ++p) {
        agrees = std::ceil((static_cast<double>(a0) + sum[p]) / static_cast<double>(q)) == want[p];
      }
      if (!agrees) continue;
      numerator[0] = a0;
      PushWord word{pc.name, SizeRule{{}, q, 1}};
      for (unsigned s = 0; s < subsets; ++s) {
        if (numerator[s] == 0) continue;
        SizeTerm term{numerator[s], {}};
        for (std::size_t i = 0; i < dims; ++i)
          if ((s >> i) & 1u) term.dims.push_back(static_cast<int>(i));
        word.value.terms.push_back(std::move(term));
      }
      why.clear();
      return word;
    }
  }
  return std::nullopt;
}

std::optional<PushWord> carried_word(const Definition& d, const PushConstant& pc, const std::string& pointer,
                                     std::string& why) {
  // A polynomial travels as data; a float, or any other word, as its text.
  auto word = pc.type == PushType::f32 ? std::nullopt : fit_push_word(d, pc, pointer, why);
  if (word) {
    word->type = push_type_name(pc.type);
    return word;
  }
  return carry_as_expression(d, pc, pointer, why);
}

std::vector<PushWord> fit_push_constants(const Definition& d, std::string& unfit) {
  unfit.clear();
  // The loader holds a spec to kMaxSpecPushWords (64, 256 bytes); the
  // runtime checks the device's maxPushConstantsSize before it creates a
  // pipeline, as vktune's legality rule push_constants.limit does.
  std::vector<PushWord> words;
  bool the_shape = d.push_constants.size() == d.dims.size();
  for (std::size_t i = 0; i < d.push_constants.size(); ++i) {
    const auto& pc = d.push_constants[i];
    auto word = carried_word(d, pc, "/push_constants/" + std::to_string(i) + "/value", unfit);
    if (!word) return {};
    const SizeRule dim_i{{SizeTerm{1, {static_cast<int>(i)}}}, 1, 1};
    the_shape = the_shape && word->expression.empty() && word->type == "u32" && word->value == dim_i;
    words.push_back(std::move(*word));
  }
  if (the_shape) words.clear();
  return words;
}

}  // namespace vktune::kernels::spec
