#include "cli/constants_export.hpp"

#include <bit>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/json_formats.hpp"
#include "engine/stale_config.hpp"
#include "harness/shader_interface.hpp"
#include "harness/specialization_values.hpp"
#include "kernels/registry.hpp"
#include "results/export.hpp"

namespace vktune::cli {

namespace {

std::string device_label(const nlohmann::json& table, std::int64_t row) {
  for (const auto& d : table.value("devices", nlohmann::json::array())) {
    if (d.value("id", std::int64_t{-1}) == row) {
      return d.value("name", std::string("?")) + " (driver " + d.value("driver_version_text", std::string("?")) + ")";
    }
  }
  return "device " + std::to_string(row);
}

// A C identifier from any text: letters and digits kept, the rest '_'.
std::string identifier(const std::string& text) {
  std::string id;
  for (const unsigned char c : text) id += std::isalnum(c) ? static_cast<char>(c) : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id.front()))) id.insert(0, "k");
  return id;
}

// A C string literal of `text` (escaped; no trigraphs, no line breaks).
std::string c_string(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f || c == '?') {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\%03o", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Inside a block comment: no "*/".
std::string comment_text(std::string text) {
  for (auto at = text.find("*/"); at != std::string::npos; at = text.find("*/")) text.replace(at, 2, "* /");
  return text;
}

// The stage's SPIR-V as the table carries it (its contract's spirv_hash), or
// empty where the table holds none for it.
std::vector<std::uint32_t> stage_spirv(const nlohmann::json& table, const nlohmann::json& winner, std::size_t stage) {
  try {
    const auto& hash = winner.at("contract").at("stages").at(stage).at("spirv_hash");
    return results::spirv_from_base64(table.at("spirv").at(hash.get<std::string>()).get<std::string>());
  } catch (const std::exception&) {
    return {};
  }
}

// Each specialization constant as the shader receives it: the parameter's
// integer turned into the word of the type the module declares
// (harness/specialization_values.hpp), shown as that type's value (a
// float's 2.0, not the integer 2 nor its bits); `bits` gets the words a
// VkSpecializationInfo takes. Without the module (or its reflection) the
// integers stand as they are.
void typed_constants(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& plan,
                     const std::vector<std::uint32_t>& spirv, nlohmann::json& values, nlohmann::json& bits) {
  std::string unread;
  const auto interface = spirv.empty() ? std::nullopt : vk::reflect_interface(spirv, unread);
  auto words = plan;
  if (interface) vk::typed_specialization(*interface, words);  // a refused value keeps its integer
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto [id, word] = words[i];
    const auto key = std::to_string(id);
    bits[key] = word;
    const vk::ShaderConstant* constant = nullptr;
    if (interface) {
      for (const auto& c : interface->constants)
        if (c.constant_id == id) constant = &c;
    }
    const std::string type = constant ? constant->type : "";
    if (type == "f32") {
      values[key] = static_cast<double>(std::bit_cast<float>(word));
    } else if (type == "i32" || (type.empty() && static_cast<std::int32_t>(plan[i].second) < 0)) {
      values[key] = static_cast<std::int32_t>(word);
    } else {
      values[key] = word;
    }
  }
}

}  // namespace

nlohmann::json constants_document(const nlohmann::json& table, std::vector<std::string>& left_out) {
  auto document = json_document(kConstantsJson);
  document["kernels"] = nlohmann::json::array();
  for (const auto& w : table.value("winners", nlohmann::json::array())) {
    const auto name = w.value("kernel", std::string());
    const auto shape_text = w.value("shape", std::string());
    const auto label = name + " " + shape_text + " (" + w.value("cache_mode", std::string()) + ")";
    const auto* kernel = kernels::find_kernel_or_null(name);
    if (kernel == nullptr) {
      left_out.push_back(label + ": no kernel of that name in this vktune (name its spec file)");
      continue;
    }
    kernels::Shape shape;
    try {
      shape = kernels::parse_shape(shape_text, kernel->shape_dims().size());
    } catch (const std::exception& e) {
      left_out.push_back(label + ": " + e.what());
      continue;
    }
    const auto update = update_config(*kernel, shape, kernels::config_from_json(w.at("config").dump()));
    if (!update.config) {
      left_out.push_back(label + ": " + update.note);
      continue;
    }
    nlohmann::json entry = {{"kernel", name},
                            {"device", device_label(table, w.value("device", std::int64_t{0}))},
                            {"shape", shape_text},
                            {"cache_mode", w.value("cache_mode", std::string())},
                            {"median_ns", w.value("median_ns", 0.0)},
                            {"variant_hash", w.value("variant_hash", std::string())},
                            {"stages", nlohmann::json::array()}};
    const auto plans = kernel->stages(*update.config, shape);
    for (std::size_t s = 0; s < plans.size(); ++s) {
      const auto& plan = plans[s];
      nlohmann::json defines = nlohmann::json::object(), constants = nlohmann::json::object();
      nlohmann::json bits = nlohmann::json::object();
      for (const auto& [define, value] : plan.defines) defines[define] = value;
      typed_constants(plan.specialization, stage_spirv(table, w, s), constants, bits);
      entry["stages"].push_back({{"template", plan.template_file},
                                 {"defines", defines},
                                 {"specialization", constants},
                                 {"specialization_bits", bits},
                                 {"local_size", plan.local_size}});
    }
    document["kernels"].push_back(std::move(entry));
  }
  return document;
}

std::string constants_c(const nlohmann::json& document) {
  std::ostringstream out;
  out << "/* vktune tuned constants (" << document.value("format", std::string()) << " version "
      << document.value("version", 0) << "): each winner's #defines and specialization constants per stage. */\n"
      << "#ifndef VKTUNE_CONSTANT_TYPES\n#define VKTUNE_CONSTANT_TYPES\n"
      << "struct vktune_define { const char* name; const char* value; };\n"
      << "struct vktune_constant { unsigned id; unsigned value; };\n#endif\n";
  std::map<std::string, int> used;  // identifiers already written, for a suffix
  for (const auto& entry : document.at("kernels")) {
    out << "\n/* " << comment_text(entry.at("kernel").get<std::string>()) << " " << comment_text(entry.at("shape"))
        << " on " << comment_text(entry.at("device")) << ", cache " << comment_text(entry.at("cache_mode"))
        << ": " << entry.at("median_ns").get<double>() / 1e3 << " us */\n";
    auto base = identifier("vktune_" + entry.at("kernel").get<std::string>() + "_" + entry.at("shape").get<std::string>() +
                           "_" + entry.at("cache_mode").get<std::string>());
    if (const int n = used[base]++; n > 0) base += "_" + std::to_string(n + 1);
    std::size_t index = 0;
    for (const auto& stage : entry.at("stages")) {
      const auto id = base + "_stage" + std::to_string(index++);
      const auto& size = stage.at("local_size");
      out << "/* " << comment_text(stage.at("template")) << ", local size " << size[0] << "x" << size[1] << "x" << size[2]
          << " */\n";
      out << "static const struct vktune_define " << id << "_defines[] = {";
      const char* sep = "";
      for (const auto& [name, value] : stage.at("defines").items()) {
        out << sep << "{" << c_string(name) << ", " << c_string(value.get<std::string>()) << "}";
        sep = ", ";
      }
      if (stage.at("defines").empty()) out << "{0, 0}";
      out << "};\n";
      if (!stage.at("specialization").empty()) {
        out << "static const struct vktune_constant " << id << "_specialization[] = {";
        sep = "";
        // The words a VkSpecializationInfo takes, with the value the shader
        // receives beside each where the word is not that value (a float's bits).
        const auto& bits = stage.value("specialization_bits", nlohmann::json::object());
        for (const auto& [constant, value] : stage.at("specialization").items()) {
          const auto word = bits.contains(constant) ? bits.at(constant).get<std::uint32_t>()
                                                    : static_cast<std::uint32_t>(value.get<std::int64_t>());
          char hex[16];
          std::snprintf(hex, sizeof hex, "0x%08xu", word);
          out << sep << "{" << constant << "u, ";
          if (value.is_number_float()) {
            out << hex << " /* " << comment_text(value.dump()) << "f */";
          } else {
            out << word << "u";
          }
          out << "}";
          sep = ", ";
        }
        out << "};\n";
      }
    }
  }
  return out.str();
}

}  // namespace vktune::cli
