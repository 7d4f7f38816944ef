// The Cube 3 single-XML reader (cube-format.md §10).
#include <unistd.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

// The small example of cube-format.md §10.5.
constexpr const char* kExample = R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="3.0">
  <metrics>
    <metric id="0">
      <disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype>
      <uom>sec</uom><url></url><descr></descr>
    </metric>
  </metrics>
  <program>
    <region id="0" mod="x.c" begin="1" end="20"><name>main</name><url></url><descr></descr></region>
    <region id="1" mod="x.c" begin="21" end="30"><name>work</name><url></url><descr></descr></region>
    <cnode id="0" calleeId="0"><cnode id="1" calleeId="1"></cnode></cnode>
  </program>
  <system>
    <machine Id="0"><name>m</name>
      <node Id="0"><name>n0</name>
        <process Id="0"><rank>0</rank>
          <thread Id="0"><rank>0</rank></thread>
          <thread Id="1"><rank>1</rank></thread>
        </process>
      </node>
    </machine>
  </system>
  <severity>
    <matrix metricId="0">
      <row cnodeId="0">0.5 0.25</row>
      <row cnodeId="1">2.0 1.5</row>
    </matrix>
  </severity>
</cube>
)";

// A fresh file name in the temporary directory, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            (std::string("cubekit_") + info->name() + "_" + std::to_string(::getpid()) + suffix);
  }
  ~TempFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }
  void write(const std::string& content) const {
    std::ofstream(path_, std::ios::binary) << content;
  }
  void write_gzip(const std::string& content) const {
    gzFile f = gzopen(path_.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())),
              static_cast<int>(content.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
  }

 private:
  std::string path_;
};

const double* doubles(const std::shared_ptr<const SeverityMatrix>& m, Index cnode) {
  return reinterpret_cast<const double*>(m->row(cnode));
}

void expect_example(const Report& report) {
  const Model& model = report.model();
  EXPECT_EQ(model.version, "3.0");
  ASSERT_EQ(model.metrics.size(), 1u);
  EXPECT_EQ(model.metrics[0].kind, MetricKind::kExclusive);  // no type= in Cube 3
  ASSERT_EQ(model.cnodes.size(), 2u);
  ASSERT_EQ(model.system_nodes.size(), 2u);
  EXPECT_EQ(model.system_nodes[0].class_name, "machine");
  EXPECT_EQ(model.system_nodes[1].class_name, "node");
  EXPECT_EQ(model.system_nodes[1].parent, 0u);
  ASSERT_EQ(model.groups.size(), 1u);
  EXPECT_EQ(model.groups[0].name, "Process 0");  // default name from the rank
  ASSERT_EQ(model.locations.size(), 2u);
  EXPECT_EQ(model.locations[1].name, "Thread 1");
  EXPECT_EQ(model.locations[1].type, "thread");

  ASSERT_TRUE(report.has_data(0));
  const auto m = report.severities(0);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->locations(), 2u);
  const Index main = *model.cnode_by_id(0);
  const Index work = *model.cnode_by_id(1);
  EXPECT_EQ(doubles(m, main)[0], 0.5);
  EXPECT_EQ(doubles(m, main)[1], 0.25);
  EXPECT_EQ(doubles(m, work)[0], 2.0);
  EXPECT_EQ(doubles(m, work)[1], 1.5);
  EXPECT_TRUE(report.members().empty());
}

TEST(Cube3Reader, ReadsTheSpecExample) {
  TempFile file(".cube");
  file.write(kExample);
  expect_example(Report::open(file.path()));
}

TEST(Cube3Reader, ReadsGzipCompressedDocuments) {
  TempFile file(".cube.gz");
  file.write_gzip(kExample);
  expect_example(Report::open(file.path()));
}

TEST(Cube3Reader, MissingValuesAreZeroAndIntegersAreRounded) {
  std::string xml = kExample;
  xml.replace(xml.find("FLOAT"), 5, "INTEGER");
  xml.replace(xml.find("0.5 0.25"), 8, "2.6");
  TempFile file(".cube");
  file.write(xml);
  const Report report = Report::open(file.path());
  const auto m = report.severities(0);
  const auto* row = reinterpret_cast<const int64_t*>(m->row(*report.model().cnode_by_id(0)));
  EXPECT_EQ(row[0], 3);
  EXPECT_EQ(row[1], 0);
}

TEST(Cube3Reader, VoidMetricsHaveNoData) {
  std::string xml = kExample;
  xml.replace(xml.find("<url></url>"), 0, "<val>VOID</val>");
  TempFile file(".cube");
  file.write(xml);
  const Report report = Report::open(file.path());
  EXPECT_FALSE(report.has_data(0));
  EXPECT_EQ(report.severities(0), nullptr);
}

// cube-format.md §3.2 allows inline <severity> in a Cube 4 anchor too; the data rules are the same.
TEST(Cube3Reader, ReadsInlineSeverityOfCube4Documents) {
  std::string xml = kExample;
  xml.replace(xml.find("3.0"), 3, "4.4");
  const size_t begin = xml.find("<system>"), end = xml.find("</system>");
  xml.replace(begin, end - begin,
              R"(<system><systemtreenode Id="0"><name>m</name><class>machine</class>
    <locationgroup Id="0"><name>p</name><rank>0</rank><type>process</type>
      <location Id="0"><name>t0</name><rank>0</rank><type>thread</type></location>
      <location Id="1"><name>t1</name><rank>1</rank><type>thread</type></location>
    </locationgroup></systemtreenode>)");
  TempFile file(".cube");
  file.write(xml);
  const Report report = Report::open(file.path());
  EXPECT_EQ(report.model().locations.size(), 2u);
  EXPECT_EQ(doubles(report.severities(0), *report.model().cnode_by_id(1))[1], 1.5);
}

// Expects opening `xml` to fail with a FormatError naming the file and containing `phrase`.
void expect_format_error(const std::string& xml, const std::string& phrase) {
  TempFile file(".cube");
  file.write(xml);
  try {
    Report::open(file.path());
    FAIL() << "no error; expected one containing '" << phrase << "'";
  } catch (const FormatError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(file.path()), std::string::npos) << message;
    EXPECT_NE(message.find(phrase), std::string::npos) << message;
  }
}

std::string replaced(std::string xml, const std::string& from, const std::string& to) {
  xml.replace(xml.find(from), from.size(), to);
  return xml;
}

// CubeLib's test0.0.cubex anchor is version 4.0 with a Cube 3 system tree; accept that here too.
TEST(Cube3Reader, ReadsCube3SystemTreesInCube4Documents) {
  TempFile file(".cube");
  file.write(replaced(kExample, "version=\"3.0\"", "version=\"4.0\""));
  const Report report = Report::open(file.path());
  EXPECT_EQ(report.model().system_nodes.size(), 2u);
  EXPECT_EQ(report.model().locations.size(), 2u);
}

TEST(Cube3Reader, RejectsOtherVersions) {
  expect_format_error(replaced(kExample, "version=\"3.0\"", "version=\"2.0\""),
                      "unsupported <cube version=\"2.0\">");
}

TEST(Cube3Reader, RejectsRowsWithTooManyValues) {
  // The bad row is on line 27 of the example; the message names line, metric and cnode.
  expect_format_error(replaced(kExample, "2.0 1.5", "2.0 1.5 7"),
                      ":27:7: row cnodeId 1 of matrix metricId 0 has more values");
}

TEST(Cube3Reader, RejectsUndefinedCnodes) {
  expect_format_error(replaced(kExample, "<row cnodeId=\"1\"", "<row cnodeId=\"9\""),
                      "cnodeId 9 is not defined");
}

TEST(Cube3Reader, RejectsUndefinedMetrics) {
  expect_format_error(replaced(kExample, "metricId=\"0\"", "metricId=\"4\""),
                      "metricId 4 is not defined");
}

// CubeLib's grammar needs a metric, a region, a call path and a machine; it refuses a document
// without one of them, and so does cubekit, naming the element (line 3: <metrics>, line 9:
// <program>, line 14: <system> of the example).
TEST(Cube3Reader, RejectsEmptyDimensions) {
  const std::string example = kExample;
  const auto cut = [&](const std::string& from, const std::string& to) {  // empties an element
    const size_t a = example.find(from), b = example.find(to);
    return example.substr(0, a + from.size()) + "\n  " + example.substr(b);
  };
  expect_format_error(cut("<metrics>", "</metrics>"),
                      ":3:3: the metric dimension is empty: no <metric>");
  expect_format_error(cut("<program>", "</program>"),
                      ":9:3: the program dimension is empty: no <region> and <cnode>");
  expect_format_error(cut("<system>", "</system>"),
                      ":14:3: the system dimension is empty: no <machine>");
}

TEST(Cube3Reader, RejectsMalformedXml) {
  expect_format_error(replaced(kExample, "</program>", "</programm>"), "malformed XML");
}

TEST(Cube3Reader, RejectsMalformedNumbers) {
  expect_format_error(replaced(kExample, "2.0 1.5", "2.0 x"), "'x' is not a decimal number");
}

// All-zero rows of sum types are the identity: not stored, read as 0; still unique.
TEST(Cube3Reader, ZeroRowsAreReadAsZeroWithoutBeingStored) {
  TempFile file(".cube");
  file.write(replaced(kExample, "0.5 0.25", "0 0.0"));
  const Report report = Report::open(file.path());
  const Index main = *report.model().cnode_by_id(0);
  EXPECT_FALSE(report.severities(0)->has_row(main));
  const Values v =
      MetricEngine(report).location_values(0, main, Flavour::kInclusive, Flavour::kExclusive);
  EXPECT_EQ(v.scalar(0), 0.0);
  EXPECT_EQ(v.scalar(1), 0.0);
  expect_format_error(
      replaced(kExample, "<row cnodeId=\"1\">2.0 1.5</row>", "<row cnodeId=\"0\"></row>"),
      "row cnodeId 0 of matrix metricId 0 appears twice");
}

// For MINDOUBLE 0 is a value, not the identity (DBL_MAX): the row stays.
TEST(Cube3Reader, ZeroRowsOfMinDoubleAreStored) {
  TempFile file(".cube");
  file.write(replaced(replaced(kExample, "FLOAT", "MINDOUBLE"), "0.5 0.25", "0 0"));
  const Report report = Report::open(file.path());
  const Index main = *report.model().cnode_by_id(0);
  ASSERT_TRUE(report.severities(0)->has_row(main));
  EXPECT_EQ(doubles(report.severities(0), main)[0], 0.0);
}

// Rows may leave trailing values out, so 30 bytes of <row> can stand for 5,000 values: a small
// document must not make the reader allocate gigabytes.
TEST(Cube3Reader, RejectsDocumentsDescribingFarMoreValuesThanTheyHold) {
  constexpr int kThreads = 5000, kCnodes = 3000;
  std::string xml = R"(<?xml version="1.0"?><cube version="3.0"><metrics><metric id="0">)"
                    R"(<uniq_name>t</uniq_name><dtype>FLOAT</dtype></metric></metrics><program>)"
                    R"(<region id="0" mod="x" begin="1" end="2"><name>r</name></region>)";
  for (int c = 0; c < kCnodes; ++c)
    xml += "<cnode id=\"" + std::to_string(c) + "\" calleeId=\"0\"/>";
  xml += R"(</program><system><machine Id="0"><node Id="0"><process Id="0">)";
  for (int t = 0; t < kThreads; ++t) xml += "<thread Id=\"" + std::to_string(t) + "\"/>";
  xml += R"(</process></node></machine></system><severity><matrix metricId="0">)";
  for (int c = 0; c < kCnodes; ++c) xml += "<row cnodeId=\"" + std::to_string(c) + "\">1</row>";
  xml += "</matrix></severity></cube>";
  expect_format_error(xml, "more than a document of " + std::to_string(xml.size()) + " bytes");
}

// A MAXDOUBLE call path without a row holds a row of zeros (CubeLib reads 0 there, not the
// identity), so a document of call paths and threads alone describes 3000 × 5000 values too.
TEST(Cube3Reader, RejectsDocumentsWhoseAbsentRowsNeedFarMoreThanTheyHold) {
  constexpr int kThreads = 5000, kCnodes = 3000;
  std::string xml = R"(<?xml version="1.0"?><cube version="3.0"><metrics><metric id="0">)"
                    R"(<uniq_name>t</uniq_name><dtype>MAXDOUBLE</dtype></metric></metrics>)"
                    R"(<program><region id="0" mod="x" begin="1" end="2"><name>r</name></region>)";
  for (int c = 0; c < kCnodes; ++c)
    xml += "<cnode id=\"" + std::to_string(c) + "\" calleeId=\"0\"/>";
  xml += R"(</program><system><machine Id="0"><node Id="0"><process Id="0">)";
  for (int t = 0; t < kThreads; ++t) xml += "<thread Id=\"" + std::to_string(t) + "\"/>";
  xml += "</process></node></machine></system><severity></severity></cube>";
  expect_format_error(xml, "more than a document of " + std::to_string(xml.size()) +
                               " bytes can describe (call paths without a <row> hold zeros");
}

// Where a MIN/MAXDOUBLE call path has no row, the reader stores zeros (cube_dump's view of
// this is tests/compat/dump_cube3_absent_rows_test.cpp); a DOUBLE one stays without a row.
TEST(Cube3Reader, AbsentMaxDoubleRowsAreZeroRows) {
  TempFile file(".cube");
  file.write(
      replaced(replaced(kExample, "FLOAT", "MAXDOUBLE"), "<row cnodeId=\"0\">0.5 0.25</row>", ""));
  const Report report = Report::open(file.path());
  const Index main = *report.model().cnode_by_id(0);
  ASSERT_TRUE(report.severities(0)->has_row(main));
  EXPECT_EQ(doubles(report.severities(0), main)[0], 0.0);
  EXPECT_EQ(doubles(report.severities(0), main)[1], 0.0);
  file.write(replaced(kExample, "<row cnodeId=\"0\">0.5 0.25</row>", ""));
  EXPECT_FALSE(Report::open(file.path()).severities(0)->has_row(main));
}

TEST(Cube3Reader, RejectsEmptyFiles) {
  expect_format_error("", "empty file");
}

struct RealFile {
  const char* path;  // under data/real/cubelib
  size_t metrics, cnodes, locations;
};

// Counts read by hand from the oracle's cube_dump -w output,
// oracle/cubelib__test__<dir>__<file>.cube/dump_w.out: entries under METRIC DIMENSION and
// CALL TREE, and "type=thread" lines under SYSTEM DIMENSION.
constexpr RealFile kRealFiles[] = {
    {"test0.0/test0.0.cube", 3, 3, 2},       {"test1.1/equal.cube", 47, 21, 32},
    {"test1.1/not_equal1.cube", 47, 21, 32}, {"test1.1/template.cube", 47, 21, 32},
    {"test16/profile.cube", 6, 130, 36},     {"test16/trace.cube", 110, 130, 36},
};

TEST(Cube3Reader, ReadsTheRealFiles) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  for (const RealFile& f : kRealFiles) {
    SCOPED_TRACE(f.path);
    const Report report = Report::open((shared / "data/real/cubelib" / f.path).string());
    const Model& model = report.model();
    EXPECT_EQ(model.metrics.size(), f.metrics);
    EXPECT_EQ(model.cnodes.size(), f.cnodes);
    EXPECT_EQ(model.locations.size(), f.locations);
    for (Index m = 0; m < model.metrics.size(); ++m) (void)report.severities(m);
  }
}

// test0.0.cube stores INTEGER values one per line; foo's row of "System time" is 0, 323.
TEST(Cube3Reader, ReadsRealValues) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  const Report report = Report::open((shared / "data/real/cubelib/test0.0/test0.0.cube").string());
  const Model& model = report.model();
  EXPECT_EQ(model.system_nodes[0].name, "MSC");
  EXPECT_EQ(model.groups[1].name, "Process 1");
  const auto m = report.severities(*model.metric_by_uniq_name("Uniq_name3"));
  const auto* foo = reinterpret_cast<const int64_t*>(m->row(*model.cnode_by_id(1)));
  EXPECT_EQ(foo[0], 0);
  EXPECT_EQ(foo[1], 323);
}

}  // namespace
}  // namespace cubekit
