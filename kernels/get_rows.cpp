// get_rows_f16, get_rows_q8_0, get_rows_q4k: embedding lookup,
// out[t, :] = dequantize(table[ids[t], :]) for `tokens` int32 ids into a table
// of `vocab` rows of `dim` weights in F16, Q8_0 or Q4_K, bit-exact with
// reference/dequantize.hpp. One template, templates/get_rows.comp; the table's
// type is the kernel's meaning (TYPE), not a tuning parameter.
//
// Only the selected rows are read, so the table is marked as weights (rotated
// for cold timing) but the bytes moved are tokens rows, not the table: at
// 512 tokens of a 4096-wide table that is 1.2 MB (Q4_K) to 4 MB (F16) read
// plus 8 MB written. With the large tables (0.3 to 1 GB) the tuner keeps
// only two copies, so repeated ids of one copy may still be in L2 when it
// comes round again: the timing is of the lookup, near-cold but not
// guaranteed cold.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kernels/half_buffers.hpp"
#include "kernels/registry.hpp"
#include "kernels/row_ops.hpp"
#include "reference/dequantize.hpp"
#include "reference/gguf_types.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::kernels {
namespace {

struct TableType {
  const char* kernel;
  ref::GgmlType type;
  int define;               // TYPE in the template
  std::uint32_t block;      // weights per block
};

const TableType kF16{"get_rows_f16", ref::GgmlType::F16, 0, 1};
const TableType kQ8_0{"get_rows_q8_0", ref::GgmlType::Q8_0, 1, 32};
const TableType kQ4K{"get_rows_q4k", ref::GgmlType::Q4_K, 2, 256};

// The table's bytes rounded up to whole 32-bit words (the template reads words).
std::uint64_t table_bytes(const TableType& t, const Shape& shape) {
  return (std::uint64_t{shape.at(1)} * ref::row_bytes(t.type, shape.at(2)) + 3) / 4 * 4;
}

class GetRows final : public Kernel {
 public:
  explicit GetRows(const TableType& type) : t_(type) {}

  std::string name() const override { return t_.kernel; }

  std::string description() const override {
    return std::string("embedding lookup: out[t,:] = dequantize(table[ids[t],:]), ") +
           std::string(ref::type_name(t_.type)) + " table, int32 ids, fp32 out";
  }

  std::vector<std::string> shape_dims() const override { return {"tokens", "vocab", "dim"}; }

  void validate_shape(const Shape& shape) const override {
    // The output (tokens x dim) is indexed in 32 bits; the table by words.
    if (shape.size() != 3) {
      throw Error(ErrorKind::usage, name() + " takes shapes tokens,vocab,dim; got " + std::to_string(shape.size()) +
                                        " dimensions");
    }
    rowops::check_dims(name(), {"tokens", "dim"}, Shape{shape[0], shape[2]});
    if (shape[1] == 0) throw Error(ErrorKind::usage, name() + ": vocab must be positive");
    const std::uint32_t unit = std::max(t_.block, 4u);
    if (shape[2] % unit != 0) {
      throw Error(ErrorKind::usage, name() + ": dim " + std::to_string(shape[2]) + " is not a multiple of " +
                                        std::to_string(unit) + (t_.block > 1 ? " (the block size)" : " (vec4 stores)"));
    }
    if (table_bytes(t_, shape) >= (1ull << 34)) {
      throw Error(ErrorKind::usage, name() + ": a table of " + std::to_string(table_bytes(t_, shape)) +
                                        " bytes is too large for 32-bit word indexing");
    }
  }

  // Llama-3-8B's token embedding (128256 x 4096): one decode token and a
  // 512-token prompt.
  std::vector<Shape> default_shapes() const override { return {{1, 128256, 4096}, {512, 128256, 4096}}; }

  // One token and several (with repeated ids), rows of one block to several,
  // a row length that is no multiple of a workgroup's outputs.
  std::vector<Shape> check_shapes() const override {
    if (t_.block == 256) return {{1, 7, 256}, {5, 9, 768}, {9, 3, 1280}};
    return {{1, 7, 96}, {5, 9, 416}, {9, 3, 1248}};
  }

  std::vector<Space> build_spaces() const override {
    Space space{"rows", "get_rows.comp", {}};
    space.parameters = {
        {"WG_SIZE", {32, 64, 128, 256}, "invocations per workgroup"},
        {"ELEMS", {4, 8, 16, 32}, "consecutive outputs per invocation per step (one run of a block)"},
        {"STEPS", {1, 2, 4}, "runs per invocation, WG_SIZE*ELEMS outputs apart"},
    };
    // vocab rows of dim weights, in whole blocks (table_bytes).
    space.bindings = {{"ids", BindingRole::input, size_rule(4, {0})},
                      {"table", BindingRole::weights, size_rule(ref::row_bytes(t_.type, t_.block), {1, 2}, t_.block)},
                      {"out", BindingRole::output, size_rule(4, {0, 2})}};
    return {space};
  }

  // 64 invocations of 8 outputs (one 16-byte F16 load, two Q4_K qs words),
  // one run each; 32 invocations for rows of 256 or fewer.
  Config baseline(const Shape& shape) const override {
    return {{"WG_SIZE", shape.at(2) > 256 ? 64 : 32}, {"ELEMS", 8}, {"STEPS", 1}};
  }

  Violation constraint_violation(const Config& config, const Shape& shape,
                                 const vk::DeviceInfo& device) const override {
    validate_shape(shape);
    if (auto problem = rowops::parameter_violation(config, spaces()[0]); !problem.empty()) return problem;
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    const auto elems = static_cast<std::uint32_t>(config.at("ELEMS"));
    const auto steps = static_cast<std::uint32_t>(config.at("STEPS"));
    const std::uint32_t dim = shape[2];
    if (t_.block > 1 && t_.block % elems != 0) {
      return legality::kDivides("ELEMS=" + std::to_string(elems) + " does not divide the block of " +
                                std::to_string(t_.block));
    }
    if (t_.block == 1 && dim % elems != 0) {
      return legality::kDivides("ELEMS=" + std::to_string(elems) + " does not divide the row of " + std::to_string(dim));
    }
    const std::uint64_t chunk = std::uint64_t{wg} * elems * steps;
    if (chunk >= 2 * std::uint64_t{dim} && !(wg == 32 && steps == 1)) {
      return legality::kIdleLanes("a workgroup's " + std::to_string(chunk) +
                                  " outputs (WG_SIZE*ELEMS*STEPS) are twice the row of " + std::to_string(dim) +
                                  " or more: over half the lanes idle");
    }
    return plan_limits_violation(plan(config, shape), shape, 3, device);
  }

  ShaderPlan plan(const Config& config, const Shape&) const override {
    ShaderPlan plan;
    plan.template_file = "get_rows.comp";
    plan.defines = rowops::config_defines(config, spaces()[0]);
    plan.defines.emplace_back("TYPE", std::to_string(t_.define));
    const auto wg = static_cast<std::uint32_t>(config.at("WG_SIZE"));
    plan.local_size = {wg, 1, 1};
    const auto chunk = wg * static_cast<std::uint32_t>(config.at("ELEMS") * config.at("STEPS"));
    plan.dispatch = {DispatchAxis{2, chunk}, DispatchAxis{0, 1}, DispatchAxis{}};
    return plan;
  }

  // Random valid rows (every code value in every block, see
  // reference/random_blocks.hpp); ids uniform over the table, with the first
  // and last row and a repeat when there are tokens enough.
  Problem make_problem(const Shape& shape, const Inputs& inputs) const override {
    const std::uint64_t seed = inputs.seed;
    validate_shape(shape);
    const std::uint32_t tokens = shape[0], vocab = shape[1], dim = shape[2];
    auto table = ref::random_quantized_rows(t_.type, vocab, dim, seed, inputs.kind);
    table.resize(table_bytes(t_, shape), 0);
    std::mt19937_64 rng(seed ^ 0x94d049bb133111ebull);
    std::uniform_int_distribution<std::uint32_t> dist(0, vocab - 1);
    std::vector<std::int32_t> ids(tokens);
    for (auto& id : ids) id = static_cast<std::int32_t>(dist(rng));
    if (tokens > 1) ids[1] = static_cast<std::int32_t>(vocab - 1);
    ids[0] = 0;
    if (tokens > 2) ids[tokens - 1] = ids[tokens / 2];

    Problem problem;
    problem.shape = shape;
    problem.expected.resize(std::size_t{tokens} * dim);
    const std::size_t row = ref::row_bytes(t_.type, dim);
    std::vector<float> values(dim);
    for (std::uint32_t i = 0; i < tokens; ++i) {
      ref::dequantize_row(t_.type, table.data() + static_cast<std::size_t>(ids[i]) * row, values.data(), dim);
      std::copy(values.begin(), values.end(), problem.expected.begin() + std::size_t{i} * dim);
    }
    problem.buffers.push_back(half::int32_buffer("ids", ids));
    problem.buffers.push_back(HostBuffer{"table", std::move(table), false, true});
    problem.buffers.push_back(rowops::output_buffer("out", std::size_t{tokens} * dim));
    problem.output_index = 2;
    return problem;
  }

  // Bit-exact with the reference: the same float products and differences,
  // each rounded once (Q4_K's d1*q - m1 kept unfused by `precise`). The
  // slack is for a driver that fuses anyway (one rounding less: < 1e-7
  // relative); a wrong row, block, scale or nibble is off by O(1).
  Tolerance tolerance(const Shape&) const override { return Tolerance{1e-6, 1e-6}; }

  // Reads the ids and the selected rows (each distinct row once: at most
  // min(tokens, vocab)), writes the fp32 rows; one or two
  // flops per weight (Q8_0: a product; Q4_K: a multiply-subtract).
  Metrics metrics(const Shape& shape) const override {
    const double tokens = shape.at(0), dim = shape.at(2);
    const double row = static_cast<double>(ref::row_bytes(t_.type, shape.at(2)));
    const double rows = std::min(tokens, static_cast<double>(shape.at(1)));
    return Metrics{tokens * (4 + dim * 4) + rows * row, tokens * dim * (t_.block == 1 ? 0 : t_.block == 32 ? 1 : 2)};
  }

  std::uint64_t device_bytes(const Shape& shape) const override {
    const std::uint64_t tokens = shape.at(0), dim = shape.at(2);
    return tokens * 4 + table_bytes(t_, shape) + tokens * dim * 4;
  }

 private:
  TableType t_;
};

const KernelRegistration get_rows_f16([] { return std::make_unique<GetRows>(kF16); });
const KernelRegistration get_rows_q8_0([] { return std::make_unique<GetRows>(kQ8_0); });
const KernelRegistration get_rows_q4k([] { return std::make_unique<GetRows>(kQ4K); });

}  // namespace
}  // namespace vktune::kernels
