// read → write → read gives the same model and values, and cube_dump prints the same, for every
// real profile; plain and compressed (ZCUBEX) data.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "cubekit/calc.hpp"
#include "cubekit/error.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::run_tool;
using cubekit::test::shared_dir;

namespace cubekit {
namespace {

std::vector<fs::path> real_reports() {
  std::vector<fs::path> out;
  if (shared_dir().empty()) return out;
  for (const auto& f : fs::recursive_directory_iterator(shared_dir() / "data" / "real")) {
    const std::string name = f.path().filename();
    if (name.ends_with(".cubex") || name.ends_with(".cube")) out.push_back(f.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_same_model(const Model& a, const Model& b) {
  EXPECT_EQ(a.attrs, b.attrs);
  EXPECT_EQ(a.mirrors, b.mirrors);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (size_t i = 0; i < a.metrics.size(); ++i) {
    const Metric &x = a.metrics[i], &y = b.metrics[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.disp_name, y.disp_name);
    EXPECT_EQ(x.uniq_name, y.uniq_name);
    EXPECT_EQ(x.dtype_text, y.dtype_text);
    EXPECT_EQ(x.uom, y.uom);
    EXPECT_EQ(x.val, y.val);
    EXPECT_EQ(x.url, y.url);
    EXPECT_EQ(x.descr, y.descr);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.ghost, y.ghost);
    EXPECT_EQ(x.convertible, y.convertible);
    EXPECT_EQ(x.cacheable, y.cacheable);
    EXPECT_EQ(x.expression, y.expression);
    EXPECT_EQ(x.init_expression, y.init_expression);
    EXPECT_EQ(x.aggr_plus, y.aggr_plus);
    EXPECT_EQ(x.aggr_minus, y.aggr_minus);
    EXPECT_EQ(x.aggr_aggr, y.aggr_aggr);
    EXPECT_EQ(x.rowwise, y.rowwise);
    EXPECT_EQ(x.attrs, y.attrs);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.children, y.children);
  }
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const Region &x = a.regions[i], &y = b.regions[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.mangled_name, y.mangled_name);
    EXPECT_EQ(x.paradigm, y.paradigm);
    EXPECT_EQ(x.role, y.role);
    EXPECT_EQ(x.url, y.url);
    EXPECT_EQ(x.descr, y.descr);
    EXPECT_EQ(x.mod, y.mod);
    EXPECT_EQ(x.begin, y.begin);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.attrs, y.attrs);
  }
  ASSERT_EQ(a.cnodes.size(), b.cnodes.size());
  for (size_t i = 0; i < a.cnodes.size(); ++i) {
    const Cnode &x = a.cnodes[i], &y = b.cnodes[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.region, y.region);
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.mod, y.mod);
    ASSERT_EQ(x.parameters.size(), y.parameters.size());
    for (size_t p = 0; p < x.parameters.size(); ++p) {
      EXPECT_EQ(x.parameters[p].type, y.parameters[p].type);
      EXPECT_EQ(x.parameters[p].key, y.parameters[p].key);
      EXPECT_EQ(x.parameters[p].value, y.parameters[p].value);
    }
    EXPECT_EQ(x.attrs, y.attrs);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.children, y.children);
  }
  ASSERT_EQ(a.system_nodes.size(), b.system_nodes.size());
  for (size_t i = 0; i < a.system_nodes.size(); ++i) {
    const SystemNode &x = a.system_nodes[i], &y = b.system_nodes[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.class_name, y.class_name);
    EXPECT_EQ(x.descr, y.descr);
    EXPECT_EQ(x.attrs, y.attrs);
    EXPECT_EQ(x.children, y.children);
    EXPECT_EQ(x.groups, y.groups);
  }
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].name, b.groups[i].name);
    EXPECT_EQ(a.groups[i].rank, b.groups[i].rank);
    EXPECT_EQ(a.groups[i].type, b.groups[i].type);
    EXPECT_EQ(a.groups[i].attrs, b.groups[i].attrs);
    EXPECT_EQ(a.groups[i].locations, b.groups[i].locations);
  }
  ASSERT_EQ(a.locations.size(), b.locations.size());
  for (size_t i = 0; i < a.locations.size(); ++i) {
    EXPECT_EQ(a.locations[i].id, b.locations[i].id);
    EXPECT_EQ(a.locations[i].name, b.locations[i].name);
    EXPECT_EQ(a.locations[i].rank, b.locations[i].rank);
    EXPECT_EQ(a.locations[i].type, b.locations[i].type);
    EXPECT_EQ(a.locations[i].attrs, b.locations[i].attrs);
  }
  ASSERT_EQ(a.topologies.size(), b.topologies.size());
  for (size_t i = 0; i < a.topologies.size(); ++i) {
    EXPECT_EQ(a.topologies[i].name, b.topologies[i].name);
    EXPECT_EQ(a.topologies[i].dims.size(), b.topologies[i].dims.size());
    EXPECT_EQ(a.topologies[i].coords.size(), b.topologies[i].coords.size());
  }
}

void expect_same_values(const Report& a, const Report& b) {
  const Model& m = a.model();
  for (Index metric = 0; metric < m.metrics.size(); ++metric) {
    if (is_derived(m.metrics[metric].kind)) continue;
    EXPECT_EQ(a.has_data(metric), b.has_data(metric)) << m.metrics[metric].uniq_name;
    for (Index c = 0; c < m.cnodes.size(); ++c) {
      const Values x = stored_values(a, metric, c), y = stored_values(b, metric, c);
      ASSERT_EQ(std::memcmp(x.data(), y.data(), x.size() * x.stride()), 0)
          << m.metrics[metric].uniq_name << " cnode " << m.cnodes[c].id;
    }
  }
}

class RoundTrip : public ::testing::TestWithParam<std::tuple<fs::path, bool>> {};

TEST_P(RoundTrip, SameModelValuesAndDump) {
  const auto& [input, compress] = GetParam();
  // Unique per input: several real reports are called profile.cubex, and ctest runs in parallel.
  std::string stem = fs::relative(input, shared_dir() / "data" / "real").string();
  for (char& c : stem)
    if (c == '/') c = '_';
  const fs::path out =
      fs::temp_directory_path() / ("cubekit-rt-" + stem + (compress ? "-z" : "") + ".cubex");
  const Report original = Report::open(input.string());
  write_report(original, out.string(),
               WriteOptions{.compress = compress, .skip_identity_rows = false});
  const Report copy = Report::open(out.string());
  expect_same_model(original.model(), copy.model());
  expect_same_values(original, copy);
  // cube_dump prints the same values; the structure too, for Cube 4 input (a Cube 3 file has
  // no archive members and another syntax version line).
  std::vector<std::vector<std::string>> commands = {{"-m", "all", "-z", "incl", "-t", "aggr"},
                                                    {"-m", "all", "-z", "excl", "-s", "csv2"}};
  if (input.extension() == ".cubex") commands.push_back({"-w"});
  bool derived = false;
  for (const Metric& m : original.model().metrics) derived = derived || is_derived(m.kind);
  for (auto args : commands) {
    if (derived && args[0] == "-m") continue;  // values of derived metrics need CubePL
    auto a = args, b = args;
    a.push_back(input.string());
    b.push_back(out.string());
    const auto before = run_tool("cube_dump", a), after = run_tool("cube_dump", b);
    EXPECT_EQ(before.exit_code, 0) << before.err;
    EXPECT_EQ(after.exit_code, 0) << after.err;
    if (before.out == after.out) continue;
    // Show the first differing line, not two whole dumps.
    std::istringstream x(before.out), y(after.out);
    std::string lx, ly;
    int line = 1;
    while (std::getline(x, lx) && std::getline(y, ly) && lx == ly) ++line;
    ADD_FAILURE() << "cube_dump " << args[0] << " differs at line " << line << "\n  before: " << lx
                  << "\n  after:  " << ly;
  }
  fs::remove(out);
}

INSTANTIATE_TEST_SUITE_P(
    Real, RoundTrip, ::testing::Combine(::testing::ValuesIn(real_reports()), ::testing::Bool()),
    [](const auto& info) {
      std::string n =
          fs::relative(std::get<0>(info.param), shared_dir() / "data" / "real").string() +
          (std::get<1>(info.param) ? "_zcubex" : "");
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RoundTrip);

// Without ../shared the suite above has no instances: this says so (and fails under CI=true).
TEST(RoundTripSetup, RealReportsPresent) {
  CUBEKIT_REQUIRE_SHARED();
  EXPECT_GT(real_reports().size(), 20u);
}

TEST(Writer, RefusesToOverwriteItsInput) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path copy = fs::temp_directory_path() / "cubekit-self.cubex";
  fs::copy_file(shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex", copy,
                fs::copy_options::overwrite_existing);
  const Report r = Report::open(copy.string());
  EXPECT_THROW(write_report(r, copy.string()), IoError);
  fs::remove(copy);
}

TEST(Writer, UnwritableFolderIsAClearErrorAndLeavesNothing) {
  const Model model;
  try {
    ReportWriter w("/nonexistent-dir/x.cubex", std::make_shared<Model>(model));
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.cubex"), std::string::npos);
  }
}

TEST(Writer, AbandonedWriterLeavesNoFile) {
  const fs::path dir = fs::temp_directory_path() / "cubekit-abandon";
  fs::create_directories(dir);
  {
    Model model;
    ReportWriter w((dir / "x.cubex").string(), std::make_shared<Model>(model));
    // destroyed without finish(), e.g. by an exception half-way
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cubekit

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cubekit {
namespace {

// A full disk, simulated with a file-size limit in a child process: writing fails with EFBIG
// where a full disk gives ENOSPC. The writer must report it and leave no file behind.
TEST(Writer, FullDiskIsAClearErrorAndLeavesNothing) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = fs::temp_directory_path() / ("cubekit-full-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      const Report r =
          Report::open((shared_dir() / "data/real/cubelib/examples/summary.cubex").string());
      write_report(r, (dir / "out.cubex").string());
      ::_exit(2);  // should not succeed: the report is 3.8 MB
    } catch (const IoError& e) {
      const std::string what = e.what();
      ::_exit(what.find("out.cubex") != std::string::npos ? 0 : 3);
    } catch (...) {
      ::_exit(4);
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: wrote anyway, 3: message without the path, 4: other";
  EXPECT_TRUE(fs::is_empty(dir)) << "a partial file was left behind";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cubekit

namespace cubekit {
namespace {

// Killed half-way (SIGKILL: no destructor runs), the writer leaves no file at all.
TEST(Writer, KilledHalfWayLeavesNothing) {
  const fs::path dir = fs::temp_directory_path() / ("cubekit-kill-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Model model;
    ReportWriter w((dir / "x.cubex").string(), std::make_shared<Model>(model));
    w.add_member("misc", std::string(100000, 'x'));
    ::raise(SIGKILL);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(fs::is_empty(dir)) << "something was left behind";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cubekit

namespace cubekit {
namespace {

// The time stamps of every member header of a tar archive (ustar: 12 octal bytes at 136, the
// size at 124, contents padded to 512).
std::vector<std::string> tar_member_times(const std::string& archive) {
  std::vector<std::string> times;
  for (size_t at = 0; at + 512 <= archive.size() && archive[at] != '\0';) {
    times.push_back(archive.substr(at + 136, 11));
    const uint64_t size = std::stoull(archive.substr(at + 124, 11), nullptr, 8);
    at += 512 + (size + 511) / 512 * 512;
  }
  return times;
}

// A small report generated into `dir` (generate stamps its members itself), as the input of a
// tool whose output is stamped by the writer's default.
std::string generated_input(const test::TempDir& dir) {
  const std::string path = (dir.path() / "in.cubex").string();
  EXPECT_EQ(test::run_tool("cubekit", {"generate", "--call-paths", "3", "--nodes", "1", "-o", path})
                .exit_code,
            0);
  return path;
}

// SOURCE_DATE_EPOCH (the reproducible-builds convention) stamps every member, so that the same
// inputs written at different times give the same bytes.
TEST(Writer, SourceDateEpochStampsEveryMember) {
  const test::TempDir dir("epoch");
  const std::string input = generated_input(dir);
  test::RunLimits at_epoch;
  at_epoch.env = {{"SOURCE_DATE_EPOCH", "1700000000"}};
  const std::string a = (dir.path() / "a.cubex").string(), b = (dir.path() / "b.cubex").string();
  ASSERT_EQ(test::run_tool("cube_clean", {"-o", a, input}, at_epoch).exit_code, 0);
  const std::string archive = test::read_file(a);
  const std::vector<std::string> times = tar_member_times(archive);
  ASSERT_GE(times.size(), 3u);  // anchor.xml and each metric's data and index
  for (const std::string& time : times) EXPECT_EQ(time, "14524770400");  // 1700000000 in octal

  ::sleep(1);  // a second later: only the stamp could differ
  ASSERT_EQ(test::run_tool("cube_clean", {"-o", b, input}, at_epoch).exit_code, 0);
  EXPECT_TRUE(test::read_file(b) == archive);
}

TEST(Writer, SourceDateEpochThatIsNoNumberIsAClearError) {
  const test::TempDir dir("epoch");
  const std::string input = generated_input(dir);
  for (const std::string bad : {"soon", "17e8", "-1", "1700000000 ", "99999999999"}) {
    test::RunLimits limits;
    limits.env = {{"SOURCE_DATE_EPOCH", bad}};
    const test::RunResult r =
        test::run_tool("cube_clean", {"-o", (dir.path() / "out.cubex").string(), input}, limits);
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("out.cubex: SOURCE_DATE_EPOCH '" + bad + "'"), std::string::npos) << r.err;
    EXPECT_EQ(test::listing(dir.path()), std::vector<std::string>{"in.cubex"}) << bad;
  }
}

}  // namespace
}  // namespace cubekit
