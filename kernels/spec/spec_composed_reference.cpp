#include "kernels/spec/spec_composed_reference.hpp"

#include <cmath>
#include <map>
#include <span>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_buffers.hpp"
#include "kernels/spec/spec_elementwise.hpp"
#include "kernels/spec/spec_reference.hpp"

namespace vktune::kernels::spec {

namespace {

// What one step writes and reads (operand indices: the buffers, then the
// temporaries), each with the field that names it.
struct StepAccess {
  int writes = -1;
  std::string write_pointer;
  std::vector<std::pair<int, std::string>> reads;
};

StepAccess access_of(const ReferenceSpec& step) {
  StepAccess access;
  if (step.kind == ReferenceSpec::Kind::elementwise) {
    const auto& e = *step.elementwise;
    access.writes = e.arrays[e.target].operand;
    access.write_pointer = e.pointer;
    for (const auto& read : e.reads) access.reads.emplace_back(e.arrays[read.array].operand, e.pointer);
    return access;
  }
  for (const auto& [name, index] : step.operands) {
    if (name == "y") {
      access.writes = index;
      access.write_pointer = step.pointer + "/y";
    } else {
      access.reads.emplace_back(index, step.pointer + "/" + name);
    }
  }
  return access;
}

std::string operand_text(const Definition& d, const ReferenceSpec& r, int operand) {
  const auto index = static_cast<std::size_t>(operand);
  if (index < d.buffers.size()) return "buffer '" + d.buffers[index].name + "'";
  return "temporary '" + r.temporaries[index - d.buffers.size()].name + "'";
}

[[noreturn]] void composed_fail(const Definition& d, const std::string& pointer, const std::string& problem) {
  static const nlohmann::json no_value;
  Node(no_value, pointer, d.file).fail(problem);
}

// Which step may write and read what, in the steps' order.
void check_step_order(const Definition& d, const ReferenceSpec& r) {
  std::vector<bool> written(r.temporaries.size(), false);
  const auto buffers = d.buffers.size();
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto access = access_of(r.steps[i]);
    for (const auto& [operand, pointer] : access.reads) {
      const auto index = static_cast<std::size_t>(operand);
      const auto what = operand_text(d, r, operand);
      if (operand == access.writes) composed_fail(d, pointer, "the step reads " + what + ", which it writes");
      if (index < buffers && d.buffers[index].role == BindingRole::output) {
        composed_fail(d, pointer, "reads the output " + what + ", which holds nothing before the kernel runs");
      }
      if (index < buffers && d.buffers[index].role == BindingRole::scratch) {
        composed_fail(d, pointer, "reads the scratch " + what + ", which is the kernel's own");
      }
      if (index >= buffers && !written[index - buffers]) {
        composed_fail(d, pointer, "reads " + what + " before a step writes it");
      }
    }
    const auto target = static_cast<std::size_t>(access.writes);
    if (i + 1 == r.steps.size()) {
      if (target != d.output) {
        composed_fail(d, access.write_pointer, "the last step writes the output buffer '" +
                                                   d.buffers[d.output].name + "', not " +
                                                   operand_text(d, r, access.writes));
      }
    } else {
      if (target < buffers) {
        composed_fail(d, access.write_pointer, "step " + std::to_string(i) + " writes " +
                                                   operand_text(d, r, access.writes) +
                                                   ": every step but the last writes a temporary");
      }
      written[target - buffers] = true;
    }
  }
}

std::vector<double> composed_shape_values(const Shape& shape) { return std::vector<double>(shape.begin(), shape.end()); }

}  // namespace

ReferenceSpec composed_reference_of(const Node& node, const Definition& d, const Scope& dims) {
  ReferenceSpec r;
  r.kind = ReferenceSpec::Kind::composed;
  r.pointer = node.pointer();
  if (node.has("expression") || node.has("arrays")) {
    r.steps.push_back(elementwise_reference_of(node, d, dims, {}));
  } else {
    node.only({"steps", "temporaries"});
    std::vector<std::string> names;
    if (node.has("temporaries")) {
      const auto temporaries = node.at("temporaries");
      if (!temporaries.json().is_object()) {
        temporaries.fail("expected an object of NAME: size (an expression of the shape)");
      }
      for (const auto& item : temporaries.json().items()) {
        const std::string key = item.key();
        const Node entry(item.value(), temporaries.pointer() + "/" + pointer_token(key), d.file);
        Node(nlohmann::json(key), entry.pointer(), d.file).identifier();  // the key is the temporary's name
        for (const auto& b : d.buffers) {
          if (b.name == key) entry.fail("'" + key + "' is a buffer's name; a temporary needs its own");
        }
        r.temporaries.push_back({key, entry.expression(dims), entry.pointer()});
        names.push_back(key);
      }
    }
    for (const auto& step : node.at("steps").array(1)) {
      if (step.has("op")) {
        r.steps.push_back(op_reference_of(step, d, dims, names, true));
      } else if (step.has("expression")) {
        r.steps.push_back(elementwise_reference_of(step, d, dims, names));
      } else {
        step.fail("a step is a reference op ({\"op\": ...}) or an element-wise expression "
                  "({\"expression\": ..., \"arrays\": ...})");
      }
    }
  }
  check_step_order(d, r);
  return r;
}

void check_composed_sizes(const Definition& d, const Shape& shape) {
  const auto& r = d.reference;
  const auto values = composed_shape_values(shape);
  std::vector<std::uint64_t> sizes;
  for (const auto& t : r.temporaries) {
    const double v = t.size.evaluate(values.data());
    if (!std::isfinite(v) || v < 1 || v >= 2147483648.0 || v != std::floor(v)) {
      throw Error(ErrorKind::usage, d.file + ": " + t.pointer + ": '" + t.size.text() +
                                        "' is not a whole number in 1..2^31-1 at shape " + shape_text(shape));
    }
    sizes.push_back(static_cast<std::uint64_t>(v));
  }
  const auto count = [&](int operand) {
    const auto index = static_cast<std::size_t>(operand);
    return index < d.buffers.size() ? element_count(d, d.buffers[index], shape) : sizes[index - d.buffers.size()];
  };
  const auto describe = [&](int operand) { return operand_text(d, r, operand); };
  for (const auto& step : r.steps) {
    if (step.kind == ReferenceSpec::Kind::elementwise) {
      check_elementwise_extents(d, *step.elementwise, shape, count, describe);
    } else {
      check_op_sizes(d, step, shape, count, describe);
    }
  }
}

std::vector<double> composed_output(const Definition& d, const Shape& shape,
                                    const std::vector<std::vector<float>>& values,
                                    const std::vector<HostBuffer>& buffers) {
  const auto& r = d.reference;
  const auto count = d.buffers.size();
  std::vector<std::vector<double>> temporaries(r.temporaries.size());
  // The buffers op steps read, widened to double once (exactly).
  std::map<int, std::vector<double>> widened;
  const auto doubles = [&](int operand) -> std::span<const double> {
    const auto index = static_cast<std::size_t>(operand);
    if (index >= count) return temporaries[index - count];
    auto& wide = widened[operand];
    if (wide.empty()) wide.assign(values[index].begin(), values[index].end());
    return wide;
  };
  const auto view = [&](int operand) {
    const auto index = static_cast<std::size_t>(operand);
    ArrayView v;
    if (index >= count) {
      v.doubles = temporaries[index - count].data();
      v.count = temporaries[index - count].size();
      return v;
    }
    v.type = d.buffers[index].type;
    v.floats = values[index].data();
    v.bytes = buffers[index].bytes.data();
    v.count = element_count(d, d.buffers[index], shape);
    return v;
  };
  std::vector<double> out;
  for (const auto& step : r.steps) {
    auto result = step.kind == ReferenceSpec::Kind::elementwise
                      ? elementwise_output(d, *step.elementwise, shape, view)
                      : op_output_from_doubles(d, step, shape, doubles, buffers);
    const auto target = static_cast<std::size_t>(access_of(step).writes);
    if (target >= count) {
      temporaries[target - count] = std::move(result);
    } else {
      out = std::move(result);
    }
  }
  return out;
}

}  // namespace vktune::kernels::spec
