#include "kernels/spec/spec_arguments.hpp"

#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"

namespace vktune::kernels::spec {

namespace {

bool names_spec(std::string_view arg) {
  return arg.size() > 5 && arg.substr(arg.size() - 5) == ".json" && arg.front() != '-';
}

struct Loaded {
  std::mutex mutex;
  std::deque<std::string> names;             // argv points into these
  std::map<std::string, std::string> paths;  // kernel -> absolute spec path
};
Loaded& loaded() {
  static Loaded instance;
  return instance;
}

// Loads the spec at `path`, registers its kernel and returns its name.
const std::string& register_spec(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  {
    // The same file named twice (`vktune check a.json a.json`) is one kernel.
    auto& l = loaded();
    std::lock_guard lock(l.mutex);
    for (const auto& name : l.names) {
      if (l.paths[name] == absolute) return name;
    }
  }
  auto kernel = std::make_unique<SpecKernel>(load_spec(path));
  if (find_kernel_or_null(kernel->name()) != nullptr) {
    throw Error(ErrorKind::usage, path + ": /name: a kernel named '" + kernel->name() + "' already exists");
  }
  auto& l = loaded();
  std::lock_guard lock(l.mutex);
  l.names.push_back(kernel->name());
  l.paths[kernel->name()] = absolute;
  register_kernel(std::move(kernel));
  return l.names.back();
}

}  // namespace

std::string register_spec_file(const std::string& path) { return register_spec(path); }

std::string spec_path_of(const std::string& kernel) {
  auto& l = loaded();
  std::lock_guard lock(l.mutex);
  const auto it = l.paths.find(kernel);
  return it == l.paths.end() ? std::string() : it->second;
}

void register_spec_arguments(int argc, char** argv) {
  if (argc < 2) return;
  const std::string_view command = argv[1];
  if (names_spec(command)) {
    argv[1] = const_cast<char*>(register_spec(argv[1]).c_str());
    return;
  }
  // Commands whose positional arguments are kernels; the value of an option
  // that takes a file (check --table FILE.json) is not one.
  if (command != "check" && command != "list" && command != "bench") return;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;  // bench: what follows belongs to Google Benchmark
    if (arg == "--table" || arg == "--db" || arg == "--templates" || arg == "-o") {
      ++i;
      continue;
    }
    if (names_spec(arg)) argv[i] = const_cast<char*>(register_spec(argv[i]).c_str());
  }
}

}  // namespace vktune::kernels::spec
