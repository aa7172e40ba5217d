#pragma once
// Checking a path's configs prefix by prefix (kernels::Kernel::prefix_checker).
//
// Enumeration walks a path's cartesian product with the last parameter
// fastest. A kernel that knows which parameters each of its rules reads (a
// spec's rules are expressions, so it does) can decide a rule as soon as the
// last parameter it reads is bound: the rule is evaluated once per prefix
// instead of once per config, and every config under a failing prefix is
// skipped without being looked at. A space of 10^6 configs then costs what
// its legal part costs.
#include <cstddef>
#include <string>

#include "common/violation.hpp"

namespace vktune::kernels {

class PrefixChecker {
 public:
  enum class Outcome { keep, pruned, illegal };
  struct Verdict {
    Outcome outcome = Outcome::keep;
    // pruned: the pruning rule's name in `rule`; illegal: the violation, as
    // constraint_violation gives it.
    Violation why;
  };

  virtual ~PrefixChecker() = default;
  // The path's first `depth` parameters (Path::parameters order) take
  // values[0 .. depth). Returns the verdict of the rules that this prefix
  // decides and a shorter one did not: check(d) is called only once every
  // shorter prefix of the same values was kept. Pruning rules are reported
  // before legality at the same depth, as config-by-config enumeration
  // does. Depth 0 asks for the rules that read no parameter of the path.
  virtual Verdict check(std::size_t depth, const int* values) = 0;
};

}  // namespace vktune::kernels
