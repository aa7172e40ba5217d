// What one compile may read is bounded: an include loop, includes nested too
// deep and a source too large with its includes are compile errors that name
// the problem, and come back quickly with little memory.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "common/error.hpp"
#include "harness/compiler.hpp"

namespace vktune::test {
namespace {

const char* kIncludesA = R"(#version 450
#extension GL_GOOGLE_include_directive : require
#include "a.glsl"
layout(local_size_x = 1) in;
void main() {}
)";

// Compiles in a child process limited to 1 GiB and 10 s, so that a compiler
// without bounds (which recursed until memory ran out) fails this test
// instead of the machine. Returns the error message, or what went wrong.
std::string compile_error_in_child(const std::string& source, const vk::MapIncludes& includes) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    rlimit memory{1ull << 30, 1ull << 30};
    setrlimit(RLIMIT_AS, &memory);
    alarm(10);
    std::string message = "compiled without an error";
    try {
      vk::compile_compute_shader({"main.comp", source}, includes, {});
    } catch (const Error& e) {
      message = std::string(to_string(e.kind())) + ": " + e.what();
    } catch (const std::exception& e) {
      message = std::string("not a vktune::Error: ") + e.what();
    }
    const auto written = write(fds[1], message.data(), message.size());
    _exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status)) return "the compile did not end (signal " + std::to_string(WTERMSIG(status)) + ")";
  return message;
}

TEST(IncludeBounds, AnIncludeLoopIsACompileErrorNamingTheChain) {
  const vk::MapIncludes includes({{"a.glsl", "#include \"b.glsl\"\n"}, {"b.glsl", "#include \"a.glsl\"\n"}});
  const auto start = std::chrono::steady_clock::now();
  const auto message = compile_error_in_child(kIncludesA, includes);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(message.find("compile_error: "), std::string::npos) << message;
  EXPECT_NE(message.find("main.comp -> a.glsl -> b.glsl -> a.glsl"), std::string::npos) << message;
}

TEST(IncludeBounds, AFileIncludedTwiceButNotInsideItselfIsNoLoop) {
  // A diamond: a.glsl includes b.glsl and c.glsl, both include the guarded d.glsl.
  const vk::MapIncludes includes({{"a.glsl", "#include \"b.glsl\"\n#include \"c.glsl\"\n"},
                                  {"b.glsl", "#include \"d.glsl\"\nfloat b() { return d(); }\n"},
                                  {"c.glsl", "#include \"d.glsl\"\nfloat c() { return d(); }\n"},
                                  {"d.glsl", "#ifndef D_GLSL\n#define D_GLSL\nfloat d() { return 1.0; }\n#endif\n"}});
  EXPECT_FALSE(vk::compile_compute_shader({"main.comp", kIncludesA}, includes, {}).empty());
}

TEST(IncludeBounds, IncludesNestedTooDeepAreRefused) {
  // d0 includes d1 includes ... d39: distinct files, no loop, but too deep.
  std::map<std::string, std::string> files;
  for (int i = 0; i < 40; ++i) {
    files["d" + std::to_string(i) + ".glsl"] = i + 1 < 40 ? "#include \"d" + std::to_string(i + 1) + ".glsl\"\n" : "";
  }
  files["a.glsl"] = "#include \"d0.glsl\"\n";
  const auto message = compile_error_in_child(kIncludesA, vk::MapIncludes(files));
  EXPECT_NE(message.find("compile_error: "), std::string::npos) << message;
  EXPECT_NE(message.find("nested deeper than " + std::to_string(vk::kMaxIncludeDepth)), std::string::npos) << message;
}

TEST(IncludeBounds, ASourceTooLargeWithItsIncludesIsRefused) {
  // Each include is small, but included many times over it exceeds the bound.
  const std::string line = "// " + std::string(1000, 'x') + "\n";
  std::string big;
  for (int i = 0; i < 100; ++i) big += line;  // ~100 KB
  std::string many;
  for (std::size_t i = 0; i * big.size() <= vk::kMaxExpandedSourceBytes; ++i) many += "#include \"big.glsl\"\n";
  const vk::MapIncludes includes({{"a.glsl", many}, {"big.glsl", big}});
  const auto message = compile_error_in_child(kIncludesA, includes);
  EXPECT_NE(message.find("compile_error: "), std::string::npos) << message;
  EXPECT_NE(message.find("larger than 1024 KiB"), std::string::npos) << message;

  std::string huge = kIncludesA;
  while (huge.size() <= vk::kMaxExpandedSourceBytes) huge += line;
  const auto direct = compile_error_in_child(huge, includes);
  EXPECT_NE(direct.find("over the 1024 KiB"), std::string::npos) << direct;
}

}  // namespace
}  // namespace vktune::test
