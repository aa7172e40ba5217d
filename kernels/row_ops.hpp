#pragma once
// What the row-wise and elementwise memory-bound kernels share (rmsnorm,
// layernorm, softmax, argmax; swiglu, gelu, add): their parameter spaces,
// constraints, baselines and plans. A kernel file derives
// from RowKernel or ElementwiseKernel and adds its name, template, shapes,
// problem (inputs and reference), tolerance and metrics.
//
// Row kernels (templates/include/rowops.glsl): a team of
// WG_SIZE/ROWS_PER_WG invocations per row of n floats, walking the row in
// steps of team*VEC*EPT floats; the row stays in registers when one step
// covers it. Elementwise kernels (templates/include/elementwise.glsl): one flat
// array of rows*n floats, WG_SIZE*VEC*EPT floats per workgroup.
//
// Every input buffer is marked as weights, so timing rotates copies of it and
// reads it from DRAM: the GB/s reported is against the memory, not the cache.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "kernels/kernel.hpp"
#include "kernels/kernel_support.hpp"

namespace vktune::kernels::rowops {

// The shared helpers (kernels/kernel_support.hpp) under the name the row
// kernels have always used.
using namespace support;

// The row kernels' own legality rules (kernels/legality.hpp has the shared ones).
inline constexpr RuleId kTeamSize{"rows.team_size"};                // a team of at least 32
inline constexpr RuleId kRowsPerWorkgroup{"rows.rows_per_workgroup"};  // several rows only for short ones
inline constexpr RuleId kTeamSubgroups{"rows.team_subgroups"};      // a team of whole subgroups

// ---- row kernels ----

// Longest row: a team of 1024 covers it in 8 steps of 32 floats per lane.
constexpr std::uint32_t kMaxRowLength = 1024u * 32u * 8u;
// A team never walks a row in more steps than this (fewer, larger steps
// are always available and never slower), which also bounds the loop
// lengths for CPU drivers in the CI gate.
constexpr std::uint32_t kMaxSteps = 8;

class RowKernel : public Kernel {
 public:
  std::vector<std::string> shape_dims() const override { return {"rows", "n"}; }

  void validate_shape(const Shape& shape) const override {
    check_dims(name(), shape_dims(), shape);
    if (row_length(shape) > kMaxRowLength) {
      throw Error(ErrorKind::usage, name() + ": rows of " + std::to_string(row_length(shape)) +
                                        " floats are longer than the " + std::to_string(kMaxRowLength) + " supported");
    }
  }

  std::vector<Space> build_spaces() const override {
    Space space{"rows", template_file(), {}};
    space.parameters = {
        {"WG_SIZE", {64, 128, 256, 512, 1024}, "invocations per workgroup"},
        {"ROWS_PER_WG", {1, 2, 4}, "rows per workgroup, one team of WG_SIZE/ROWS_PER_WG invocations each"},
        {"VEC", {1, 4}, "floats per load and store (float, vec4; misaligned row ends go one float at a time)"},
        {"EPT", {1, 2, 4, 8}, "vectors per invocation per step, loaded together; a row that fits in one step "
                              "stays in registers"},
        {"REDUCTION", {0, 1}, "0 = subgroup operation then shared memory across subgroups; 1 = shared-memory tree"},
        {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
    };
    // The shared-memory tree uses no subgroup operations: it does not vary
    // the subgroup size.
    Path subgroup{"subgroup-reduction", {}, {{"REDUCTION", 0}}}, tree{"shared-memory-tree", {}, {{"REDUCTION", 1}}};
    for (const auto& p : space.parameters) {
      if (p.name == "REDUCTION") continue;
      subgroup.parameters.push_back(p);
      if (p.name == "SUBGROUP_SIZE") {
        tree.pinned[p.name] = 0;
      } else {
        tree.parameters.push_back(p);
      }
    }
    space.paths = {subgroup, tree};
    space.bindings = binding_list();
    return {space};
  }


  // Odd row lengths: shorter than a subgroup's vec4 step, not a multiple of
  // 4 or of any step, one row and several (rows start misaligned for vec4).
  std::vector<Shape> check_shapes() const override { return {{1, 37}, {3, 1000}, {7, 4097}}; }

  // One row per workgroup with the subgroup reduction; vec4 loads from 128
  // floats on; 64 invocations for short rows, 256 up to 8K floats, 1024
  // beyond (with 8 or 32 floats per invocation per step).
  Config baseline(const Shape& shape) const override {
    const std::uint32_t n = row_length(shape);
    int wg = 256, vec = 4, ept = 1;
    if (n <= 128) {
      wg = 64, vec = 1;
    } else if (n <= 512) {
      wg = 64;
    } else if (n > 65536) {
      wg = 1024, ept = 8;
    } else if (n > 8192) {
      wg = 1024, ept = 2;
    }
    return {{"WG_SIZE", wg}, {"ROWS_PER_WG", 1}, {"VEC", vec}, {"EPT", ept}, {"REDUCTION", 0}, {"SUBGROUP_SIZE", 0}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto rows_per_wg = static_cast<std::uint32_t>(config.at("ROWS_PER_WG"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const auto ept = static_cast<std::uint32_t>(config.at("EPT"));
    const int reduction = config.at("REDUCTION");
    const int sg = config.at("SUBGROUP_SIZE");
    const std::uint32_t team = wg / rows_per_wg;
    const std::uint32_t step = team * vec * ept;  // floats per team per step
    const std::uint64_t n = walk_length(config, shape);

    if (team < 32) return kTeamSize("a team of WG_SIZE/ROWS_PER_WG = " + std::to_string(team) + " is smaller than 32");
    if (rows_per_wg > inner_rows(shape)) {
      return legality::kIdleLanes("ROWS_PER_WG=" + std::to_string(rows_per_wg) + " exceeds the " +
                                  std::to_string(inner_rows(shape)) + " rows (teams would be idle)");
    }
    if (vec * ept > 32) {
      return legality::kRegisters("VEC*EPT = " + std::to_string(vec * ept) + " floats per step exceeds 32 registers");
    }
    if (step >= 2 * n && step > 64) {
      return legality::kIdleLanes("a step of " + std::to_string(step) + " floats (team*VEC*EPT) is twice the row of " +
                                  std::to_string(n) + " or more: over half the lanes idle");
    }
    if ((n + step - 1) / step > kMaxSteps) {
      return legality::kSteps("a step of " + std::to_string(step) + " floats walks the row of " + std::to_string(n) +
                              " in more than " + std::to_string(kMaxSteps) + " steps (a larger step is never slower)");
    }
    if (rows_per_wg > 1 && std::uint64_t{wg} * vec * ept < 2 * n) {
      return kRowsPerWorkgroup("ROWS_PER_WG > 1 is for rows shorter than half a one-row step (WG_SIZE*VEC*EPT = " +
                               std::to_string(wg * vec * ept) + ", row " + std::to_string(n) + ")");
    }
    if (reduction == 0) {
      if (!device.subgroup_in_compute || !device.has_subgroup_operation("basic") ||
          !device.has_subgroup_operation("arithmetic")) {
        return legality::kSubgroupOperations(
            "REDUCTION=0 needs basic and arithmetic subgroup operations in compute shaders");
      }
      const std::uint32_t largest = sg != 0 ? static_cast<std::uint32_t>(sg) : device.max_subgroup_size;
      if (largest == 0 || team % largest != 0) {
        return kTeamSubgroups("REDUCTION=0 needs the team of " + std::to_string(team) +
                              " to be a multiple of the subgroup size " + std::to_string(largest));
      }
    } else if (sg != 0) {
      return legality::kUnreadParameter(
          "REDUCTION=1 uses no subgroup operations: SUBGROUP_SIZE is not read (it stays 0)");
    }
    if (auto problem = subgroup_size_violation(sg, wg, device); !problem.empty()) return problem;
    return plan_limits_violation(plan(config, shape), shape, buffer_count(), device);
  }

  ShaderPlan plan(const Config& config, const Shape&) const override {
    const auto& space = spaces()[0];
    ShaderPlan plan;
    plan.template_file = template_file();
    plan.defines = config_defines(config, space);
    for (const auto& d : semantic_defines()) plan.defines.push_back(d);
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    plan.local_size = {wg, 1, 1};
    plan.required_subgroup_size = static_cast<std::uint32_t>(config.at("SUBGROUP_SIZE"));
    plan.dispatch = {DispatchAxis{inner_dim(), static_cast<std::uint32_t>(config.at("ROWS_PER_WG"))},
                     DispatchAxis{outer_dim(), 1}, DispatchAxis{}};
    plan.shared_memory_bytes = wg * 4 * (uses_index_reduction() ? 2 : 1);
    return plan;
  }

 protected:
  virtual std::string template_file() const = 0;
  virtual Defines semantic_defines() const { return {}; }
  // The storage buffers, in binding order (Space::bindings).
  virtual std::vector<Binding> binding_list() const = 0;
  std::uint32_t buffer_count() const { return static_cast<std::uint32_t>(binding_list().size()); }
  virtual bool uses_index_reduction() const { return false; }
  // The rows along the dispatch's x axis (shape dim inner_dim()), the outer
  // dim along y (-1: none), and the row length.
  virtual int inner_dim() const { return 0; }
  virtual int outer_dim() const { return -1; }
  virtual std::uint32_t inner_rows(const Shape& shape) const { return shape.at(0); }
  virtual std::uint32_t row_length(const Shape& shape) const { return shape.at(1); }
  // The floats one team walks: its row, or the part of it a config gives
  // one workgroup (argmax's split rows).
  virtual std::uint64_t walk_length(const Config&, const Shape& shape) const { return row_length(shape); }
};

// ---- elementwise kernels ----

class ElementwiseKernel : public Kernel {
 public:
  std::vector<std::string> shape_dims() const override { return {"rows", "n"}; }

  void validate_shape(const Shape& shape) const override { check_dims(name(), shape_dims(), shape); }

  std::vector<Space> build_spaces() const override {
    Space space{"flat", template_file(), {}};
    space.parameters = {
        {"WG_SIZE", {64, 128, 256, 512, 1024}, "invocations per workgroup"},
        {"VEC", {1, 2, 4}, "floats per load and store (float, vec2, vec4; the last total % VEC floats padded)"},
        {"EPT", {1, 2, 4, 8}, "vectors per invocation, all loaded before any arithmetic"},
        {"SUBGROUP_SIZE", {0, 8, 16, 32, 64}, "required subgroup size; 0 = the device's choice"},
    };
    // One float per element of rows × n in every buffer.
    const auto per_element = size_rule(4, {0, 1});
    if (inputs() == 1) {
      space.bindings = {{"x", BindingRole::input, per_element}};
    } else {
      space.bindings = {{"a", BindingRole::input, per_element}, {"b", BindingRole::input, per_element}};
    }
    space.bindings.push_back({"y", BindingRole::output, per_element});
    return {space};
  }


  // 256 invocations with one vec4 each; 64 with one float for tiny arrays.
  Config baseline(const Shape& shape) const override {
    const bool tiny = std::uint64_t{shape.at(0)} * shape.at(1) <= 512;
    return {{"WG_SIZE", tiny ? 64 : 256}, {"VEC", tiny ? 1 : 4}, {"EPT", 1}, {"SUBGROUP_SIZE", 0}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto vec = static_cast<std::uint32_t>(config.at("VEC"));
    const auto ept = static_cast<std::uint32_t>(config.at("EPT"));
    const std::uint64_t total = std::uint64_t{shape.at(0)} * shape.at(1);
    const std::uint64_t chunk = std::uint64_t{wg} * vec * ept;
    if (vec * ept > 16) {
      return legality::kRegisters("VEC*EPT = " + std::to_string(vec * ept) + " floats per input exceeds 16 registers");
    }
    if (chunk >= 2 * total && chunk > 64) {
      return legality::kIdleLanes("a workgroup's " + std::to_string(chunk) + " floats (WG_SIZE*VEC*EPT) are twice the " +
                                  std::to_string(total) + " elements or more: over half the lanes idle");
    }
    if (auto problem = subgroup_size_violation(config.at("SUBGROUP_SIZE"), wg, device); !problem.empty()) {
      return problem;
    }
    return plan_limits_violation(plan(config, shape), shape, buffer_count(), device);
  }

  // Workgroups: ceil(n / chunk) along x, one row of them per row along y;
  // the shader numbers them flat, and those past the end return at once.
  ShaderPlan plan(const Config& config, const Shape&) const override {
    ShaderPlan plan;
    plan.template_file = template_file();
    plan.defines = config_defines(config, spaces()[0]);
    for (const auto& d : semantic_defines()) plan.defines.push_back(d);
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto chunk = wg * static_cast<std::uint32_t>(config.at("VEC") * config.at("EPT"));
    plan.local_size = {wg, 1, 1};
    plan.required_subgroup_size = static_cast<std::uint32_t>(config.at("SUBGROUP_SIZE"));
    plan.dispatch = {DispatchAxis{1, chunk}, DispatchAxis{0, 1}, DispatchAxis{}};
    return plan;
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    return floats_bytes(std::uint64_t{shape.at(0)} * shape.at(1) * (inputs() + 1));
  }

  // Reads every input once and writes the output once.
  Metrics metrics(const Shape& shape) const override {
    const double total = static_cast<double>(shape.at(0)) * shape.at(1);
    return Metrics{total * 4.0 * (inputs() + 1), total * flops_per_element()};
  }

  // Elementwise ops on random data in [-1, 1) (swiglu, gelu: exp through
  // the driver's fp32 exp, a few ulps; add: one rounding).
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-5, 1e-4}; }

  std::vector<Shape> default_shapes() const override { return {{1, 14336}, {512, 14336}, {512, 4096}}; }
  // Odd totals (no multiple of 4, not of any workgroup's floats), one row
  // to several, with workgroups straddling rows.
  std::vector<Shape> check_shapes() const override { return {{1, 37}, {3, 1000}, {7, 4097}}; }

 protected:
  virtual std::string template_file() const = 0;
  virtual Defines semantic_defines() const { return {}; }
  virtual std::uint32_t inputs() const = 0;
  virtual double flops_per_element() const = 0;
  std::uint32_t buffer_count() const { return static_cast<std::uint32_t>(spaces()[0].bindings.size()); }
};

}  // namespace vktune::kernels::rowops
