// A real tune on a pseudo-terminal 80 columns wide, as a person sees it:
// the stream the terminal receives is played on a small model of a
// terminal (carriage return, line feed, erase to the end of the line, auto
// wrap at the last column) and checked for one live line that never wraps
// and leaves no stale copy behind, for the phases it showed, and for the
// report and the summary that follow it (also after a Ctrl-C).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <functional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kColumns = 80;

// What a terminal of `width` columns shows after a stream of output, as
// logical lines (a long line the terminal wraps stays one line here). A
// carriage return goes back to the start of the terminal's current row: on
// a line that has wrapped, that is no longer the start of the line, and a
// redraw from there leaves the rows above it behind as stale copies. That
// is what `stale_redraw` catches.
struct Screen {
  explicit Screen(int w) : width(static_cast<std::size_t>(w)) {}
  std::size_t width;
  std::vector<std::string> lines{""};
  std::size_t pos = 0;         // the cursor, in columns from the start of the line
  bool line_wrapped = false;  // the current line has run past the last column
  bool stale_redraw = false;
  std::string stale_line;

  void feed(const std::string& stream) {
    for (std::size_t i = 0; i < stream.size(); ++i) {
      const auto c = static_cast<unsigned char>(stream[i]);
      if (c == '\r') {
        const bool newline_follows = i + 1 < stream.size() && stream[i + 1] == '\n';
        if (line_wrapped && !newline_follows && !stale_redraw) {
          stale_redraw = true;
          stale_line = lines.back();
        }
        pos = 0;
      } else if (c == '\n') {
        lines.emplace_back();
        pos = 0;
        line_wrapped = false;
      } else if (c == '\b') {
        if (pos > 0) --pos;
      } else if (c == 0x1b && i + 1 < stream.size() && stream[i + 1] == '[') {
        std::size_t end = i + 2;
        while (end < stream.size() && !(stream[end] >= 0x40 && stream[end] <= 0x7e)) ++end;
        if (end == stream.size()) break;
        const auto params = stream.substr(i + 2, end - i - 2);
        if (stream[end] == 'K' && (params.empty() || params == "0") && lines.back().size() > pos) {
          lines.back().resize(pos);  // erase to the end of the line
        }
        i = end;
      } else if (c >= 0x20 && c != 0x7f) {
        auto& line = lines.back();
        if ((c & 0xC0) == 0x80) {  // a UTF-8 continuation byte: no column of its own
          line += static_cast<char>(c);
          continue;
        }
        if (pos < line.size()) {
          line[pos] = static_cast<char>(c);
        } else {
          line.resize(pos, ' ');
          line += static_cast<char>(c);
        }
        // The character after the last column starts a new row.
        if (++pos > width) line_wrapped = true;
      }
    }
  }

  bool has_line_starting(const std::string& text) const {
    for (const auto& l : lines)
      if (l.rfind(text, 0) == 0) return true;
    return false;
  }
  bool has_line_containing(const std::string& text) const {
    for (const auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
  std::string text() const {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  }
};

// Each redraw of the live line in the raw stream: what follows "\r\033[K"
// up to the next carriage return that is not the end of a line (a line
// written after the live line was cleared, a message or the report, ends
// with a line feed: it is no redraw).
std::vector<std::string> redraws(const std::string& stream) {
  std::vector<std::string> out;
  const std::string clear = "\r\033[K";
  for (auto at = stream.find(clear); at != std::string::npos; at = stream.find(clear, at + 1)) {
    const auto from = at + clear.size();
    const auto end = stream.find_first_of("\r\n", from);
    const bool ends_a_line = end != std::string::npos && (stream[end] == '\n' || stream.compare(end, 2, "\r\n") == 0);
    if (!ends_a_line) out.push_back(stream.substr(from, end == std::string::npos ? std::string::npos : end - from));
  }
  return out;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

struct PtyRun {
  std::string stream;  // every byte the terminal received
  int status = -1;     // waitpid's
};

class TerminalTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("vktune-terminal-" + std::to_string(std::random_device{}()));
  fs::path db = dir / "results.db";
  void SetUp() override { fs::create_directories(dir / "runtime"); }
  void TearDown() override { fs::remove_all(dir); }

  // Runs vktune ARGS with stdout and stderr on a new pseudo-terminal of
  // kColumns x 24 (stderr to `stderr_file` instead when one is named).
  // `respond` sees the stream so far after each read and returns bytes to
  // type into the terminal ("" for none).
  PtyRun run(const std::vector<std::string>& args, const std::function<std::string(const std::string&)>& respond,
             std::chrono::seconds limit, const fs::path& stderr_file = {}) {
    winsize size{};
    size.ws_col = kColumns;
    size.ws_row = 24;
    int master = -1;
    const pid_t child = forkpty(&master, nullptr, nullptr, &size);
    if (child < 0) throw std::runtime_error("forkpty failed");
    if (child == 0) {
      unsetenv("COLUMNS");  // the width must come from the terminal itself
      setenv("VKTUNE_LOCK_DIR", (dir / "runtime").c_str(), 1);
      if (!stderr_file.empty()) {
        const int fd = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(126);
        close(fd);
      }
      std::vector<char*> argv{const_cast<char*>(VKTUNE_BINARY)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(VKTUNE_BINARY, argv.data());
      _exit(127);
    }
    PtyRun result;
    const auto give_up = Clock::now() + limit;
    char buffer[4096];
    while (Clock::now() < give_up) {
      pollfd p{master, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      const auto n = read(master, buffer, sizeof buffer);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        break;  // EIO: the child's side is closed
      }
      result.stream.append(buffer, static_cast<std::size_t>(n));
      const auto typed = respond(result.stream);
      if (!typed.empty() && write(master, typed.data(), typed.size()) != static_cast<ssize_t>(typed.size())) break;
    }
    if (Clock::now() >= give_up) kill(child, SIGKILL);
    waitpid(child, &result.status, 0);
    close(master);
    return result;
  }

  // A tune's screen at 80 columns: no redraw of a wrapped line, and no live
  // line left behind (the reports' own long lines may wrap: they are
  // written once).
  static void expect_clean_screen(const Screen& screen) {
    EXPECT_FALSE(screen.stale_redraw) << "a line ran past column " << kColumns
                                      << " and was then redrawn: " << screen.stale_line;
    for (const auto& line : screen.lines) {
      // The live line always shows an ETA; a line that still does is a stale copy.
      EXPECT_EQ(line.find("| ETA"), std::string::npos) << "stale live line: " << line;
    }
  }
};

TEST_F(TerminalTest, TuneShowsOneLiveLineWithItsPhasesAndThenTheReport) {
  const auto run_ = run({"add", "--device", "0", "--shape", "4,256", "--shape", "8,256", "--budget", "3", "--seed",
                         "5", "--time", "10m", "--db", db.string()},
                        [](const std::string&) { return std::string(); }, std::chrono::seconds(100));
  ASSERT_TRUE(WIFEXITED(run_.status)) << run_.stream;
  EXPECT_EQ(WEXITSTATUS(run_.status), 0) << run_.stream;
  Screen screen(kColumns);
  screen.feed(run_.stream);
  expect_clean_screen(screen);

  // The phases, each drawn on the live line.
  const auto lines = redraws(run_.stream);
  for (const std::string phase : {"opening device 0", "measuring device ceilings (once per device)",
                                  "add 4,256: enumerating the space", "add 8,256: enumerating the space",
                                  ", shape 2/2 ", "confirming", "final check of the winner"}) {
    EXPECT_TRUE(any_contains(lines, phase)) << "no redraw showed '" << phase << "'\n" << screen.text();
  }
  // A variant's steps are drawn at most every 100 ms (a fast GPU goes
  // through hundreds a second): some of the eight variants' show.
  EXPECT_TRUE(any_contains(lines, "compiling variant") || any_contains(lines, "validating variant") ||
              any_contains(lines, "timing variant"))
      << screen.text();
  for (const auto& line : lines) EXPECT_LE(line.size(), static_cast<std::size_t>(kColumns - 1)) << line;

  // The header with the time budget, the confirmation's summary, and both
  // shapes' reports stay on the screen.
  EXPECT_TRUE(screen.has_line_starting(
      "time budget 10m (600 s) for the whole run, shared by its 2 shapes (each search an equal share of what is left, "
      "less the setups and tails still to come as measured so far); "))
      << screen.text();
  EXPECT_TRUE(screen.has_line_starting("confirmation re-timed ")) << screen.text();
  EXPECT_TRUE(screen.has_line_starting("add 4,256 (")) << screen.text();
  EXPECT_TRUE(screen.has_line_starting("add 8,256 (")) << screen.text();
  EXPECT_TRUE(screen.has_line_containing("rank    median_us")) << screen.text();
}

TEST_F(TerminalTest, CtrlCEndsTheLiveLineThenSummarisesAndSaysHowToResume) {
  bool typed = false;
  // A space of hundreds of variants: the run is far from its end when the
  // first ones are measured.
  const auto run_ = run({"add", "--device", "0", "--shape", "64,4096", "--strategy", "random", "--budget", "400",
                         "--seed", "7", "--db", db.string()},
                        [&](const std::string& stream) {
                          // Once a variant is done (the live line counts
                          // "N/TOTAL" with N > 0): Ctrl-C, as a person types it.
                          static const std::regex done(" [1-9][0-9]*/[0-9]+ ");
                          if (typed || !std::regex_search(stream, done)) return std::string();
                          typed = true;
                          return std::string("\x03");
                        },
                        std::chrono::seconds(100));
  ASSERT_TRUE(typed) << run_.stream;
  ASSERT_TRUE(WIFEXITED(run_.status)) << run_.stream;
  EXPECT_EQ(WEXITSTATUS(run_.status), 130) << run_.stream;
  Screen screen(kColumns);
  screen.feed(run_.stream);
  expect_clean_screen(screen);
  // The live line said that the run is stopping before it ended.
  EXPECT_TRUE(any_contains(redraws(run_.stream), "stopping (interrupted by SIGINT)")) << screen.text();
  // The summary starts on a row of its own, with the counts of the shape.
  EXPECT_TRUE(screen.has_line_starting("vktune: interrupted by SIGINT after 0 of 1 shape and part of one more; measured so far: 64,4096: "))
      << screen.text();
  EXPECT_TRUE(screen.has_line_starting("vktune: every measurement so far is stored in ")) << screen.text();
  EXPECT_TRUE(screen.has_line_containing("run the same command again to resume")) << screen.text();
}

TEST_F(TerminalTest, JsonSaysTheTimeBudgetIsForTheWholeRunAndKeepsStdoutToTheDocument) {
  const auto run_ = run({"add", "--device", "0", "--shape", "4,256", "--budget", "1", "--seed", "3", "--time", "5m",
                         "--json", "--db", db.string()},
                        [](const std::string&) { return std::string(); }, std::chrono::seconds(100),
                        dir / "stderr.txt");
  ASSERT_TRUE(WIFEXITED(run_.status)) << run_.stream;
  EXPECT_EQ(WEXITSTATUS(run_.status), 0) << run_.stream;
  // stdout is the terminal and holds the document alone; progress, if any, went to stderr.
  EXPECT_EQ(run_.stream.find("\033[K"), std::string::npos) << "a live line on stdout with --json";
  const auto j = nlohmann::json::parse(run_.stream);  // the terminal's \r\n are whitespace to JSON
  const auto& budget = j.at("time_budget");
  EXPECT_DOUBLE_EQ(budget.at("seconds").get<double>(), 300);
  EXPECT_NE(budget.at("applies_to").get<std::string>().find("whole run"), std::string::npos);
  // A fresh database: the ceilings were measured, inside what went before the first shape.
  const double ceilings = budget.at("ceilings_seconds").get<double>();
  EXPECT_GT(ceilings, 0);
  EXPECT_GE(budget.at("used_before_first_shape_seconds").get<double>(), ceilings);
}

}  // namespace
