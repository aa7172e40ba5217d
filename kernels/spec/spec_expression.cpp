#include "kernels/spec/spec_expression.hpp"

#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

namespace vktune::kernels::spec {

namespace {

double floor_of(double x) { return std::floor(x); }
double ceil_of(double x) { return std::ceil(x); }
// Remainder with the sign of the divisor's magnitude, as integer code reads it for positive values.
double mod_of(double a, double b) { return b == 0 ? NAN : a - b * std::floor(a / b); }
double ceil_div_of(double a, double b) { return b == 0 ? NAN : std::ceil(a / b); }
double is_pow2_of(double x) {
  if (x < 1 || x != std::floor(x) || x > 9.0e15) return 0;
  const auto v = static_cast<unsigned long long>(x);
  return (v & (v - 1)) == 0 ? 1 : 0;
}

}  // namespace

std::size_t Scope::add(const std::string& name) {
  const long at = index_of(name);
  if (at >= 0) return static_cast<std::size_t>(at);
  names_.push_back(name);
  return names_.size() - 1;
}

long Scope::index_of(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? -1 : static_cast<long>(it - names_.begin());
}

// muparser evaluates from variables it holds pointers to, and its Eval is
// not reentrant: each expression owns its slots and a lock.
struct Expression::Compiled {
  mu::Parser parser;
  std::vector<double> slots;  // one per scope name
  std::mutex lock;
};

Expression::Expression(const std::string& text, const Scope& scope, std::vector<ExpressionFunction> functions)
    : text_(text), scope_(scope), functions_(std::move(functions)), compiled_(std::make_unique<Compiled>()) {
  auto& c = *compiled_;
  c.slots.assign(scope.size(), 0.0);
  try {
    for (std::size_t i = 0; i < scope.size(); ++i) c.parser.DefineVar(scope.names()[i], &c.slots[i]);
    c.parser.DefineFun("floor", floor_of);
    c.parser.DefineFun("ceil", ceil_of);
    c.parser.DefineFun("mod", mod_of);
    c.parser.DefineFun("ceil_div", ceil_div_of);
    c.parser.DefineFun("is_pow2", is_pow2_of);
    for (const auto& f : functions_) {
      if (f.reader) {
        c.parser.DefineFunUserData(f.name, f.reader, f.data, /*allow_optimization=*/false);
      } else {
        c.parser.DefineFun(f.name, f.unary);
      }
    }
    c.parser.SetExpr(text);
    // Parses now (an unknown name or a syntax error throws here, at load,
    // rather than at the first evaluation) and lists what it reads.
    for (const auto& used : c.parser.GetUsedVar()) reads_.push_back(static_cast<std::size_t>(scope.index_of(used.first)));
    // Builds the bytecode once; errors only evaluation can find surface here
    // too. An expression that reads no variable keeps its value.
    const double value = c.parser.Eval();
    const bool reads_data = std::any_of(functions_.begin(), functions_.end(), [](const auto& f) { return f.reader; });
    if (reads_.empty() && !reads_data) constant_ = value;
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument("expression '" + text + "' is invalid: " + e.GetMsg());
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw std::invalid_argument("expression is empty");
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate(const double* values) const {
  if (constant_) return *constant_;  // "1", "4 * 32": no lock, no muparser
  auto& c = *compiled_;
  std::lock_guard guard(c.lock);
  for (const auto i : reads_) c.slots[i] = values[i];
  try {
    return c.parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    return NAN;  // a value no rule accepts; the caller says which expression
  }
}

}  // namespace vktune::kernels::spec
