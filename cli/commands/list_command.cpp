// `vktune list`: the kernels, their spaces (paths, parameters, pruning
// rules) and shapes; with --device, each path's cartesian and valid size at
// the kernel's default shapes on that device.
#include <algorithm>
#include <iostream>
#include <map>
#include <limits>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "common/json_formats.hpp"
#include "tuner/space.hpp"

namespace vktune::cli {

namespace {

struct ListArgs {
  std::vector<std::string> kernels;
  std::optional<std::uint32_t> device;
  std::string space = "pruned";
  bool json = false;
};

std::string shapes_text(const std::vector<kernels::Shape>& shapes) {
  std::string text;
  for (const auto& s : shapes) text += (text.empty() ? "" : "  ") + kernels::shape_to_string(s);
  return text;
}

std::string values_text(const std::vector<int>& values) {
  std::string text;
  for (int v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
  return "{" + text + "}";
}

// Why the other configs are illegal, one legality rule a line, most configs
// first: "N RULE: one of those configs' reason". A spec's rule is named by
// its reason, which the detail repeats: said once, "N REASON (EXPRESSION)".
std::string reasons_text(const SpaceEnumeration& e) {
  std::vector<std::pair<std::size_t, std::string>> sorted;
  for (const auto& [rule, n] : e.filter_reasons) sorted.emplace_back(n, rule);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (const auto& [n, rule] : sorted) {
    const auto example = e.filter_examples.find(rule);
    // A spec's rules and reasons are its author's text: escaped, as
    // everything a file supplies is before it reaches the terminal.
    text += std::string(text.empty() ? "      illegal: " : "               ") + std::to_string(n) + " " +
            escape_text(rule);
    if (example != e.filter_examples.end()) {
      const auto& detail = example->second;
      text += escape_text(detail.rfind(rule, 0) == 0 ? detail.substr(rule.size()) : ": " + detail);
    }
    text += "\n";
  }
  return text;
}

// Each path's sizes at each default shape of `space_index`.
nlohmann::json sizes_json(const kernels::Kernel& k, std::size_t space_index, const vk::DeviceInfo& device,
                          SpaceScope scope) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& shape : k.default_shapes()) {
    if (k.space_index(shape) != space_index) continue;
    const auto e = enumerate_space(k, shape, device, scope);
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& p : e.paths) paths.push_back({{"path", p.name}, {"cartesian", p.cartesian}, {"valid", p.valid}});
    sizes.push_back({{"shape", kernels::shape_to_string(shape)},
                     {"cartesian", e.total},
                     {"valid", e.valid.size()},
                     {"pruned_by", e.pruned_by},
                     {"illegal_by", e.filter_reasons},
                     {"illegal_examples", e.filter_examples},
                     {"paths", paths}});
  }
  return sizes;
}

nlohmann::json kernel_json(const kernels::Kernel& k, const vk::DeviceInfo* device, SpaceScope scope) {
  nlohmann::json spaces = nlohmann::json::array();
  const auto& all = k.spaces();
  for (std::size_t s = 0; s < all.size(); ++s) {
    const auto& space = all[s];
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : space.parameters) params.push_back({{"name", p.name}, {"values", p.values}, {"help", p.help}});
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& path : space.effective_paths()) {
      nlohmann::json varied = nlohmann::json::object();
      for (const auto& p : path.parameters) varied[p.name] = p.values;
      paths.push_back({{"name", path.name}, {"parameters", varied}, {"pinned", path.pinned}});
    }
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& r : space.pruning) {
      rules.push_back({{"name", r.name}, {"reason", r.reason}, {"measured_on", r.measured_on.describe()}});
    }
    nlohmann::json j = {{"name", space.name}, {"template", space.template_file}, {"parameters", params},
                        {"paths", paths},     {"pruning", rules}};
    if (device) j["sizes"] = sizes_json(k, s, *device, scope);
    spaces.push_back(j);
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

void print_kernel(const kernels::Kernel& k, const vk::DeviceInfo* device, SpaceScope scope) {
  std::string dims;
  for (const auto& d : k.shape_dims()) dims += (dims.empty() ? "" : ",") + d;
  std::cout << escape_text(k.name()) << " — " << escape_text(k.description()) << "\n  shape " << escape_text(dims)
            << "\n";
  const auto& all = k.spaces();
  for (std::size_t s = 0; s < all.size(); ++s) {
    const auto& space = all[s];
    std::cout << "  space " << escape_text(space.name) << " (" << escape_text(space.template_file) << ")\n";
    for (const auto& p : space.parameters) {
      std::cout << "    " << escape_text(p.name) << " " << values_text(p.values) << "  " << escape_text(p.help) << "\n";
    }
    const auto paths = space.effective_paths();
    if (paths.size() > 1) {
      for (const auto& path : paths) {
        std::cout << "    path " << path.name << ":";
        for (const auto& p : path.parameters) std::cout << " " << p.name << values_text(p.values);
        if (!path.pinned.empty()) std::cout << "; pinned " << kernels::config_to_string(path.pinned);
        std::cout << "\n";
      }
    }
    for (const auto& r : space.pruning) {
      std::cout << "    pruning " << escape_text(r.name) << " [" << r.measured_on.describe()
                << "]: " << escape_text(r.reason) << "\n";
    }
    if (!device) continue;
    for (const auto& shape : k.default_shapes()) {
      if (k.space_index(shape) != s) continue;
      const auto e = enumerate_space(k, shape, *device, scope);
      std::cout << "    at " << kernels::shape_to_string(shape) << " on " << device->name << " (" << to_string(scope)
                << "): " << e.valid.size() << " valid of " << e.total;
      for (const auto& p : e.paths) std::cout << "; " << p.name << " " << p.valid << "/" << p.cartesian;
      std::cout << "\n";
      // Why the others are illegal: a space empty on this device says what it lacks.
      std::cout << reasons_text(e);
    }
  }
  std::cout << "  default shapes: " << shapes_text(k.default_shapes()) << "\n"
            << "  check shapes:   " << shapes_text(k.check_shapes()) << "\n";
}

void run_list(const ListArgs& args, int& result_code) {
  std::vector<const kernels::Kernel*> selected;
  if (args.kernels.empty()) selected = kernels::all_kernels();
  for (const auto& name : args.kernels) selected.push_back(&kernels::find_kernel(name));
  const auto scope = parse_space_scope(args.space);
  std::optional<vk::Instance> instance;
  std::optional<vk::DeviceInfo> device;
  if (args.device) {
    instance.emplace(vk::InstanceOptions{});
    const auto devices = vk::list_devices(*instance);
    if (*args.device >= devices.size()) {
      throw Error(ErrorKind::no_device, "no Vulkan device " + std::to_string(*args.device) + " (" +
                                            std::to_string(devices.size()) + " found; see `vktune devices`)");
    }
    device = devices[*args.device];
  }
  const vk::DeviceInfo* info = device ? &*device : nullptr;
  if (args.json) {
    auto out = json_document(kListJson);
    out["kernels"] = nlohmann::json::array();
    for (const auto* k : selected) out["kernels"].push_back(kernel_json(*k, info, scope));
    if (info) out["device"] = {{"index", info->index}, {"name", info->name}, {"space", to_string(scope)}};
    std::cout << out.dump(2) << "\n";
  } else {
    for (const auto* k : selected) print_kernel(*k, info, scope);
  }
  result_code = exit_code::ok;
}

}  // namespace

void add_list_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand("list", "List kernels with their spaces (paths, parameters, pruning rules) and "
                                          "shapes; with --device, each path's size at the default shapes");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Lists the kernels, their spaces (parameters, paths, pruning rules with the
devices they were measured on) and their default and check shapes.

With --device: each path's cartesian and valid size at each default shape on
that device, and why the other configs are illegal there: how many each
legality rule rejects, by the rule's id (a spec's rules by their reason), with
one of those configs' reasons (a space empty on a device says what the device
lacks). --space full counts every legal config, with no pruning rule applied.

See docs/SPACES_AND_SEARCH.md, "Spaces".
)vkt");
  auto args = std::make_shared<ListArgs>();
  cmd->add_option("kernels", args->kernels, "Kernels to list (default: all)");
  cmd->add_option("--device,-d", args->device, "Also enumerate each space on this Vulkan device (see `vktune devices`)")
      ->transform(count_validator(std::numeric_limits<std::uint32_t>::max()));
  add_space_option(*cmd, args->space);
  auto* json = cmd->add_flag("--json", args->json, "Print as JSON");
  // For shell completion and scripts: nothing but the names, no device.
  auto names = std::make_shared<bool>(false);
  cmd->add_flag("--names", *names, "Print only the kernel names, one a line")->excludes(json);
  cmd->callback([args, names, &result_code] {
    if (*names) {
      for (const auto* kernel : kernels::all_kernels()) std::cout << kernel->name() << "\n";
      result_code = exit_code::ok;
      return;
    }
    run_list(*args, result_code);
  });
}

}  // namespace vktune::cli
