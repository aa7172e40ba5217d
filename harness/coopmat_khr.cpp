#include "harness/coopmat_khr.hpp"

#include <spirv/unified1/spirv.h>  // with SpvHasResultAndType (SPV_ENABLE_UTILITY_CODE: harness/CMakeLists.txt)

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "harness/coopmat_khr_spec.hpp"
#include "harness/spirv_words.hpp"

namespace vktune::vk {

namespace coopmat_khr {
const char* use_name(Use use) {
  switch (use) {
    case Use::matrix_a:
      return "MatrixA";
    case Use::matrix_b:
      return "MatrixB";
    case Use::accumulator:
      break;
  }
  return "Accumulator";
}
}  // namespace coopmat_khr

namespace {

using coopmat_khr::Use;
using spirv::Instruction;

constexpr std::array<Use, 3> kUses{Use::matrix_a, Use::matrix_b, Use::accumulator};

// Thrown inside the pass, returned as its refusal.
struct Refused {
  std::string why;
};

bool is_conversion_or_arithmetic(std::uint32_t op) {
  switch (op) {
    case SpvOpConvertFToU: case SpvOpConvertFToS: case SpvOpConvertSToF: case SpvOpConvertUToF:
    case SpvOpUConvert: case SpvOpSConvert: case SpvOpFConvert: case SpvOpBitcast:
    case SpvOpSNegate: case SpvOpFNegate: case SpvOpIAdd: case SpvOpFAdd: case SpvOpISub: case SpvOpFSub:
    case SpvOpIMul: case SpvOpFMul: case SpvOpUDiv: case SpvOpSDiv: case SpvOpFDiv: case SpvOpMatrixTimesScalar:
    case SpvOpCopyObject: case SpvOpCopyLogical: case SpvOpCompositeConstruct: case SpvOpSelect: case SpvOpPhi:
      return true;
    default:
      return false;
  }
}

bool is_conversion(std::uint32_t op) {
  return op == SpvOpConvertFToU || op == SpvOpConvertFToS || op == SpvOpConvertSToF || op == SpvOpConvertUToF ||
         op == SpvOpUConvert || op == SpvOpSConvert || op == SpvOpFConvert;
}

std::string with_article(Use use) {
  return std::string(use == Use::accumulator ? "an " : "a ") + coopmat_khr::use_name(use);
}

bool is_constant(std::uint32_t op) {
  return op == SpvOpConstantComposite || op == SpvOpConstantNull || op == SpvOpUndef ||
         op == SpvOpSpecConstantComposite;
}

class Pass {
 public:
  explicit Pass(spirv::Module module) : m_(std::move(module)), next_id_(m_.header[spirv::kBoundWord]) {}

  CoopmatKhrResult run() {
    index();
    if (matrices_.empty()) return {spirv::join_module(m_), {}, 0};
    unite();
    assign_roles();
    collect_needs();
    CoopmatKhrResult result;
    result.spirv = spirv::join_module(emit(result.matrix_types));
    return result;
  }

 private:
  // --- what the module declares -------------------------------------------

  void index() {
    std::uint32_t function = 0;
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      const auto& inst = m_.instructions[i];
      const auto& o = inst.operands;
      bool has_result = false, has_type = false;
      SpvHasResultAndType(static_cast<SpvOp>(inst.opcode), &has_result, &has_type);
      typed_.push_back(has_result && has_type && o.size() >= 2);
      if (has_result && o.size() >= (has_type ? 2u : 1u)) {
        const auto id = o[has_type ? 1 : 0];
        def_[id] = i;
        if (has_type) type_of_[id] = o[0];
      }
      switch (inst.opcode) {
        case SpvOpName:
          if (o.size() >= 2) names_[o[0]] = spirv::literal_string(o, 1);
          break;
        case SpvOpTypeCooperativeMatrixNV:
          matrices_.insert(o[0]);
          bearing_.insert(o[0]);
          if (!first_matrix_) first_matrix_ = i;
          break;
        case SpvOpTypeArray:
        case SpvOpTypeRuntimeArray:
        case SpvOpTypePointer: {
          const auto element = inst.opcode == SpvOpTypePointer ? o[2] : o[1];
          if (bearing_.count(element)) bearing_.insert(o[0]);
          break;
        }
        case SpvOpTypeFunction:
          if (std::any_of(o.begin() + 1, o.end(), [&](std::uint32_t t) { return bearing_.count(t) > 0; }))
            bearing_.insert(o[0]), functions_types_.insert(o[0]);
          break;
        case SpvOpTypeStruct:
          for (std::size_t k = 1; k < o.size(); ++k)
            if (bearing_.count(o[k])) refuse(o[0], "is a struct holding a cooperative matrix, which the pass does not split");
          break;
        case SpvOpTypeInt:
          if (o[1] == 32 && o[2] == 0 && !uint_) uint_ = o[0];
          break;
        case SpvOpFunction:
          function = o[1];
          break;
        case SpvOpFunctionParameter:
          parameters_[function].push_back(o[1]);
          break;
        default:
          break;
      }
    }
  }

  bool typed_bearing(std::uint32_t id) const {
    const auto t = type_of_.find(id);
    return t != type_of_.end() && bearing_.count(t->second) > 0;
  }
  // A matrix (or array of them) constant: cloned per role, never united.
  bool free_value(std::uint32_t id) const {
    const auto d = def_.find(id);
    return d != def_.end() && is_constant(m_.instructions[d->second].opcode) && typed_bearing(id);
  }
  bool node(std::uint32_t id) const { return typed_bearing(id) && !free_value(id); }

  // "%34 (square)": the id, and the name of the variable it is, or was
  // loaded from, where the module names one.
  std::string describe(std::uint32_t id) const {
    std::uint32_t at = id;
    for (int hops = 0; hops < 8; ++hops) {
      if (const auto n = names_.find(at); n != names_.end() && !n->second.empty()) {
        return "%" + std::to_string(id) + " (" + (at == id ? "" : "loaded from ") + n->second + ")";
      }
      const auto d = def_.find(at);
      if (d == def_.end()) break;
      const auto& inst = m_.instructions[d->second];
      if (inst.opcode != SpvOpLoad && inst.opcode != SpvOpCopyObject && inst.opcode != SpvOpAccessChain) break;
      at = inst.operands[2];
    }
    return "%" + std::to_string(id);
  }
  [[noreturn]] void refuse(std::uint32_t id, const std::string& what) const { throw Refused{describe(id) + " " + what}; }

  // --- which values share a role ------------------------------------------

  std::uint32_t find(std::uint32_t id) {
    auto it = parent_.find(id);
    if (it == parent_.end()) return parent_[id] = id;
    if (it->second == id) return id;
    return it->second = find(it->second);
  }
  void link(std::uint32_t a, std::uint32_t b) {
    if (!node(a) || !node(b)) return;
    parent_[find(a)] = find(b);
  }

  void unite() {
    std::uint32_t function = 0;
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      const auto& inst = m_.instructions[i];
      const auto& o = inst.operands;
      const auto op = inst.opcode;
      if (op == SpvOpFunction) function = o[1];
      if (op == SpvOpLoad || op == SpvOpAccessChain || op == SpvOpInBoundsAccessChain || op == SpvOpPtrAccessChain ||
          op == SpvOpCompositeExtract) {
        link(o[1], o[2]);
      } else if (op == SpvOpStore) {
        link(o[0], o[1]);
      } else if (op == SpvOpCompositeInsert) {
        link(o[1], o[2]), link(o[1], o[3]);
      } else if (op == SpvOpPhi) {
        for (std::size_t k = 2; k < o.size(); k += 2) link(o[1], o[k]);
      } else if (op == SpvOpFunctionCall) {
        const auto& params = parameters_[o[2]];
        for (std::size_t k = 3; k < o.size() && k - 3 < params.size(); ++k) link(params[k - 3], o[k]);
        link(o[1], o[2]);
      } else if (op == SpvOpReturnValue) {
        link(o[0], function);
      } else if (op == SpvOpVariable) {
        if (o.size() > 3) link(o[1], o[3]);  // its initializer
      } else if (is_conversion_or_arithmetic(op)) {
        if (node(o[1])) {
          for (std::size_t k = 2; k < o.size(); ++k) link(o[1], o[k]);
          if (is_conversion(op)) conversions_.push_back(o[1]);
        }
      } else if (op == SpvOpCooperativeMatrixLoadNV || op == SpvOpCooperativeMatrixMulAddNV ||
                 op == SpvOpFunction || op == SpvOpFunctionParameter || op == SpvOpUndef) {
        // Roles come from the multiply-adds; the others are their own nodes.
      } else if (typed_[i] && typed_bearing(o[1]) && !is_constant(op)) {
        refuse(o[1], "is made by opcode " + std::to_string(op) + ", which the pass does not follow");
      }
    }
  }

  void assign_roles() {
    for (const auto& inst : m_.instructions) {
      if (inst.opcode != SpvOpCooperativeMatrixMulAddNV) continue;
      const auto& o = inst.operands;
      role(o[2], Use::matrix_a);
      role(o[3], Use::matrix_b);
      role(o[4], Use::accumulator);
      role(o[1], Use::accumulator);
    }
  }
  void role(std::uint32_t id, Use use) {
    if (!node(id)) return;  // a constant: cloned for this role
    const auto rep = find(id);
    const auto [it, fresh] = roles_.emplace(rep, std::make_pair(use, id));
    if (!fresh && it->second.first != use) {
      const bool converted = std::any_of(conversions_.begin(), conversions_.end(),
                                         [&](std::uint32_t c) { return find(c) == rep; });
      refuse(id, std::string("is ") + with_article(use) + " of a multiply-add where " + describe(it->second.second) +
                     ", whose value it shares, is " + with_article(it->second.first) +
                     ": a KHR matrix has one Use" +
                     (converted ? " and a conversion keeps its source's (an Accumulator made an operand must go "
                                  "through memory)"
                                : ""));
    }
  }
  // A node's role: from the multiply-adds of its class, else an Accumulator.
  Use role_of(std::uint32_t id) {
    const auto it = roles_.find(find(id));
    return it == roles_.end() ? Use::accumulator : it->second.first;
  }

  // The roles each constant operand of an instruction is used in: (operand
  // index, role).
  std::vector<std::pair<std::size_t, Use>> constant_roles(const Instruction& inst, std::uint32_t function) {
    std::vector<std::pair<std::size_t, Use>> out;
    const auto& o = inst.operands;
    auto at = [&](std::size_t k, Use use) {
      if (k < o.size() && free_value(o[k])) out.emplace_back(k, use);
    };
    switch (inst.opcode) {
      case SpvOpCooperativeMatrixMulAddNV:
        at(2, Use::matrix_a), at(3, Use::matrix_b), at(4, Use::accumulator);
        break;
      case SpvOpCooperativeMatrixStoreNV:
        at(1, Use::accumulator);
        break;
      case SpvOpStore:
        if (node(o[0])) at(1, role_of(o[0]));
        break;
      case SpvOpReturnValue:
        if (node(function)) at(0, role_of(function));
        break;
      case SpvOpFunctionCall: {
        const auto& params = parameters_[o[2]];
        for (std::size_t k = 3; k < o.size() && k - 3 < params.size(); ++k)
          if (node(params[k - 3])) at(k, role_of(params[k - 3]));
        break;
      }
      case SpvOpVariable:  // its initializer
        if (node(o[1])) at(3, role_of(o[1]));
        break;
      case SpvOpCompositeInsert:  // the object and the composite (the indices are literals)
        if (node(o[1])) at(2, role_of(o[1])), at(3, role_of(o[1]));
        break;
      default:  // every operand an id, each in the result's role
        if (is_conversion_or_arithmetic(inst.opcode) && node(o[1]))
          for (std::size_t k = 2; k < o.size(); ++k) at(k, role_of(o[1]));
        break;
    }
    return out;
  }

  // --- which types and constants each role needs --------------------------

  void need(std::uint32_t id, Use use) {
    if (!needs_[id].insert(use).second) return;
    const auto& inst = m_.instructions.at(def_.at(id));
    const auto& o = inst.operands;
    switch (inst.opcode) {
      case SpvOpTypeArray:
      case SpvOpTypeRuntimeArray:
        need(o[1], use);
        break;
      case SpvOpTypePointer:
        need(o[2], use);
        break;
      default:
        if (is_constant(inst.opcode)) {
          need(o[0], use);
          for (std::size_t k = 2; k < o.size(); ++k)
            if (free_value(o[k])) need(o[k], use);
        }
        break;
    }
  }

  void collect_needs() {
    std::uint32_t function = 0;
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      const auto& inst = m_.instructions[i];
      const auto& o = inst.operands;
      if (inst.opcode == SpvOpFunction) function = o[1];
      for (const auto& [k, use] : constant_roles(inst, function)) need(o[k], use);
      if (inst.opcode == SpvOpFunction) {
        for (const auto& [type, use] : signature(o[1]))
          if (use) need(type, *use);
      } else if (typed_[i] && node(o[1])) {
        need(o[0], role_of(o[1]));
      } else if (inst.opcode == SpvOpCooperativeMatrixLengthNV) {
        length_types_.insert(o[2]);
      }
    }
    for (const auto type : length_types_)
      if (needs_[type].empty()) need(type, Use::accumulator);
    // Types no value uses keep a declaration, as Accumulators.
    for (const auto type : bearing_)
      if (!functions_types_.count(type) && needs_[type].empty()) need(type, Use::accumulator);
  }

  // A function's return and parameter types, each with its role where it
  // holds matrices.
  std::vector<std::pair<std::uint32_t, std::optional<Use>>> signature(std::uint32_t function) {
    std::vector<std::pair<std::uint32_t, std::optional<Use>>> slots;
    auto slot = [&](std::uint32_t id) {
      const auto type = type_of_.at(id);
      slots.emplace_back(type, bearing_.count(type) ? std::optional<Use>(role_of(id)) : std::nullopt);
    };
    slot(function);
    for (const auto p : parameters_[function]) slot(p);
    return slots;
  }

  // --- writing ------------------------------------------------------------

  std::uint32_t fresh() { return next_id_++; }

  // The id of `id` (a type or constant) for `use`: the first role it is
  // needed in keeps the id.
  std::uint32_t as(std::uint32_t id, Use use) {
    const auto key = std::make_pair(id, use);
    if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
    const auto& roles = needs_[id];
    const auto first = std::find_if(kUses.begin(), kUses.end(), [&](Use u) { return roles.count(u) > 0; });
    return ids_[key] = (first != kUses.end() && *first == use) ? id : fresh();
  }

  std::uint32_t uint_constant(std::uint32_t value) { return constants_.at(value); }

  spirv::Module emit(std::size_t& matrix_types) {
    spirv::Module out;
    out.header = m_.header;
    // The Use and layout constants (0, 1, 2), declared before the first
    // matrix type with the uint type they need.
    std::vector<Instruction> prelude;
    if (uint_ && def_.at(*uint_) > *first_matrix_) {
      refuse(*uint_, "(the 32-bit unsigned integer type) is declared after the first cooperative matrix type");
    }
    if (!uint_) {
      uint_ = fresh();
      prelude.push_back({SpvOpTypeInt, {*uint_, 32, 0}});
    }
    for (const auto& inst : m_.instructions) {
      if (inst.opcode == SpvOpConstant && inst.operands.size() == 3 && inst.operands[0] == *uint_ &&
          inst.operands[2] <= 2 && def_.at(inst.operands[1]) < *first_matrix_) {
        constants_.emplace(inst.operands[2], inst.operands[1]);
      }
    }
    for (std::uint32_t value = 0; value <= 2; ++value) {
      if (constants_.count(value)) continue;
      constants_[value] = fresh();
      prelude.push_back({SpvOpConstant, {*uint_, constants_[value], value}});
    }
    std::uint32_t function = 0;
    std::map<std::vector<std::uint32_t>, std::uint32_t> function_types;  // operands after the id -> id
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      auto inst = m_.instructions[i];
      auto& o = inst.operands;
      if (i == *first_matrix_) out.instructions.insert(out.instructions.end(), prelude.begin(), prelude.end());
      if (inst.opcode == SpvOpFunction) function = o[1];
      // Declarations: one per role.
      if (bearing_.count(o.empty() ? 0 : o[0]) && !functions_types_.count(o[0]) &&
          (inst.opcode == SpvOpTypeCooperativeMatrixNV || inst.opcode == SpvOpTypeArray ||
           inst.opcode == SpvOpTypeRuntimeArray || inst.opcode == SpvOpTypePointer)) {
        for (const auto use : kUses) {
          if (!needs_[o[0]].count(use)) continue;
          Instruction clone = inst;
          clone.operands[0] = as(o[0], use);
          if (inst.opcode == SpvOpTypeCooperativeMatrixNV) {
            clone.opcode = coopmat_khr::kOpTypeCooperativeMatrix;
            clone.operands.push_back(uint_constant(static_cast<std::uint32_t>(use)));
            ++matrix_types;
          } else {
            auto& element = clone.operands[inst.opcode == SpvOpTypePointer ? 2 : 1];
            element = as(element, use);
          }
          out.instructions.push_back(std::move(clone));
        }
        continue;
      }
      if (functions_types_.count(o.empty() ? 0 : o[0]) && inst.opcode == SpvOpTypeFunction) {
        out.instructions.push_back(inst);  // the declared signature; functions get theirs below
        function_types.emplace(std::vector<std::uint32_t>(o.begin() + 1, o.end()), o[0]);
        continue;
      }
      if (is_constant(inst.opcode) && free_value(o[1])) {
        for (const auto use : kUses) {
          if (!needs_[o[1]].count(use)) continue;
          Instruction clone = inst;
          clone.operands[0] = as(o[0], use);
          clone.operands[1] = as(o[1], use);
          for (std::size_t k = 2; k < o.size(); ++k)
            if (free_value(o[k])) clone.operands[k] = as(o[k], use);
          out.instructions.push_back(std::move(clone));
        }
        continue;
      }
      // Constant operands, each the clone of its role.
      for (const auto& [k, use] : constant_roles(m_.instructions[i], function)) o[k] = as(o[k], use);
      switch (inst.opcode) {
        case SpvOpCapability:
          if (o[0] == SpvCapabilityCooperativeMatrixNV) o[0] = coopmat_khr::kCapability;
          break;
        case SpvOpExtension:
          if (spirv::literal_string(o) == coopmat_khr::kNvExtension) o = spirv::string_words(coopmat_khr::kExtension);
          break;
        case SpvOpFunction: {
          const auto slots = signature(o[1]);
          if (std::none_of(slots.begin(), slots.end(), [](const auto& slot) { return slot.second.has_value(); })) break;
          std::vector<std::uint32_t> words;
          for (const auto& [type, use] : slots) words.push_back(use ? as(type, *use) : type);
          auto [it, added] = function_types.emplace(words, 0);
          if (added) {
            it->second = fresh();
            Instruction declared{SpvOpTypeFunction, {it->second}};
            declared.operands.insert(declared.operands.end(), words.begin(), words.end());
            // Declared with the types: before the first function.
            out.instructions.insert(first_function(out), std::move(declared));
          }
          o[0] = words.front();
          o[3] = it->second;
          break;
        }
        case SpvOpCooperativeMatrixLoadNV: {  // rt, id, pointer, stride, column-major[, access] -> layout before stride
          inst.opcode = coopmat_khr::kOpLoad;
          o[0] = as(o[0], role_of(o[1]));
          const auto layout = layout_of(o[4], o[1]);
          o[4] = o[3];
          o[3] = layout;
          break;
        }
        case SpvOpCooperativeMatrixStoreNV: {  // pointer, object, stride, column-major[, access]
          inst.opcode = coopmat_khr::kOpStore;
          const auto layout = layout_of(o[3], o[1]);
          o[3] = o[2];
          o[2] = layout;
          break;
        }
        case SpvOpCooperativeMatrixMulAddNV: {
          inst.opcode = coopmat_khr::kOpMulAdd;
          o[0] = as(o[0], Use::accumulator);
          std::uint32_t mask = 0;
          if (signed_components(o[2])) mask |= coopmat_khr::kMatrixASigned;
          if (signed_components(o[3])) mask |= coopmat_khr::kMatrixBSigned;
          if (signed_components(o[4])) mask |= coopmat_khr::kMatrixCSigned;
          if (signed_components(o[1])) mask |= coopmat_khr::kMatrixResultSigned;
          if (mask != 0) o.push_back(mask);
          break;
        }
        case SpvOpCooperativeMatrixLengthNV: {
          inst.opcode = coopmat_khr::kOpLength;
          const auto& roles = needs_[o[2]];
          o[2] = as(o[2], roles.count(Use::accumulator) ? Use::accumulator : *roles.begin());
          break;
        }
        default:
          if (typed_[i] && node(o[1])) o[0] = as(o[0], role_of(o[1]));
          break;
      }
      out.instructions.push_back(std::move(inst));
    }
    out.header[spirv::kBoundWord] = next_id_;
    return out;
  }

  static std::vector<Instruction>::iterator first_function(spirv::Module& out) {
    return std::find_if(out.instructions.begin(), out.instructions.end(),
                        [](const Instruction& i) { return i.opcode == SpvOpFunction; });
  }

  // The layout constant for an NV column-major operand, which must be a
  // boolean constant.
  std::uint32_t layout_of(std::uint32_t column_major, std::uint32_t matrix) const {
    const auto d = def_.find(column_major);
    const auto op = d == def_.end() ? 0u : m_.instructions[d->second].opcode;
    if (op != SpvOpConstantTrue && op != SpvOpConstantFalse) {
      refuse(matrix, "is loaded or stored with a column-major operand that is not a boolean constant");
    }
    return constants_.at(op == SpvOpConstantTrue ? coopmat_khr::kColumnMajor : coopmat_khr::kRowMajor);
  }

  // Whether a matrix value's components are signed integers.
  bool signed_components(std::uint32_t value) const {
    const auto& matrix = m_.instructions[def_.at(type_of_.at(value))].operands;
    const auto& component = m_.instructions[def_.at(matrix[1])];
    return component.opcode == SpvOpTypeInt && component.operands[2] == 1;
  }

  spirv::Module m_;
  std::uint32_t next_id_;
  std::vector<bool> typed_;                                     // per instruction: has a result type and id
  std::unordered_map<std::uint32_t, std::size_t> def_;         // id -> defining instruction
  std::unordered_map<std::uint32_t, std::uint32_t> type_of_;   // id -> its type
  std::unordered_map<std::uint32_t, std::string> names_;       // OpName
  std::set<std::uint32_t> matrices_, bearing_, functions_types_, length_types_;
  std::map<std::uint32_t, std::vector<std::uint32_t>> parameters_;  // function -> its parameters
  std::optional<std::size_t> first_matrix_;
  std::optional<std::uint32_t> uint_;
  std::unordered_map<std::uint32_t, std::uint32_t> parent_;                 // union-find of nodes
  std::vector<std::uint32_t> conversions_;                                  // results of matrix conversions
  std::map<std::uint32_t, std::pair<Use, std::uint32_t>> roles_;           // class -> role, the id that set it
  std::map<std::uint32_t, std::set<Use>> needs_;                           // type or constant -> roles
  std::map<std::pair<std::uint32_t, Use>, std::uint32_t> ids_;             // (type or constant, role) -> id
  std::map<std::uint32_t, std::uint32_t> constants_;                       // 0, 1, 2 -> uint constant id
};

}  // namespace

CoopmatKhrResult nv_to_khr_cooperative_matrix(std::span<const std::uint32_t> spirv) {
  try {
    return Pass(spirv::split_module(spirv)).run();
  } catch (const Refused& r) {
    return {{}, r.why, 0};
  }
}

}  // namespace vktune::vk
