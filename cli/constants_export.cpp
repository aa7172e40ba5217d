#include "cli/constants_export.hpp"

#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/json_formats.hpp"
#include "engine/stale_config.hpp"
#include "kernels/registry.hpp"

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
    for (const auto& plan : kernel->stages(*update.config, shape)) {
      nlohmann::json defines = nlohmann::json::object(), constants = nlohmann::json::object();
      for (const auto& [define, value] : plan.defines) defines[define] = value;
      for (const auto& [id, value] : plan.specialization) constants[std::to_string(id)] = value;
      entry["stages"].push_back({{"template", plan.template_file},
                                 {"defines", defines},
                                 {"specialization", constants},
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
        for (const auto& [constant, value] : stage.at("specialization").items()) {
          out << sep << "{" << constant << "u, " << value.get<std::uint32_t>() << "u}";
          sep = ", ";
        }
        out << "};\n";
      }
    }
  }
  return out.str();
}

}  // namespace vktune::cli
