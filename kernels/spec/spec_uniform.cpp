#include "kernels/spec/spec_uniform.hpp"

#include <cstring>
#include <optional>
#include <set>

#include "kernels/spec/spec_push_constants.hpp"

namespace vktune::kernels::spec {

namespace {

// A std140 member type: its lanes' scalar type, how many lanes, and its base
// alignment (a vec3 aligns as a vec4 but fills 12 bytes, so a scalar after
// it takes the fourth lane's place).
struct UniformType {
  const char* name;
  PushType scalar;
  std::uint32_t lanes;
  std::uint32_t align;
};

constexpr UniformType kUniformTypes[] = {
    {"u32", PushType::u32, 1, 4},    {"i32", PushType::i32, 1, 4},    {"f32", PushType::f32, 1, 4},
    {"uvec2", PushType::u32, 2, 8},  {"ivec2", PushType::i32, 2, 8},  {"vec2", PushType::f32, 2, 8},
    {"uvec3", PushType::u32, 3, 16}, {"ivec3", PushType::i32, 3, 16}, {"vec3", PushType::f32, 3, 16},
    {"uvec4", PushType::u32, 4, 16}, {"ivec4", PushType::i32, 4, 16}, {"vec4", PushType::f32, 4, 16}};

std::string uniform_type_list() {
  std::string list;
  for (const auto& t : kUniformTypes) list += (list.empty() ? "" : ", ") + std::string(t.name);
  return list;
}

}  // namespace

void read_uniform_buffer(const Node& node, const Scope& dims, BufferSpec& b) {
  // Said plainly: the generic "unknown field" would not tell a user who
  // wrote a storage buffer's fields why they do not apply.
  for (const char* field : {"size", "type", "init"}) {
    if (node.has(field)) {
      node.at(field).fail(std::string("a uniform buffer has no ") + field +
                          ": its contents are its members, laid out in std140");
    }
  }
  node.only({"name", "binding", "role", "members"});
  b.uniform = true;
  b.role = BindingRole::input;  // host data, written for each problem
  b.type = ElementType::u32;
  b.init = InitKind::zeros;
  std::set<std::string> names;
  std::uint32_t end = 0;
  for (const auto& m : node.at("members").array(1)) {
    m.only({"name", "type", "value"});
    UniformMember member{m.at("name").identifier(), m.at("type").string()};
    if (!names.insert(member.name).second) m.at("name").fail("a second member named '" + member.name + "'");
    const UniformType* type = nullptr;
    for (const auto& t : kUniformTypes)
      if (member.type == t.name) type = &t;
    if (!type) m.at("type").fail("'" + member.type + "' is not a uniform member type (" + uniform_type_list() + ")");
    member.offset = (end + type->align - 1) / type->align * type->align;
    end = member.offset + 4 * type->lanes;
    const auto value = m.at("value");
    if (type->lanes == 1) {
      if (value.json().is_array()) value.fail("a " + member.type + " takes one expression, not an array");
      member.lanes.push_back({member.name, value.expression(dims), type->scalar});
      member.pointers.push_back(value.pointer());
    } else {
      if (!value.json().is_array() || value.json().size() != type->lanes) {
        value.fail("a " + member.type + " takes an array of " + std::to_string(type->lanes) + " expressions");
      }
      const auto lanes = value.array();
      for (std::size_t i = 0; i < lanes.size(); ++i) {
        member.lanes.push_back({member.name + "[" + std::to_string(i) + "]", lanes[i].expression(dims), type->scalar});
        member.pointers.push_back(lanes[i].pointer());
      }
    }
    b.members.push_back(std::move(member));
    if (end > kMaxUniformBytes) {
      m.fail("the block reaches " + std::to_string(end) + " bytes, past the " + std::to_string(kMaxUniformBytes) +
             " every device's maxUniformBufferRange holds");
    }
  }
  b.uniform_bytes = end;
  b.elements = Expression(std::to_string(end / 4), dims);  // whole words: every lane is 32 bits
}

std::vector<std::uint8_t> uniform_block(const Definition& d, const BufferSpec& b, const double* values,
                                        const Shape& shape) {
  std::vector<std::uint8_t> bytes(b.uniform_bytes, 0);
  for (const auto& member : b.members) {
    for (std::size_t i = 0; i < member.lanes.size(); ++i) {
      const auto& lane = member.lanes[i];
      const auto word = push_word_bits(lane, values);
      if (!word) {
        Node(nlohmann::json(), member.pointers[i], d.file)
            .fail("'" + lane.value.text() + "' is not " + push_type_range(lane.type) + " at shape " + shape_text(shape));
      }
      std::memcpy(bytes.data() + member.offset + 4 * i, &*word, 4);
    }
  }
  return bytes;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> uniform_bindings(const Definition& d) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> list;
  for (const auto& b : d.buffers)
    if (b.uniform) list.emplace_back(b.binding, b.uniform_bytes);
  return list;
}

std::optional<Binding> uniform_contract_binding(const Definition& d, const BufferSpec& b, std::string& unfit) {
  // Each lane is a push word placed at its offset: the contract carries it
  // as push_constants carries a word (a polynomial, or an expression the
  // runtime evaluates as the spec does), so the runtime computes the same
  // block for any shape.
  // Its bytes a constant (spelled out, not kernels::size_rule: the spec
  // loader's fuzzing build links kernels/spec alone).
  Binding binding{b.name, BindingRole::uniform, SizeRule{{SizeTerm{b.uniform_bytes, {}}}, 1, 4}};
  for (const auto& member : b.members) {
    for (std::size_t i = 0; i < member.lanes.size(); ++i) {
      auto word = carried_word(d, member.lanes[i], member.pointers[i], unfit);
      if (!word) return std::nullopt;
      binding.members.push_back({member.offset + 4 * static_cast<std::uint32_t>(i), std::move(*word)});
    }
  }
  unfit.clear();
  return binding;
}

}  // namespace vktune::kernels::spec
