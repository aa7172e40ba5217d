// `vktune results` and `vktune report` as a user meets them: a tiny tune on
// the test device, its JSON summary against counts taken straight from the
// database with SQL, and the HTML report rendered in a real browser
// (headless Chromium), whose page measures its own plots: every plot must be
// laid out with every data point inside it. Then the one-line errors, and
// text from a hostile database kept out of the page's markup.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "results/sqlite.hpp"
#include "results/store.hpp"

namespace {

namespace fs = std::filesystem;
using vktune::results::sqlite::Connection;
using vktune::results::sqlite::Statement;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

class ReportCommand : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("vktune-report-" + std::to_string(std::random_device{}()));
  fs::path db = dir / "tuned.db";
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  RunResult shell(const std::string& command) {
    const auto out = dir / "out.txt", err = dir / "err.txt";
    const int status = std::system((command + " >" + out.string() + " 2>" + err.string()).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
  }
  RunResult vktune(const std::string& args) { return shell(std::string(VKTUNE_BINARY) + " " + args); }

  // The page as headless Chromium lays it out: its self-check lines. CI
  // installs Chromium (ci/install-deps.sh): a missing browser is a failure.
  std::string render(const fs::path& html) {
    const auto browser = shell("command -v chromium");
    EXPECT_EQ(browser.exit_code, 0) << "chromium is not installed: run ci/install-deps.sh";
    const auto profile = dir / "chromium-profile";
    const auto rendered =
        shell("timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" +
              profile.string() + " --dump-dom file://" + html.string());
    EXPECT_EQ(rendered.exit_code, 0) << rendered.err;
    return rendered.out;
  }

  static std::string device() {
    const char* index = std::getenv("VKTUNE_TEST_DEVICE");
    return index && *index ? index : "0";
  }
};

// Counts taken from the database with SQL, independently of results/browse.
struct Expected {
  std::size_t search_rows = 0, ok_variants = 0, varied_parameters = 0;
  bool winner = false, baseline = false;
  std::map<std::string, std::size_t> status_counts;
};

Expected count_in_database(const fs::path& db, const std::string& kernel) {
  const auto connection = Connection::open(db, Connection::Mode::read_only);
  Expected e;
  Statement search(connection,
                   "SELECT count(*) FROM measurements m JOIN variants v ON v.hash = m.variant "
                   "WHERE v.kernel = ?1 AND m.phase = 'search'");
  search.bind_all(kernel);
  if (search.step()) e.search_rows = static_cast<std::size_t>(search.column_int64(0));
  // A variant's status: its confirmation row's where it has one, else its search row's.
  Statement variants(connection,
                     "SELECT coalesce(c.status, s.status), v.config_json FROM measurements s "
                     "JOIN variants v ON v.hash = s.variant LEFT JOIN measurements c ON c.variant = s.variant "
                     "AND c.device = s.device AND c.shape = s.shape AND c.cache_mode = s.cache_mode "
                     "AND c.phase = 'confirm' WHERE v.kernel = ?1 AND s.phase = 'search'");
  variants.bind_all(kernel);
  std::map<std::string, std::set<int>> values;
  while (variants.step()) {
    const std::string status = variants.column_text(0);
    ++e.status_counts[status];
    if (status != "ok") continue;
    ++e.ok_variants;
    const auto config = nlohmann::json::parse(variants.column_text(1));
    for (const auto& [name, value] : config.items()) values[name].insert(value.get<int>());
  }
  if (e.ok_variants >= 2)
    for (const auto& [name, taken] : values) e.varied_parameters += taken.size() >= 2 ? 1 : 0;
  Statement winner(connection, "SELECT median_ns, baseline_median_ns FROM winners WHERE kernel = ?1");
  winner.bind_all(kernel);
  if (winner.step()) {
    e.winner = winner.column_double(0) > 0;
    e.baseline = winner.column_double(1) > 0;
  }
  return e;
}

struct PlotCheck {
  int width = 0, height = 0;
  std::size_t points = 0, drawn = 0;
};

// "plot ID kind=KIND width=W height=H points=N drawn=D" lines of the page's self-check.
std::map<std::string, PlotCheck> self_check(const std::string& dom) {
  const auto start = dom.find("<pre id=\"selfcheck\">");
  const auto end = dom.find("</pre>", start);
  if (start == std::string::npos || end == std::string::npos) return {};
  const std::string text = dom.substr(start, end - start);
  std::map<std::string, PlotCheck> plots;
  const std::regex line(R"(plot (\S+) kind=(\S+) width=(\d+) height=(\d+) points=(\d+) drawn=(\d+))");
  for (std::sregex_iterator it(text.begin(), text.end(), line), stop; it != stop; ++it) {
    const auto& m = *it;
    plots[m[2].str()] = {std::stoi(m[3].str()), std::stoi(m[4].str()), std::stoul(m[5].str()), std::stoul(m[6].str())};
  }
  return plots;
}

TEST_F(ReportCommand, TheReportDrawsEveryMeasurementInARealBrowser) {
  // CI installs Chromium (ci/install-deps.sh): a missing browser is a failure, never a skip.
  ASSERT_EQ(shell("command -v chromium").exit_code, 0) << "chromium is not installed: run ci/install-deps.sh";

  const auto tune = vktune("rmsnorm --device " + device() + " --shape 2,256 --budget 5 --db " + db.string());
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  const auto expected = count_in_database(db, "rmsnorm");
  ASSERT_GE(expected.ok_variants, 2u) << "the tune validated too few variants to plot";
  ASSERT_TRUE(expected.winner);

  // The JSON summary says what SQL says.
  const auto summary = vktune("results --json --db " + db.string());
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const auto j = nlohmann::json::parse(summary.out);
  EXPECT_EQ(j["format"], "vktune-results");
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_GT(j["devices"][0]["ceilings"]["read_gbps"].get<double>(), 0);
  ASSERT_EQ(j["shapes"].size(), 1u);
  const auto& shape = j["shapes"][0];
  EXPECT_EQ(shape["kernel"], "rmsnorm");
  EXPECT_EQ(shape["shape"], "2,256");
  EXPECT_EQ(shape["rows"]["search"].get<std::size_t>(), expected.search_rows);
  const auto counts = shape["status_counts"].get<std::map<std::string, std::size_t>>();
  EXPECT_EQ(counts, expected.status_counts);
  const auto& winner = shape["winner"];
  ASSERT_TRUE(winner.is_object());
  EXPECT_NEAR(winner["speedup"].get<double>(),
              winner["baseline_median_us"].get<double>() / winner["median_us"].get<double>(), 1e-9);

  const auto html = dir / "report.html";
  const auto report = vktune("report --db " + db.string() + " -o " + html.string());
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = read_file(html);
  // Self-contained: nothing is fetched (the SVG namespace is a name, not a fetch).
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);

  const auto dom = render(html);
  const auto plots = self_check(dom);
  ASSERT_FALSE(plots.empty()) << "the page's self-check did not run:\n" << dom.substr(0, 2000);

  std::map<std::string, std::size_t> want{{"distribution", expected.ok_variants},
                                          {"convergence", expected.search_rows},
                                          {"roofline", expected.ok_variants + expected.winner + expected.baseline}};
  if (expected.varied_parameters > 0) want["importance"] = expected.varied_parameters;
  EXPECT_EQ(plots.size(), want.size());
  for (const auto& [kind, points] : want) {
    ASSERT_TRUE(plots.count(kind)) << kind << " plot missing";
    const auto& p = plots.at(kind);
    EXPECT_GT(p.width, 100) << kind;
    EXPECT_GT(p.height, 50) << kind;
    EXPECT_EQ(p.points, points) << kind;
    EXPECT_EQ(p.drawn, p.points) << kind << ": points drawn outside the plot or with no size";
  }
}

TEST_F(ReportCommand, BadInputIsOneLineAndAMissingDatabaseIsNotCreated) {
  const auto missing = dir / "missing.db";
  for (const std::string& args : {"results --db " + missing.string(), "report --db " + missing.string() + " -o " +
                                                                         (dir / "r.html").string()}) {
    const auto r = vktune(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(missing.string()), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_FALSE(fs::exists(dir / "r.html"));

  { auto store = vktune::results::Store::open(db); }  // an empty database
  struct Case {
    std::string args, words;
    int code;
  };
  const Case cases[] = {
      {"results --kernel nope", "'nope' is not a registered kernel", 2},
      {"report --kernel nope -o " + (dir / "r.html").string(), "'nope' is not a registered kernel", 2},
      {"results --shape 1,x", "'1,x' is not a shape", 2},
      {"report", "--output", 2},
  };
  for (const auto& c : cases) {
    const auto r = vktune(c.args + " --db " + db.string());
    EXPECT_EQ(r.exit_code, c.code) << c.args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.words), std::string::npos) << c.args << ": " << r.err;
  }
  // A registered kernel with nothing stored: said so, not an error.
  const auto empty = vktune("results --kernel softmax --db " + db.string());
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_NE(empty.out.find("no measurements or winners match --kernel 'softmax'"), std::string::npos) << empty.out;
}

TEST_F(ReportCommand, TextFromTheDatabaseCannotBecomeMarkup) {
  {
    using namespace vktune::results;
    auto store = Store::open(db);
    DeviceIdentity d;
    d.name = "<img src=x onerror=alert(1)>";
    const auto device = store.upsert_device(d);
    store.upsert_variant({"aaaa", "rmsnorm", "rmsnorm.comp", R"({"</script><script>alert(2)</script>":1})", "", ""});
    store.upsert_variant({"bbbb", "rmsnorm", "rmsnorm.comp", R"({"</script><script>alert(2)</script>":2})", "", ""});
    store.upsert_variant({"cccc", "rmsnorm", "rmsnorm.comp", R"({"</script><script>alert(2)</script>":3})", "", ""});
    for (const auto* hash : {"aaaa", "cccc", "bbbb"}) {
      Measurement m;
      m.device_id = device;
      m.variant_hash = hash;
      m.shape = "2,256";
      m.cache_mode = "cold";
      m.median_ns = hash[0] == 'a' ? 1000 : 2000;
      m.gbps = 1;
      m.gflops = 1;
      if (hash[0] == 'c') {
        m.status = Status::wrong_result;
        m.reason = "<b>wrong</b> by 1e9";
      }
      store.record_measurement(m);
    }
  }
  const auto html = dir / "report.html";
  const auto r = vktune("report --db " + db.string() + " -o " + html.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto page = read_file(html);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;/script&gt;&lt;script&gt;alert(2)"), std::string::npos);

  // Drawn in a browser all the same, the failure as a mark of its own, with
  // no ceilings stored (the roofline without its roof) and no winner.
  const auto plots = self_check(render(html));
  const std::map<std::string, std::size_t> want{{"distribution", 2}, {"convergence", 3}, {"importance", 1},
                                                {"roofline", 2}};
  ASSERT_EQ(plots.size(), want.size());
  for (const auto& [kind, points] : want) {
    ASSERT_TRUE(plots.count(kind)) << kind << " plot missing";
    EXPECT_EQ(plots.at(kind).points, points) << kind;
    EXPECT_EQ(plots.at(kind).drawn, points) << kind;
  }
  const auto listed = vktune("results --failures --db " + db.string());
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("wrong_result"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("<b>wrong</b> by 1e9"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("3 variants (2 ok, 1 wrong_result)"), std::string::npos) << listed.out;
}

}  // namespace
