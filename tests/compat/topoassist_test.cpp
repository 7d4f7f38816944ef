// cube_topoassist driven by -a answers, on a generated report whose system tree is known:
// one machine, 2 nodes, 2 processes per node (ranks 0-3), 2 threads per process (8 locations,
// ids 0-7 in rank order), and the generator's own topology "Process x Thread" (4 x 2).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "algebra_oracle.hpp"
#include "cubekit/report.hpp"

namespace {

using namespace cubekit::test;

// The numbers of coordinate i of t.
std::vector<int64_t> numbers(const cubekit::Topology& t, size_t i) {
  const std::span<const int64_t> v = t.values_of(t.coords[i]);
  return std::vector<int64_t>(v.begin(), v.end());
}

struct Fixture {
  TempDir tmp{"topoassist"};
  fs::path input = tmp.path() / "in.cubex";
  fs::path output = tmp.path() / "out.cubex";
  Fixture() {
    const RunResult g =
        run_tool("cubekit", {"generate", "--call-paths", "20", "--machines", "1", "--nodes", "2",
                             "--processes", "2", "--threads", "2", "-o", input.string()});
    EXPECT_EQ(g.exit_code, 0) << g.err;
  }
  RunResult run(const std::vector<std::string>& options, const std::vector<std::string>& answers) {
    std::vector<std::string> args = options;
    for (const std::string& a : answers) {
      args.push_back("-a");
      args.push_back(a);
    }
    args.push_back("-o");
    args.push_back(output.string());
    args.push_back(input.string());
    return run_tool("cube_topoassist", args);
  }
  std::vector<cubekit::Topology> topologies() const {
    return cubekit::Report::open(output.string()).model().topologies;
  }
};

TEST(CubeTopoassist, CreatesATopologyFromTheAnswers) {
  Fixture f;
  // 2 named dimensions x (4, not periodic) and y (2, periodic); the 8 threads in rank order
  // get (rank, thread).
  std::vector<std::string> answers = {"Grid", "2", "y", "x", "4", "n", "y", "2", "y"};
  for (int rank = 0; rank < 4; ++rank)
    for (int thread = 0; thread < 2; ++thread)
      answers.push_back(std::to_string(rank) + " " + std::to_string(thread));
  const RunResult r = f.run({"-c"}, answers);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Name for new topology?\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Is dimension 1 periodic?\n"), std::string::npos) << r.out;
  const auto t = f.topologies();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].name, "Grid");
  ASSERT_EQ(t[1].dims.size(), 2u);
  EXPECT_EQ(t[1].dims[0].name, "x");
  EXPECT_EQ(t[1].dims[0].size, 4);
  EXPECT_FALSE(t[1].dims[0].periodic);
  EXPECT_EQ(t[1].dims[1].name, "y");
  EXPECT_TRUE(t[1].dims[1].periodic);
  ASSERT_EQ(t[1].coords.size(), 8u);
  EXPECT_EQ(t[1].coords[5].owner_id, 5u);  // rank 2, thread 1
  EXPECT_EQ(numbers(t[1], 5), (std::vector<int64_t>{2, 1}));
}

TEST(CubeTopoassist, GeneratesFromTheSystemTree) {
  Fixture f;
  // Default: the single machine level (size 1) is left out: Node (2) x Process (2 per node) x
  // Thread (2). Location 5 is rank 2 (node 1, its first process), thread 1: (1, 0, 1).
  RunResult r = f.run({"-g"}, {"y"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto t = f.topologies();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].name, "Node x Process x Thread");
  ASSERT_EQ(t[1].dims.size(), 3u);
  EXPECT_EQ(t[1].dims[0].size, 2);
  EXPECT_EQ(t[1].dims[1].size, 2);
  EXPECT_EQ(t[1].dims[2].size, 2);
  ASSERT_EQ(t[1].coords.size(), 8u);
  EXPECT_EQ(numbers(t[1], 5), (std::vector<int64_t>{1, 0, 1}));
  // Keeping dimensions of size 1 adds Machine (1) in front.
  r = f.run({"-g"}, {"n", "y", "y"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  t = f.topologies();
  EXPECT_EQ(t[1].name, "Machine x Node x Process x Thread");
  EXPECT_EQ(numbers(t[1], 5), (std::vector<int64_t>{0, 1, 0, 1}));
}

TEST(CubeTopoassist, RenamesAndRemoves) {
  Fixture f;
  RunResult r = f.run({"-n"}, {"# a comment line is skipped", "0", "Hardware"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0. Process x Thread, 2 dimensions: "), std::string::npos) << r.out;
  EXPECT_EQ(f.topologies().at(0).name, "Hardware");
  r = f.run({"-d"}, {"0", "rank", "thread"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(f.topologies().at(0).dims.at(1).name, "thread");
  r = f.run({"-r"}, {"0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(f.topologies().empty());
}

TEST(CubeTopoassist, BadAnswersStopWithExitOne) {
  Fixture f;
  // Coordinate 8 in a dimension of size 8 (coordinates 0 to 7).
  std::vector<std::string> answers = {"G", "1", "n", "8", "n", "8"};
  RunResult r = f.run({"-c"}, answers);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("invalid coordinate"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(f.output));
  // Two threads at one place.
  answers = {"G", "1", "n", "8", "n", "0", "0"};
  for (int i = 2; i < 8; ++i) answers.push_back(std::to_string(i));
  r = f.run({"-c"}, answers);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("same coordinates"), std::string::npos) << r.err;
  // Fewer places (4) than threads (8).
  r = f.run({"-c"}, {"G", "1", "n", "4", "n"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("smaller than the number of threads"), std::string::npos) << r.err;
  // The answers run out (standard input is empty): no endless questions.
  r = f.run({"-c"}, {"G"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no answer to \"Number of Dimensions?\""), std::string::npos) << r.err;
  r = f.run({"-n"}, {"7"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no topology 7"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(f.output));
  EXPECT_EQ(run_tool("cube_topoassist", {f.input.string()}).exit_code, 1);  // no action
  EXPECT_EQ(run_tool("cube_topoassist", {"-c", "/nonexistent.cubex"}).exit_code, 1);
}

// The <cart> of a Cube 3 template: name, dims as "name size periodic", coords by thread id.
struct Cart {
  std::string name;
  std::vector<std::string> dims;
  std::map<uint32_t, std::vector<int64_t>> coords;
};

Cart template_cart(const fs::path& cube3) {
  const std::string text = read_file(cube3);
  Cart c;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, std::regex(R"re(<cart name="([^"]*)")re"))) << cube3;
  c.name = m[1];
  const std::regex dim(R"re(<dim name="([^"]*)" size="(\d+)" periodic="(\w+)"/>)re");
  for (std::sregex_iterator i(text.begin(), text.end(), dim), e; i != e; ++i)
    c.dims.push_back((*i)[1].str() + " " + (*i)[2].str() + " " + (*i)[3].str());
  const std::regex coord(R"re(<coord thrdId="(\d+)">([^<]*)</coord>)re");
  for (std::sregex_iterator i(text.begin(), text.end(), coord), e; i != e; ++i) {
    std::istringstream values((*i)[2].str());
    std::vector<int64_t> v;
    for (int64_t x; values >> x;) v.push_back(x);
    c.coords[static_cast<uint32_t>(std::stoul((*i)[1].str()))] = v;
  }
  return c;
}

Cart written_cart(const fs::path& report) {
  const auto topologies = cubekit::Report::open(report.string()).model().topologies;
  EXPECT_EQ(topologies.size(), 1u) << report;
  Cart c;
  if (topologies.empty()) return c;
  const cubekit::Topology& t = topologies[0];
  c.name = t.name;
  for (const auto& d : t.dims)
    c.dims.push_back(d.name + " " + std::to_string(d.size) + " " + (d.periodic ? "true" : "false"));
  for (const auto& x : t.coords)
    c.coords[x.owner_id].assign(t.values_of(x).begin(), t.values_of(x).end());
  return c;
}

// CubeLib's test 25 on a report with example3.cubex's system tree (one node, 64 processes of
// 16 threads): its answer files on standard input, no -o, run in the working folder, which
// gets topo.cubex after each step. The topology written must be the one of the test's
// templates (test25/template*.cube, CubeLib's output converted to Cube 3).
TEST(CubeTopoassist, CubeLibTest25StepsWriteTopoCubexWithItsTopologies) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path test25 = shared_dir() / "data" / "cubelib-test" / "test25";
  TempDir tmp("topoassist-test25");
  const fs::path generated = tmp.path() / "generated.cubex", start = tmp.path() / "start.cubex";
  RunResult r =
      run_tool("cubekit", {"generate", "--call-paths", "5", "--machines", "1", "--nodes", "1",
                           "--processes", "64", "--threads", "16", "-o", generated.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // example3.cubex has no topology: remove the generator's own.
  r = run_tool("cube_topoassist", {"-r", "-a", "0", "-o", start.string(), generated.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const struct {
    const char* option;
    fs::path input, answers, expected;
  } steps[] = {{"-c", start, test25 / "input.in", test25 / "template.cube"},
               {"-n", tmp.path() / "topo1.cubex", test25 / "input1.in", test25 / "template1.cube"},
               {"-d", tmp.path() / "topo2.cubex", test25 / "input2.in", test25 / "template2.cube"}};
  for (size_t i = 0; i < std::size(steps); ++i) {
    cubekit::test::RunLimits in_tmp;
    in_tmp.working_dir = tmp.path();
    in_tmp.stdin_file = steps[i].answers;
    r = run_tool("cube_topoassist", {steps[i].option, steps[i].input.string()}, in_tmp);
    ASSERT_EQ(r.exit_code, 0) << steps[i].option << ": " << r.err;
    EXPECT_NE(r.out.find("\nWrite topo.cubex......done.\n"), std::string::npos) << r.out;
    const fs::path topo = tmp.path() / "topo.cubex";
    ASSERT_TRUE(fs::exists(topo)) << steps[i].option;
    const Cart expected = template_cart(steps[i].expected), ours = written_cart(topo);
    EXPECT_EQ(ours.name, expected.name) << steps[i].option;
    EXPECT_EQ(ours.dims, expected.dims) << steps[i].option;
    EXPECT_EQ(ours.coords.size(), 1024u) << steps[i].option;
    EXPECT_EQ(ours.coords, expected.coords) << steps[i].option;
    fs::rename(topo, tmp.path() / ("topo" + std::to_string(i + 1) + ".cubex"));
  }
}

}  // namespace
