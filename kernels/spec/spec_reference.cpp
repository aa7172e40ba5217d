#include "kernels/spec/spec_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <span>
#include <type_traits>

#include "kernels/spec/spec_buffers.hpp"
#include "kernels/spec/spec_composed_reference.hpp"
#include "reference/conv2d.hpp"
#include "reference/depthwise_conv.hpp"
#include "reference/dequantize.hpp"
#include "reference/matmul.hpp"
#include "reference/ops.hpp"

namespace vktune::kernels::spec {

namespace {

struct OpSignature {
  const char* op;
  std::vector<const char*> operands;  // required
  std::vector<const char*> optional;
  std::vector<const char*> sizes;
  bool eps = false;
  bool relu6 = false;
  bool rope = false;  // takes neox and freq_base
};

const std::vector<OpSignature>& signatures() {
  static const std::vector<OpSignature> list{
      {"softmax", {"x", "y"}, {}, {"n"}},
      {"rmsnorm", {"x", "y"}, {"weight"}, {"n"}, true},
      {"layernorm", {"x", "y"}, {"weight", "bias"}, {"n"}, true},
      {"matmul", {"x", "w", "y"}, {}, {"m", "n", "k"}},
      {"add", {"a", "b", "y"}, {}, {}},
      {"swiglu", {"a", "b", "y"}, {}, {}},
      {"mul", {"a", "b", "y"}, {}, {}},
      {"gelu", {"x", "y"}, {}, {}},
      {"gelu_erf", {"x", "y"}, {}, {}},
      {"depthwise_conv2d", {"x", "weight", "bias", "y"}, {}, {"batch", "height", "width", "channels", "stride"}, false,
       true},
      {"conv2d", {"x", "weight", "bias", "y"}, {},
       {"batch", "height", "width", "in_channels", "out_channels", "kernel", "stride", "padding"}, false, true},
      {"rope", {"x", "pos", "y"}, {}, {"head_dim"}, false, false, true},
  };
  return list;
}

int operand(const ReferenceSpec& r, const std::string& name) {
  for (const auto& [n, index] : r.operands)
    if (n == name) return index;
  return -1;
}

// The size as a whole number in `least`..2^31-1, or -1.
std::int64_t whole_at(const ReferenceSpec& r, const std::string& name, const std::vector<double>& values,
                      double least) {
  for (const auto& [n, e] : r.sizes) {
    if (n != name) continue;
    const double v = e.evaluate(values.data());
    if (!std::isfinite(v) || v < least || v >= 2147483648.0 || v != std::floor(v)) return -1;
    return static_cast<std::int64_t>(v);
  }
  return -1;
}

std::uint64_t size_at(const ReferenceSpec& r, const std::string& name, const std::vector<double>& values) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(whole_at(r, name, values, 1), 0));
}

// Four factors below 2^31 can pass 2^64: a product past 2^32 saturates,
// so it matches no buffer's count instead of wrapping onto one.
std::uint64_t saturating_product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t p = 1;
  for (auto f : factors) p = p > (std::uint64_t{1} << 32) || f > (std::uint64_t{1} << 32) ? UINT64_MAX : p * f;
  return p;
}

// A size that may be 0 (conv2d's padding).
bool may_be_zero(const ReferenceSpec& r, const std::string& name) { return r.op == "conv2d" && name == "padding"; }

// The values expressions over the shape read (Definition::full_scope's layout).
std::vector<double> scope_of(const Definition& d, const Shape& shape) {
  std::vector<double> values(d.full_scope.size(), 0.0);
  for (std::size_t i = 0; i < shape.size(); ++i) values[i] = shape[i];
  return values;
}

// The relu6 field at the shape: its boolean, or its expression nonzero.
bool relu6_at(const ReferenceSpec& r, const std::vector<double>& values) {
  return r.relu6_when ? r.relu6_when->evaluate(values.data()) != 0 : r.relu6;
}

// Operand index -> its values: a buffer's floats (T = float), or doubles
// (T = double: a composed reference's temporaries and widened buffers).
template <class T>
using OperandValues = std::function<std::span<const T>(int)>;

template <class T>
std::vector<double> op_output(const Definition& d, const ReferenceSpec& r, const std::vector<double>& scope,
                              const OperandValues<T>& operand_values, const std::vector<HostBuffer>& buffers) {
  // Empty for an optional operand the op was not given (a norm's weight).
  auto values_of = [&](const char* name) -> std::span<const T> {
    const int i = operand(r, name);
    if (i < 0) return {};
    return operand_values(i);
  };
  if (r.op == "softmax") return ref::softmax(values_of("x"), size_at(r, "n", scope));
  if (r.op == "rmsnorm") return ref::rmsnorm(values_of("x"), size_at(r, "n", scope), r.eps, values_of("weight"));
  if (r.op == "layernorm") {
    return ref::layernorm(values_of("x"), size_at(r, "n", scope), r.eps, values_of("weight"), values_of("bias"));
  }
  if (r.op == "add") return ref::add(values_of("a"), values_of("b"));
  if (r.op == "swiglu") return ref::swiglu(values_of("a"), values_of("b"));
  if (r.op == "mul") return ref::mul(values_of("a"), values_of("b"));
  if (r.op == "gelu") return ref::gelu_tanh(values_of("x"));
  if (r.op == "gelu_erf") return ref::gelu_erf(values_of("x"));
  if (r.op == "depthwise_conv2d") {
    const ref::DepthwiseShape s{size_at(r, "batch", scope), size_at(r, "height", scope), size_at(r, "width", scope),
                                size_at(r, "channels", scope), size_at(r, "stride", scope)};
    return ref::depthwise_conv2d_3x3(values_of("x"), values_of("weight"), values_of("bias"), s, r.relu6);
  }
  if (r.op == "conv2d") {
    const auto size = [&](const char* name) { return static_cast<std::size_t>(whole_at(r, name, scope, 0)); };
    const ref::Conv2dShape s{size("batch"),  size("height"), size("width"),  size("in_channels"),
                             size("out_channels"), size("kernel"), size("stride"), size("padding")};
    return ref::conv2d(values_of("x"), values_of("weight"), values_of("bias"), s, relu6_at(r, scope));
  }
  if (r.op == "rope") {
    const auto& pos = buffers[operand(r, "pos")].bytes;
    std::vector<std::int32_t> positions(pos.size() / 4);
    std::memcpy(positions.data(), pos.data(), positions.size() * 4);
    return ref::rope(values_of("x"), size_at(r, "head_dim", scope), positions,
                     r.neox ? ref::RopeLayout::neox : ref::RopeLayout::normal, r.freq_base);
  }
  if (r.op == "matmul") {
    const auto m = size_at(r, "m", scope), n = size_at(r, "n", scope), k = size_at(r, "k", scope);
    const int w_index = operand(r, "w");
    const bool quantized = static_cast<std::size_t>(w_index) < d.buffers.size() &&
                           d.buffers[w_index].type == ElementType::gguf;
    if constexpr (std::is_same_v<T, float>) {
      if (quantized) {
        return ref::matmul_quantized(values_of("x").data(), m, buffers[w_index].bytes.data(), d.buffers[w_index].gguf,
                                     n, k);
      }
      return ref::matmul_f32(values_of("x").data(), values_of("w").data(), m, n, k);
    } else {
      if (quantized) {
        // Dequantized bit-exactly to floats, as matmul_quantized does, then widened.
        const auto rows = ref::dequantize_rows(d.buffers[w_index].gguf, buffers[w_index].bytes.data(), n, k);
        const std::vector<double> wide(rows.begin(), rows.end());
        return ref::matmul_f64(values_of("x").data(), wide.data(), m, n, k);
      }
      return ref::matmul_f64(values_of("x").data(), values_of("w").data(), m, n, k);
    }
  }
  throw Error(ErrorKind::internal, "reference op " + r.op + " has no implementation");
}

}  // namespace

ReferenceSpec reference_of(const Node& node, const Definition& d, const Scope& dims) {
  return op_reference_of(node, d, dims, {}, false);
}

ReferenceSpec op_reference_of(const Node& node, const Definition& d, const Scope& dims,
                              const std::vector<std::string>& temporaries, bool step) {
  ReferenceSpec r;
  r.pointer = node.pointer();
  const auto op_node = node.at("op");
  r.op = op_node.string();
  const auto sig = std::find_if(signatures().begin(), signatures().end(), [&](const auto& s) { return r.op == s.op; });
  if (sig == signatures().end()) {
    std::string known;
    for (const auto& s : signatures()) known += (known.empty() ? "" : ", ") + std::string(s.op);
    op_node.fail("unknown reference op '" + r.op + "' (" + known + ")");
  }
  if (!node.json().is_object()) node.fail("expected an object");
  for (const auto& item : node.json().items()) {
    const std::string key = item.key();
    const auto& value = item.value();
    const Node field(value, node.pointer() + "/" + pointer_token(key), d.file);
    if (key == "op") continue;
    if (key == "eps" && sig->eps) {
      r.eps = field.number();
      if (!(r.eps > 0)) field.fail("eps must be positive");
      continue;
    }
    if (key == "relu6" && sig->relu6) {
      // conv2d's may be an expression of the shape: one spec serves linear
      // and ReLU6 layers (MobileNet's pointwise projections and expansions).
      if (r.op == "conv2d" && value.is_string()) {
        r.relu6_when = std::make_shared<const Expression>(field.expression(dims));
      } else {
        r.relu6 = field.boolean();
      }
      continue;
    }
    if (key == "neox" && sig->rope) {
      r.neox = field.boolean();
      continue;
    }
    if (key == "freq_base" && sig->rope) {
      r.freq_base = field.number();
      if (!(r.freq_base > 1)) field.fail("freq_base must be above 1");
      continue;
    }
    const bool is_operand = std::any_of(sig->operands.begin(), sig->operands.end(), [&](auto o) { return key == o; }) ||
                            std::any_of(sig->optional.begin(), sig->optional.end(), [&](auto o) { return key == o; });
    const bool is_size = std::any_of(sig->sizes.begin(), sig->sizes.end(), [&](auto o) { return key == o; });
    if (is_operand) {
      const auto name = field.string();
      const auto it = std::find_if(d.buffers.begin(), d.buffers.end(), [&](const auto& b) { return b.name == name; });
      const auto temporary = std::find(temporaries.begin(), temporaries.end(), name);
      if (it != d.buffers.end() && it->alias_of >= 0) {
        field.fail("buffer '" + name + "' is an alias of '" + it->alias_name + "': a reference reads the buffer, '" +
                   it->alias_name + "'");
      }
      if (it != d.buffers.end()) {
        r.operands.emplace_back(key, static_cast<int>(it - d.buffers.begin()));
      } else if (temporary != temporaries.end()) {
        r.operands.emplace_back(key, static_cast<int>(d.buffers.size() + (temporary - temporaries.begin())));
      } else {
        field.fail("no buffer " + std::string(temporaries.empty() ? "" : "or temporary ") + "named '" + name + "'");
      }
    } else if (is_size) {
      r.sizes.emplace_back(key, field.expression(dims));
    } else {
      field.fail("op " + r.op + " takes no field '" + key + "'");
    }
  }
  for (const char* o : sig->operands) {
    if (operand(r, o) < 0) node.fail("op " + r.op + " needs operand '" + o + "' (a buffer name)");
  }
  for (const char* s : sig->sizes) {
    if (std::none_of(r.sizes.begin(), r.sizes.end(), [&](const auto& p) { return p.first == s; })) {
      node.fail("op " + r.op + " needs size '" + s + "' (an expression of the shape)");
    }
  }
  // In a composed reference the steps' order decides what each may write.
  const int y = operand(r, "y");
  if (!step && static_cast<std::size_t>(y) != d.output) node.at("y").fail("the reference's y is the output buffer");
  for (const auto& [name, index] : r.operands) {
    if (static_cast<std::size_t>(index) >= d.buffers.size()) {  // a temporary: doubles
      if (r.op == "rope" && name == "pos") node.at(name).fail("operand 'pos' of rope reads i32 positions (a buffer)");
      continue;
    }
    const auto& b = d.buffers[index];
    const bool quantized_ok = r.op == "matmul" && name == "w";
    if (r.op == "rope" && name == "pos") {
      if (b.type != ElementType::i32) node.at(name).fail("operand 'pos' of rope reads i32 positions");
      continue;
    }
    if (b.type == ElementType::gguf ? !quantized_ok : b.type != ElementType::f32 && b.type != ElementType::f16) {
      node.at(name).fail("operand '" + name + "' of " + r.op + " cannot read buffer '" + b.name + "' of that type");
    }
  }
  return r;
}

void check_reference_sizes(const Definition& d, const Shape& shape) {
  const auto& r = d.reference;
  if (r.kind == ReferenceSpec::Kind::composed) return check_composed_sizes(d, shape);
  if (r.kind != ReferenceSpec::Kind::op) return;  // a shader reference reads the buffers as the variants do
  const auto count = [&](int index) { return element_count(d, d.buffers[index], shape); };
  const auto describe = [&](int index) { return "buffer '" + d.buffers[index].name + "'"; };
  check_op_sizes(d, r, shape, count, describe);
}

void check_op_sizes(const Definition& d, const ReferenceSpec& r, const Shape& shape,
                    const std::function<std::uint64_t(int)>& array_count,
                    const std::function<std::string(int)>& describe) {
  const auto values = scope_of(d, shape);
  auto fail = [&](const std::string& field, const std::string& problem) {
    throw Error(ErrorKind::usage, d.file + ": " + r.pointer + "/" + field + ": " + problem + " at shape " +
                                      shape_text(shape));
  };
  for (const auto& [name, e] : r.sizes) {
    if (may_be_zero(r, name) ? whole_at(r, name, values, 0) < 0 : size_at(r, name, values) == 0) {
      fail(name, "'" + e.text() + "' is not a whole number in " + (may_be_zero(r, name) ? "0" : "1") + "..2^31-1");
    }
  }
  auto count = [&](const char* name) -> std::uint64_t {
    const int i = operand(r, name);
    return i < 0 ? 0 : array_count(i);
  };
  auto expect = [&](const char* name, std::uint64_t want, const std::string& formula) {
    if (operand(r, name) < 0) return;
    const auto have = count(name);
    if (have != want) {
      fail(name, describe(operand(r, name)) + " holds " + std::to_string(have) + " values but " +
                     r.op + " reads " + formula + " = " + std::to_string(want));
    }
  };
  if (r.op == "matmul") {
    const auto m = size_at(r, "m", values), n = size_at(r, "n", values), k = size_at(r, "k", values);
    expect("x", m * k, "m*k");
    expect("w", n * k, "n*k");
    expect("y", m * n, "m*n");
    const auto w_index = static_cast<std::size_t>(operand(r, "w"));
    const bool quantized = w_index < d.buffers.size() && d.buffers[w_index].type == ElementType::gguf;
    if (quantized && k % ref::block_weights(d.buffers[w_index].gguf) != 0) {
      const auto& w = d.buffers[w_index];
      fail("k", "k=" + std::to_string(k) + " is not a whole number of " + std::string(ref::type_name(w.gguf)) + " blocks");
    }
  } else if (r.op == "add" || r.op == "swiglu" || r.op == "mul") {
    expect("b", count("a"), "the size of a");
    expect("y", count("a"), "the size of a");
  } else if (r.op == "gelu" || r.op == "gelu_erf") {
    expect("y", count("x"), "the size of x");
  } else if (r.op == "rope") {
    const auto head_dim = size_at(r, "head_dim", values), x = count("x"), tokens = count("pos");
    if (head_dim % 2 != 0) fail("head_dim", "head_dim " + std::to_string(head_dim) + " is not even");
    if (x % (tokens * head_dim) != 0) {
      fail("x", "the " + std::to_string(x) + " values of x are not whole heads of head_dim=" +
                    std::to_string(head_dim) + " for each of the " + std::to_string(tokens) + " positions");
    }
    expect("y", x, "the size of x");
  } else if (r.op == "depthwise_conv2d") {
    const auto batch = size_at(r, "batch", values), height = size_at(r, "height", values);
    const auto width = size_at(r, "width", values), channels = size_at(r, "channels", values);
    const auto stride = size_at(r, "stride", values);
    if (stride > 2) fail("stride", "stride " + std::to_string(stride) + " is not 1 or 2");
    expect("x", saturating_product({batch, height, width, channels}), "batch*height*width*channels");
    expect("weight", 9 * channels, "9*channels");
    expect("bias", channels, "channels");
    expect("y",
           saturating_product({batch, ref::depthwise_output_extent(height, stride),
                               ref::depthwise_output_extent(width, stride), channels}),
           "batch*out_h*out_w*channels (out_h = floor((height-1)/stride)+1, out_w likewise)");
  } else if (r.op == "conv2d") {
    const auto size = [&](const char* name) { return static_cast<std::uint64_t>(whole_at(r, name, values, 0)); };
    const auto kernel = size("kernel"), stride = size("stride"), padding = size("padding");
    const auto out_h = ref::conv2d_output_extent(size("height"), kernel, stride, padding);
    const auto out_w = ref::conv2d_output_extent(size("width"), kernel, stride, padding);
    if (out_h == 0 || out_w == 0) fail("kernel", "the window is larger than the padded input");
    const auto in = size("in_channels"), out = size("out_channels");
    expect("x", saturating_product({size("batch"), size("height"), size("width"), in}),
           "batch*height*width*in_channels");
    expect("weight", saturating_product({out, kernel, kernel, in}), "out_channels*kernel*kernel*in_channels");
    expect("bias", out, "out_channels");
    expect("y", saturating_product({size("batch"), out_h, out_w, out}),
           "batch*out_h*out_w*out_channels (out_h = floor((height+2*padding-kernel)/stride)+1, out_w likewise)");
  } else {
    const auto n = size_at(r, "n", values), x = count("x");
    if (x % n != 0) fail("n", "the " + std::to_string(x) + " values of x are not whole rows of n=" + std::to_string(n));
    expect("y", x, "the size of x");
    expect("weight", n, "n");
    expect("bias", n, "n");
  }
}

std::vector<double> reference_output(const Definition& d, const Shape& shape,
                                     const std::vector<std::vector<float>>& values,
                                     const std::vector<HostBuffer>& buffers) {
  if (d.reference.kind == ReferenceSpec::Kind::composed) return composed_output(d, shape, values, buffers);
  return op_output_from_floats(d, d.reference, shape, [&](int i) { return std::span<const float>(values[i]); },
                               buffers);
}

std::vector<double> op_output_from_floats(const Definition& d, const ReferenceSpec& r, const Shape& shape,
                                          const std::function<std::span<const float>(int)>& values,
                                          const std::vector<HostBuffer>& buffers) {
  return op_output<float>(d, r, scope_of(d, shape), values, buffers);
}

std::vector<double> op_output_from_doubles(const Definition& d, const ReferenceSpec& r, const Shape& shape,
                                           const std::function<std::span<const double>(int)>& values,
                                           const std::vector<HostBuffer>& buffers) {
  return op_output<double>(d, r, scope_of(d, shape), values, buffers);
}

}  // namespace vktune::kernels::spec
