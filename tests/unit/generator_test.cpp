// The profile generator (cubekit/generator.hpp): determinism, shape, value consistency, every
// data type, compression, and that memory does not grow with the output.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"
#include "format/anchor_writer.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

class Generator : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cubekit-generator-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static GeneratorOptions small() {
    GeneratorOptions o;
    o.seed = 7;
    o.call_paths = 1500;
    o.machines = 1;
    o.nodes_per_machine = 2;
    o.processes_per_node = 2;
    o.threads_per_process = 3;
    return o;
  }
  std::string write(const std::string& name, const GeneratorOptions& o) {
    const std::string path = (dir_ / name).string();
    generate_report(path, o);
    return path;
  }

  fs::path dir_;
};

template <class T>
const T* row_of(const SeverityMatrix& m, Index c) {
  return reinterpret_cast<const T*>(m.row(c));
}

size_t depth_of(const Model& m, Index c) {
  size_t d = 1;
  for (Index p = m.cnodes[c].parent; p != kNoIndex; p = m.cnodes[p].parent) ++d;
  return d;
}

TEST_F(Generator, SameSeedSameBytesOtherSeedOtherValues) {
  GeneratorOptions o = small();
  o.papi = true;
  const std::string a = write("a.cubex", o);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // no clock in the bytes
  const std::string b = write("b.cubex", o);
  EXPECT_EQ(test::read_file(a), test::read_file(b));
  o.seed = 8;
  const std::string c = write("c.cubex", o);
  EXPECT_NE(test::read_file(a), test::read_file(c));
  const Report ra = Report::open(a), rc = Report::open(c);
  const Index time = *ra.model().metric_by_uniq_name("time");
  const double root_a = row_of<double>(*ra.severities(time), 0)[0];
  const double root_c = row_of<double>(*rc.severities(time), 0)[0];
  EXPECT_NE(root_a, root_c);
}

TEST_F(Generator, ShapeFollowsTheOptions) {
  GeneratorOptions o = small();
  o.gpu_streams_per_process = 2;
  o.depth = 8;
  o.fanout = 6;
  const Report r = Report::open(write("shape.cubex", o));
  const Model& m = r.model();
  EXPECT_EQ(m.locations.size(), 1u * 2 * 2 * (3 + 2));
  EXPECT_EQ(std::count_if(m.locations.begin(), m.locations.end(),
                          [](const Location& l) { return l.type == "gpu"; }),
            1 * 2 * 2 * 2);
  EXPECT_NEAR(static_cast<double>(m.cnodes.size()), 1500.0, 0.2 * 1500);
  ASSERT_EQ(m.cnode_roots().size(), 1u);
  EXPECT_EQ(m.regions[m.cnodes[0].region].name, "main");
  bool pre_order_ids = true;
  for (Index c = 0; c < m.cnodes.size(); ++c) {
    const Cnode& node = m.cnodes[c];
    pre_order_ids &= node.id == c;
    EXPECT_LE(depth_of(m, c), o.depth);
    EXPECT_LE(node.children.size(), o.fanout);
    const Region& region = m.regions[node.region];
    if (region.paradigm == "mpi") {
      EXPECT_TRUE(node.children.empty()) << region.name;
    }
    std::set<Index> path;
    for (Index p = c; p != kNoIndex; p = m.cnodes[p].parent)
      EXPECT_TRUE(path.insert(m.cnodes[p].region).second) << "region twice on the path of " << c;
  }
  EXPECT_FALSE(pre_order_ids) << "cnode ids should follow definition order, not pre-order";
  std::set<std::string> paradigms;
  for (const Region& region : m.regions) paradigms.insert(region.paradigm);
  for (const char* p : {"compiler", "user", "openmp", "mpi", "cuda"})
    EXPECT_TRUE(paradigms.count(p)) << p;
  EXPECT_EQ(*m.attr("CUBE_CT_AGGR"), "SUM");
  ASSERT_EQ(m.topologies.size(), 1u);
  EXPECT_EQ(m.topologies[0].coords.size(), m.locations.size());
}

// The anchor reader shares the texts of locations: 4 processes × 3 threads named "Master
// thread", "OMP thread 1", "OMP thread 2" hold one copy of each; coordinates (rank, thread).
TEST_F(Generator, ReadLocationsShareTheirNamesAndKeepTheirCoordinates) {
  GeneratorOptions o = small();
  o.definitions_only = true;
  const Report report = Report::open(write("names.cubex", o));
  const Model& m = report.model();
  ASSERT_EQ(m.locations.size(), 12u);
  const char* names[] = {"Master thread", "OMP thread 1", "OMP thread 2"};
  ASSERT_EQ(m.topologies.size(), 1u);
  const Topology& t = m.topologies[0];
  ASSERT_EQ(t.coords.size(), 12u);
  for (Index l = 0; l < 12; ++l) {
    EXPECT_EQ(m.locations[l].name, names[l % 3]) << l;
    EXPECT_EQ(&m.locations[l].name.str(), &m.locations[l % 3].name.str()) << l;
    EXPECT_EQ(&m.locations[l].type.str(), &m.locations[0].type.str()) << l;
    EXPECT_EQ(m.groups[m.locations[l].group].name, "MPI Rank " + std::to_string(l / 3)) << l;
    const std::span<const int64_t> coord = t.values_of(t.coords[l]);
    EXPECT_EQ(t.coords[l].owner_id, l);
    EXPECT_EQ(std::vector<int64_t>(coord.begin(), coord.end()),
              (std::vector<int64_t>{static_cast<int64_t>(l / 3), static_cast<int64_t>(l % 3)}));
  }
}

TEST_F(Generator, DefinitionsOnlyWritesTheSameTreesAndNoRows) {
  GeneratorOptions o = small();
  const Report full = Report::open(write("full.cubex", o));
  o.definitions_only = true;
  const std::string path = write("empty.cubex", o);
  const Report empty = Report::open(path);
  EXPECT_EQ(format::anchor_xml(empty.model()), format::anchor_xml(full.model()));
  for (Index m = 0; m < empty.model().metrics.size(); ++m) {
    const auto rows = empty.severities(m);
    for (Index c = 0; c < empty.model().cnodes.size(); ++c)
      EXPECT_FALSE(rows->has_row(c)) << "metric " << m << " cnode " << c;
  }
  // Values of the full report: about 12 bytes per value at least; the empty one holds far less.
  EXPECT_LT(fs::file_size(path) * 4, fs::file_size(dir_ / "full.cubex"));
}

TEST_F(Generator, ValuesAreConsistent) {
  GeneratorOptions o = small();
  o.papi = true;
  const Report r = Report::open(write("values.cubex", o));
  const Model& m = r.model();
  auto metric = [&](const char* name) { return r.severities(*m.metric_by_uniq_name(name)); };
  const auto time = metric("time"), visits = metric("visits"), min_time = metric("min_time"),
             max_time = metric("max_time"), ins = metric("PAPI_TOT_INS");
  const size_t locations = m.locations.size();
  std::vector<double> children_time(locations);
  std::vector<uint64_t> children_ins(locations);
  for (Index c = 0; c < m.cnodes.size(); ++c) {
    ASSERT_TRUE(time->has_row(c));
    std::fill(children_time.begin(), children_time.end(), 0.0);
    std::fill(children_ins.begin(), children_ins.end(), 0);
    for (Index k : m.cnodes[c].children)
      for (size_t l = 0; l < locations; ++l) {
        children_time[l] += row_of<double>(*time, k)[l];
        if (ins->has_row(k)) children_ins[l] += row_of<uint64_t>(*ins, k)[l];
      }
    const double* incl = row_of<double>(*time, c);
    for (size_t l = 0; l < locations; ++l) {
      ASSERT_GE(incl[l], children_time[l] * (1 - 1e-9)) << "cnode " << c << " location " << l;
      if (ins->has_row(c)) {
        ASSERT_GE(row_of<uint64_t>(*ins, c)[l], children_ins[l]);
      }
      const double excl = incl[l] - children_time[l];
      const uint64_t v = visits->has_row(c) ? row_of<uint64_t>(*visits, c)[l] : 0;
      if (excl > 1e-9 * incl[l]) {
        ASSERT_GE(v, 1u) << "cnode " << c << " location " << l;
      }
      if (v == 0) continue;
      const double lo = row_of<double>(*min_time, c)[l], hi = row_of<double>(*max_time, c)[l];
      ASSERT_LE(lo, hi);
      ASSERT_LE(hi, incl[l] * (1 + 1e-12));
      ASSERT_GT(lo, 0);
    }
  }
  // Bytes only on MPI leaves.
  for (const char* name : {"bytes_sent", "bytes_received"}) {
    const auto bytes = metric(name);
    ASSERT_NE(bytes, nullptr) << name;
    for (Index c = 0; c < m.cnodes.size(); ++c)
      if (bytes->has_row(c)) {
        EXPECT_EQ(m.regions[m.cnodes[c].region].paradigm, "mpi");
      }
    EXPECT_LT(bytes->stored_rows(), m.cnodes.size() / 4);
  }
}

TEST_F(Generator, AllTypesReadBack) {
  GeneratorOptions o = small();
  o.call_paths = 300;
  o.all_types = true;
  const Report r = Report::open(write("types.cubex", o));
  const Model& m = r.model();
  std::set<TypeKind> kinds;
  for (Index i = 0; i < m.metrics.size(); ++i) {
    const auto values = r.severities(i);
    ASSERT_NE(values, nullptr) << m.metrics[i].uniq_name;
    EXPECT_GT(values->stored_rows(), 0u) << m.metrics[i].uniq_name;
    kinds.insert(m.metrics[i].dtype.kind());
  }
  for (int k = 0; k <= static_cast<int>(TypeKind::kNDoubles); ++k)
    EXPECT_TRUE(kinds.count(static_cast<TypeKind>(k))) << "type " << k;
}

TEST_F(Generator, CompressedReadsBackTheSameValues) {
  GeneratorOptions o = small();
  o.call_paths = 400;
  o.papi = true;
  const Report plain = Report::open(write("plain.cubex", o));
  o.compress = true;
  const Report packed = Report::open(write("packed.cubex", o));
  for (Index i = 0; i < plain.model().metrics.size(); ++i) {
    const auto a = plain.severities(i), b = packed.severities(i);
    ASSERT_EQ(a == nullptr, b == nullptr);
    if (!a) continue;
    for (Index c = 0; c < plain.model().cnodes.size(); ++c) {
      ASSERT_EQ(a->has_row(c), b->has_row(c));
      if (a->has_row(c)) {
        ASSERT_EQ(std::memcmp(a->row(c), b->row(c), a->row_bytes()), 0);
      }
    }
  }
}

TEST_F(Generator, RejectsImpossibleOptions) {
  GeneratorOptions o = small();
  o.depth = 3;
  o.fanout = 4;  // at most 1 + 4 + 16 call paths
  EXPECT_THROW(generate_report((dir_ / "x.cubex").string(), o), Error);
  o = small();
  o.threads_per_process = 0;
  EXPECT_THROW(generate_report((dir_ / "x.cubex").string(), o), Error);
  EXPECT_FALSE(fs::exists(dir_ / "x.cubex"));
}

TEST_F(Generator, FitToSizeAimsAtTheSize) {
  const GeneratorOptions o = fit_to_size(small(), 500'000'000, false);
  const double estimate = static_cast<double>(estimated_data_bytes(o));
  EXPECT_NEAR(estimate, 5e8, 0.2 * 5e8);
}

// Peak memory of a separate `cubekit generate` writing about 100 MB stays far below that.
// Peak RSS of `cubekit generate` writing `processes` × 4 locations × 3000 call paths, and the
// size written: run in a child so the measure is the tool's own.
std::pair<uint64_t, uint64_t> generate_and_measure(const std::string& out, int processes) {
  const pid_t pid = ::fork();
  if (pid < 0) return {0, 0};
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout)) ::_exit(127);
    const std::string p = std::to_string(processes);
    ::execl(CUBEKIT_TOOL, "cubekit", "generate", "--call-paths", "3000", "--processes", p.c_str(),
            "--threads", "4", "-o", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return {0, 0};
  return {fs::file_size(out), static_cast<uint64_t>(usage.ru_maxrss) * 1024};
}

// Streaming: writing 8 times more must not take noticeably more memory. Compared with a small
// run rather than a fixed bound, so that sanitizer builds (larger baseline) measure the same.
TEST_F(Generator, MemoryDoesNotGrowWithTheOutput) {
  const auto [small_bytes, small_rss] = generate_and_measure((dir_ / "small.cubex").string(), 16);
  const auto [big_bytes, big_rss] = generate_and_measure((dir_ / "big.cubex").string(), 128);
  ASSERT_GT(small_bytes, 0u);
  EXPECT_GT(big_bytes, 80'000'000u);
  EXPECT_LT(big_rss, small_rss + big_bytes / 10)
      << "peak RSS " << small_rss << " B for " << small_bytes << " B written, " << big_rss
      << " B for " << big_bytes << " B";
}

}  // namespace
}  // namespace cubekit
