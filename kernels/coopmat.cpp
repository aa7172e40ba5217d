#include "kernels/coopmat.hpp"

namespace vktune::kernels::coopmat {

Parameter shape_parameter() {
  return {"CM_SHAPE", {0, 1, 2}, "cooperative matrix M×N×K: 0 = 16×16×16, 1 = 16×8×16, 2 = 16×8×8"};
}
Parameter warps_m_parameter() {
  return {"WARPS_M", {1, 2, 4}, "subgroups of 32 along M per workgroup (each takes TILE_M/WARPS_M rows)"};
}
Parameter warps_n_parameter() {
  return {"WARPS_N", {1, 2, 4}, "subgroups of 32 along N per workgroup (each takes TILE_N/WARPS_N columns)"};
}

Tile tile_of(const Config& c) {
  Tile t{};
  t.cm = kShapes.at(static_cast<std::size_t>(c.at("CM_SHAPE")));
  t.warps = static_cast<std::uint32_t>(c.at("WARPS_M") * c.at("WARPS_N"));
  t.bm = static_cast<std::uint32_t>(c.at("TILE_M"));
  t.bn = static_cast<std::uint32_t>(c.at("TILE_N"));
  t.bk = static_cast<std::uint32_t>(c.at("TILE_K"));
  t.wm = t.bm / static_cast<std::uint32_t>(c.at("WARPS_M"));
  t.wn = t.bn / static_cast<std::uint32_t>(c.at("WARPS_N"));
  return t;
}

Violation device_violation(const MatrixShape& cm, const vk::DeviceInfo& device, const std::string& path,
                           const ElementTypes& types) {
  if (device.cooperative_matrix == vk::CooperativeMatrixExtension::none) {
    return legality::kCooperativeMatrix(path + " needs VK_NV_cooperative_matrix or VK_KHR_cooperative_matrix");
  }
  const bool fp16 = std::string(types.inputs) == kFp16.inputs;
  if (fp16 && !device.features.shader_float16) {
    return legality::kFloat16(path + " needs shaderFloat16 (fp16 staging in shared memory)");
  }
  if (!fp16 && !device.features.shader_int8) {
    return legality::kCooperativeMatrix(path + " needs shaderInt8 (8-bit matrix elements)");
  }
  bool reported = false;
  for (const auto& s : device.tensor_core_shapes()) {
    reported = reported || (s.m == cm.m && s.n == cm.n && s.k == cm.k && s.a_type == types.inputs &&
                            s.b_type == types.inputs && s.c_type == types.accumulators &&
                            s.d_type == types.accumulators && s.scope == "subgroup");
  }
  const std::string name = std::to_string(cm.m) + "x" + std::to_string(cm.n) + "x" + std::to_string(cm.k);
  if (!reported) {
    return legality::kCooperativeMatrix(
        "the device reports no " + name + " cooperative matrix with " + types.inputs + " inputs and " +
        types.accumulators + " accumulators through " +
        (device.cooperative_matrix == vk::CooperativeMatrixExtension::nv ? "VK_NV" : "VK_KHR") + "_cooperative_matrix");
  }
  const bool only32 = device.subgroup_size == kWarp && (device.min_subgroup_size == 0 || device.min_subgroup_size == kWarp) &&
                      (device.max_subgroup_size == 0 || device.max_subgroup_size == kWarp);
  if (!only32) return legality::kSubgroup32(path + " assumes subgroups of exactly 32 invocations");
  return {};
}

Violation violation(const Config& c, const vk::DeviceInfo& device) {
  const auto t = tile_of(c);
  if (auto p = device_violation(t.cm, device, "USE_COOPMAT=1"); !p.empty()) return p;
  const std::string cm = std::to_string(t.cm.m) + "x" + std::to_string(t.cm.n) + "x" + std::to_string(t.cm.k);
  if (t.warps > 8) return kSubgroups("WARPS_M*WARPS_N = " + std::to_string(t.warps) + " subgroups is more than 8");
  if (t.wm % t.cm.m != 0 || t.wn % t.cm.n != 0) {
    return kTileShape("a subgroup's " + std::to_string(t.wm) + "×" + std::to_string(t.wn) +
                      " part of the tile is not made of " + cm + " matrices");
  }
  if (t.bk < 16 || t.bk % t.cm.k != 0) {
    return kTileShape("TILE_K=" + std::to_string(t.bk) + " is below 16 or not a multiple of " + std::to_string(t.cm.k));
  }
  // Up to 64×64 of C per subgroup (sixteen 16×16 accumulators): the larger
  // the subgroup's part, the more matrix products per fragment loaded from
  // shared memory; past 128 floats the registers spill.
  const std::uint32_t acc_floats = t.wm * t.wn / kWarp;
  if (acc_floats > 128) {
    return kAccumulators("a subgroup's accumulators hold " + std::to_string(acc_floats) +
                         " floats per invocation, more than 128");
  }
  return {};
}

}  // namespace vktune::kernels::coopmat
