#pragma once
// Arithmetic over named numbers, for the expressions of a kernel spec
// (legality, pruning, sizes, push constants, metrics). Parsing and
// evaluation are muparser's (Debian's libmuparser): vktune writes no
// expression parser of its own.
//
// An expression is compiled once against a Scope (the names it may read, in
// a fixed order) and evaluated many times from an array of values in that
// order. Besides muparser's built-ins (+ - * / ^, comparisons, && ||, ?:,
// min, max, abs, sqrt, log2, ...) it knows floor(x), ceil(x), mod(a, b),
// ceil_div(a, b) and is_pow2(x). True is 1, false 0.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vktune::kernels::spec {

// The variables an expression may name, each at a fixed index.
class Scope {
 public:
  Scope() = default;
  explicit Scope(std::vector<std::string> names) : names_(std::move(names)) {}
  // Adds a name; returns its index (the existing one when already present).
  std::size_t add(const std::string& name);
  // -1 when the scope lacks the name.
  long index_of(const std::string& name) const;
  const std::vector<std::string>& names() const { return names_; }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

class Expression {
 public:
  // Throws std::invalid_argument with muparser's message when `text` does
  // not parse or names a variable outside `scope` (the caller adds where).
  Expression(const std::string& text, const Scope& scope);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  // `values` holds one number per name of the scope it was compiled for.
  // Safe to call from several threads at once.
  double evaluate(const double* values) const;
  const std::string& text() const { return text_; }
  // The scope indices the expression reads.
  const std::vector<std::size_t>& reads() const { return reads_; }
  // The same expression compiled anew: evaluating it takes no lock shared
  // with this one, for a thread that evaluates it millions of times.
  Expression clone() const { return Expression(text_, scope_); }

 private:
  struct Compiled;
  std::string text_;
  Scope scope_;
  std::vector<std::size_t> reads_;
  std::optional<double> constant_;  // set when the expression reads no name
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace vktune::kernels::spec
