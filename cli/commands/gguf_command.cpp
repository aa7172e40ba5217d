// `vktune gguf FILE [--json]`: what a GGUF file holds (metadata, tensors,
// per-type totals). `vktune gguf FILE --dequant NAME -o OUT`: one tensor
// dequantized to little-endian float32, row-major with the GGUF row (ne0)
// fastest.
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "reference/gguf_reader.hpp"
#include "workloads/llm/random_model.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "cli/gguf_dequant.hpp"
#include "cli/interrupt.hpp"
#include "common/json_formats.hpp"

namespace vktune::cli {

namespace {

using ref::GgufContents;
using ref::GgufTensorInfo;
using ref::GgufValue;

constexpr std::size_t kShownItems = 8;  // array items shown before summarizing

struct GgufOptions {
  std::string file;
  bool json = false;
  std::string dequant;
  std::string output;
  std::vector<std::string> make_random;  // PRESET MIX
  std::uint64_t seed = 1;
};

// `--make-random PRESET MIX -o OUT`: a model with random weights, written
// whole or not at all.
void write_random_model(const GgufOptions& options) {
  const auto& preset = model::find_preset(options.make_random.at(0));
  model::check_type_mix(options.make_random.at(1));
  const auto bytes = model::random_model(preset, options.make_random.at(1), options.seed).bytes();
  InterruptGuard interrupt;  // Ctrl-C ends the write and removes its temporary file
  AtomicFile out(options.output);
  out.write(bytes.data(), bytes.size());
  out.commit();
  std::cout << "wrote " << options.output << ": " << preset.name << " " << options.make_random.at(1) << ", "
            << bytes.size() << " bytes, random weights (seed " << options.seed << ")\n";
}

std::string type_text(const GgufValue& value) {
  if (const auto* array = value.as_array()) {
    return "array[" + std::string(ref::value_type_name(array->element_type)) + "]";
  }
  return std::string(ref::value_type_name(value.type()));
}

struct TypeTotal {
  std::size_t tensors = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
};

std::map<ref::GgmlType, TypeTotal> totals_by_type(const GgufContents& c) {
  std::map<ref::GgmlType, TypeTotal> totals;
  for (const auto& t : c.tensors) {
    auto& total = totals[t.type];
    ++total.tensors;
    total.elements += t.elements;
    total.bytes += t.bytes;
  }
  return totals;
}

// A plain table: left-aligned text columns, right-aligned number columns.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> numeric)
      : numeric_(std::move(numeric)) {
    rows_.push_back(std::move(header));
  }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out, const std::string& indent) const {
    std::vector<std::size_t> width(numeric_.size(), 0);
    for (const auto& row : rows_) {
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : rows_) {
      std::string line = indent;
      for (std::size_t i = 0; i < row.size(); ++i) {
        const std::string pad(width[i] - row[i].size(), ' ');
        line += i == 0 ? "" : "  ";
        line += numeric_[i] ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
      }
      out << line << "\n";
    }
  }

 private:
  std::vector<bool> numeric_;
  std::vector<std::vector<std::string>> rows_;
};

void print_text(const std::string& path, const ref::GgufFile& file) {
  const GgufContents& c = file.contents();
  std::cout << escape_text(path) << ": GGUF v" << c.version << ", " << file.file_size() << " bytes, alignment " << c.alignment
            << ", tensor data at byte " << c.data_offset << "\n";
  std::cout << "\nmetadata (" << c.metadata.size() << " keys)\n";
  Table metadata({"key", "type", "value"}, {false, false, false});
  // Keys and names come from the file: escaped, so that a control character
  // in one cannot act on the terminal (describe_value escapes string values).
  for (const auto& kv : c.metadata) {
    metadata.add({escape_text(kv.key), type_text(kv.value), ref::describe_value(kv.value, kShownItems)});
  }
  metadata.print(std::cout, "  ");

  std::cout << "\ntensors (" << c.tensors.size() << ")\n";
  Table tensors({"name", "type", "shape", "bytes", "offset"}, {false, false, false, true, true});
  for (const auto& t : c.tensors) {
    tensors.add({escape_text(t.name), std::string(ref::type_name(t.type)), shape_text(t), std::to_string(t.bytes),
                 std::to_string(t.file_offset)});
  }
  tensors.print(std::cout, "  ");

  std::cout << "\ntotals by type\n";
  Table totals({"type", "tensors", "elements", "bytes"}, {false, true, true, true});
  TypeTotal all;
  for (const auto& [type, total] : totals_by_type(c)) {
    totals.add({std::string(ref::type_name(type)), std::to_string(total.tensors), std::to_string(total.elements),
                std::to_string(total.bytes)});
    all.tensors += total.tensors;
    all.elements += total.elements;
    all.bytes += total.bytes;
  }
  totals.add({"all", std::to_string(all.tensors), std::to_string(all.elements), std::to_string(all.bytes)});
  totals.print(std::cout, "  ");
}

nlohmann::json value_json(const GgufValue& value) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ref::GgufArray>) {
          nlohmann::json items = nlohmann::json::array();
          for (std::size_t i = 0; i < std::min(v.items.size(), kShownItems); ++i) items.push_back(value_json(v.items[i]));
          if (v.items.size() <= kShownItems) return items;
          // Long arrays (tokenizer vocabularies) are summarized: the first
          // items and the length.
          return {{"length", v.items.size()}, {"first", items}};
        } else {
          return v;
        }
      },
      value.data);
}

void print_json(const std::string& path, const ref::GgufFile& file) {
  const GgufContents& c = file.contents();
  nlohmann::json metadata = nlohmann::json::array();
  for (const auto& kv : c.metadata) {
    metadata.push_back({{"key", kv.key}, {"type", type_text(kv.value)}, {"value", value_json(kv.value)}});
  }
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& t : c.tensors) {
    tensors.push_back({{"name", t.name},
                       {"type", ref::type_name(t.type)},
                       {"shape", t.shape},
                       {"elements", t.elements},
                       {"bytes", t.bytes},
                       {"offset", t.file_offset}});
  }
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [type, total] : totals_by_type(c)) {
    totals[std::string(ref::type_name(type))] = {
        {"tensors", total.tensors}, {"elements", total.elements}, {"bytes", total.bytes}};
  }
  // "version" is this document's (docs/JSON_OUTPUT.md); the file's own GGUF
  // version is "gguf_version".
  auto out = json_document(kGgufJson);
  out.update({{"file", path},           {"gguf_version", c.version},    {"file_size", file.file_size()},
              {"alignment", c.alignment}, {"data_offset", c.data_offset}, {"metadata", metadata},
              {"tensors", tensors},     {"totals", totals}});
  // JSON escapes control characters itself; the reader has rejected strings
  // that are not UTF-8, so only the path (from the command line) may need
  // replacing.
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

void add_gguf_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand("gguf", "Inspect a GGUF file: metadata, tensors, per-type totals; dequantize a tensor");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Lists a GGUF file's metadata and tensors, or (--dequant TENSOR -o OUT) writes
one tensor as float32.

With --make-random PRESET MIX -o OUT, writes a model with real metadata,
tensor names, shapes and type mix and random weights: presets tiny, llama3-8b;
mixes Q4_K_M as llama.cpp quantizes it, Q8_0, F16. For when no model file is
at hand:
    vktune gguf --make-random llama3-8b Q4_K_M -o llama3-8b.gguf

Outputs are written whole or not at all. Keys, tensor names and strings that
are not valid UTF-8 are rejected with an error naming the key and its byte
offset; everything printed from a GGUF file has its control characters
escaped. --json prints vktune-gguf version 1.

See docs/TUNING_A_MODEL.md and docs/RELIABILITY.md.
)vkt");
  auto options = std::make_shared<GgufOptions>();
  auto* file = cmd->add_option("FILE", options->file, "GGUF file (version 2 or 3)")->check(CLI::ExistingFile);
  cmd->add_flag("--json", options->json, "Print as JSON");
  auto* dequant = cmd->add_option("--dequant", options->dequant,
                                  "Write tensor NAME dequantized as little-endian float32 (row-major, ne0 fastest)");
  dequant->type_name("NAME");
  auto* output = cmd->add_option("-o,--output", options->output, "Output file for --dequant or --make-random")
                     ->check(output_file_validator());
  output->type_name("OUT");
  std::string presets, mixes;
  for (const auto& p : model::model_presets()) presets += (presets.empty() ? "" : ", ") + p.name;
  for (const auto& m : model::type_mixes()) mixes += (mixes.empty() ? "" : ", ") + m;
  auto* make_random =
      cmd->add_option("--make-random", options->make_random,
                      "Write a model with real metadata, tensor names, shapes and type mix and random weights: "
                      "PRESET (" + presets + ") MIX (" + mixes + "), to -o OUT")
          ->expected(2)
          ->type_name("PRESET MIX");
  cmd->add_option("--seed", options->seed, "With --make-random: the weights' seed")
      ->capture_default_str()
      ->transform(count_validator(std::numeric_limits<std::uint64_t>::max()));
  dequant->needs(output);
  make_random->needs(output);
  make_random->excludes(dequant)->excludes(file);
  cmd->callback([options, &result_code] {
    if (!options->make_random.empty()) {
      write_random_model(*options);
      result_code = exit_code::ok;
      return;
    }
    if (options->file.empty()) throw Error(ErrorKind::usage, "gguf: give a FILE to read, or --make-random PRESET MIX -o OUT");
    if (!options->output.empty() && options->dequant.empty()) {
      throw Error(ErrorKind::usage, "gguf: -o is the output of --dequant or --make-random");
    }
    const ref::GgufFile file = ref::GgufFile::open(options->file);
    if (!options->dequant.empty()) {
      InterruptGuard interrupt;  // Ctrl-C ends the write and removes its temporary file
      std::cout << write_dequantized(file, options->dequant, options->output) << "\n";
    } else if (options->json) {
      print_json(options->file, file);
    } else {
      print_text(options->file, file);
    }
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
