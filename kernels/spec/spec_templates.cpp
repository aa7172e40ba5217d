#include "kernels/spec/spec_templates.hpp"

#include <mutex>

#include "common/error.hpp"

namespace vktune::kernels::spec {

namespace {
// Beside the kernel registry, the only global state: what loaded specs brought.
struct Files {
  std::mutex mutex;
  std::map<std::string, std::string> by_name;
};
Files& files() {
  static Files instance;
  return instance;
}
}  // namespace

void register_template_file(const std::string& file, const std::string& text) {
  auto& f = files();
  std::lock_guard lock(f.mutex);
  const auto [it, inserted] = f.by_name.emplace(file, text);
  if (!inserted && it->second != text) {
    throw Error(ErrorKind::usage, "two kernel specs bring different files named '" + file + "'");
  }
}

std::map<std::string, std::string> registered_template_files() {
  auto& f = files();
  std::lock_guard lock(f.mutex);
  return f.by_name;
}

}  // namespace vktune::kernels::spec
