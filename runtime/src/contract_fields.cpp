// The launch contract of a table entry (docs/TABLE_FORMAT.md, "contract"):
// parsed and checked field by field, so that a table either loads whole or
// fails naming the entry and the field.
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

#include "table_data.hpp"

#include "word_expression.hpp"

namespace vktune::runtime::detail {
namespace {

// Shapes have a handful of dimensions; a larger index is corruption.
constexpr std::uint64_t kMaxDims = 64;
// The most push-constant words a contract carries: 256 bytes, the largest
// maxPushConstantsSize common devices offer (vktune's specs stop there too).
constexpr std::size_t kMaxPushWords = 64;
// Bindings are numbered 0..63 in a spec; an index past that is corruption.
constexpr std::uint64_t kMaxBindings = 63;

struct Fields {
  const std::string& source;
  const std::string& where;

  [[noreturn]] void bad(const std::string& field, const std::string& why) const { fail(source, where + "." + field + ": " + why); }

  const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& field) const {
    if (!object.is_object()) bad(field, "is not an object");
    const auto it = object.find(key);
    if (it == object.end()) bad(field, std::string("lacks \"") + key + "\"");
    return *it;
  }

  std::uint64_t u64(const nlohmann::json& v, const std::string& field, std::uint64_t max) const {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max) {
      bad(field, "is not an unsigned integer of at most " + std::to_string(max));
    }
    return v.get<std::uint64_t>();
  }

  std::uint32_t u32(const nlohmann::json& v, const std::string& field) const {
    return static_cast<std::uint32_t>(u64(v, field, std::numeric_limits<std::uint32_t>::max()));
  }

  int dim(const nlohmann::json& v, const std::string& field, std::size_t dims) const {
    const auto d = u64(v, field, kMaxDims);
    if (d >= dims) bad(field, "names dimension " + std::to_string(d) + " of a " + std::to_string(dims) + "-dimensional shape");
    return static_cast<int>(d);
  }

  std::string text(const nlohmann::json& v, const std::string& field) const {
    if (!v.is_string()) bad(field, "is not a string");
    return v.get<std::string>();
  }

  const nlohmann::json& array(const nlohmann::json& v, const std::string& field) const {
    if (!v.is_array()) bad(field, "is not an array");
    return v;
  }
};

BindingRole role_from(const std::string& text, const Fields& f, const std::string& field) {
  const int index = format::binding_role_index(text);
  if (index < 0) f.bad(field, "'" + text + "' is not a binding role (" + format::binding_role_list() + ")");
  return static_cast<BindingRole>(index);
}

// The terms and divisor of a size rule or a push-constant word.
SizeRule terms_from(const nlohmann::json& v, const Fields& f, const std::string& field, std::size_t dims) {
  SizeRule rule;
  const auto& terms = f.array(f.member(v, "terms", field), field + ".terms");
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const auto tf = field + ".terms[" + std::to_string(t) + "]";
    SizeTerm term;
    term.coefficient = f.u64(f.member(terms[t], "coefficient", tf), tf + ".coefficient", std::uint64_t{1} << 40);
    const auto& ds = f.array(f.member(terms[t], "dims", tf), tf + ".dims");
    if (ds.size() > kMaxDims) f.bad(tf + ".dims", "has more than " + std::to_string(kMaxDims) + " factors");
    for (std::size_t i = 0; i < ds.size(); ++i) term.dims.push_back(f.dim(ds[i], tf + ".dims[" + std::to_string(i) + "]", dims));
    rule.terms.push_back(std::move(term));
  }
  rule.divisor = f.u64(f.member(v, "divisor", field), field + ".divisor", std::uint64_t{1} << 32);
  if (rule.divisor == 0) f.bad(field + ".divisor", "is 0");
  return rule;
}

SizeRule size_rule_from(const nlohmann::json& v, const Fields& f, const std::string& field, std::size_t dims) {
  auto rule = terms_from(v, f, field, dims);
  rule.align = f.u64(f.member(v, "align", field), field + ".align", 4096);
  if (rule.align == 0) f.bad(field + ".align", "is 0");
  return rule;
}

// A push-constant word, or a uniform member's word: a polynomial "value" or
// an "expression" of the shape_dims, and its "type".
PushWord push_word_from(const nlohmann::json& v, const Fields& f, const std::string& pf, std::size_t dims,
                        const std::vector<std::string>& shape_dims) {
  PushWord word;
  word.name = f.text(f.member(v, "name", pf), pf + ".name");
  if (const auto type = v.find("type"); type != v.end()) {
    word.type = f.text(*type, pf + ".type");
    if (word.type != "u32" && word.type != "i32" && word.type != "f32") f.bad(pf + ".type", "is not u32, i32 or f32");
  }
  if (const auto expression = v.find("expression"); expression != v.end()) {
    word.expression = f.text(*expression, pf + ".expression");
    std::vector<std::string_view> names(shape_dims.begin(), shape_dims.end());
    const auto parsed = detail::evaluate_word_expression(word.expression, names.data(), names.size(), nullptr);
    if (!parsed.ok) f.bad(pf + ".expression", parsed.error);
  } else {
    word.value = terms_from(f.member(v, "value", pf), f, pf + ".value", dims);
    word.value.align = 1;
  }
  return word;
}

// Absent or empty: the shape. At most kMaxPushWords (256 bytes); whether the
// device takes that many is the lookup's check (maxPushConstantsSize).
std::vector<PushWord> push_constants_from(const nlohmann::json& contract, const Fields& f, std::size_t dims,
                                          const std::vector<std::string>& shape_dims) {
  std::vector<PushWord> words;
  const auto it = contract.find("push_constants");
  if (it == contract.end()) return words;
  const auto& list = f.array(*it, "contract.push_constants");
  if (list.size() > kMaxPushWords) {
    f.bad("contract.push_constants", "has more than " + std::to_string(kMaxPushWords) + " words (" +
                                         std::to_string(4 * kMaxPushWords) + " bytes)");
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    words.push_back(push_word_from(list[i], f, "contract.push_constants[" + std::to_string(i) + "]", dims, shape_dims));
  }
  return words;
}

// A binding's optional fields: "alias_of" (another binding, itself neither
// an alias nor uniform) and a uniform binding's "members" (each word inside
// its block, whose size is a constant).
void binding_extras_from(const nlohmann::json& v, const Fields& f, const std::string& bf, std::size_t index,
                         const nlohmann::json& all, std::size_t dims, const std::vector<std::string>& shape_dims,
                         Binding& b) {
  if (const auto alias = v.find(std::string(format::binding_alias_field)); alias != v.end()) {
    const auto field = bf + "." + std::string(format::binding_alias_field);
    const auto target = f.u64(*alias, field, kMaxBindings);
    if (target >= all.size() || target == index) f.bad(field, "names no other binding of the contract");
    const auto& t = all[static_cast<std::size_t>(target)];
    if (!t.is_object() || t.contains(std::string(format::binding_alias_field))) f.bad(field, "names a binding that is itself an alias");
    if (b.role == BindingRole::uniform || (t.contains("role") && t["role"] == "uniform")) {
      f.bad(field, "aliases a uniform buffer (a uniform block is bound once)");
    }
    b.alias_of = static_cast<int>(target);
  }
  const auto members = v.find(std::string(format::binding_members_field));
  if (members == v.end()) return;
  const auto field = bf + "." + std::string(format::binding_members_field);
  if (b.role != BindingRole::uniform) f.bad(field, "belongs to a binding of role " + std::string(to_string(b.role)));
  for (const auto& term : b.size.terms) {
    if (!term.dims.empty()) f.bad(bf + ".size", "of a uniform block depends on the shape (its bytes are a constant)");
  }
  const auto block = b.size.bytes(Shape(dims, 1));
  const auto& list = f.array(*members, field);
  if (list.size() > block / 4) f.bad(field, "has more words than its block holds");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto mf = field + "[" + std::to_string(i) + "]";
    UniformWord member;
    member.offset = f.u32(f.member(list[i], format::member_offset_field.data(), mf),
                          mf + "." + std::string(format::member_offset_field));
    if (member.offset % 4 != 0 || std::uint64_t{member.offset} + 4 > block) {
      f.bad(mf + ".offset", "is not a word inside the block's " + std::to_string(block) + " bytes");
    }
    member.word = push_word_from(list[i], f, mf, dims, shape_dims);
    b.members.push_back(std::move(member));
  }
}

Stage stage_from(const nlohmann::json& v, const Fields& f, const std::string& field, std::size_t dims,
                 const SpirvByHash& spirv) {
  Stage stage;
  const auto hash = f.text(f.member(v, "spirv_hash", field), field + ".spirv_hash");
  const auto found = spirv.find(hash);
  if (found == spirv.end()) f.bad(field + ".spirv_hash", "names SPIR-V " + hash + " the table does not hold");
  stage.spirv = found->second;
  stage.specialization = parse_specialization(v.contains("specialization") ? v["specialization"] : nlohmann::json(),
                                              f.source, f.where + "." + field + ".specialization");
  const auto& local = f.array(f.member(v, "local_size", field), field + ".local_size");
  if (local.size() != 3) f.bad(field + ".local_size", "is not [x, y, z]");
  for (std::size_t i = 0; i < 3; ++i) {
    stage.local_size[i] = f.u32(local[i], field + ".local_size[" + std::to_string(i) + "]");
    if (stage.local_size[i] == 0) f.bad(field + ".local_size", "has a zero dimension");
  }
  stage.dispatch = parse_dispatch(f.member(v, "dispatch", field), f.source, f.where + "." + field + ".dispatch");
  for (const auto& axis : stage.dispatch) {
    if (axis.shape_dim >= 0 && static_cast<std::size_t>(axis.shape_dim) >= dims) {
      f.bad(field + ".dispatch", "names shape dimension " + std::to_string(axis.shape_dim) + " of a " +
                                     std::to_string(dims) + "-dimensional shape");
    }
  }
  stage.required_subgroup_size = f.u32(f.member(v, "required_subgroup_size", field), field + ".required_subgroup_size");
  const auto& full = f.member(v, "require_full_subgroups", field);
  if (!full.is_boolean()) f.bad(field + ".require_full_subgroups", "is not a boolean");
  stage.require_full_subgroups = full.get<bool>();
  stage.shared_memory_bytes = f.u32(f.member(v, "shared_memory_bytes", field), field + ".shared_memory_bytes");
  return stage;
}

void add_features(Contract& contract) {
  for (const auto& stage : contract.stages) {
    for (auto& feature : required_features(stage.spirv)) {
      bool have = false;
      for (const auto& f : contract.features) have = have || f == feature;
      if (!have) contract.features.push_back(std::move(feature));
    }
  }
}

}  // namespace

Contract parse_contract(const nlohmann::json& value, std::size_t dims, const SpirvByHash& spirv,
                        const std::string& source, const std::string& where) {
  const Fields f{source, where};
  if (!value.is_object()) f.bad("contract", "is not an object");
  Contract c;
  c.space = f.text(f.member(value, "space", "contract"), "contract.space");
  c.path = f.text(f.member(value, "path", "contract"), "contract.path");
  const auto& names = f.array(f.member(value, "shape_dims", "contract"), "contract.shape_dims");
  if (names.size() != dims) {
    f.bad("contract.shape_dims", "names " + std::to_string(names.size()) + " dimensions for a " +
                                     std::to_string(dims) + "-dimensional shape");
  }
  for (std::size_t i = 0; i < names.size(); ++i) c.shape_dims.push_back(f.text(names[i], "contract.shape_dims"));
  const auto& bounds = f.array(f.member(value, "shape_class", "contract"), "contract.shape_class");
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const auto bf = "contract.shape_class[" + std::to_string(i) + "]";
    rules::DimBound b;
    b.dim = f.dim(f.member(bounds[i], "dim", bf), bf + ".dim", dims);
    b.min = f.u32(f.member(bounds[i], "min", bf), bf + ".min");
    b.max = f.u32(f.member(bounds[i], "max", bf), bf + ".max");
    if (b.min > b.max) f.bad(bf, "min exceeds max");
    c.shape_class.push_back(b);
  }
  const auto& specialized = f.array(f.member(value, "specialized_dims", "contract"), "contract.specialized_dims");
  for (std::size_t i = 0; i < specialized.size(); ++i) {
    c.specialized_dims.push_back(f.dim(specialized[i], "contract.specialized_dims[" + std::to_string(i) + "]", dims));
  }
  const auto& bindings = f.array(f.member(value, "bindings", "contract"), "contract.bindings");
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const auto bf = "contract.bindings[" + std::to_string(i) + "]";
    Binding b;
    b.name = f.text(f.member(bindings[i], "name", bf), bf + ".name");
    b.role = role_from(f.text(f.member(bindings[i], "role", bf), bf + ".role"), f, bf + ".role");
    b.size = size_rule_from(f.member(bindings[i], "size", bf), f, bf + ".size", dims);
    binding_extras_from(bindings[i], f, bf, i, bindings, dims, c.shape_dims, b);
    c.bindings.push_back(std::move(b));
  }
  const auto& stages = f.array(f.member(value, "stages", "contract"), "contract.stages");
  if (stages.empty()) f.bad("contract.stages", "is empty (a variant has at least one stage)");
  for (std::size_t i = 0; i < stages.size(); ++i) {
    c.stages.push_back(stage_from(stages[i], f, "contract.stages[" + std::to_string(i) + "]", dims, spirv));
  }
  c.push_constants = push_constants_from(value, f, dims, c.shape_dims);
  add_features(c);
  return c;
}

Contract legacy_contract(const std::vector<std::uint32_t>& shape, Stage stage) {
  Contract c;
  // Version-1 entries carry no shape class: the rule their readers applied
  // (3-dimensional shapes: decode M <= 8, prefill M > 8; others: any).
  if (shape.size() == 3) {
    constexpr std::uint32_t kMaxDecodeRows = 8;
    c.shape_class.push_back(shape[0] <= kMaxDecodeRows ? rules::DimBound{0, 1, kMaxDecodeRows}
                                                       : rules::DimBound{0, kMaxDecodeRows + 1, 0xffffffffu});
  }
  c.stages.push_back(std::move(stage));
  add_features(c);
  return c;
}

}  // namespace vktune::runtime::detail
