// `vktune list`: the kernels, their parameters and shapes.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "tuner/commands/commands.hpp"

namespace vktune::cli {

namespace {

std::string shapes_text(const std::vector<kernels::Shape>& shapes) {
  std::string text;
  for (const auto& s : shapes) text += (text.empty() ? "" : "  ") + kernels::shape_to_string(s);
  return text;
}

nlohmann::json kernel_json(const kernels::Kernel& k) {
  nlohmann::json spaces = nlohmann::json::array();
  for (const auto& space : k.spaces()) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : space.parameters) params.push_back({{"name", p.name}, {"values", p.values}, {"help", p.help}});
    spaces.push_back({{"name", space.name}, {"template", space.template_file}, {"parameters", params}});
  }
  auto shapes = [](const std::vector<kernels::Shape>& list) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& s : list) j.push_back(kernels::shape_to_string(s));
    return j;
  };
  return {{"name", k.name()},           {"description", k.description()},
          {"shape_dims", k.shape_dims()}, {"spaces", spaces},
          {"default_shapes", shapes(k.default_shapes())}, {"check_shapes", shapes(k.check_shapes())}};
}

}  // namespace

void add_list_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand("list", "List kernels with their parameters, candidate values and shapes");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print as JSON");
  cmd->callback([json, &result_code] {
    if (*json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto* k : kernels::all_kernels()) list.push_back(kernel_json(*k));
      std::cout << list.dump(2) << "\n";
    } else {
      for (const auto* k : kernels::all_kernels()) {
        std::string dims;
        for (const auto& d : k->shape_dims()) dims += (dims.empty() ? "" : ",") + d;
        std::cout << k->name() << " — " << k->description() << "\n  shape " << dims << "\n";
        for (const auto& space : k->spaces()) {
          std::cout << "  space " << space.name << " (" << space.template_file << ")\n";
          for (const auto& p : space.parameters) {
            std::string values;
            for (int v : p.values) values += (values.empty() ? "" : ",") + std::to_string(v);
            std::cout << "    " << p.name << " {" << values << "}  " << p.help << "\n";
          }
        }
        std::cout << "  default shapes: " << shapes_text(k->default_shapes()) << "\n"
                  << "  check shapes:   " << shapes_text(k->check_shapes()) << "\n";
      }
    }
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
