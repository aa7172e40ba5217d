#include "harness/coopmat_khr_check.hpp"

#include <spirv/unified1/spirv.h>  // with SpvHasResultAndType (SPV_ENABLE_UTILITY_CODE: harness/CMakeLists.txt)

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "harness/coopmat_khr_spec.hpp"
#include "harness/spirv_words.hpp"

namespace vktune::vk {

namespace {

using coopmat_khr::Use;

struct Problem {
  std::string what;
};

class Check {
 public:
  explicit Check(spirv::Module module) : m_(std::move(module)) {}

  void run() {
    index();
    bool khr_capability = false, khr_extension = false, any_khr = false;
    for (const auto& inst : m_.instructions) {
      const auto& o = inst.operands;
      switch (inst.opcode) {
        case SpvOpCapability:
          if (o[0] == SpvCapabilityCooperativeMatrixNV) fail("the NV cooperative-matrix capability is still declared");
          khr_capability = khr_capability || o[0] == coopmat_khr::kCapability;
          break;
        case SpvOpExtension:
          if (spirv::literal_string(o) == coopmat_khr::kNvExtension) fail("the NV extension is still declared");
          khr_extension = khr_extension || spirv::literal_string(o) == coopmat_khr::kExtension;
          break;
        case SpvOpTypeCooperativeMatrixNV:
        case SpvOpCooperativeMatrixLoadNV:
        case SpvOpCooperativeMatrixStoreNV:
        case SpvOpCooperativeMatrixMulAddNV:
        case SpvOpCooperativeMatrixLengthNV:
          fail("an NV cooperative-matrix instruction (opcode " + std::to_string(inst.opcode) + ") is left");
        case coopmat_khr::kOpTypeCooperativeMatrix:
          any_khr = true;
          break;
        case coopmat_khr::kOpLoad:
          if (o.size() < 4) fail("%" + std::to_string(o[1]) + ": a KHR load without its layout");
          use_of_type(o[0], o[1]);
          layout(o[3], o[1]);
          break;
        case coopmat_khr::kOpStore:
          if (o.size() < 3) fail("a KHR store without its layout");
          use_of_value(o[1]);
          layout(o[2], o[1]);
          break;
        case coopmat_khr::kOpMulAdd:
          multiply_add(o);
          break;
        case coopmat_khr::kOpLength:
          use_of_type(o[2], o[1]);
          break;
        default:
          flow(inst);
          break;
      }
    }
    if (any_khr && (!khr_capability || !khr_extension)) {
      fail("KHR cooperative matrices without the CooperativeMatrixKHR capability and SPV_KHR_cooperative_matrix");
    }
  }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw Problem{what}; }

  void index() {
    std::set<std::vector<std::uint32_t>> declared;
    for (const auto& inst : m_.instructions) {
      const auto& o = inst.operands;
      bool has_result = false, has_type = false;
      SpvHasResultAndType(static_cast<SpvOp>(inst.opcode), &has_result, &has_type);
      if (inst.opcode == coopmat_khr::kOpLoad || inst.opcode == coopmat_khr::kOpMulAdd ||
          inst.opcode == coopmat_khr::kOpLength) {
        has_result = has_type = true;
      }
      if (has_result && o.size() >= (has_type ? 2u : 1u)) {
        def_[o[has_type ? 1 : 0]] = &inst;
        if (has_type) type_of_[o[1]] = o[0];
      }
      if (inst.opcode == coopmat_khr::kOpTypeCooperativeMatrix) def_[o[0]] = &inst;
      if (inst.opcode == SpvOpConstant && o.size() == 3) constant_[o[1]] = o[2];
      if (inst.opcode == SpvOpTypePointer) pointee_[o[0]] = o[2];
      if (inst.opcode == coopmat_khr::kOpTypeCooperativeMatrix) {
        if (o.size() != 6) fail("%" + std::to_string(o[0]) + ": a KHR matrix type without its Use");
        const auto use = constant_.find(o[5]);
        if (use == constant_.end() || use->second > 2) {
          fail("%" + std::to_string(o[0]) + ": a KHR matrix type whose Use is not an integer constant 0-2");
        }
        uses_[o[0]] = static_cast<Use>(use->second);
        if (!declared.insert({o.begin() + 1, o.end()}).second) {
          fail("%" + std::to_string(o[0]) + ": a KHR matrix type declared twice alike");
        }
      }
    }
  }

  std::optional<Use> type_use(std::uint32_t type) const {
    const auto it = uses_.find(type);
    return it == uses_.end() ? std::nullopt : std::optional<Use>(it->second);
  }
  std::optional<Use> value_use(std::uint32_t id) const {
    const auto t = type_of_.find(id);
    return t == type_of_.end() ? std::nullopt : type_use(t->second);
  }
  Use use_of_type(std::uint32_t type, std::uint32_t id) const {
    const auto use = type_use(type);
    if (!use) fail("%" + std::to_string(id) + ": not typed as a KHR matrix where one is needed");
    return *use;
  }
  Use use_of_value(std::uint32_t id) const {
    const auto t = type_of_.find(id);
    if (t == type_of_.end()) fail("%" + std::to_string(id) + ": an untyped matrix operand");
    return use_of_type(t->second, id);
  }
  void layout(std::uint32_t id, std::uint32_t matrix) const {
    const auto it = constant_.find(id);
    if (it == constant_.end() || it->second > 1) {
      fail("%" + std::to_string(matrix) + ": loaded or stored with a layout that is not the constant 0 or 1");
    }
  }
  bool signed_components(std::uint32_t value) const {
    const auto* matrix = def_.at(type_of_.at(value));
    const auto* component = def_.at(matrix->operands[1]);
    return component->opcode == SpvOpTypeInt && component->operands[2] == 1;
  }

  void multiply_add(const std::vector<std::uint32_t>& o) const {
    const auto id = "%" + std::to_string(o[1]);
    if (use_of_type(o[0], o[1]) != Use::accumulator) fail(id + ": a multiply-add whose result is not an Accumulator");
    if (use_of_value(o[2]) != Use::matrix_a) fail(id + ": a multiply-add whose A is not a MatrixA");
    if (use_of_value(o[3]) != Use::matrix_b) fail(id + ": a multiply-add whose B is not a MatrixB");
    if (use_of_value(o[4]) != Use::accumulator) fail(id + ": a multiply-add whose C is not an Accumulator");
    const std::uint32_t mask = o.size() > 5 ? o[5] : 0;
    const std::pair<std::uint32_t, std::uint32_t> bits[] = {{o[2], coopmat_khr::kMatrixASigned},
                                                            {o[3], coopmat_khr::kMatrixBSigned},
                                                            {o[4], coopmat_khr::kMatrixCSigned},
                                                            {o[1], coopmat_khr::kMatrixResultSigned}};
    for (const auto& [value, bit] : bits) {
      if (signed_components(value) != ((mask & bit) != 0)) {
        fail(id + ": a multiply-add whose signed-component bits do not match its matrices' component types");
      }
    }
  }

  // Values keep their type (a conversion its Use) through copies, phis,
  // selects, loads and stores.
  void flow(const spirv::Instruction& inst) const {
    const auto& o = inst.operands;
    auto same = [&](std::uint32_t a, std::uint32_t b, bool use_only) {
      const auto ta = type_of_.find(a), tb = type_of_.find(b);
      if (ta == type_of_.end() || tb == type_of_.end()) return;
      const auto ua = type_use(ta->second), ub = type_use(tb->second);
      if (!ua && !ub) return;
      if (use_only ? ua != ub : ta->second != tb->second) {
        fail("%" + std::to_string(a) + " and %" + std::to_string(b) + ": a matrix value changes its Use");
      }
    };
    switch (inst.opcode) {
      case SpvOpCopyObject:
        same(o[1], o[2], false);
        break;
      case SpvOpSelect:
        same(o[1], o[3], false), same(o[1], o[4], false);
        break;
      case SpvOpPhi:
        for (std::size_t k = 2; k < o.size(); k += 2) same(o[1], o[k], false);
        break;
      case SpvOpFConvert:
      case SpvOpSConvert:
      case SpvOpUConvert:
      case SpvOpConvertFToS:
      case SpvOpConvertFToU:
      case SpvOpConvertSToF:
      case SpvOpConvertUToF:
        same(o[1], o[2], true);
        break;
      case SpvOpLoad:
      case SpvOpStore: {
        const auto pointer = inst.opcode == SpvOpLoad ? o[2] : o[0];
        const auto value = inst.opcode == SpvOpLoad ? o[1] : o[1];
        const auto pt = type_of_.find(pointer);
        const auto vt = type_of_.find(value);
        if (pt == type_of_.end() || vt == type_of_.end() || !pointee_.count(pt->second)) return;
        const auto pointee = pointee_.at(pt->second);
        if ((type_use(pointee) || type_use(vt->second)) && pointee != vt->second) {
          fail("%" + std::to_string(value) + ": a matrix loaded or stored through a pointer to another type");
        }
        break;
      }
      default:
        break;
    }
  }

  spirv::Module m_;
  std::unordered_map<std::uint32_t, const spirv::Instruction*> def_;
  std::unordered_map<std::uint32_t, std::uint32_t> type_of_, constant_, pointee_;
  std::map<std::uint32_t, Use> uses_;
};

}  // namespace

std::string khr_cooperative_matrix_problem(std::span<const std::uint32_t> spirv) {
  try {
    Check(spirv::split_module(spirv)).run();
  } catch (const Problem& p) {
    return p.what;
  }
  return "";
}

}  // namespace vktune::vk
