// The command line's sharp edges, as a user meets them: CLI11 validators
// reject bad values while parsing (one line, exit 2, the option named), help
// lists every enumerated option's choices, a missing input file is bad input,
// a missing Vulkan driver says what to install, --only spans a run's spaces,
// and --version says what the build is made of.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "engine/template_library.hpp"
#include "kernels/registry.hpp"
#include "reference/gguf_writer.hpp"

#include "tests/support/vktune_process.hpp"

namespace {

namespace fs = std::filesystem;

using vktune::testing::RunResult;

class CliEdges : public vktune::testing::VktuneProcessTest {
 protected:
  static std::size_t lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  // Exit 2 and one line on stderr holding each of `words`.
  void expect_usage(const std::string& args, const std::vector<std::string>& words) {
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << args << ": " << r.err;
    for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << args << ": no '" << w << "' in " << r.err;
  }
};

TEST_F(CliEdges, NegativeAndMalformedValuesAreRejectedWhileParsing) {
  const std::string csv = std::string(VKTUNE_SOURCE_DIR) + "/measurements/nvidia-h200/measurements_session5.csv";
  // Before: CLI11 read -1 into an unsigned budget or seed as 2^64-1, i.e. unlimited.
  expect_usage("replay attention_decode --from " + csv + " --budget -1", {"--budget", "-1"});
  expect_usage("replay attention_decode --from " + csv + " --seed -1", {"--seed", "-1"});
  // 2^64 is the same double as 2^64-1: the check compares digits.
  expect_usage("replay attention_decode --from " + csv + " --seed 18446744073709551616", {"--seed"});
  expect_usage("check --device -1", {"--device", "-1"});
  expect_usage("check --device 4294967296", {"--device", "4294967296"});
  expect_usage("matmul_q4k --budget -1", {"--budget", "-1"});
  expect_usage("matmul_q4k --time abc", {"--time", "abc"});
  expect_usage("matmul_q4k --target 5parsecs", {"--target", "5parsecs"});
  expect_usage("matmul_q4k --cache warm", {"--cache", "warm"});
  expect_usage("matmul_q4k --strategy nope", {"--strategy", "nope"});
  expect_usage("check --variants sample:0", {"--variants", "sample:0"});
  expect_usage("check --variants some", {"--variants", "some"});
  expect_usage("check --shapes huge", {"--shapes", "huge"});
  expect_usage("bench --cache warm", {"--cache", "warm"});
  expect_usage("list --device -2", {"--device", "-2"});
  // A leading zero is decimal (CLI11 alone reads 010 as octal 8): the replay
  // reports the seed it used.
  const auto seeded = run("replay attention_decode --from " + csv + " --runs 1 --budget 3 --seed 010 --json");
  ASSERT_EQ(seeded.exit_code, 0) << seeded.err;
  EXPECT_EQ(nlohmann::json::parse(seeded.out)["seed"], 10) << seeded.out;
  // A duration in microseconds is a valid --target: parsing passes and the
  // run stops at the device instead (no device 4096 anywhere).
  const auto r = run("matmul_q4k --target 13.5us --time 0.5m --device 4096 --db " + (dir / "t.db").string());
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

// A --time too short for its shapes is said on stderr, naming the shapes
// that got their baseline only; --json's stdout stays one document. With a
// budget that lets the search run, nothing is said.
TEST_F(CliEdges, ATimeBudgetThatLeavesShapesTheirBaselineOnlySaysSo) {
  const auto db = (dir / "time.db").string();
  const auto short_run = run("add --device 0 --shape 1,1000 --shape 2,1000 --time 1ms --json --db " + db);
  ASSERT_EQ(short_run.exit_code, 0) << short_run.err;
  EXPECT_TRUE(nlohmann::json::accept(short_run.out)) << short_run.out;
  EXPECT_NE(short_run.err.find("--time 1ms left 2 of 2 shapes no time past their baseline (1,1000 2,1000)"),
            std::string::npos)
      << short_run.err;
  const auto long_run = run("add --device 0 --shape 3,1000 --budget 2 --time 5m --json --db " + db);
  ASSERT_EQ(long_run.exit_code, 0) << long_run.err;
  EXPECT_EQ(long_run.err.find("no time past their baseline"), std::string::npos) << long_run.err;
}

TEST_F(CliEdges, BenchIterationsMustBeAWholeNumber) {
#ifndef VKTUNE_HAVE_BENCH
  GTEST_SKIP() << "vktune-bench is not built (VKTUNE_BUILD_BENCH=OFF)";
#endif
  // Before: `error: stoi`, exit 5, naming no flag.
  for (const std::string value : {"abc", "0", "-3"}) {
    const auto r = run("bench --device 0 -- --iterations " + value);
    EXPECT_EQ(r.exit_code, 2) << value << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("--iterations"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("stoi"), std::string::npos) << r.err;
  }
}

TEST_F(CliEdges, HelpListsTheChoicesOfEveryEnumeratedOption) {
  struct Case {
    std::string command;
    std::vector<std::string> choices;
  };
  const Case cases[] = {
      {"matmul_q4k", {"{anneal,exhaustive,model,random}", "{cold,hot}", "{pruned,full}", "{auto,nv,khr}"}},
      {"replay", {"{anneal,exhaustive,model,random}"}},
      {"check", {"{covering,all,winners,sample:N}", "{ci,default}", "{pruned,full}", "{auto,nv,khr}"}},
      {"bench", {"{cold,hot}"}},
      {"export", {"{json,header,csv,sqlite,constants,constants-c,t4}"}},
      {"list", {"{pruned,full}"}},
  };
  for (const auto& c : cases) {
    const auto r = run(c.command + " --help");
    EXPECT_EQ(r.exit_code, 0) << c.command;
    for (const auto& choice : c.choices)
      EXPECT_NE(r.out.find(choice), std::string::npos) << c.command << " --help lacks " << choice << ":\n" << r.out;
  }
}

TEST_F(CliEdges, AMissingInputFileIsBadInputNamingTheFile) {
  const auto missing = (dir / "missing.file").string();
  // Before: exit 5 for gguf, import and bench --db.
  expect_usage("gguf " + missing, {missing});
  expect_usage("import " + missing + " --db " + (dir / "x.db").string(), {missing});
  expect_usage("bench --db " + missing, {missing});
  expect_usage("replay rmsnorm --from " + missing, {missing});
  expect_usage("replay rmsnorm --db " + missing, {missing});
  expect_usage("check rmsnorm --table " + missing, {missing});
  expect_usage("check rmsnorm --templates " + missing, {missing});
  EXPECT_FALSE(fs::exists(dir / "x.db")) << "import created a database for a missing table";
}

TEST_F(CliEdges, OutputIntoADirectoryIsBadInput) {
  // A database to export from: importing the committed test table makes one.
  const auto db = dir / "e.db";
  const auto imported = run("import " + std::string(VKTUNE_SOURCE_DIR) +
                            "/tests/runtime/data/h200_matmul_q4k.json --db " + db.string());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  // Before: "cannot write DIR: Success", exit 5.
  for (const std::string format : {"json", "csv", "sqlite"}) {
    const auto args = "export --format " + format + " --db " + db.string() + " -o " + dir.string();
    expect_usage(args, {"is a directory", dir.string()});
  }
  EXPECT_FALSE(fs::exists(dir.string() + ".partial"));
  // Before: "cannot rename ...: Is a directory", exit 5.
  vktune::ref::GgufWriter writer;
  writer.add_tensor("t", vktune::ref::GgmlType::F32, {1}, {0, 0, 0x80, 0x3f});
  writer.write(dir / "m.gguf");
  expect_usage("gguf " + (dir / "m.gguf").string() + " --dequant t -o " + dir.string(), {"is a directory", dir.string()});
}

// A --db (or $VKTUNE_DB) that is a directory gave five different messages
// and exit 5 or 2 depending on the command: now one line, exit 2, in each.
TEST_F(CliEdges, AnExportTheFileSystemRefusesLeavesNoFileBehind) {
  const auto db = dir / "e.db";
  const auto imported = run("import " + std::string(VKTUNE_SOURCE_DIR) +
                            "/tests/runtime/data/h200_matmul_q4k.json --db " + db.string());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto into = dir / "exports";
  fs::create_directories(into);
  // A file size limit of 8 blocks (4 KiB in dash) fails the write part-way (EFBIG), as a full
  // disk does (ENOSPC); the table is larger. Before: an empty or half
  // "t.json.partial" was left beside the target, exit 5.
  for (const std::string format : {"json", "header"}) {  // each larger than the limit
    const auto err = dir / "err.txt";
    const std::string command = "trap '' XFSZ; ulimit -f 8; exec \"" + std::string(VKTUNE_BINARY) +
                                "\" export --format " + format + " --db " + db.string() + " -o " +
                                (into / "t.out").string() + " >/dev/null 2>" + err.string();
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 5) << format << ": " << read(err);
    EXPECT_NE(read(err).find("File too large"), std::string::npos) << format << ": " << read(err);
    EXPECT_TRUE(fs::is_empty(into)) << format << ": something was left in " << into.string();
  }
}

TEST_F(CliEdges, ADatabaseThatIsADirectoryIsOneMessageInEveryCommand) {
  const auto d = dir.string();
  const std::string table = std::string(VKTUNE_SOURCE_DIR) + "/tests/runtime/data/h200_matmul_q4k.json";
  const std::string line = "the results database " + d + " is a directory; give the path of a database file";
  for (const std::string& args : std::vector<std::string>{"add --device 0 --shape 4,256 --budget 1", "check add --device 0 --variants winners", "export", "import " + table,
        "results", "report -o " + (dir / "r.html").string(), "devices --remeasure --device 0", "bench add --device 0",
        "replay add", "model " + table + " --device 0", "step " + table + " --device 0", "mobilenet --device 0"}) {
    expect_usage(args + " --db " + d, {line});
  }
  // The same path from the environment, where no option checked it.
  const auto r = run("results", "VKTUNE_DB=" + d);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(line), std::string::npos) << r.err;
  const auto tune = run("add --device 0 --shape 4,256 --budget 1", "VKTUNE_DB=" + d);
  EXPECT_EQ(tune.exit_code, 2) << tune.err;
  EXPECT_NE(tune.err.find(line), std::string::npos) << tune.err;
}

// A mistyped kernel, command or option names what was most likely meant.
TEST_F(CliEdges, NearMissesOfKernelsCommandsAndOptionsAreSuggested) {
  expect_usage("matmul_q4 --device 0", {"unknown command or kernel 'matmul_q4'", "(did you mean 'matmul_q4k'?)"});
  expect_usage("exprot", {"(did you mean 'export'?)"});
  expect_usage("add --device 0 --budgte 3", {"--budgte", "(did you mean '--budget'?)"});
  expect_usage("export --fromat json", {"(did you mean '--format'?)"});
  const auto far = run("add --device 0 --zzzzzz 3");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

// Text a file supplies (a spec's description, its rules' reasons) and
// every error line reached the terminal raw: an escape sequence in them
// recoloured it. Each now arrives escaped.
TEST_F(CliEdges, TerminalEscapesFromFilesAndErrorsArePrintedEscaped) {
  const fs::path examples = fs::path(VKTUNE_SOURCE_DIR) / "examples" / "pytorch_softmax";
  fs::copy_file(examples / "softmax.comp", dir / "softmax.comp");
  std::ifstream in(examples / "softmax.json");
  auto spec = nlohmann::json::parse(in, nullptr, true, true);
  spec["description"] = "red \u001b[31m text";
  spec["subspaces"][0]["parameters"][0]["help"] = "title \u001b]0;owned\u0007";
  std::ofstream(dir / "softmax.json") << spec.dump();
  const auto listed = run("list " + (dir / "softmax.json").string());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find('\x1b'), std::string::npos) << "a raw escape reached the terminal";
  EXPECT_NE(listed.out.find("red \\x1b[31m text"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("title \\x1b]0;owned\\x07"), std::string::npos) << listed.out;
  const auto error = run("'bad\x1b[31mkernel'");
  EXPECT_EQ(error.exit_code, 2);
  EXPECT_EQ(error.err.find('\x1b'), std::string::npos) << "a raw escape in an error line";
  EXPECT_NE(error.err.find("bad\\x1b[31mkernel"), std::string::npos) << error.err;
}

TEST_F(CliEdges, NoVulkanDriverSaysWhatToInstall) {
  // The loader is there but finds no driver manifest.
  const std::string env = "VK_DRIVER_FILES=" + (dir / "none.json").string() +
                          " VK_ICD_FILENAMES=" + (dir / "none.json").string() + " VK_ADD_DRIVER_FILES=";
  for (const std::string args : {"devices", "check rmsnorm --device 0"}) {
    const auto r = run(args, env);
    EXPECT_EQ(r.exit_code, 3) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("no Vulkan driver"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("mesa-vulkan-drivers"), std::string::npos) << r.err;
  }
}

TEST_F(CliEdges, VersionNamesTheBuild) {
  const auto r = run("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The version CMake's project() declares, passed to this test on its own.
  EXPECT_EQ(r.out.rfind(std::string("vktune ") + VKTUNE_PROJECT_VERSION + "\n", 0), 0u) << r.out;
#if defined(__clang__)
  EXPECT_NE(r.out.find("clang"), std::string::npos) << r.out;
#else
  EXPECT_NE(r.out.find("GCC"), std::string::npos) << r.out;
#endif
  EXPECT_NE(r.out.find("shaderc 20"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("glslang "), std::string::npos) << r.out;
  // Where KHR cooperative-matrix modules come from: Debian 12's glslang 12
  // has no GL_KHR_cooperative_matrix, so vktune's pass writes them.
  EXPECT_NE(r.out.find("KHR cooperative matrix: this shaderc does not compile GL_KHR_cooperative_matrix"),
            std::string::npos)
      << r.out;
  // Which GLSL the binary compiles: the embedded set's hash, recomputed here
  // from the same files (TemplateHash.TheSetHashMovesWithAnyFile:
  // it moves with any file's text).
  const auto templates = vktune::TemplateLibrary::embedded();
  EXPECT_NE(r.out.find("\ntemplates: " + std::to_string(templates.size()) + " embedded files, set hash " +
                       templates.set_hash() + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lines(r.out), 5u) << r.out;
}

TEST_F(CliEdges, ListNamesIsOneKernelALine) {
  const auto names = run("list --names");
  ASSERT_EQ(names.exit_code, 0) << names.err;
  std::string expected;
  for (const auto* kernel : vktune::kernels::all_kernels()) expected += kernel->name() + "\n";
  EXPECT_EQ(names.out, expected);
  EXPECT_GT(lines(names.out), 10u);
}

// --only X_QUANT=0 on a decode and a prefill shape: the prefill space has no
// X_QUANT, so it is tuned whole with a note; the decode space is narrowed.
TEST_F(CliEdges, OnlyAppliesToTheSpacesThatHaveTheParameter) {
  const auto db = dir / "only.db";
  const auto r = run("matmul_q4k --device 0 --shape 1,37,256 --shape 13,70,256 --only X_QUANT=0 --budget 1 "
                     "--seed 5 --json --db " + db.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --only X_QUANT applies to the decode space (1,37,256); the prefill space (13,70,256) "
                       "has no X_QUANT"),
            std::string::npos)
      << r.err;
  const auto report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["shapes"].size(), 2u);
  const auto& decode = report["shapes"][0];
  const auto& prefill = report["shapes"][1];
  EXPECT_EQ(decode["space"], "decode");
  EXPECT_EQ(prefill["space"], "prefill");
  EXPECT_GT(decode["space_selected"].get<int>(), 0);
  EXPECT_LT(decode["space_selected"].get<int>(), decode["space_valid"].get<int>());
  EXPECT_EQ(prefill["space_selected"], prefill["space_valid"]);

  // Still errors: a parameter no space of the run has, a value none offers.
  expect_usage("matmul_q4k --device 0 --shape 1,37,256 --shape 13,70,256 --only NO_SUCH=1 --db " + db.string(),
               {"no parameter NO_SUCH"});
  expect_usage("matmul_q4k --device 0 --shape 1,37,256 --shape 13,70,256 --only X_QUANT=7 --db " + db.string(),
               {"not a candidate value of X_QUANT"});
}

}  // namespace
