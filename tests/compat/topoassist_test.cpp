// cube_topoassist driven by -a answers, on a generated report whose system tree is known:
// one machine, 2 nodes, 2 processes per node (ranks 0-3), 2 threads per process (8 locations,
// ids 0-7 in rank order), and the generator's own topology "Process x Thread" (4 x 2).
#include <gtest/gtest.h>

#include "algebra_oracle.hpp"
#include "cubekit/report.hpp"

namespace {

using namespace cubekit::test;

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
  EXPECT_EQ(t[1].coords[5].coords, (std::vector<int64_t>{2, 1}));
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
  EXPECT_EQ(t[1].coords[5].coords, (std::vector<int64_t>{1, 0, 1}));
  // Keeping dimensions of size 1 adds Machine (1) in front.
  r = f.run({"-g"}, {"n", "y", "y"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  t = f.topologies();
  EXPECT_EQ(t[1].name, "Machine x Node x Process x Thread");
  EXPECT_EQ(t[1].coords[5].coords, (std::vector<int64_t>{0, 1, 0, 1}));
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

}  // namespace
