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
// ceil_div(a, b) and is_pow2(x). True is 1, false 0. A caller may add
// functions of its own (ExpressionFunction): an element-wise reference adds
// activations and the reads of its arrays (spec_elementwise.hpp).
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

// A function an expression may call besides the built-ins: either pure and
// of one argument (folded into a constant where its argument is one), or a
// reader of `data` with any number of arguments, which is called at every
// evaluation (never folded: what `data` holds changes between evaluations,
// and is not there yet when the expression is compiled).
struct ExpressionFunction {
  std::string name;
  double (*unary)(double) = nullptr;
  double (*reader)(void* data, const double* args, int count) = nullptr;
  void* data = nullptr;
};

class Expression {
 public:
  // Throws std::invalid_argument with muparser's message when `text` does
  // not parse or names a variable outside `scope` (the caller adds where).
  // Compiling evaluates the expression once with every name 0 (readers
  // included: they must answer without their data).
  Expression(const std::string& text, const Scope& scope, std::vector<ExpressionFunction> functions = {});
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
  // Readers keep their data: a thread that needs readers of its own
  // compiles the text anew with them instead.
  Expression clone() const { return Expression(text_, scope_, functions_); }

 private:
  struct Compiled;
  std::string text_;
  Scope scope_;
  std::vector<ExpressionFunction> functions_;
  std::vector<std::size_t> reads_;
  std::optional<double> constant_;  // set when the expression reads no name
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace vktune::kernels::spec
