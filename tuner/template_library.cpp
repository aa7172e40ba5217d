#include "tuner/template_library.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/hash.hpp"
#include "templates/embedded.hpp"

namespace vktune {

namespace fs = std::filesystem;

TemplateLibrary::TemplateLibrary(std::map<std::string, std::string> files, std::string origin)
    : files_(std::move(files)), origin_(std::move(origin)) {
  Hasher hasher;
  for (const auto& [name, text] : files_) {
    if (name.rfind("include/", 0) == 0) hasher.add(name).add(text);
  }
  includes_hash_ = hasher.hex();
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
    throw Error(ErrorKind::usage, "template '" + file + "' not found in " + origin_ + " templates");
  }
  return it->second;
}

std::string TemplateLibrary::content_hash(const std::string& file) const {
  return Hasher().add(file).add(text(file)).add(includes_hash_).hex();
}

std::optional<std::string> TemplateLibrary::read(const std::string& name) const {
  auto it = files_.find("include/" + name);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

}  // namespace vktune
