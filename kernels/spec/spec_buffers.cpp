#include "kernels/spec/spec_buffers.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "common/hash.hpp"
#include "kernels/kernel_support.hpp"
#include "kernels/spec/spec_push_constants.hpp"
#include "kernels/spec/spec_image.hpp"
#include "kernels/spec/spec_reference.hpp"
#include "kernels/spec/spec_uniform.hpp"
#include "reference/fp16.hpp"
#include "reference/random_blocks.hpp"
#include "results/table_format.hpp"

namespace vktune::kernels::spec {

namespace {

std::vector<double> shape_values(const Definition& d, const Shape& shape) {
  std::vector<double> values(d.full_scope.size(), 0.0);
  for (std::size_t i = 0; i < shape.size(); ++i) values[i] = shape[i];
  return values;
}

std::size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::f32:
    case ElementType::i32:
    case ElementType::u32: return 4;
    case ElementType::f16: return 2;
    case ElementType::i8: return 1;
    case ElementType::gguf: return 0;
  }
  return 0;
}

}  // namespace

BufferSpec buffer_of(const Node& node, const Scope& dims,
                     const std::function<std::optional<std::string>(const std::string&)>& read) {
  if (node.has("alias_of")) {
    // Everything but where it binds is the target's: one buffer, one size,
    // one role and one content. (The interface check reads a storage
    // buffer's kind, not its element type, so a view's type would be checked
    // against nothing: an alias declares none.)
    for (const char* own : {"type", "size", "role", "init", "members", "image"}) {
      if (node.has(own)) {
        node.at(own).fail("an alias binds its target's buffer, with the target's " + std::string(own) +
                          ": give it name, binding and alias_of only");
      }
    }
    node.only({"name", "binding", "alias_of"});
    BufferSpec b{node.at("name").identifier(), static_cast<std::uint32_t>(node.at("binding").integer(0, 63)),
                 ElementType::u32, ref::GgmlType::F32, BindingRole::input, node.pointer(), Expression("1", dims)};
    b.alias_name = node.at("alias_of").identifier();
    return b;
  }
  if (node.has("role") && node.at("role").json() == "uniform") {
    BufferSpec b{node.at("name").identifier(), static_cast<std::uint32_t>(node.at("binding").integer(0, 63)),
                 ElementType::u32, ref::GgmlType::F32, BindingRole::input, node.pointer(), Expression("1", dims)};
    read_uniform_buffer(node, dims, b);
    return b;
  }
  // The role first: a misspelt "uniform" is a wrong role, not a buffer whose members are unknown fields.
  const auto role_node = node.at("role");
  const auto role = role_node.string();
  const int role_index = results::table_format::binding_role_index(role);
  if (role_index < 0 || static_cast<BindingRole>(role_index) == BindingRole::uniform) {
    role_node.fail("unknown role '" + role + "' (" + results::table_format::binding_role_list() + ")");
  }
  // An image's element type and count follow from its format and tensor.
  std::shared_ptr<const ImageSpec> image;
  if (node.has("image")) {
    node.only({"name", "binding", "role", "init", "image"});
    image = read_image(node.at("image"), dims, static_cast<BindingRole>(role_index));
  } else {
    node.only({"name", "binding", "type", "size", "role", "init"});
  }
  BufferSpec b{node.at("name").identifier(),
               static_cast<std::uint32_t>(node.at("binding").integer(0, 63)),
               ElementType::f32,
               ref::GgmlType::F32,
               BindingRole::input,
               node.pointer(),
               image ? Expression(image_elements_text(*image), dims) : node.at("size").expression(dims)};
  b.image = image;
  const auto type = image ? std::string(image->format == vk::ImageFormat::rgba32f ? "f32" : "f16") : node.at("type").string();
  const auto type_node = image ? node.at("image").at("format") : node.at("type");
  if (type == "f32") b.type = ElementType::f32;
  else if (type == "f16") b.type = ElementType::f16;
  else if (type == "i32") b.type = ElementType::i32;
  else if (type == "u32") b.type = ElementType::u32;
  else if (type == "i8") b.type = ElementType::i8;
  else if (auto gguf = ref::ggml_type_from_name(type); gguf && ref::is_quantized(*gguf)) {
    b.type = ElementType::gguf;
    b.gguf = *gguf;
  } else {
    type_node.fail("unknown element type '" + type + "' (f32, f16, i32, u32, i8, or a GGUF block type: " +
                   ref::ggml_type_list(true) + ")");
  }
  b.role = static_cast<BindingRole>(role_index);

  const bool data = b.role == BindingRole::input || b.role == BindingRole::weights;
  b.init = !data ? InitKind::zeros : b.type == ElementType::gguf ? InitKind::gguf_random : InitKind::uniform;
  if (b.type == ElementType::i8) b.a = -128, b.b = 127;
  if (b.type == ElementType::i32 || b.type == ElementType::u32) b.a = 0, b.b = 255;
  if (!node.has("init")) return b;
  const auto init = node.at("init");
  if (!data) init.fail("only input and weights buffers are initialised (outputs are poisoned, scratch zeroed)");
  init.only({"kind", "min", "max", "mean", "stddev", "path"});
  const auto kind_node = init.at("kind");
  const auto kind = kind_node.string();
  if (kind == "uniform") b.init = InitKind::uniform;
  else if (kind == "normal") b.init = InitKind::normal;
  else if (kind == "zeros") b.init = InitKind::zeros;
  else if (kind == "gguf_random") b.init = InitKind::gguf_random;
  else if (kind == "file") b.init = InitKind::file;
  else kind_node.fail("unknown init kind '" + kind + "' (uniform, normal, zeros, gguf_random, file)");
  if (b.init == InitKind::file) {
    // Raw bytes in the buffer's layout (little-endian values, GGUF blocks as stored).
    const auto path_node = init.at("path");
    const auto path = path_node.string();
    if (path.empty() || path.front() == '/' || path.find("..") != std::string::npos) {
      path_node.fail("'" + path + "' must be a relative path inside the spec's folder");
    }
    auto bytes = read(path);
    if (!bytes) path_node.fail("file '" + path + "' does not exist");
    b.file_bytes = std::make_shared<const std::string>(std::move(*bytes));
    return b;
  }
  if (b.init != InitKind::file && (b.init == InitKind::gguf_random) != (b.type == ElementType::gguf)) {
    kind_node.fail(b.type == ElementType::gguf ? "a GGUF buffer is initialised with gguf_random blocks"
                                               : "gguf_random is for GGUF block types");
  }
  if (b.init == InitKind::uniform) {
    if (init.has("min")) b.a = init.at("min").number();
    if (init.has("max")) b.b = init.at("max").number();
    if (!(b.a < b.b)) init.fail("min must be below max");
    const bool integer = b.type != ElementType::f32 && b.type != ElementType::f16;
    if (integer && (std::ceil(b.a) > std::floor(b.b) || b.a < -2147483648.0 || b.b > 4294967295.0)) {
      init.fail("no whole number of the element type lies in [min, max]");
    }
  } else if (b.init == InitKind::normal) {
    if (b.type != ElementType::f32 && b.type != ElementType::f16) kind_node.fail("normal is for float buffers");
    b.a = init.has("mean") ? init.at("mean").number() : 0.0;
    b.b = init.has("stddev") ? init.at("stddev").number() : 1.0;
    if (!(b.b > 0)) init.fail("stddev must be positive");
  }
  return b;
}

void resolve_aliases(Definition& d, const Node& top) {
  for (auto& alias : d.buffers) {
    if (alias.alias_name.empty()) continue;
    const Node field(top.json(), alias.pointer + "/alias_of", d.file);
    const auto target = std::find_if(d.buffers.begin(), d.buffers.end(),
                                     [&](const BufferSpec& b) { return b.name == alias.alias_name; });
    if (target == d.buffers.end()) field.fail("no buffer is named '" + alias.alias_name + "'");
    if (&*target == &alias) field.fail("a buffer cannot alias itself");
    if (!target->alias_name.empty()) {
      field.fail("'" + alias.alias_name + "' is itself an alias (of '" + target->alias_name + "'): alias '" +
                 target->alias_name + "' instead");
    }
    if (target->uniform) field.fail("'" + alias.alias_name + "' is a uniform buffer, which cannot be aliased");
    if (target->image) field.fail("'" + alias.alias_name + "' is an image, which cannot be aliased");
  }
  for (auto& alias : d.buffers) {
    if (alias.alias_name.empty()) continue;
    const auto& target = *std::find_if(d.buffers.begin(), d.buffers.end(),
                                       [&](const BufferSpec& b) { return b.name == alias.alias_name; });
    // Field by field: an Expression is compiled once and moved, not copied
    // (a uniform target, the only one with members, was refused above).
    alias.type = target.type;
    alias.gguf = target.gguf;
    alias.role = target.role;
    alias.elements = target.elements.clone();
    alias.init = target.init;
    alias.a = target.a;
    alias.b = target.b;
    alias.file_bytes = target.file_bytes;
    alias.alias_of = static_cast<int>(target.binding);
  }
}

std::uint64_t element_count(const Definition& d, const BufferSpec& b, const Shape& shape) {
  const auto values = shape_values(d, shape);
  const double count = b.elements.evaluate(values.data());
  const std::string where = d.file + ": " + b.pointer + "/size: ";
  if (!std::isfinite(count) || count != std::floor(count)) {
    throw Error(ErrorKind::usage, where + "'" + b.elements.text() + "' is not a whole number at shape " +
                                      shape_text(shape));
  }
  if (count <= 0) {
    throw Error(ErrorKind::usage, where + "'" + b.elements.text() + "' is " + std::to_string(static_cast<long long>(count)) +
                                      " at shape " + shape_text(shape) + ": a buffer holds at least one value");
  }
  if (count >= 2147483648.0) {
    throw Error(ErrorKind::usage, where + "'" + b.elements.text() + "' overflows 32-bit indexing at shape " +
                                      shape_text(shape));
  }
  const auto n = static_cast<std::uint64_t>(count);
  if (b.type == ElementType::gguf && n % ref::block_weights(b.gguf) != 0) {
    throw Error(ErrorKind::usage, where + std::to_string(n) + " weights at shape " + shape_text(shape) +
                                      " are not a whole number of " + std::string(ref::type_name(b.gguf)) + " blocks of " +
                                      std::to_string(ref::block_weights(b.gguf)));
  }
  return n;
}

std::uint64_t buffer_bytes(const BufferSpec& b, std::uint64_t elements) {
  if (b.type == ElementType::gguf) return elements / ref::block_weights(b.gguf) * ref::block_bytes(b.gguf);
  return elements * element_size(b.type);
}

void check_sizes(const Definition& d, const Shape& shape, const Node& top) {
  const auto values = shape_values(d, shape);
  for (const auto& rule : d.shape_rules) {
    if (rule.expression.evaluate(values.data()) == 0) {
      throw Error(ErrorKind::usage, d.file + ": " + rule.pointer + ": shape " + shape_text(shape) +
                                        " breaks the rule '" + rule.expression.text() + "' (" + rule.reason + ")");
    }
  }
  for (const auto& b : d.buffers) {
    if (b.uniform) uniform_block(d, b, values.data(), shape);  // every member's value converts
    if (b.image) packed_extents(d, b, shape);                  // every extent is whole, a 2-D image one slice
    const auto count = element_count(d, b, shape);
    if (b.init == InitKind::file && b.file_bytes->size() != buffer_bytes(b, count)) {
      throw Error(ErrorKind::usage, d.file + ": " + b.pointer + "/init/path: the file holds " +
                                        std::to_string(b.file_bytes->size()) + " bytes but the buffer takes " +
                                        std::to_string(buffer_bytes(b, count)) + " at shape " + shape_text(shape));
    }
  }
  for (std::size_t i = 0; i < d.push_constants.size(); ++i) {
    const auto& pc = d.push_constants[i];
    if (push_word_bits(pc, values.data())) continue;
    Node(top.json(), "/push_constants/" + std::to_string(i) + "/value", d.file)
        .fail("'" + pc.value.text() + "' is not " + push_type_range(pc.type) + " at shape " + shape_text(shape));
  }
  for (const auto& [metric, expression] : {std::pair{"bytes", d.bytes.get()}, std::pair{"flops", d.flops.get()}}) {
    const double v = expression->evaluate(values.data());
    if (!std::isfinite(v) || v < 0) {
      Node(top.json(), std::string("/metrics/") + metric, d.file)
          .fail("'" + expression->text() + "' is not a finite, non-negative number at shape " + shape_text(shape));
    }
  }
}

BufferContents make_contents(const BufferSpec& b, std::uint64_t elements, std::uint64_t seed, InputKind kind) {
  BufferContents c;
  c.host.name = b.name;
  c.host.is_output = b.role == BindingRole::output;
  c.host.is_weights = b.role == BindingRole::input || b.role == BindingRole::weights;
  const auto bytes = buffer_bytes(b, elements);
  // Each buffer draws from its own stream: the seed and its name.
  const std::uint64_t own = seed ^ Hasher().add(b.name).value();
  if (b.init == InitKind::zeros || !c.host.is_weights) {
    c.host.bytes.assign(bytes, 0);
    if (b.type == ElementType::f32 || b.type == ElementType::f16) c.values.assign(elements, 0.0f);
    return c;
  }
  if (b.init == InitKind::file) {
    // The same data for every seed and input kind: the user's own.
    c.host.bytes.assign(b.file_bytes->begin(), b.file_bytes->end());
    if (b.type == ElementType::f32) {
      c.values.resize(elements);
      std::memcpy(c.values.data(), c.host.bytes.data(), bytes);
    } else if (b.type == ElementType::f16) {
      c.values.resize(elements);
      for (std::size_t i = 0; i < elements; ++i) {
        std::uint16_t h = 0;
        std::memcpy(&h, c.host.bytes.data() + 2 * i, 2);
        c.values[i] = ref::fp16_to_fp32(h);
      }
    }
    return c;
  }
  if (b.type == ElementType::gguf) {
    c.host.bytes = ref::random_quantized_rows(b.gguf, 1, elements, own, kind);
    return c;
  }
  c.host.bytes.resize(bytes);
  if (b.type == ElementType::f32 || b.type == ElementType::f16) {
    if (b.init == InitKind::uniform) {
      c.values = support::random_values(elements, own, static_cast<float>(b.a), static_cast<float>(b.b), kind);
    } else {
      std::mt19937_64 rng(own);
      std::normal_distribution<double> dist(b.a, b.b);
      c.values.resize(elements);
      for (auto& v : c.values) v = static_cast<float>(dist(rng));
    }
    if (b.type == ElementType::f32) {
      std::memcpy(c.host.bytes.data(), c.values.data(), bytes);
    } else {
      for (std::size_t i = 0; i < elements; ++i) {
        const std::uint16_t h = ref::fp32_to_fp16(c.values[i]);
        c.values[i] = ref::fp16_to_fp32(h);  // what the shader reads
        std::memcpy(c.host.bytes.data() + 2 * i, &h, 2);
      }
    }
    return c;
  }
  // Integers, uniform over [min, max].
  std::mt19937_64 rng(own);
  std::uniform_int_distribution<long long> dist(static_cast<long long>(std::ceil(b.a)), static_cast<long long>(std::floor(b.b)));
  for (std::size_t i = 0; i < elements; ++i) {
    const long long v = dist(rng);
    if (b.type == ElementType::i8) {
      const auto byte = static_cast<std::int8_t>(std::clamp(v, -128ll, 127ll));
      std::memcpy(c.host.bytes.data() + i, &byte, 1);
    } else {
      const auto word = static_cast<std::uint32_t>(v);
      std::memcpy(c.host.bytes.data() + 4 * i, &word, 4);
    }
  }
  return c;
}

}  // namespace vktune::kernels::spec
