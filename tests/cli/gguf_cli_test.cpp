// `vktune gguf FILE` prints keys, tensor names and string values from the
// file escaped: a control character in them never reaches the terminal raw.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "reference/gguf_writer.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(GgufCli, ControlCharactersInKeysNamesAndValuesArePrintedEscaped) {
  const fs::path dir = fs::temp_directory_path() / ("vktune-gguf-cli-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  vktune::ref::GgufWriter writer;
  writer.set("\x1b[31mkey", vktune::ref::GgufValue("value\x1b]0;title\x07"));
  writer.add_tensor("name\x1b[2J", vktune::ref::GgmlType::F32, {1}, {0, 0, 0x80, 0x3f});
  writer.write(dir / "m.gguf");
  const std::string command =
      std::string(VKTUNE_BINARY) + " gguf " + (dir / "m.gguf").string() + " >" + (dir / "out.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string out = read(dir / "out.txt");
  fs::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(out.find('\x07'), std::string::npos) << out;
  EXPECT_NE(out.find("\\x1b[31mkey"), std::string::npos) << out;
  EXPECT_NE(out.find("\"value\\x1b]0;title\\x07\""), std::string::npos) << out;
  EXPECT_NE(out.find("name\\x1b[2J"), std::string::npos) << out;
}

}  // namespace
