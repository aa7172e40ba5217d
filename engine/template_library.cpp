#include "engine/template_library.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "kernels/spec/spec_templates.hpp"
#include "templates/embedded.hpp"

namespace vktune {

namespace fs = std::filesystem;

namespace {

// The names in `#include "name"` lines, whether or not a condition around
// them holds (a template that includes one of two files depends on both).
std::vector<std::string> include_names(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line.compare(hash, 8, "#include") != 0) continue;
    const auto open = line.find('"', hash + 8);
    const auto close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close != std::string::npos) names.push_back(line.substr(open + 1, close - open - 1));
  }
  return names;
}

}  // namespace

TemplateLibrary::TemplateLibrary(std::map<std::string, std::string> files, std::string origin)
    : files_(std::move(files)), origin_(std::move(origin)) {
  // The templates kernel specs brought from beside them, whichever set this is.
  for (const auto& [name, text] : kernels::spec::registered_template_files()) {
    const auto [it, inserted] = files_.emplace(name, text);
    if (!inserted && it->second != text) {
      throw Error(ErrorKind::usage, "a kernel spec's '" + name + "' differs from vktune's own file of that name; "
                                    "rename it");
    }
  }
  // Each template's hash covers its text and the includes it reaches, so a
  // new or edited include changes only the variants that read it.
  for (const auto& [name, text] : files_) {
    if (name.rfind("include/", 0) == 0) continue;
    std::set<std::string> reached;
    std::vector<std::string> pending = include_names(text);
    while (!pending.empty()) {
      const auto include = "include/" + pending.back();
      pending.pop_back();
      const auto it = files_.find(include);
      if (it == files_.end() || !reached.insert(include).second) continue;
      for (auto& next : include_names(it->second)) pending.push_back(std::move(next));
    }
    Hasher hasher;
    hasher.add(name).add(text);
    for (const auto& include : reached) hasher.add(include).add(files_.at(include));
    content_hashes_[name] = hasher.hex();
  }
}

TemplateLibrary TemplateLibrary::embedded() { return TemplateLibrary(templates::embedded_files(), "embedded"); }

TemplateLibrary TemplateLibrary::from_directory(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(ErrorKind::io, "template directory '" + dir.string() + "' does not exist or is not a directory");
  }
  std::map<std::string, std::string> files;
  auto read_all = [&](const fs::path& folder, const std::string& prefix, const std::string& extension) {
    if (!fs::is_directory(folder, ec)) return;
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (!entry.is_regular_file() || entry.path().extension() != extension) continue;
      std::ifstream file(entry.path(), std::ios::binary);
      std::ostringstream text;
      text << file.rdbuf();
      files[prefix + entry.path().filename().string()] = text.str();
    }
  };
  read_all(dir, "", ".comp");
  read_all(dir / "include", "include/", ".glsl");
  return TemplateLibrary(std::move(files), dir.string());
}

TemplateLibrary TemplateLibrary::select(const std::optional<std::string>& dir) {
  if (dir && !dir->empty()) return from_directory(*dir);
  if (const char* env = std::getenv(kTemplatesEnvVar); env && *env) return from_directory(env);
  return embedded();
}

const std::string& TemplateLibrary::text(const std::string& file) const {
  auto it = files_.find(file);
  if (it == files_.end()) {
    const std::string where = origin_ == "embedded" ? "the embedded templates" : "the template directory " + origin_;
    throw Error(ErrorKind::usage, "template '" + file + "' not found in " + where);
  }
  return it->second;
}

std::string TemplateLibrary::set_hash() const {
  Hasher hasher;
  for (const auto& [name, text] : files_) hasher.add(name).add(text);
  return hasher.hex();
}

std::string TemplateLibrary::content_hash(const std::string& file) const {
  const auto it = content_hashes_.find(file);
  if (it == content_hashes_.end()) text(file);  // throws: no such template
  return it->second;
}

std::map<std::string, std::string> TemplateLibrary::includes() const {
  std::map<std::string, std::string> found;
  for (const auto& [name, text] : files_) {
    if (name.rfind("include/", 0) == 0) found.emplace(name.substr(8), text);
  }
  return found;
}

std::optional<std::string> TemplateLibrary::read(const std::string& name) const {
  auto it = files_.find("include/" + name);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

}  // namespace vktune
