#include "kernels/spec/spec_elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

#include "common/error.hpp"
#include "kernels/spec/spec_elementwise_functions.hpp"
#include "kernels/spec/spec_elementwise_syntax.hpp"
#include "reference/parallel_rows.hpp"

namespace vktune::kernels::spec {

namespace {

// The first read outside its array in one thread's evaluations.
struct ReadFailure {
  bool failed = false;
  std::size_t read = 0, axis = 0;
  double index = 0;
};

// What read k of the body reads, in one thread; null array while compiling.
struct ReadSlot {
  const ArrayView* array = nullptr;
  const std::vector<std::int64_t>* extents = nullptr;
  ReadFailure* failure = nullptr;
  std::size_t read = 0;
};

double array_value(const ArrayView& a, std::size_t i) {
  if (a.doubles) return a.doubles[i];
  switch (a.type) {
    case ElementType::f32:
    case ElementType::f16:
      return a.floats[i];
    case ElementType::i32: {
      std::int32_t v = 0;
      std::memcpy(&v, a.bytes + 4 * i, 4);
      return v;
    }
    case ElementType::u32: {
      std::uint32_t v = 0;
      std::memcpy(&v, a.bytes + 4 * i, 4);
      return v;
    }
    case ElementType::i8: {
      std::int8_t v = 0;
      std::memcpy(&v, a.bytes + i, 1);
      return v;
    }
    case ElementType::gguf:
      break;  // refused at load
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// muparser calls this for READ<k>(i, j, ...): every index whole and inside
// its extent, or the failure is kept (the first one) and the value is NaN.
// The evaluation checks for a failure after each element: muparser offers
// no way out of an evaluation but its own exceptions.
double read_element(void* data, const double* args, int count) {
  const auto& slot = *static_cast<const ReadSlot*>(data);
  if (!slot.array) return 0;  // compiling: no data yet
  std::size_t flat = 0;
  for (int axis = 0; axis < count; ++axis) {
    const double index = args[axis];
    const auto extent = (*slot.extents)[static_cast<std::size_t>(axis)];
    if (!(index >= 0) || index >= static_cast<double>(extent) || index != std::floor(index)) {
      if (!slot.failure->failed) *slot.failure = {true, slot.read, static_cast<std::size_t>(axis), index};
      return std::numeric_limits<double>::quiet_NaN();
    }
    flat = flat * static_cast<std::size_t>(extent) + static_cast<std::size_t>(index);
  }
  return array_value(*slot.array, flat);
}

Scope body_scope(const Definition& d, const ElementwiseSpec& e) {
  Scope scope(d.dims);
  for (const auto& index : e.indices) scope.add(index);
  return scope;
}

// The right side compiled with the element-wise functions and one reader
// per read, reading through `slots` (one per read, kept in place).
Expression compile_body(const Definition& d, const ElementwiseSpec& e, std::vector<ReadSlot>& slots) {
  auto functions = elementwise_functions();
  for (std::size_t k = 0; k < slots.size(); ++k) {
    functions.push_back({kElementwiseRead + std::to_string(k), nullptr, read_element, &slots[k]});
  }
  return Expression(e.body, body_scope(d, e), std::move(functions));
}

std::string number_text(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

// The extents of array `a` at the shape's values; -1 for one that is not a
// whole number in 1..2^31-1.
std::vector<std::int64_t> extents_at(const ElementwiseArray& a, const std::vector<double>& values) {
  std::vector<std::int64_t> out;
  for (const auto& e : a.extents) {
    const double v = e.evaluate(values.data());
    const bool whole = std::isfinite(v) && v >= 1 && v < 2147483648.0 && v == std::floor(v);
    out.push_back(whole ? static_cast<std::int64_t>(v) : -1);
  }
  return out;
}

std::vector<double> shape_values(const Shape& shape) { return std::vector<double>(shape.begin(), shape.end()); }

}  // namespace

ReferenceSpec elementwise_reference_of(const Node& node, const Definition& d, const Scope& dims,
                                       const std::vector<std::string>& temporaries) {
  node.only({"expression", "arrays"});
  auto e = std::make_shared<ElementwiseSpec>();
  const auto text_node = node.at("expression");
  e->text = text_node.string();
  e->pointer = text_node.pointer();
  if (e->text.size() > 1000) text_node.fail("expression longer than 1000 characters");
  const auto arrays_node = node.at("arrays");
  if (!arrays_node.json().is_object() || arrays_node.json().empty()) {
    arrays_node.fail("expected an object of ARRAY: [extents, outermost first]");
  }
  std::set<std::string> names;
  for (const auto& item : arrays_node.json().items()) {
    const std::string key = item.key();
    const Node entry(item.value(), arrays_node.pointer() + "/" + pointer_token(key), d.file);
    ElementwiseArray a;
    a.name = key;
    a.pointer = entry.pointer();
    const auto buffer = std::find_if(d.buffers.begin(), d.buffers.end(), [&](const auto& b) { return b.name == key; });
    const auto temporary = std::find(temporaries.begin(), temporaries.end(), key);
    if (buffer != d.buffers.end()) {
      if (buffer->type == ElementType::gguf) {
        entry.fail("buffer '" + key + "' holds GGUF blocks: an expression reads f32, f16, i32, u32 and i8 buffers "
                   "(a matmul step reads GGUF weights)");
      }
      if (buffer->alias_of >= 0) {
        entry.fail("buffer '" + key + "' is an alias of '" + buffer->alias_name + "': an expression reads the buffer, '" +
                   buffer->alias_name + "'");
      }
      if (buffer->uniform) {
        entry.fail("buffer '" + key + "' is a uniform buffer, the shape's metadata: an expression reads the shape's "
                   "dimensions themselves");
      }
      a.operand = static_cast<int>(buffer - d.buffers.begin());
    } else if (temporary != temporaries.end()) {
      a.operand = static_cast<int>(d.buffers.size() + (temporary - temporaries.begin()));
    } else {
      entry.fail("no buffer " + std::string(temporaries.empty() ? "" : "or temporary ") + "named '" + key + "'");
    }
    const auto extents = entry.array(1);
    if (extents.size() > 8) entry.fail("at most 8 extents");
    for (const auto& extent : extents) a.extents.push_back(extent.expression(dims));
    names.insert(key);
    e->arrays.push_back(std::move(a));
  }
  ElementwiseText parsed;
  try {
    parsed = split_elementwise(e->text, names, kElementwiseRead);
  } catch (const std::invalid_argument& problem) {
    text_node.fail(problem.what());
  }
  const auto array_index = [&](const std::string& name) {
    return static_cast<std::size_t>(
        std::find_if(e->arrays.begin(), e->arrays.end(), [&](const auto& a) { return a.name == name; }) -
        e->arrays.begin());
  };
  const auto expect_indices = [&](const ElementwiseArray& a, std::size_t count, const std::string& what) {
    if (count == a.extents.size()) return;
    text_node.fail(what + " has " + std::to_string(count) + (count == 1 ? " index" : " indices") + " but " +
                   a.pointer + " declares " + std::to_string(a.extents.size()) +
                   (a.extents.size() == 1 ? " extent" : " extents"));
  };
  if (!names.count(parsed.target)) {
    text_node.fail("the left side writes '" + parsed.target + "', which \"arrays\" does not declare");
  }
  e->target = array_index(parsed.target);
  expect_indices(e->arrays[e->target], parsed.indices.size(), "the left side " + parsed.target + "[...]");
  std::set<std::string> seen;
  for (const auto& index : parsed.indices) {
    if (!seen.insert(index).second) text_node.fail("the left side names index '" + index + "' twice");
    if (dims.index_of(index) >= 0) text_node.fail("index '" + index + "' is a shape dimension; choose another name");
    if (names.count(index)) text_node.fail("index '" + index + "' is an array's name; choose another name");
  }
  for (const auto& read : parsed.reads) {
    e->reads.push_back({array_index(read.array), read.text});
    expect_indices(e->arrays[e->reads.back().array], read.index_count, "'" + read.text + "'");
  }
  e->indices = parsed.indices;
  e->body = parsed.body;
  std::vector<ReadSlot> unbound(e->reads.size());
  try {
    compile_body(d, *e, unbound);
  } catch (const std::invalid_argument& problem) {
    std::string message = problem.what();
    const std::string marker = " is invalid: ";
    if (const auto at = message.find(marker); at != std::string::npos) message = message.substr(at + marker.size());
    std::string scope_names;
    const auto scope = body_scope(d, *e);
    for (const auto& n : scope.names()) scope_names += (scope_names.empty() ? "" : ", ") + n;
    text_node.fail("the right side '" + parsed.right + "' does not compile: " + message +
                   (parsed.body != parsed.right ? " (muparser reads it as '" + parsed.body + "')" : "") +
                   " (names it may use: " + scope_names + ")");
  }
  ReferenceSpec r;
  r.kind = ReferenceSpec::Kind::elementwise;
  r.pointer = node.pointer();
  r.elementwise = std::move(e);
  return r;
}

void check_elementwise_extents(const Definition& d, const ElementwiseSpec& e, const Shape& shape,
                               const std::function<std::uint64_t(int)>& count,
                               const std::function<std::string(int)>& describe) {
  const auto values = shape_values(shape);
  for (const auto& a : e.arrays) {
    const auto extents = extents_at(a, values);
    std::uint64_t product = 1;
    std::string factors;
    for (std::size_t i = 0; i < extents.size(); ++i) {
      if (extents[i] < 0) {
        throw Error(ErrorKind::usage, d.file + ": " + a.pointer + "/" + std::to_string(i) + ": '" +
                                          a.extents[i].text() + "' is not a whole number in 1..2^31-1 at shape " +
                                          shape_text(shape));
      }
      // Saturates past 2^32, so that a product too large matches no array instead of wrapping onto one.
      const auto extent = static_cast<std::uint64_t>(extents[i]);
      product = product > (std::uint64_t{1} << 32) ? product : product * extent;
      factors += (factors.empty() ? "" : " x ") + std::to_string(extent);
    }
    const auto have = count(a.operand);
    if (product != have) {
      throw Error(ErrorKind::usage, d.file + ": " + a.pointer + ": the extents make " + factors + " = " +
                                        std::to_string(product) + " values but " + describe(a.operand) + " holds " +
                                        std::to_string(have) + " at shape " + shape_text(shape));
    }
  }
}

std::vector<double> elementwise_output(const Definition& d, const ElementwiseSpec& e, const Shape& shape,
                                       const std::function<ArrayView(int)>& view) {
  const auto values = shape_values(shape);
  std::vector<std::vector<std::int64_t>> extents;
  for (const auto& a : e.arrays) extents.push_back(extents_at(a, values));
  std::vector<ArrayView> views(e.arrays.size());
  for (const auto& read : e.reads) views[read.array] = view(e.arrays[read.array].operand);
  const auto& out_extents = extents[e.target];
  std::size_t total = 1;
  for (const auto x : out_extents) total *= static_cast<std::size_t>(x);
  const auto rows = static_cast<std::size_t>(out_extents.front());
  const std::size_t per_row = total / rows;
  std::vector<double> out(total);
  const auto& target = e.arrays[e.target].name;
  auto element_text = [&](const std::vector<double>& at) {
    std::string text = target;
    for (std::size_t i = 0; i < e.indices.size(); ++i) text += "[" + number_text(at[d.dims.size() + i]) + "]";
    return text;
  };
  // One compiled expression per thread, with readers of its own: muparser's
  // evaluation is not reentrant, and the readers note that thread's failure.
  ref::parallel_rows(rows, [&](std::size_t begin, std::size_t end) {
    ReadFailure failure;
    std::vector<ReadSlot> slots(e.reads.size());
    // Bound after compiling: the compile's trial evaluation, with every
    // name 0, must not read (nor fail on) the data.
    const Expression body = compile_body(d, e, slots);
    for (std::size_t k = 0; k < slots.size(); ++k) {
      slots[k] = {&views[e.reads[k].array], &extents[e.reads[k].array], &failure, k};
    }
    std::vector<double> at(values);
    at.resize(d.dims.size() + e.indices.size(), 0.0);
    double* index = at.data() + d.dims.size();
    for (std::size_t row = begin; row < end; ++row) {
      for (std::size_t j = 0; j < per_row; ++j) {
        // Row-major: the last index varies fastest.
        std::size_t rest = j;
        for (std::size_t axis = out_extents.size(); axis-- > 1;) {
          index[axis] = static_cast<double>(rest % static_cast<std::size_t>(out_extents[axis]));
          rest /= static_cast<std::size_t>(out_extents[axis]);
        }
        index[0] = static_cast<double>(row);
        const double v = body.evaluate(at.data());
        if (failure.failed) {
          const auto& read = e.reads[failure.read];
          const auto extent = extents[read.array][failure.axis];
          throw Error(ErrorKind::usage,
                      d.file + ": " + e.pointer + ": the read " + read.text + " is outside " +
                          e.arrays[read.array].name + " for " + element_text(at) + " at shape " + shape_text(shape) +
                          ": its index " + std::to_string(failure.axis + 1) + " is " + number_text(failure.index) +
                          (failure.index == std::floor(failure.index) ? "" : ", not a whole number") + " (0.." +
                          std::to_string(extent - 1) + ")");
        }
        if (!std::isfinite(v)) {
          throw Error(ErrorKind::usage, d.file + ": " + e.pointer + ": the right side is " + std::to_string(v) +
                                            " for " + element_text(at) + " at shape " + shape_text(shape));
        }
        out[row * per_row + j] = v;
      }
    }
  });
  return out;
}

}  // namespace vktune::kernels::spec
