#pragma once
// Small file helpers for tests that check what a command left on disk.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace vktune::testing {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Entries directly in `dir`: a leftover temporary file shows up here.
inline std::size_t count_entries(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()));
}

}  // namespace vktune::testing
