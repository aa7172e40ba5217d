#include "kernels/spec/spec_template_loading.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "kernels/spec/spec_templates.hpp"

namespace vktune::kernels::spec {

// A template: vktune's own ("vktune:rmsnorm.comp") or a file beside the spec,
// registered with the includes it reaches beside it.
std::string template_of(const Node& node, const std::string& kernel, const FileReader& read) {
  const auto path = node.string();
  if (path.rfind("vktune:", 0) == 0) {
    if (path.size() == 7) node.fail("'vktune:' names no template");
    return path.substr(7);
  }
  if (path.empty() || path.front() == '/' || path.find("..") != std::string::npos) {
    node.fail("template '" + path + "' must be a relative path inside the spec's folder");
  }
  for (const unsigned char c : path) {
    if (c < 0x20 || c == 0x7f) node.fail("a template's name holds no control characters");
  }
  const auto text = read(path);
  if (!text) node.fail("template '" + path + "' does not exist");
  const std::string name = "spec/" + kernel + "/" + path;
  register_template_file(name, *text);
  // The includes it reaches, followed beside the spec, then in the include/
  // folder beside the spec's folder (what several specs share:
  // examples/include/); names found nowhere there are left for vktune's own
  // includes.
  std::vector<std::string> pending{*text};
  std::set<std::string> seen;
  while (!pending.empty()) {
    std::istringstream lines(pending.back());
    pending.pop_back();
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find_first_not_of(" \t");
      if (at == std::string::npos || line.compare(at, 8, "#include") != 0) continue;
      const auto open = line.find('"', at + 8);
      const auto close = open == std::string::npos ? open : line.find('"', open + 1);
      if (close == std::string::npos) continue;
      const auto include = line.substr(open + 1, close - open - 1);
      if (include.empty() || include.front() == '/' || include.find("..") != std::string::npos) continue;
      if (!seen.insert(include).second) continue;
      auto found = read(include);
      if (!found) found = read(std::string(kSharedIncludeFolder) + include);
      if (found) {
        register_template_file("include/" + include, *found);
        pending.push_back(*found);
      }
    }
  }
  return name;
}

// A name the spec defines for every variant that its template also
// #defines, outside an #ifndef of that name: glslang says "Macro redefined"
// once per variant and the run fails them all. Said once, at load, with the
// fix. vktune's own templates ("vktune:...") are not read here.
void refuse_hard_coded_defines(const Node& template_node, const std::string& template_file,
                               const std::set<std::string>& defined) {
  const auto files = registered_template_files();
  const auto file = files.find(template_file);
  if (file == files.end() || defined.empty()) return;
  std::istringstream lines(file->second);
  std::vector<std::string> guards;  // per open conditional: the name an #ifndef guards, else ""
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    std::istringstream words(line);
    std::string directive, name;
    words >> directive >> name;
    if (directive == "#ifndef") {
      guards.push_back(name);
    } else if (directive == "#if") {
      const std::string negated = "!defined(";
      guards.push_back(name.rfind(negated, 0) == 0 ? name.substr(negated.size(), name.find(')') - negated.size()) : "");
    } else if (directive == "#ifdef") {
      guards.push_back("");
    } else if (directive == "#endif") {
      if (!guards.empty()) guards.pop_back();
    } else if (directive == "#define") {
      const auto macro = name.substr(0, name.find('('));
      if (defined.count(macro) && std::find(guards.begin(), guards.end(), macro) == guards.end()) {
        template_node.fail("line " + std::to_string(number) + " of the template #defines " + macro +
                           ", which the spec defines for every variant (glslang: \"Macro redefined\"): guard it "
                           "with #ifndef " + macro + " ... #endif, or make " + macro + " a constant");
      }
    }
  }
}

}  // namespace vktune::kernels::spec
