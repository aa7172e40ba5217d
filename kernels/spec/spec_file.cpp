#include "kernels/spec/spec_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "common/hash.hpp"
#include "kernels/spec/spec_buffers.hpp"
#include "kernels/spec/spec_composed_reference.hpp"
#include "kernels/spec/spec_node.hpp"
#include "kernels/spec/spec_reference.hpp"
#include "kernels/spec/spec_template_loading.hpp"
#include "results/capped_json.hpp"

namespace vktune::kernels::spec {

namespace {

using nlohmann::json;

// The pointer of the first value nested deeper than kMaxSpecDepth, or "".
std::string too_deep(const json& value, const std::string& pointer, int depth) {
  if (!value.is_structured()) return {};
  if (depth > kMaxSpecDepth) return pointer;
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto p = too_deep(value[i], pointer + "/" + std::to_string(i), depth + 1); !p.empty()) return p;
    }
  } else {
    for (const auto& [key, member] : value.items()) {
      if (auto p = too_deep(member, pointer + "/" + pointer_token(key), depth + 1); !p.empty()) return p;
    }
  }
  return {};
}

Shape shape_of(const Node& node, std::size_t dims) {
  const auto values = node.array(1);
  if (values.size() != dims) node.fail("a shape needs " + std::to_string(dims) + " dimensions");
  Shape shape;
  for (const auto& v : values) shape.push_back(static_cast<std::uint32_t>(v.integer(1, 0xffffffffll)));
  return shape;
}

std::vector<Shape> shapes_of(const Node& node, std::size_t dims) {
  std::vector<Shape> shapes;
  for (const auto& s : node.array(1)) shapes.push_back(shape_of(s, dims));
  return shapes;
}

Tolerance tolerance_of(const Node& node) {
  node.only({"rel_l2", "max_rel"});
  Tolerance t;
  t.rel_l2 = node.at("rel_l2").number();
  t.max_rel = node.at("max_rel").number();
  // 0 is an exact op's tolerance (a transpose, a copy, a gather): every
  // output equal to its reference. Negative, infinite or NaN bounds nothing.
  if (!(t.rel_l2 >= 0) || !(t.max_rel >= 0) || !std::isfinite(t.rel_l2) || !std::isfinite(t.max_rel)) {
    node.fail("tolerances must be 0 (an exact op) or positive and finite");
  }
  return t;
}

DeviceFilter device_filter_of(const Node& node) {
  node.only({"vendor_id", "name_contains"});
  DeviceFilter filter;
  if (node.has("vendor_id")) filter.vendor_id = static_cast<std::uint32_t>(node.at("vendor_id").integer(0, 0xffffffffll));
  if (node.has("name_contains")) filter.name_contains = node.at("name_contains").string();
  return filter;
}

Rule rule_of(const Node& node, const Scope& scope, bool pruning) {
  if (pruning) {
    node.only({"name", "rule", "reason", "measured_on"});
  } else {
    node.only({"rule", "reason"});
  }
  std::string name = node.pointer();
  if (pruning) {
    const auto name_node = node.at("name");
    name = name_node.string();
    bool ok = !name.empty() && name.size() <= 64;
    for (unsigned char c : name) ok = ok && (std::isalnum(c) || c == '_' || c == '-');
    if (!ok) name_node.fail("'" + name + "' is not a rule name (letters, digits, _ and -, at most 64)");
  }
  Rule rule{name, node.at("reason").string(), node.pointer(),
            node.at("rule").expression(scope)};
  if (pruning && node.has("measured_on")) rule.measured_on = device_filter_of(node.at("measured_on"));
  return rule;
}

Axis axis_of(const Node& node, const Definition& d, const Scope& params) {
  Axis axis;
  if (node.json().is_number_integer()) {
    if (node.integer(1, 1) != 1) node.fail("a constant axis must be 1");
    return axis;
  }
  if (node.json().is_string() && node.string() == "folded") {
    axis.folded = true;  // stage_of checks that the axis before it folds
    return axis;
  }
  if (node.json().is_string()) {
    const auto dim = node.string();
    const auto it = std::find(d.dims.begin(), d.dims.end(), dim);
    if (it == d.dims.end()) node.fail("'" + dim + "' is not a shape dimension");
    axis.dim = static_cast<int>(it - d.dims.begin());
    return axis;
  }
  node.only({"dim", "per_workgroup", "fold"});
  const auto dim_node = node.at("dim");
  const auto dim = dim_node.string();
  const auto it = std::find(d.dims.begin(), d.dims.end(), dim);
  if (it == d.dims.end()) dim_node.fail("'" + dim + "' is not a shape dimension");
  axis.dim = static_cast<int>(it - d.dims.begin());
  axis.per_workgroup = std::make_shared<Expression>(node.at("per_workgroup").expression(params));
  if (node.has("fold")) axis.fold = std::make_shared<Expression>(node.at("fold").expression(params));
  return axis;
}

// A fold hands its rest to the next axis, which must say so ("folded"), and
// only a fold may be followed by "folded": either half alone would dispatch
// part of the work, or all of it on an axis the shader does not read.
void check_folds(const Node& axes_node, const std::array<Axis, 3>& axes) {
  for (std::size_t i = 0; i < 3; ++i) {
    const bool next_folded = i + 1 < 3 && axes[i + 1].folded;
    if (axes[i].fold && i == 2) axes_node.at(i).fail("the z axis cannot fold: no axis follows it to take the rest");
    if (axes[i].fold && !next_folded) {
      axes_node.at(i).fail("a fold needs the next axis written \"folded\" to carry the rest");
    }
    if (axes[i].folded && (i == 0 || !axes[i - 1].fold)) {
      axes_node.at(i).fail("\"folded\" follows an axis with \"fold\"");
    }
  }
}

Stage stage_of(const Node& node, const Definition& d, const Scope& params, const std::string& default_template,
               const Node* default_local_size, const FileReader& read) {
  node.only({"template", "local_size", "workgroups", "shared_memory_bytes", "subgroup_size", "require_full_subgroups"});
  Stage stage;
  stage.template_file = node.has("template") ? template_of(node.at("template"), d.name, read) : default_template;
  const Node* local = node.has("local_size") ? nullptr : default_local_size;
  const Node local_node = local ? *local : node.at("local_size");
  const auto sizes = local_node.array(1);
  if (sizes.size() > 3) local_node.fail("at most 3 axes");
  for (std::size_t i = 0; i < 3; ++i) {
    stage.local_size[i] = std::make_shared<Expression>(i < sizes.size() ? sizes[i].expression(params)
                                                                        : Expression("1", params));
  }
  const auto axes = node.at("workgroups").array(3);
  if (axes.size() != 3) node.at("workgroups").fail("expected 3 axes (x, y, z)");
  for (std::size_t i = 0; i < 3; ++i) stage.workgroups[i] = axis_of(axes[i], d, params);
  check_folds(node.at("workgroups"), stage.workgroups);
  if (node.has("shared_memory_bytes")) {
    stage.shared_memory_bytes = std::make_shared<Expression>(node.at("shared_memory_bytes").expression(params));
  }
  if (node.has("subgroup_size")) {
    stage.subgroup_size = std::make_shared<Expression>(node.at("subgroup_size").expression(params));
  }
  if (node.has("require_full_subgroups")) {
    stage.full_subgroups = std::make_shared<Expression>(node.at("require_full_subgroups").expression(params));
  }
  return stage;
}

// Fixed #defines: {"NAME": value}, none of them one of the names in `taken`.
std::vector<std::pair<std::string, std::string>> defines_of(const Node& defines, const std::set<std::string>& taken) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!defines.json().is_object()) defines.fail("expected an object of NAME: value");
  for (const auto& [key, value] : defines.json().items()) {
    const Node v(value, defines.pointer() + "/" + pointer_token(key), defines.file());
    Node(json(key), v.pointer(), defines.file()).identifier();  // the key is the macro's name
    std::string text = value.is_string() ? value.get<std::string>() : value.is_number() ? value.dump() : "";
    if (!value.is_string() && !value.is_number()) v.fail("a define's value is a string or a number");
    // A carriage return or any other control character would end the
    // #define line in the compiler's eyes and start one of the spec's own.
    for (const unsigned char c : text) {
      if (c < 0x20 || c == 0x7f) v.fail("a define's value is one line of printable text (no control characters)");
    }
    if (taken.count(key)) v.fail("'" + key + "' is already a name here");
    out.emplace_back(key, text);
  }
  return out;
}

// A trusted config of the spec's own space as the reference:
// {"config": {...}, "subspace": name}. Parameters it leaves out take their
// sub-space's baseline values, those of other sub-spaces their pinned ones.
ReferenceSpec trusted_reference_of(const Node& node, const Definition& d) {
  node.only({"config", "subspace"});
  ReferenceSpec r;
  r.kind = ReferenceSpec::Kind::config;
  r.pointer = node.pointer();
  std::size_t sub = 0;
  if (node.has("subspace")) {
    const auto name = node.at("subspace").string();
    const auto it = std::find_if(d.paths.begin(), d.paths.end(), [&](const auto& s) { return s.name == name; });
    if (it == d.paths.end()) node.at("subspace").fail("no sub-space named '" + name + "'");
    sub = static_cast<std::size_t>(it - d.paths.begin());
  }
  const auto& s = d.paths[sub];
  for (const auto& p : d.parameters) r.trusted[p.name] = p.values.front();
  if (d.paths.size() > 1) r.trusted[kPathParameter] = static_cast<int>(sub);
  for (const auto& [name, value] : s.baseline) r.trusted[name] = value;
  const auto config = node.at("config");
  if (!config.json().is_object()) config.fail("expected an object of parameter values");
  for (const auto& item : config.json().items()) {
    const std::string key = item.key();
    const Node v(item.value(), config.pointer() + "/" + pointer_token(key), d.file);
    const auto it = std::find_if(s.parameters.begin(), s.parameters.end(), [&](const auto& p) { return p.name == key; });
    if (it == s.parameters.end()) v.fail("'" + key + "' is not a parameter of sub-space '" + s.name + "'");
    const int value = static_cast<int>(v.integer(-(1ll << 30), 1ll << 30));
    if (std::find(it->values.begin(), it->values.end(), value) == it->values.end()) {
      v.fail(std::to_string(value) + " is not one of " + key + "'s values");
    }
    r.trusted[key] = value;
  }
  return r;
}

// A reference kernel of the spec's own: one stage (template, local_size,
// workgroups, shared memory, subgroup size; expressions over the shape) with
// fixed defines, bound to the same buffers and push constants as a variant.
ReferenceSpec kernel_reference_of(const Node& node, const Definition& d, const FileReader& read) {
  ReferenceSpec r;
  r.kind = ReferenceSpec::Kind::kernel;
  r.pointer = node.pointer();
  if (!node.json().is_object()) node.fail("expected an object");
  json stage = node.json();
  stage.erase("defines");
  const std::set<std::string> taken(d.dims.begin(), d.dims.end());
  if (node.has("defines")) r.defines = defines_of(node.at("defines"), taken);
  r.stage = std::make_shared<Stage>(stage_of(Node(stage, node.pointer(), d.file), d, Scope(d.dims), "", nullptr, read));
  return r;
}

void add_parameter(Definition& d, const Parameter& p, const Delivery& delivery, const Node& node) {
  for (std::size_t i = 0; i < d.parameters.size(); ++i) {
    auto& known = d.parameters[i];
    if (known.name != p.name) continue;
    if (d.delivery[i].constant_id != delivery.constant_id || d.delivery[i].define != delivery.define) {
      node.fail("'" + p.name + "' reaches the template differently in another sub-space (constant_id, define)");
    }
    for (int v : p.values) {
      if (std::find(known.values.begin(), known.values.end(), v) == known.values.end()) known.values.push_back(v);
    }
    return;
  }
  for (std::size_t i = 0; i < d.parameters.size(); ++i) {
    if (delivery.constant_id && d.delivery[i].constant_id == delivery.constant_id) {
      node.at("constant_id").fail("constant_id " + std::to_string(*delivery.constant_id) + " is also " +
                                  d.parameters[i].name + "'s");
    }
  }
  d.parameters.push_back(p);
  d.delivery.push_back(delivery);
}

Delivery delivery_of(const Node& p) {
  Delivery delivery;
  if (p.has("constant_id")) delivery.constant_id = static_cast<std::uint32_t>(p.at("constant_id").integer(0, 0x7fffffffll));
  // A parameter given as a constant is not also a #define unless asked:
  // templates that declare the constant would see its name defined.
  delivery.define = !delivery.constant_id;
  if (p.has("define")) {
    const auto node = p.at("define");
    if (node.json().is_string() && node.json().get<std::string>() == "if_nonzero") {
      delivery.define = delivery.define_if_nonzero = true;
    } else if (node.json().is_boolean()) {
      delivery.define = node.json().get<bool>();
    } else {
      node.fail("expected true, false or \"if_nonzero\"");
    }
  }
  if (!delivery.define && !delivery.constant_id) p.fail("a parameter with \"define\": false needs a constant_id");
  return delivery;
}

PathSpec path_spec_of(const Node& node, Definition& d, const FileReader& read, std::set<std::string>& names) {
  node.only({"name", "template", "parameters", "baseline", "defines", "local_size", "legality", "pruning", "stages",
             "tolerance", "check_covering"});
  PathSpec s;
  s.name = node.at("name").identifier();
  if (!names.insert(s.name).second) node.at("name").fail("a second sub-space named '" + s.name + "'");
  const auto tmpl = template_of(node.at("template"), d.name, read);
  std::set<std::string> seen(d.dims.begin(), d.dims.end());
  std::vector<Delivery> deliveries;
  const auto parameter_nodes = node.at("parameters").array();
  for (const auto& p : parameter_nodes) {
    p.only({"name", "values", "help", "constant_id", "define"});
    deliveries.push_back(delivery_of(p));
    Parameter parameter{p.at("name").identifier(), {}, p.has("help") ? p.at("help").string() : ""};
    if (parameter.name == kPathParameter) p.at("name").fail("PATH is the sub-space selector; choose another name");
    if (!seen.insert(parameter.name).second) p.at("name").fail("'" + parameter.name + "' is already a name here");
    const auto values = p.at("values").array(1);
    if (values.size() > 4096) p.at("values").fail("more than 4096 values");
    for (const auto& v : values) {
      const int value = static_cast<int>(v.integer(-(1ll << 30), 1ll << 30));
      if (std::find(parameter.values.begin(), parameter.values.end(), value) != parameter.values.end()) {
        v.fail("value " + std::to_string(value) + " is listed twice");
      }
      parameter.values.push_back(value);
    }
    s.parameters.push_back(parameter);
  }
  for (const auto& p : s.parameters) s.baseline[p.name] = p.values.front();
  if (node.has("baseline")) {
    const auto base = node.at("baseline");
    if (!base.json().is_object()) base.fail("expected an object of parameter values");
    for (const auto& item : base.json().items()) {
      // A named copy: clang 14 does not let a lambda capture a structured binding.
      const std::string key = item.key();
      const auto& value = item.value();
      const Node v(value, base.pointer() + "/" + pointer_token(key), d.file);
      const auto it = std::find_if(s.parameters.begin(), s.parameters.end(), [&](const auto& p) { return p.name == key; });
      if (it == s.parameters.end()) v.fail("'" + key + "' is not a parameter of this sub-space");
      const int chosen = static_cast<int>(v.integer(-(1ll << 30), 1ll << 30));
      if (std::find(it->values.begin(), it->values.end(), chosen) == it->values.end()) {
        v.fail(std::to_string(chosen) + " is not one of " + key + "'s values");
      }
      s.baseline[key] = chosen;
    }
  }
  if (node.has("defines")) s.defines = defines_of(node.at("defines"), seen);
  std::set<std::string> defined;
  for (std::size_t i = 0; i < s.parameters.size(); ++i) {
    if (deliveries[i].define) defined.insert(s.parameters[i].name);
  }
  for (const auto& [name, value] : s.defines) defined.insert(name);
  refuse_hard_coded_defines(node.at("template"), tmpl, defined);
  for (std::size_t i = 0; i < s.parameters.size(); ++i) add_parameter(d, s.parameters[i], deliveries[i], parameter_nodes[i]);
  s.template_file = tmpl;
  return s;
}

// The sub-space's rules and stages, once every sub-space's parameters are
// known: all expressions then share one layout (Definition::full_scope), and
// parameters of other sub-spaces read their pinned values.
void path_rules(const Node& node, const Definition& d, PathSpec& s, const FileReader& read) {
  Scope params(d.dims);
  for (const auto& p : d.parameters) params.add(p.name);
  const Scope& full = d.full_scope;
  const auto& tmpl = s.template_file;
  if (node.has("legality")) {
    for (const auto& r : node.at("legality").array()) s.legality.push_back(rule_of(r, full, false));
  }
  if (node.has("pruning")) {
    std::set<std::string> rule_names;
    for (const auto& r : node.at("pruning").array()) {
      s.pruning.push_back(rule_of(r, params, true));
      if (!rule_names.insert(s.pruning.back().name).second) r.at("name").fail("a second rule named this");
    }
  }
  std::optional<Node> local;
  if (node.has("local_size")) local = node.at("local_size");
  for (const auto& st : node.at("stages").array(1)) {
    s.stages.push_back(stage_of(st, d, params, tmpl, local ? &*local : nullptr, read));
  }
  if (node.has("tolerance")) s.tolerance = tolerance_of(node.at("tolerance"));
  if (node.has("check_covering")) {
    const auto covering = node.at("check_covering");
    const auto word = covering.string();
    if (word != "pairs" && word != "values") covering.fail("must be \"pairs\" or \"values\", not \"" + word + "\"");
    s.covering_strength = word == "pairs" ? 2 : 1;
  }
}

}  // namespace

const std::vector<std::string>& device_fact_names() {
  static const std::vector<std::string> names{
      "subgroup_size",      "min_subgroup_size",   "max_subgroup_size",    "max_shared_memory",
      "max_invocations",    "max_workgroup_size_x", "max_workgroup_size_y", "max_workgroup_size_z",
      "max_workgroup_count_x", "max_workgroup_count_y", "max_workgroup_count_z", "has_float16",
      "has_int8",           "has_int8_dot",        "has_storage_16bit",    "has_storage_8bit",
      "has_subgroup_arithmetic", "has_subgroup_shuffle", "has_subgroup_size_control", "has_cooperative_matrix",
      "is_cpu",
  };
  return names;
}

Definition parse_spec(const std::string& text, const std::string& file, const FileReader& read) {
  Definition d;
  d.file = file;
  const Node none(json(), "", d.file);
  if (text.size() > kMaxSpecBytes) none.fail("larger than " + std::to_string(kMaxSpecBytes) + " bytes");
  auto parsed = results::parse_capped_json(text, /*comments=*/true);
  if (!parsed.error.empty()) none.fail(parsed.error);
  const json root = std::move(parsed.value);
  if (auto deep = too_deep(root, "", 0); !deep.empty()) {
    Node(root, deep, d.file).fail("nested deeper than " + std::to_string(kMaxSpecDepth) + " levels");
  }
  const Node top(root, "", d.file);
  if (!root.is_object()) top.fail("a spec is a JSON object");
  top.only({"$schema", "name", "description", "shape", "default_shapes", "check_shapes", "shape_rules", "subspaces",
            "buffers", "push_constants", "metrics", "reference", "tolerance"});
  d.text_hash = Hasher().add(text).hex();
  d.name = top.at("name").identifier();
  d.description = top.has("description") ? top.at("description").string() : "kernel spec " + file;
  for (const auto& dim : top.at("shape").array(1)) {
    const auto name = dim.identifier();
    if (std::find(d.dims.begin(), d.dims.end(), name) != d.dims.end()) dim.fail("dimension '" + name + "' twice");
    d.dims.push_back(name);
  }
  if (d.dims.size() > 8) top.at("shape").fail("at most 8 dimensions");
  d.default_shapes = shapes_of(top.at("default_shapes"), d.dims.size());
  d.check_shapes = top.has("check_shapes") ? shapes_of(top.at("check_shapes"), d.dims.size()) : d.default_shapes;
  const Scope dims(d.dims);
  if (top.has("shape_rules")) {
    for (const auto& r : top.at("shape_rules").array()) d.shape_rules.push_back(rule_of(r, dims, false));
  }

  std::set<std::string> names;
  const auto subspaces = top.at("subspaces").array(1);
  for (const auto& s : subspaces) d.paths.push_back(path_spec_of(s, d, read, names));
  // A fixed define must not repeat a parameter any sub-space varies (the
  // compiler would see the name defined twice).
  for (std::size_t i = 0; i < d.paths.size(); ++i) {
    for (const auto& define : d.paths[i].defines) {
      const std::string& name = define.first;
      const bool taken = std::any_of(d.parameters.begin(), d.parameters.end(), [&](const auto& p) { return p.name == name; });
      if (taken) {
        Node(root, "/subspaces/" + std::to_string(i) + "/defines/" + pointer_token(name), d.file)
            .fail("'" + name + "' is a parameter of a sub-space; it is defined from the config");
      }
    }
  }
  if (d.paths.size() > 1) {
    Parameter path{kPathParameter, {}, "the sub-space: 0 = " + d.paths[0].name};
    for (std::size_t i = 0; i < d.paths.size(); ++i) path.values.push_back(static_cast<int>(i));
    d.parameters.push_back(path);
    d.delivery.push_back({});
  }
  d.full_scope = Scope(d.dims);
  for (const auto& p : d.parameters) d.full_scope.add(p.name);
  d.device_offset = d.full_scope.size();
  for (const auto& name : device_fact_names()) d.full_scope.add(name);
  for (std::size_t i = 0; i < subspaces.size(); ++i) path_rules(subspaces[i], d, d.paths[i], read);

  // Buffers: bindings 0..n-1, each once.
  const auto buffers = top.at("buffers").array(1);
  std::vector<std::optional<BufferSpec>> by_binding(buffers.size());
  std::set<std::string> buffer_names;
  for (const auto& b : buffers) {
    auto buffer = buffer_of(b, dims, read);
    // The variant hash covers the spec's text: with it, the data files it names.
    if (buffer.file_bytes) d.text_hash = Hasher().add(d.text_hash).add(*buffer.file_bytes).hex();
    if (buffer.binding >= buffers.size()) {
      b.at("binding").fail("binding " + std::to_string(buffer.binding) + " leaves a gap: bindings are 0.." +
                           std::to_string(buffers.size() - 1));
    }
    if (by_binding[buffer.binding]) b.at("binding").fail("two buffers on binding " + std::to_string(buffer.binding));
    if (!buffer_names.insert(buffer.name).second) b.at("name").fail("a second buffer named '" + buffer.name + "'");
    const auto binding = buffer.binding;
    by_binding[binding].emplace(std::move(buffer));
  }
  for (auto& buffer : by_binding) d.buffers.push_back(std::move(*buffer));  // every binding is taken: n of n
  resolve_aliases(d, top);
  std::size_t outputs = 0;
  for (std::size_t i = 0; i < d.buffers.size(); ++i) {
    if (d.buffers[i].role != BindingRole::output || d.buffers[i].alias_of >= 0) continue;
    ++outputs;
    d.output = i;
    // f16 outputs are read back and widened exactly (Problem::output_f16).
    if (d.buffers[i].type != ElementType::f32 && d.buffers[i].type != ElementType::f16) {
      top.at("buffers").fail("the output buffer holds f32 or f16 values");
    }
  }
  if (outputs != 1) top.at("buffers").fail("exactly one buffer has the role output (found " + std::to_string(outputs) + ")");

  if (top.has("push_constants")) {
    std::set<std::string> push_names;
    const auto list = top.at("push_constants").array();
    if (list.size() > kMaxSpecPushWords) {
      top.at("push_constants").fail("at most " + std::to_string(kMaxSpecPushWords) + " push-constant words (" +
                                    std::to_string(4 * kMaxSpecPushWords) + " bytes)");
    }
    for (const auto& p : list) {
      p.only({"name", "value", "type"});
      PushConstant pc{p.at("name").identifier(), p.at("value").expression(dims)};
      if (p.has("type")) {
        const auto type = p.at("type").string();
        if (type == "u32") pc.type = PushType::u32;
        else if (type == "i32") pc.type = PushType::i32;
        else if (type == "f32") pc.type = PushType::f32;
        else p.at("type").fail("'" + type + "' is not a push-constant type: u32, i32 or f32");
      }
      if (!push_names.insert(pc.name).second) p.at("name").fail("a second push constant named '" + pc.name + "'");
      d.push_constants.push_back(std::move(pc));
    }
  } else {
    for (const auto& name : d.dims) d.push_constants.push_back({name, Expression(name, dims)});
  }
  const auto metrics = top.at("metrics");
  metrics.only({"bytes", "flops"});
  d.bytes = std::make_shared<Expression>(metrics.at("bytes").expression(dims));
  d.flops = std::make_shared<Expression>(metrics.at("flops").expression(dims));
  const auto reference = top.at("reference");
  if (reference.has("config")) {
    d.reference = trusted_reference_of(reference, d);
  } else if (reference.has("template")) {
    d.reference = kernel_reference_of(reference, d, read);
  } else if (reference.has("steps") || reference.has("expression")) {
    d.reference = composed_reference_of(reference, d, dims);
  } else {
    d.reference = reference_of(reference, d, dims);
  }
  d.tolerance = top.has("tolerance") ? tolerance_of(top.at("tolerance")) : Tolerance{};

  // Every size at every declared shape: positive, whole, and within 32-bit indexing.
  for (const auto* list : {&d.default_shapes, &d.check_shapes}) {
    for (const auto& shape : *list) check_sizes(d, shape, top);
  }
  // Then the reference's operands, whose disagreement is only meaningful
  // once every buffer's own size is.
  for (const auto* list : {&d.default_shapes, &d.check_shapes}) {
    for (const auto& shape : *list) check_reference_sizes(d, shape);
  }
  return d;
}

Definition load_spec(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(ErrorKind::usage, path.string() + ": no such kernel spec file");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw Error(ErrorKind::usage, path.string() + ": cannot read the kernel spec");
  const auto folder = path.parent_path();
  // What a spec reads stays in its folder or the shared include folder
  // beside it, wherever a symbolic link on the way points: a template that
  // is a link to /etc/passwd is refused, not compiled.
  std::vector<std::filesystem::path> roots;
  for (const auto& root : {folder.empty() ? std::filesystem::path(".") : folder,
                           folder / kSharedIncludeFolder}) {
    auto real = std::filesystem::canonical(root, ec);
    if (!ec) roots.push_back(std::move(real));
  }
  const auto spec_file = path.string();
  FileReader read = [folder, roots, spec_file](const std::string& relative) -> std::optional<std::string> {
    std::error_code error;
    const auto file = folder / relative;
    if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
    const auto real = std::filesystem::canonical(file, error);
    const bool inside = !error && std::any_of(roots.begin(), roots.end(), [&](const std::filesystem::path& root) {
      const auto [end, at] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
      return end == root.end();
    });
    if (!inside) {
      throw Error(ErrorKind::usage, spec_file + ": '" + relative + "' leads outside the spec's folder (to " +
                                        real.string() + "); templates, includes and input files are read from "
                                        "inside it");
    }
    std::ifstream f(file, std::ios::binary);
    std::ostringstream contents;
    contents << f.rdbuf();
    return contents.str();
  };
  return parse_spec(text.str(), path.string(), read);
}

}  // namespace vktune::kernels::spec
