// `vktune export`: the stored winners as a JSON table, a C++ header, or the
// measurements as CSV; or the whole store as one self-contained SQLite file
// to ship. Export only reads: the database is opened read-only (so it works
// in a read-only directory) and its pages are checked first.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "results/export.hpp"
#include "cli/constants_export.hpp"
#include "results/export_csv.hpp"
#include "results/export_t4.hpp"
#include "results/export_header.hpp"
#include "cli/commands/commands.hpp"
#include "reference/gguf_reader.hpp"
#include "engine/contract_json.hpp"
#include "kernels/spec/spec_arguments.hpp"
#include "workloads/llm/model_ops.hpp"
#include "vktune_runtime.hpp"
#include "cli/commands/options.hpp"

namespace vktune::cli {

namespace {

struct ExportOptions {
  std::string format = "json";
  results::ExportFilter filter;
  std::string output;
  std::string db;
  std::string model;  // a GGUF file: only its ops' winners
  std::optional<std::uint32_t> context, prompt;  // with --model: as `vktune model` defaults them
  std::vector<std::string> specs;                 // spec files whose kernels' winners --format constants plans
};

// The (kernel, shape) pairs of a model's decode step and prefill, as
// `vktune model` tunes them.
std::vector<std::pair<std::string, std::string>> model_kernel_shapes(const ExportOptions& options) {
  const auto file = ref::GgufFile::open(options.model);
  const auto model = model::describe_model(file.contents(), options.model);
  const auto context = options.context.value_or(model::default_context(model));
  const auto ops = model::model_ops(model, context, options.prompt.value_or(model::default_prompt(context)));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& op : ops.ops) {
    std::pair pair(op.kernel, kernels::shape_to_string(op.shape));
    if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(std::move(pair));
  }
  return pairs;
}

// The model's (kernel, shape) pairs that no stored winner the filter selects
// serves: what an export --model leaves out.
std::vector<std::string> ops_left_out(const results::Store& store, const ExportOptions& options) {
  const auto table = results::export_table(store, options.filter, winner_contract_json, nullptr);
  std::vector<std::string> missing;
  for (const auto& [kernel, shape] : options.filter.kernel_shapes) {
    const bool served = std::any_of(table["winners"].begin(), table["winners"].end(), [&](const auto& w) {
      return w.value("kernel", std::string()) == kernel && w.value("shape", std::string()) == shape;
    });
    if (!served) missing.push_back(kernel + " " + shape);
  }
  return missing;
}

// One line where the table holds winners of several GPUs of one model for
// a key: only the newest serves a GPU that tuned none of them (the runtime
// library's lookup and `vktune step` alike), so say how to keep one.
void warn_several_gpus_of_one_model(const nlohmann::json& table) {
  const auto keys = results::keys_of_several_gpus_of_one_model(table);
  if (keys.empty()) return;
  std::cerr << "vktune export: " << keys.size() << " kernel shape(s) hold winners of several GPUs of one model (first: "
            << keys.front()
            << "); a GPU that tuned none of them is served the newest; to ship one per model: "
               "vktune import --newest-per-model --db merged.db TABLE.json, then export merged.db\n";
}

std::string render(const results::Store& store, const ExportOptions& options) {
  if (options.format == "header") {
    warn_several_gpus_of_one_model(results::export_table(store, options.filter, winner_contract_json, nullptr));
    std::vector<std::string> skipped;
    auto header = results::export_header(store, options.filter, winner_contract_json,
                                         [](const std::vector<std::uint32_t>& spirv) {
                                           return runtime::required_features(spirv);
                                         },
                                         &skipped);
    for (const auto& s : skipped) std::cerr << "vktune export: left out " << s << "\n";
    return header;
  }
  if (options.format == "constants" || options.format == "constants-c") {
    std::vector<std::string> skipped;
    const auto table = results::export_table(store, options.filter, winner_contract_json, &skipped);
    const auto document = constants_document(table, skipped);
    for (const auto& s : skipped) std::cerr << "vktune export: left out " << s << "\n";
    return options.format == "constants" ? document.dump(2) + "\n" : constants_c(document);
  }
  if (options.format == "t4") return results::export_t4(store, options.filter).dump(2) + "\n";
  if (options.format == "csv") {
    std::ostringstream text;
    results::export_csv(text, store, options.filter);
    return text.str();
  }
  // Winners stored before contracts get theirs from the kernel; one that
  // cannot be completed is left out with a note, never exported half.
  std::vector<std::string> skipped;
  const auto table = results::export_table(store, options.filter, winner_contract_json, &skipped);
  for (const auto& s : skipped) std::cerr << "vktune export: left out " << s << "\n";
  warn_several_gpus_of_one_model(table);
  return table.dump(2) + "\n";
}

// Whole or not at all (common/atomic_file.hpp): a full disk leaves neither a
// half file nor its temporary.
void write_file(const std::filesystem::path& path, const std::string& text) {
  AtomicFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace

void add_export_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand(
      "export", "Export stored winners as a JSON table (docs/TABLE_FORMAT.md) or a C++ header, or the "
                "measurements as CSV");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Writes the winners with their launch contracts as a versioned JSON table
(version 2, docs/TABLE_FORMAT.md; every field under an integrity hash), a
self-contained C++17 header with the runtime's own lookup, every measurement
as CSV, or (--format sqlite -o OUT.db, no filters) a copy of the whole
database as one file in rollback-journal mode, to ship beside an application.

--format t4 writes the measurements (the search's rows, failures included) in
the T4 open auto-tuning results format that Kernel Tuner reads (schema
1.0.0): configuration, times, invalidity, correctness and measurements per
row, with vktune's kernel, shape, cache mode, variant hash, status and
device in a "vktune" object beside them (docs/RESULTS_DATABASE.md).

--format constants hands each winner back in an engine's own terms: per
kernel, device and shape, each stage's template with the #defines,
specialization-constant values and local size its config compiles to, as a
versioned JSON document ("vktune-constants", docs/JSON_OUTPUT.md);
constants-c writes the same as C initializers to paste. A spec kernel's
winners need its spec (--spec FILE.json, repeatable) to be planned; without
it they are named on stderr and left out.

--model exports only the winners of that model's ops, as vktune model derives
them at the same --context and --prompt (the same defaults); when some op has
no stored winner, it writes what it has, names the ops it left out on stderr
and exits 1.

A JSON table or header holding winners of several physical GPUs of one model
for the same kernel, shape and cache mode is written as asked, with one line
on stderr naming how many such keys there are: a GPU that tuned none of them
is served the newest (by the runtime library and `vktune step` alike), so
the others only make the table larger; `vktune import --newest-per-model`
into a fresh database, then export, keeps one per model.

--device: all digits = the device's row id in the database; anything else = a
case-insensitive substring of the device name. --kernel: the exact kernel name
when a kernel of that name is stored, otherwise every kernel whose name
contains the text. A filter that matches nothing is an error that lists what
is stored.

Without -o the export goes to stdout; with -o it is written whole or not at
all (a hidden temporary file beside it, then renamed; removed on a failure).
The database is opened read-only and checked (PRAGMA quick_check) first.

See docs/RESULTS_DATABASE.md and docs/TABLE_FORMAT.md.
)vkt");
  auto options = std::make_shared<ExportOptions>();
  cmd->add_option("--format", options->format,
                  "json (tuned table), header (C++17 header), csv (measurements), sqlite (a copy of the whole "
                  "database in rollback-journal mode, to ship; needs -o), constants (each winner's #defines and "
                  "specialization constants per stage, JSON), constants-c (the same as C initializers), t4 (the measurements in "
                  "the T4 open auto-tuning results format)")
      ->check(CLI::IsMember({"json", "header", "csv", "sqlite", "constants", "constants-c", "t4"}))
      ->capture_default_str();
  cmd->add_option("--device", options->filter.device,
                  "Only this device: its row id in the database, or a case-insensitive part of its name");
  cmd->add_option("--kernel", options->filter.kernel,
                  "Only this kernel: the exact name when one is stored, else every kernel whose name contains it");
  cmd->add_option("--model", options->model,
                  "Only the winners of this GGUF model's ops (as `vktune model` tunes them; json and header)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--context", options->context,
                  "With --model: the decode step's KV-cache length (default: as vktune model's)")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--prompt", options->prompt,
                  "With --model: the prefill length (0: decode only; default: as vktune model's)")
      ->check(CLI::Range(0u, 1u << 20));
  cmd->add_option("--spec", options->specs, "With --format constants or constants-c: a spec file whose kernel's winners "
                                            "to plan (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", options->output, "Write to FILE instead of stdout")->check(output_file_validator());
  cmd->add_option("--db", options->db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(database_validator());
  cmd->callback([options, &result_code] {
    if (!options->model.empty()) {
      if (options->format != "json" && options->format != "header") {
        throw Error(ErrorKind::usage, "--model selects winners: it applies to --format json and header");
      }
      options->filter.kernel_shapes = model_kernel_shapes(*options);
    }
    const std::filesystem::path db =
        options->db.empty() ? results::Store::default_path() : std::filesystem::path(options->db);
    if (!std::filesystem::exists(db)) {
      throw Error(ErrorKind::usage, "no results database at " + db.string() + " (tune first, or pass --db PATH)");
    }
    if (options->format == "sqlite") {
      if (options->output.empty()) throw Error(ErrorKind::usage, "--format sqlite writes a file: give -o OUT.db");
      if (!options->filter.device.empty() || !options->filter.kernel.empty()) {
        throw Error(ErrorKind::usage, "--format sqlite copies the whole database; --device and --kernel apply to "
                                      "json, header and csv");
      }
    }
    const auto store = results::Store::open_for_reading(db);
    store.check_integrity();  // a damaged page must not pass into what is shipped
    if (options->format == "sqlite") {
      store.write_snapshot(options->output);
      result_code = exit_code::ok;
      return;
    }
    for (const auto& spec : options->specs) kernels::spec::register_spec_file(spec);
    const std::string text = render(store, *options);
    if (options->output.empty()) {
      std::cout << text << std::flush;
    } else {
      write_file(options->output, text);
    }
    result_code = exit_code::ok;
    if (!options->model.empty()) {
      // What was found is written; a table that does not serve the whole
      // model is not a success a script should take for one.
      const auto missing = ops_left_out(store, *options);
      if (!missing.empty()) {
        std::string list;
        for (const auto& op : missing) list += (list.empty() ? "" : ", ") + op;
        std::cerr << "vktune export: " << missing.size() << " of " << options->filter.kernel_shapes.size() << " ops of "
                  << escape_text(options->model) << " have no stored winner and are left out: " << list << "\n";
        result_code = exit_code::failure;
      }
    }
  });
}

}  // namespace vktune::cli
