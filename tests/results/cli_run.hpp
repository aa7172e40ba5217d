#pragma once
// The built vktune as a subprocess, for the tests of its export and import
// commands: exit code, stdout and stderr apart.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>

#ifndef VKTUNE_BINARY
#error "VKTUNE_BINARY must name the built vktune"
#endif

namespace vktune::results::testing {

// A file's whole text ("" where it cannot be read).
inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

// Runs `PREFIX vktune ARGUMENTS` (arguments already shell-quoted where
// needed; the prefix e.g. "unshare -U "); stderr goes through err_file.
inline CliRun run_vktune(const std::string& arguments, const std::filesystem::path& err_file,
                         const std::string& prefix = "") {
  const std::string command =
      prefix + "\"" + VKTUNE_BINARY + "\" " + arguments + " 2>\"" + err_file.string() + "\"";
  CliRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  run.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  return run;
}

inline std::string quoted(const std::filesystem::path& path) { return "\"" + path.string() + "\""; }

}  // namespace vktune::results::testing
