#include "engine/validation.hpp"

#include <cmath>
#include <sstream>

namespace vktune {

Validation compare_output(const std::vector<float>& got, const std::vector<double>& expected,
                          const kernels::Tolerance& tolerance) {
  Validation v;
  if (got.size() != expected.size()) {
    v.reason = "output has " + std::to_string(got.size()) + " elements, reference " + std::to_string(expected.size());
    return v;
  }
  double diff2 = 0, ref2 = 0, ref_max = 0;
  std::size_t first_non_finite = got.size(), worst = 0;
  std::size_t overwritten = 0, first_overwritten = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (kernels::is_untouched(expected[i])) {  // must still hold the poison
      if (!std::isnan(got[i]) && overwritten++ == 0) first_overwritten = i;
      continue;
    }
    if (!std::isfinite(got[i])) {
      if (v.non_finite++ == 0) first_non_finite = i;
      continue;
    }
    if (std::isnan(expected[i])) continue;  // outside the sampled reference
    const double d = static_cast<double>(got[i]) - expected[i];
    diff2 += d * d;
    ref2 += expected[i] * expected[i];
    ref_max = std::max(ref_max, std::fabs(expected[i]));
    if (std::fabs(d) > v.max_abs) {
      v.max_abs = std::fabs(d);
      worst = i;
    }
  }
  v.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  v.max_rel = ref_max > 0 ? v.max_abs / ref_max : v.max_abs;
  std::ostringstream why;
  if (overwritten > 0) {
    why << overwritten << " output elements the kernel must leave untouched were written (first at index "
        << first_overwritten << ": " << got[first_overwritten] << ")";
  } else if (v.non_finite > 0) {
    why << v.non_finite << " of " << got.size() << " outputs are NaN/Inf (first at index " << first_non_finite
        << "; outputs are poisoned with NaN and buffers end in NaN guard bands, so those elements were never "
           "written or read past a buffer's end)";
  } else if (v.rel_l2 > tolerance.rel_l2) {
    why << "relative L2 error " << v.rel_l2 << " exceeds " << tolerance.rel_l2 << " (worst element " << worst
        << ": got " << got[worst] << ", expected " << expected[worst] << ")";
  } else if (v.max_rel > tolerance.max_rel) {
    why << "max elementwise error " << v.max_abs << " (" << v.max_rel << " of max |ref|) exceeds " << tolerance.max_rel
        << " at element " << worst << ": got " << got[worst] << ", expected " << expected[worst];
  }
  v.reason = why.str();
  v.passed = v.reason.empty();
  return v;
}

}  // namespace vktune
