// Damaged and unusual .cubex files (cube-format.md §2, §5, §6, §11): every rejection must be a
// cubekit error whose message names the file, the member and what is wrong; every tolerated
// oddity must read the same values as a clean archive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <regex>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/report.hpp"
#include "cubekit/value_text.hpp"
#include "format/tree_reader.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

using test::AnchorSpec;
using test::TarBuilder;

// Values of the default anchor (test::AnchorSpec): cnodes main(0) → foo(1), bar(2), two
// locations. Pre-order and children-first order are both 0, 1, 2 for this tree.
const std::vector<double> kTime = {1.5, 2.5, 3.0, 4.0, 0.25, 0.75};  // 3 rows × 2 locations
const std::vector<uint64_t> kVisits = {1, 2, 7, 9};                  // rows for cnodes 0 and 2
const std::vector<uint32_t> kVisitPositions = {0, 2};

std::string time_rows(bool big_endian = false) {
  return test::encode_values(kTime, big_endian);
}
std::string visit_rows(bool big_endian = false) {
  return test::encode_values(kVisits, big_endian);
}

// A valid archive in CubeW's member order (data, index, …, anchor last).
TarBuilder valid_archive(const std::string& anchor = test::anchor_xml(), bool big_endian = false) {
  TarBuilder t;
  t.add("0.data", test::plain_data(time_rows(big_endian)))
      .add("0.index", test::dense_index(big_endian))
      .add("1.data", test::plain_data(visit_rows(big_endian)))
      .add("1.index", test::sparse_index(kVisitPositions, big_endian))
      .add("anchor.xml", anchor);
  return t;
}

Index metric(const Report& r, const char* name) {
  const auto m = r.model().metric_by_uniq_name(name);
  if (!m) throw std::runtime_error(std::string("no metric ") + name);
  return *m;
}

std::vector<double> doubles(const SeverityMatrix& m, Index cnode) {
  std::vector<double> v(m.locations());
  if (const std::byte* row = m.row(cnode)) std::memcpy(v.data(), row, v.size() * sizeof(double));
  return v;
}

std::vector<uint64_t> uint64s(const SeverityMatrix& m, Index cnode) {
  std::vector<uint64_t> v(m.locations());
  if (const std::byte* row = m.row(cnode)) std::memcpy(v.data(), row, v.size() * sizeof(uint64_t));
  return v;
}

// Checks that `report` holds exactly the default values.
void expect_default_values(const Report& report) {
  const auto time = report.severities(metric(report, "time"));
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(doubles(*time, 0), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(doubles(*time, 1), (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ(doubles(*time, 2), (std::vector<double>{0.25, 0.75}));
  const auto visits = report.severities(metric(report, "visits"));
  ASSERT_NE(visits, nullptr);
  EXPECT_EQ(uint64s(*visits, 0), (std::vector<uint64_t>{1, 2}));
  EXPECT_FALSE(visits->has_row(1));  // not in the sparse index: identity
  EXPECT_EQ(uint64s(*visits, 2), (std::vector<uint64_t>{7, 9}));
}

class BadInput : public ::testing::Test {
 protected:
  std::string write(const std::string& name, std::string_view bytes) {
    return dir_.write(name, bytes);
  }

  // Runs `f`, requires it to throw exactly E (not a sibling), and requires each of `parts` in
  // the message. The message is recorded as a test property (see --gtest_output=xml) so that the
  // README table can be generated from the test run.
  template <class E>
  void expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
    try {
      f();
      ADD_FAILURE() << "no exception; expected one containing '" << *parts.begin() << "'";
    } catch (const E& e) {
      const std::string msg = e.what();
      RecordProperty("message", msg);
      for (const std::string& p : parts)
        EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nmissing: " << p;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type: " << e.what();
    }
  }

  // Opening must fail with E.
  template <class E>
  void expect_open_error(const std::string& path, std::initializer_list<std::string> parts) {
    expect_error<E>([&] { Report::open(path); }, parts);
  }

  // Opening succeeds, but decoding metric `name` fails with a FormatError; the other metric of
  // the default anchor still reads (errors in data are per metric, §11.1).
  void expect_metric_error(const std::string& path, const char* name,
                           std::initializer_list<std::string> parts) {
    const Report report = Report::open(path);
    expect_error<FormatError>([&] { report.severities(metric(report, name)); }, parts);
    const char* other = std::string_view(name) == "time" ? "visits" : "time";
    EXPECT_NO_THROW(report.severities(metric(report, other)));
  }

  // An archive in which member `name` of the valid archive is replaced by `bytes`.
  std::string with_member(const std::string& file, const std::string& name,
                          std::string_view bytes) {
    TarBuilder t = valid_archive();
    t.add(name, bytes);  // a later duplicate replaces the earlier member
    return write(file, t.finish());
  }

  test::TempDir dir_{"bad-input"};
};

// ---------------------------------------------------------------------------------------
// Valid and tolerated inputs

TEST_F(BadInput, ValidMinimalArchiveReads) {
  const Report report = Report::open(write("ok.cubex", valid_archive().finish()));
  EXPECT_EQ(report.model().metrics.size(), 2u);
  EXPECT_EQ(report.model().cnodes.size(), 3u);
  EXPECT_EQ(report.model().locations.size(), 2u);
  expect_default_values(report);
}

TEST_F(BadInput, BigEndianPairDecodesLikeLittleEndian) {
  const Report report =
      Report::open(write("be.cubex", valid_archive(test::anchor_xml(), true).finish()));
  expect_default_values(report);
}

TEST_F(BadInput, CompressedDataDecodesLikePlainData) {
  for (const bool big : {false, true}) {
    TarBuilder t;
    t.add("0.data", test::zcubex_data(time_rows(big), 2 * sizeof(double), big))
        .add("0.index", test::dense_index(big))
        .add("1.data", test::zcubex_data(visit_rows(big), 2 * sizeof(uint64_t), big))
        .add("1.index", test::sparse_index(kVisitPositions, big))
        .add("anchor.xml", test::anchor_xml());
    SCOPED_TRACE(big ? "big-endian" : "little-endian");
    expect_default_values(Report::open(write("z.cubex", t.finish())));
  }
}

TEST_F(BadInput, CompressedRowWithEmptyEntryIsIdentity) {
  // Entries with size_compressed = 0 are rows never written (§6.3) and must be skipped.
  std::string rows = time_rows();
  std::string data = test::zcubex_data(rows, 16);
  // Zero the third entry (start, offset, size) in place: row 2 becomes absent.
  std::memset(data.data() + 19 + 2 * 24, 0, 24);
  TarBuilder t = valid_archive();
  t.add("0.data", data);
  const Report report = Report::open(write("z0.cubex", t.finish()));
  const auto time = report.severities(metric(report, "time"));
  EXPECT_EQ(doubles(*time, 1), (std::vector<double>{3.0, 4.0}));
  EXPECT_FALSE(time->has_row(2));
}

TEST_F(BadInput, PaxSizeHeaderIsRead) {
  TarBuilder t;
  t.add("0.data", test::plain_data(time_rows()))
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(visit_rows()))
      .add("1.index", test::sparse_index(kVisitPositions))
      // The ordinary header's size (1) is wrong on purpose: the pax record must win.
      .add_pax_size("anchor.xml", test::anchor_xml(), 1);
  const Report report = Report::open(write("pax.cubex", t.finish()));
  expect_default_values(report);
}

TEST_F(BadInput, GnuLongNameIsRead) {
  const std::string long_name(150, 'n');
  const std::string misc = "misc payload";
  TarBuilder t = valid_archive();
  t.add_long_name(long_name + ".spec", misc);
  const Report report = Report::open(write("long.cubex", t.finish()));
  EXPECT_EQ(report.member_content(long_name + ".spec"), misc);
  EXPECT_FALSE(report.member_content(long_name.substr(0, 100)).has_value());
  expect_default_values(report);
}

TEST_F(BadInput, CubeWExtraZeroBlockIsSkipped) {
  // An anchor (and a misc member) whose size is a multiple of 512, written CubeW-style with a
  // whole extra zero block after it; the data members follow and must still be found.
  std::string anchor = test::anchor_xml();
  anchor.append(1024 - anchor.size() % 512, '\n');
  ASSERT_EQ(anchor.size() % 512, 0u);
  TarBuilder t;
  t.add_cubew("anchor.xml", anchor)
      .add_cubew("remapping.spec", std::string(512, 'x'))
      .add_cubew("0.data", test::plain_data(time_rows()))
      .add_cubew("0.index", test::dense_index())
      .add_cubew("1.data", test::plain_data(visit_rows()))
      .add_cubew("1.index", test::sparse_index(kVisitPositions));
  const Report report = Report::open(write("cubew.cubex", t.finish()));
  EXPECT_EQ(report.member_content("remapping.spec"), std::string(512, 'x'));
  expect_default_values(report);
}

TEST_F(BadInput, DuplicateMemberLastOneWins) {
  TarBuilder t;
  t.add("0.data", "garbage, not a data member")
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(visit_rows()))
      .add("1.index", test::sparse_index(kVisitPositions))
      .add("anchor.xml", test::anchor_xml())
      .add("0.data", test::plain_data(time_rows()));
  const Report report = Report::open(write("dup.cubex", t.finish()));
  expect_default_values(report);
  int count = 0;
  for (const MemberInfo& m : report.members()) count += m.name == "0.data";
  EXPECT_EQ(count, 1);
}

TEST_F(BadInput, GzipAnchorIsRead) {
  TarBuilder t;
  t.add("0.data", test::plain_data(time_rows()))
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(visit_rows()))
      .add("1.index", test::sparse_index(kVisitPositions))
      .add("anchor.xml", test::gzip_compress(test::anchor_xml()));
  expect_default_values(Report::open(write("gz.cubex", t.finish())));
}

TEST_F(BadInput, DataForUnknownMetricIsIgnored) {
  // 7.index / 7.data and ghost files of an undeclared metric are orphans (§2.4): ignored, even
  // when their content is garbage.
  TarBuilder t = valid_archive();
  t.add("7.index", test::sparse_index({0}))
      .add("7.data", test::plain_data(test::encode_values(std::vector<double>{5, 6})))
      .add("ghost_9.index", "not an index")
      .add("ghost_9.data", "not data");
  const Report report = Report::open(write("orphan.cubex", t.finish()));
  EXPECT_EQ(report.model().metrics.size(), 2u);
  expect_default_values(report);
}

TEST_F(BadInput, ReportWithoutLocationsReads) {
  // Rows of zero values: found by fuzzing, empty rows used to reach memcpy with a null pointer.
  AnchorSpec spec;
  spec.location_ids.clear();
  TarBuilder t;
  t.add("0.data", test::plain_data(""))
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(""))
      .add("1.index", test::sparse_index({}))
      .add("anchor.xml", test::anchor_xml(spec));
  const Report report = Report::open(write("noloc.cubex", t.finish()));
  const auto time = report.severities(metric(report, "time"));
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->stored_rows(), 3u);
  EXPECT_EQ(time->locations(), 0u);
  EXPECT_EQ(report.severities(metric(report, "visits"))->stored_rows(), 0u);
}

TEST_F(BadInput, MetricWithoutMembersHasNoData) {
  TarBuilder t;
  t.add("0.data", test::plain_data(time_rows()))
      .add("0.index", test::dense_index())
      .add("anchor.xml", test::anchor_xml());
  const Report report = Report::open(write("nodata.cubex", t.finish()));
  EXPECT_FALSE(report.has_data(metric(report, "visits")));
  EXPECT_EQ(report.severities(metric(report, "visits")), nullptr);
}

// CubeLib reads such a metric as zero everywhere, not as the identity: a MINDOUBLE metric
// without members prints 0 (not "-"), a TAU_ATOMIC one "(0,0,0):-,-" (checked against the
// original's cube_dump on a generated report with its members removed).
TEST_F(BadInput, MetricWithoutMembersIsZeroWhereTheIdentityIsNot) {
  test::AnchorSpec spec;
  spec.metrics = {{0, "time", "DOUBLE"}, {1, "least", "MINDOUBLE"}, {2, "sizes", "TAU_ATOMIC"}};
  TarBuilder t;
  t.add("0.data", test::plain_data(time_rows()))
      .add("0.index", test::dense_index())
      .add("anchor.xml", test::anchor_xml(spec));
  const Report report = Report::open(write("zero.cubex", t.finish()));
  EXPECT_FALSE(report.has_data(metric(report, "least")));
  for (const char* name : {"least", "sizes"}) {
    const auto rows = report.severities(metric(report, name));
    ASSERT_NE(rows, nullptr) << name;
    EXPECT_EQ(rows->stored_rows(), 3u) << name;
    for (Index c = 0; c < 3; ++c)
      for (size_t l = 0; l < 2; ++l)
        EXPECT_EQ(value_text(rows->type(), rows->row(c) + l * rows->type().memory_size()),
                  std::string(name) == "least" ? "0" : "(0,0,0):-,-")
            << name;
  }
}

// ---------------------------------------------------------------------------------------
// The container (§2, §11.1 "file")

TEST_F(BadInput, EmptyFile) {
  const std::string path = write("empty.cubex", "");
  expect_open_error<FormatError>(path, {path, "empty file"});
}

TEST_F(BadInput, Directory) {
  const std::string path = (dir_.path() / "dir.cubex").string();
  std::filesystem::create_directory(path);
  expect_open_error<IoError>(path, {path, "is a directory"});
}

TEST_F(BadInput, MissingFile) {
  const std::string path = (dir_.path() / "absent.cubex").string();
  expect_open_error<IoError>(path, {path, "cannot open", "No such file"});
}

TEST_F(BadInput, ShortTextIsNotATar) {
  const std::string path = write("short.cubex", "This is a short text file, not a report.\n");
  expect_open_error<FormatError>(path, {path, "too short for a tar header", "not a .cubex"});
}

TEST_F(BadInput, TextIsNotATar) {
  std::string text;
  while (text.size() < 3000) text += "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n";
  const std::string path = write("text.cubex", text);
  expect_open_error<FormatError>(path, {path, "offset 0", "not a tar header", "not a .cubex"});
}

TEST_F(BadInput, OnlyZeroBlocks) {
  const std::string path = write("zeros.cubex", std::string(2048, '\0'));
  expect_open_error<FormatError>(path, {path, "only zero blocks"});
}

TEST_F(BadInput, TruncatedTar) {
  // The anchor's header declares its full size, but the file ends 200 bytes into the content.
  const std::string anchor = test::anchor_xml();
  TarBuilder t = valid_archive();
  std::string bytes = t.unfinished() + test::tar_header("anchor2.xml", anchor.size());
  bytes += anchor.substr(0, 200);
  bytes.resize((bytes.size() + 511) / 512 * 512, '\0');
  const std::string path = write("trunc.cubex", bytes);
  expect_open_error<FormatError>(path, {path, "'anchor2.xml'", "declares", "truncated archive"});
}

TEST_F(BadInput, MissingAnchor) {
  TarBuilder t;
  t.add("0.data", test::plain_data(time_rows())).add("0.index", test::dense_index());
  const std::string path = write("noanchor.cubex", t.finish());
  expect_open_error<FormatError>(path, {path, "no member 'anchor.xml'"});
}

TEST_F(BadInput, CorruptGzipAnchor) {
  std::string gz = test::gzip_compress(test::anchor_xml());
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 16; ++i) gz[i] = static_cast<char>(~gz[i]);
  TarBuilder t;
  t.add("anchor.xml", gz);
  const std::string path = write("badgz.cubex", t.finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "gzip"});
}

TEST_F(BadInput, TruncatedGzipAnchor) {
  const std::string gz = test::gzip_compress(test::anchor_xml());
  TarBuilder t;
  t.add("anchor.xml", gz.substr(0, gz.size() / 2));
  const std::string path = write("shortgz.cubex", t.finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "gzip stream truncated"});
}

// ---------------------------------------------------------------------------------------
// anchor.xml (§3, §11.1 "file")

TEST_F(BadInput, MalformedXmlHasLineAndColumn) {
  std::string anchor = test::anchor_xml();
  anchor.replace(anchor.find("</metrics>"), 10, "</metricz>");
  TarBuilder t;
  t.add("anchor.xml", anchor);
  const std::string path = write("badxml.cubex", t.finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml:", "malformed XML"});
  try {
    Report::open(path);
  } catch (const FormatError& e) {
    // "file:anchor.xml:LINE:COLUMN: malformed XML: ..."; the line is that of </metricz>.
    const std::string line = std::to_string(
        std::count(anchor.begin(), anchor.begin() + anchor.find("</metricz>"), '\n') + 1);
    EXPECT_TRUE(std::regex_search(e.what(), std::regex("anchor\\.xml:" + line + ":[0-9]+: ")))
        << e.what();
  }
}

TEST_F(BadInput, UnsupportedCubeVersion) {
  AnchorSpec spec;
  spec.version = "5.0";
  TarBuilder t;
  t.add("anchor.xml", test::anchor_xml(spec));
  const std::string path = write("v5.cubex", t.finish());
  expect_open_error<FormatError>(path,
                                 {path + ":anchor.xml", "unsupported <cube version=\"5.0\">"});
}

TEST_F(BadInput, UnknownDtype) {
  AnchorSpec spec;
  spec.metrics[0].dtype = "QUADRUPLE";
  const std::string path = write("dtype.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(
      path, {path + ":anchor.xml", "metric 'time'", "unknown dtype 'QUADRUPLE'"});
}

TEST_F(BadInput, HistogramWithoutArgument) {
  AnchorSpec spec;
  spec.metrics[0].dtype = "HISTOGRAM(0)";
  const std::string path = write("hist.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(
      path, {path + ":anchor.xml", "metric 'time'", "expected one positive integer argument"});
}

TEST_F(BadInput, InclusiveMinDouble) {
  AnchorSpec spec;
  spec.metrics.push_back({2, "min_time", "MINDOUBLE", "INCLUSIVE"});
  const std::string path = write("incl.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "metric 'min_time'",
                                        "INCLUSIVE storage is impossible for dtype MINDOUBLE"});
}

TEST_F(BadInput, DuplicateMetricId) {
  AnchorSpec spec;
  spec.metrics[1].id = 0;
  const std::string path = write("dupm.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "metric id 0 declared twice"});
}

TEST_F(BadInput, DuplicateCnodeId) {
  AnchorSpec spec;
  spec.cnodes =
      "<cnode id=\"0\" calleeId=\"0\">\n<cnode id=\"1\" calleeId=\"1\">\n</cnode>\n"
      "<cnode id=\"1\" calleeId=\"2\">\n</cnode>\n</cnode>\n";
  const std::string path = write("dupc.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "cnode id 1 declared twice"});
}

TEST_F(BadInput, DuplicateLocationId) {
  AnchorSpec spec;
  spec.location_ids = {0, 0};
  const std::string path = write("dupl.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "location id 0 declared twice"});
}

TEST_F(BadInput, LocationIdsNotDense) {
  AnchorSpec spec;
  spec.location_ids = {0, 2};
  const std::string path = write("gapl.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(
      path, {path + ":anchor.xml", "location id 2 out of range", "must have ids 0..1"});
}

TEST_F(BadInput, CalleeIdOfUndeclaredRegion) {
  AnchorSpec spec;
  spec.regions = 2;  // cnode 2 calls region 2, which is now missing
  const std::string path = write("callee.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path,
                                 {path + ":anchor.xml", "cnode 2 calls region 2", "not declared"});
}

// Topologies are pulled like the rest of the system tree (a coordinate per location would cost
// more DOM than the tree): owners by either naming, the most specific one when several are given.
TEST_F(BadInput, TopologiesAreRead) {
  AnchorSpec spec;
  spec.topologies =
      "<cart name=\"grid\" ndims=\"2\">\n<dim name=\"x\" size=\"2\" periodic=\"true\"/>\n"
      "<dim name=\"y\" size=\"3\" periodic=\"false\"></dim>\n"
      "<coord locId=\"1\"> 1\t2 </coord>\n<coord procId=\"0\" thrdId=\"0\">0 0</coord>\n"
      "<coord stnId=\"0\"/>\n</cart>\n";
  const std::string path = write("topo.cubex", valid_archive(test::anchor_xml(spec)).finish());
  const Report report = Report::open(path);
  ASSERT_EQ(report.model().topologies.size(), 1u);
  const Topology& t = report.model().topologies[0];
  EXPECT_EQ(t.name, "grid");
  ASSERT_EQ(t.dims.size(), 2u);
  EXPECT_EQ(t.dims[0].name, "x");
  EXPECT_EQ(t.dims[0].size, 2);
  EXPECT_TRUE(t.dims[0].periodic);
  EXPECT_EQ(t.dims[1].size, 3);
  EXPECT_FALSE(t.dims[1].periodic);
  ASSERT_EQ(t.coords.size(), 3u);
  EXPECT_EQ(t.coords[0].owner, Topology::Owner::kLocation);
  EXPECT_EQ(t.coords[0].owner_id, 1u);
  auto numbers = [&](size_t i) {
    const std::span<const int64_t> v = t.values_of(t.coords[i]);
    return std::vector<int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(numbers(0), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(t.coords[1].owner, Topology::Owner::kLocation);  // thrdId is more specific than procId
  EXPECT_EQ(numbers(1), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(t.coords[2].owner, Topology::Owner::kNode);
  EXPECT_TRUE(numbers(2).empty());
}

TEST_F(BadInput, MalformedTopologyCoordinate) {
  AnchorSpec spec;
  spec.topologies = "<cart name=\"grid\" ndims=\"1\">\n<coord locId=\"0\">1 x</coord>\n</cart>\n";
  const std::string path = write("topox.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "topology coordinate", "'x'"});
}

// The call tree, the system tree and its topologies are read side by side (the topologies
// ahead of the tree before them): the error told is still the first in the document.
TEST_F(BadInput, FirstErrorOfTheTreesReadSideBySide) {
  AnchorSpec spec;
  spec.topologies = "<cart name=\"grid\" ndims=\"1\">\n<coord locId=\"0\">1 x</coord>\n</cart>\n";
  std::string anchor = test::anchor_xml(spec);
  const std::string rank = "<rank>0</rank>\n<type>thread";
  anchor.replace(anchor.find(rank), rank.size(), "<rank>zero</rank>\n<type>thread");
  const std::string system = write("system.cubex", valid_archive(anchor).finish());
  expect_open_error<FormatError>(system, {system + ":anchor.xml", "location rank 'zero'"});
  anchor.replace(anchor.find("calleeId=\"2\""), 12, "calleeId=\"9\"");
  const std::string program = write("program.cubex", valid_archive(anchor).finish());
  expect_open_error<FormatError>(
      program, {program + ":anchor.xml", "cnode 2 calls region 9", "not declared"});
  // The system tree split between two threads (its second group read by the other one,
  // format/tree_reader.hpp): a bad rank in the second part, then in both, the first told.
  struct Split {
    Split() { format::set_system_split_for_tests(0.5); }
    ~Split() { format::set_system_split_for_tests(-1); }
  } split;
  std::string parts = test::anchor_xml();
  const size_t taken = format::system_parts_taken();
  Report::open(write("parts.cubex", valid_archive(parts).finish()));
  EXPECT_EQ(format::system_parts_taken(), taken + 1);
  const size_t second_rank = parts.rfind("<rank>0</rank>\n<type>thread");
  parts.replace(second_rank, 14, "<rank>one</rank>");
  const std::string second = write("second.cubex", valid_archive(parts).finish());
  expect_open_error<FormatError>(second, {second + ":anchor.xml", "location rank 'one'"});
  parts.replace(parts.find(rank), rank.size(), "<rank>zero</rank>\n<type>thread");
  const std::string both = write("both.cubex", valid_archive(parts).finish());
  expect_open_error<FormatError>(both, {both + ":anchor.xml", "location rank 'zero'"});
}

TEST_F(BadInput, CnodeWithoutCallee) {
  AnchorSpec spec;
  spec.cnodes = "<cnode id=\"0\" calleeId=\"0\">\n<cnode id=\"1\"/>\n</cnode>\n";
  const std::string path = write("nocallee.cubex", valid_archive(test::anchor_xml(spec)).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "cnode 1 has no calleeId"});
}

// The call tree is pulled without recursion, so its depth costs nothing; regions may follow
// the call tree in the document; parameters and attributes of cnodes are kept.
TEST_F(BadInput, DeepCallTreeWithRegionsAfterIt) {
  constexpr int kDepth = 100000;
  std::string tree;
  for (int i = 0; i < kDepth; ++i)
    tree += "<cnode id=\"" + std::to_string(i) + "\" calleeId=\"" + std::to_string(i % 3) + "\">";
  tree +=
      "<parameter partype=\"numeric\" parkey=\"n\" parvalue=\"7\"/>"
      "<attr key=\"k\" value=\"v\"/>";
  for (int i = 0; i < kDepth; ++i) tree += "</cnode>";
  std::string anchor = test::anchor_xml();
  const size_t b = anchor.find("<region "), e = anchor.find("</program>");
  const std::string regions = anchor.substr(b, anchor.find("<cnode") - b);
  anchor.replace(b, e - b, tree + "\n" + regions);  // call tree first, then the regions
  // The default data rows name cnodes 0..2 only: give the archive no data at all.
  TarBuilder t;
  t.add("anchor.xml", anchor);
  const std::string path = write("deep.cubex", t.finish());
  const Report report = Report::open(path);
  const Model& m = report.model();
  ASSERT_EQ(m.cnodes.size(), static_cast<size_t>(kDepth));
  EXPECT_EQ(m.cnodes.back().parent, static_cast<Index>(kDepth - 2));
  EXPECT_EQ(m.regions[m.cnodes[4].region].name, "foo");  // calleeId 1
  ASSERT_EQ(m.cnodes.back().parameters.size(), 1u);
  EXPECT_EQ(m.cnodes.back().parameters[0].value, "7");
  ASSERT_EQ(m.cnodes.back().attrs.size(), 1u);
  EXPECT_EQ(m.cnodes.back().attrs[0].second, "v");
}

// Names and types of locations and groups are shared texts: each field compares the last
// few texts it got, then a table of those seen. Ten names cycling (more than the few compared
// first), an empty name, a reference, attributes: every location reads what its element says,
// equal texts share one block.
TEST_F(BadInput, LocationTextsAreReadAndShared) {
  constexpr int kGroups = 3, kPerGroup = 12;
  auto location_name = [](int i) {
    if (i % kPerGroup == 5) return std::string();
    if (i % kPerGroup == 6) return std::string("R&D");
    return "thread " + std::to_string(i % 10);
  };
  auto escaped = [](std::string text) { return text == "R&D" ? std::string("R&amp;D") : text; };
  std::string system = "<system>\n<systemtreenode Id=\"0\">\n<name>m</name>\n";
  for (int g = 0; g < kGroups; ++g) {
    system += "<locationgroup Id=\"" + std::to_string(g) + "\">\n<name>rank " + std::to_string(g) +
              "</name>\n<rank>" + std::to_string(g) + "</rank>\n<type>process</type>\n";
    for (int i = g * kPerGroup; i < (g + 1) * kPerGroup; ++i) {
      system += "<location Id=\"" + std::to_string(i) + "\">\n<name>" + escaped(location_name(i)) +
                "</name>\n<rank> " + std::to_string(i) + " </rank>\n<type>" +
                (i % 3 == 2 ? "accelerator" : "thread") + "</type>\n";
      if (i == 7) system += "<attr key=\"k\" value=\"1\"/><attr key=\"k\" value=\"2\"/>";
      system += "</location>\n";
    }
    system += "</locationgroup>\n";
  }
  system += "</systemtreenode>\n</system>";
  std::string anchor = test::anchor_xml();
  const size_t b = anchor.find("<system>"), e = anchor.find("</system>") + 9;
  anchor.replace(b, e - b, system);
  TarBuilder t;
  t.add("anchor.xml", anchor);
  const std::string path = write("texts.cubex", t.finish());
  const Report report = Report::open(path);
  const Model& m = report.model();
  ASSERT_EQ(m.locations.size(), static_cast<size_t>(kGroups * kPerGroup));
  ASSERT_EQ(m.groups.size(), static_cast<size_t>(kGroups));
  for (int i = 0; i < kGroups * kPerGroup; ++i) {
    const Location& l = m.locations[i];
    EXPECT_EQ(l.name, location_name(i)) << i;
    EXPECT_EQ(l.rank, i);
    EXPECT_EQ(l.type, i % 3 == 2 ? "accelerator" : "thread") << i;
    EXPECT_EQ(l.group, static_cast<Index>(i / kPerGroup));
    EXPECT_EQ(l.attrs, (i == 7 ? Attributes{{"k", "2"}} : Attributes())) << i;
    int first = 0;  // the first location of this name
    while (location_name(first) != location_name(i)) ++first;
    if (!l.name.empty()) {
      EXPECT_EQ(&l.name.str(), &m.locations[first].name.str()) << i;
    }
  }
  for (int g = 0; g < kGroups; ++g) {
    EXPECT_EQ(m.groups[g].name, "rank " + std::to_string(g));
    EXPECT_EQ(m.groups[g].type, "process");
    EXPECT_EQ(m.groups[g].rank, g);
    EXPECT_EQ(m.groups[g].locations.size(), static_cast<size_t>(kPerGroup));
  }
}

// Room for a topology's numbers is reserved after its first coordinate, as if all had its
// count: later coordinates with more numbers, and a second topology, are read all the same.
TEST_F(BadInput, TopologyCoordinatesOfAnyCount) {
  AnchorSpec spec;
  spec.topologies =
      "<cart name=\"a\" ndims=\"1\">\n<coord locId=\"0\">7</coord>\n"
      "<coord locId=\"1\">1 2 3 4 5</coord>\n</cart>\n"
      "<cart name=\"b\" ndims=\"2\">\n<coord locId=\"1\"></coord>\n"
      "<coord locId=\"0\">8 9</coord>\n</cart>\n";
  const std::string path = write("topos.cubex", valid_archive(test::anchor_xml(spec)).finish());
  const Report report = Report::open(path);
  const std::vector<Topology>& topologies = report.model().topologies;
  ASSERT_EQ(topologies.size(), 2u);
  EXPECT_EQ(topologies[0].name, "a");
  EXPECT_EQ(topologies[0].values, (std::vector<int64_t>{7, 1, 2, 3, 4, 5}));
  ASSERT_EQ(topologies[0].coords.size(), 2u);
  EXPECT_EQ(topologies[0].coords[1].first, 1u);
  EXPECT_EQ(topologies[0].coords[1].count, 5u);
  EXPECT_EQ(topologies[1].name, "b");
  EXPECT_EQ(topologies[1].values, (std::vector<int64_t>{8, 9}));
  ASSERT_EQ(topologies[1].coords.size(), 2u);
  EXPECT_EQ(topologies[1].coords[0].count, 0u);
  EXPECT_EQ(topologies[1].coords[1].owner_id, 0u);
  EXPECT_EQ(topologies[1].coords[1].count, 2u);
}

TEST_F(BadInput, MissingProgram) {
  std::string anchor = test::anchor_xml();
  const size_t b = anchor.find("<program>"), e = anchor.find("</program>") + 11;
  anchor.erase(b, e - b);
  const std::string path = write("noprog.cubex", valid_archive(anchor).finish());
  expect_open_error<FormatError>(path, {path + ":anchor.xml", "no <program> element"});
}

// ---------------------------------------------------------------------------------------
// Index members (§5, §11.1 "metric")

TEST_F(BadInput, WrongIndexMarker) {
  std::string index = test::dense_index();
  index.replace(0, 11, "CUBEX.INDEZ");
  const std::string path = with_member("marker.cubex", "0.index", index);
  expect_metric_error(path, "time", {path + ":0.index", "expected marker 'CUBEX.INDEX'"});
}

TEST_F(BadInput, IndexByteOrderProbeNotOne) {
  std::string index = test::dense_index();
  index.replace(11, 4, std::string("\x02\x00\x00\x00", 4));
  const std::string path = with_member("probe.cubex", "0.index", index);
  expect_metric_error(path, "time", {path + ":0.index", "offset 11", "byte-order probe"});
}

TEST_F(BadInput, IndexFormatUnknown) {
  std::string index = test::dense_index();
  index[17] = '\2';  // bit-vector format: obsolete, never produced
  const std::string path = with_member("fmt.cubex", "0.index", index);
  expect_metric_error(path, "time", {path + ":0.index", "index format 2"});
}

TEST_F(BadInput, DenseIndexWrongSize) {
  const std::string path = with_member("dense.cubex", "0.index", test::dense_index() + "xx");
  expect_metric_error(path, "time", {path + ":0.index", "dense index must be 18 bytes"});
}

TEST_F(BadInput, SparseIndexSizeMismatch) {
  std::string index = test::sparse_index(kVisitPositions);
  index.resize(index.size() - 4);  // declares 2 entries, holds 1
  const std::string path = with_member("sparse.cubex", "1.index", index);
  expect_metric_error(path, "visits",
                      {path + ":1.index", "declares 2 entries", "needs 30 bytes, found 26"});
}

TEST_F(BadInput, SparsePositionsNotIncreasing) {
  const std::string path = with_member("order.cubex", "1.index", test::sparse_index({2, 0}));
  expect_metric_error(path, "visits", {path + ":1.index", "not strictly increasing"});
}

TEST_F(BadInput, SparseDuplicatePosition) {
  const std::string path = with_member("dpos.cubex", "1.index", test::sparse_index({2, 2}));
  expect_metric_error(path, "visits", {path + ":1.index", "not strictly increasing"});
}

TEST_F(BadInput, SparsePositionBeyondCallTree) {
  const std::string path = with_member("pos.cubex", "1.index", test::sparse_index({0, 3}));
  expect_metric_error(path, "visits",
                      {path + ":1.index", "position 3", "the call tree has 3 call paths"});
}

// ---------------------------------------------------------------------------------------
// Data members (§6, §11.1 "metric")

TEST_F(BadInput, DataShorterThanIndex) {
  std::string data = test::plain_data(time_rows());
  data.resize(data.size() - 8);
  const std::string path = with_member("short.cubex", "0.data", data);
  expect_metric_error(path, "time",
                      {path + ":0.data", "3 rows of 2 values need 58 bytes, the member has 50"});
}

TEST_F(BadInput, DataLongerThanIndexIsAccepted) {
  // Extra trailing rows (the Cube 4.0 sample, §6.4) are ignored.
  const std::string path =
      with_member("long.cubex", "1.data", test::plain_data(visit_rows() + visit_rows()));
  expect_default_values(Report::open(path));
}

TEST_F(BadInput, WrongDataMarker) {
  std::string data = test::plain_data(time_rows());
  data[0] = 'K';
  const std::string path = with_member("dmarker.cubex", "0.data", data);
  expect_metric_error(path, "time",
                      {path + ":0.data", "expected marker 'CUBEX.DATA' or 'ZCUBEX.DATA'"});
}

TEST_F(BadInput, CompressedSubIndexPastEnd) {
  std::string data = test::zcubex_data(time_rows(), 16);
  data.replace(11, 8, test::encode_values(std::vector<uint64_t>{1000}));
  const std::string path = with_member("zsub.cubex", "0.data", data);
  expect_metric_error(path, "time",
                      {path + ":0.data", "sub-index of 1000 entries extends past the member end"});
}

TEST_F(BadInput, CompressedBlockOutsideMember) {
  std::string data = test::zcubex_data(time_rows(), 16);
  // Entry 1's size_compressed: far beyond the member.
  data.replace(19 + 24 + 16, 8, test::encode_values(std::vector<uint64_t>{1u << 20}));
  const std::string path = with_member("zout.cubex", "0.data", data);
  expect_metric_error(path, "time", {path + ":0.data", "sub-index entry 1", "outside the member"});
}

TEST_F(BadInput, CompressedCorruptZlibBlock) {
  std::string data = test::zcubex_data(time_rows(), 16);
  const size_t blocks = 19 + 3 * 24;
  data[blocks] = '\x00';  // zlib header of row 0: no longer CM=8 / valid FCHECK
  data[blocks + 1] = '\x00';
  const std::string path = with_member("zbad.cubex", "0.data", data);
  expect_metric_error(path, "time", {path + ":0.data: row 0", "corrupt zlib stream"});
}

TEST_F(BadInput, CompressedRowOfWrongLength) {
  // Row 0 inflates to 8 bytes instead of 16.
  std::string data = "ZCUBEX.DATA";
  const std::string z = test::zlib_compress(std::string(8, '\0'));
  data += test::encode_values(std::vector<uint64_t>{1, 0, 0, z.size()});
  data += z;
  const std::string path = with_member("zlen.cubex", "0.data", data);
  expect_metric_error(path, "time", {path + ":0.data: row 0", "inflates to 8 bytes, expected 16"});
}

TEST_F(BadInput, CompressedDuplicateRow) {
  std::string data = test::zcubex_data(time_rows(), 16);
  data.replace(19 + 24, 8, test::encode_values(std::vector<uint64_t>{0}));  // entry 1 → row 0
  const std::string path = with_member("zdup.cubex", "0.data", data);
  expect_metric_error(path, "time", {path + ":0.data", "two sub-index entries for row 0"});
}

TEST_F(BadInput, CompressedHugeRowIsRejectedBeforeAllocating) {
  // A hostile anchor: NDOUBLES(1048576) × 1000 locations makes one row 8 GiB. A 20-byte block
  // cannot inflate to that, so the decoder must refuse before allocating the row.
  AnchorSpec spec;
  spec.metrics[0].dtype = "NDOUBLES(1048576)";
  spec.location_ids.clear();
  for (uint32_t i = 0; i < 1000; ++i) spec.location_ids.push_back(i);
  std::string data = "ZCUBEX.DATA";
  const std::string z = test::zlib_compress(std::string(64, '\0'));
  data += test::encode_values(std::vector<uint64_t>{1, 0, 0, z.size()});
  data += z;
  TarBuilder t;
  t.add("0.data", data)
      .add("0.index", test::dense_index())
      .add("anchor.xml", test::anchor_xml(spec));
  const std::string path = write("bomb.cubex", t.finish());
  const Report report = Report::open(path);
  expect_error<FormatError>([&] { report.severities(metric(report, "time")); },
                            {path + ":0.data", "cannot inflate to a row of 8388608000 bytes"});
}

TEST_F(BadInput, HugeRowsWithoutDataCostNothing) {
  // The same hostile anchor with an empty compressed member and a sparse index without rows:
  // decoding must succeed without allocating a row.
  AnchorSpec spec;
  spec.metrics[0].dtype = "NDOUBLES(1048576)";
  spec.location_ids.clear();
  for (uint32_t i = 0; i < 1000; ++i) spec.location_ids.push_back(i);
  std::string data = "ZCUBEX.DATA" + test::encode_values(std::vector<uint64_t>{0});
  TarBuilder t;
  t.add("0.data", data)
      .add("0.index", test::sparse_index({}))
      .add("anchor.xml", test::anchor_xml(spec));
  t.add("1.data", test::plain_data("")).add("1.index", test::sparse_index({}));
  const Report report = Report::open(write("empty-rows.cubex", t.finish()));
  const auto time = report.severities(metric(report, "time"));
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->stored_rows(), 0u);
  const auto visits = report.severities(metric(report, "visits"));
  ASSERT_NE(visits, nullptr);
  EXPECT_EQ(visits->stored_rows(), 0u);
}

// ---------------------------------------------------------------------------------------
// A tool writing a file from a damaged report: the file appears whole or not at all

// cube_dump -o fails on the damaged member half-way (time is printed, visits is not): one
// message, and the file keeps what it held before, or stays absent, with no temporary left.
TEST_F(BadInput, DumpToFileFailingHalfWayKeepsThePreviousFile) {
  std::string data = test::plain_data(visit_rows());
  data[0] = 'K';
  const std::string path = with_member("dmarker.cubex", "1.data", data);
  const std::string out = write("out.txt", "previous dump\n");
  for (const bool existed : {true, false}) {
    const test::RunResult r = test::run_tool("cube_dump", {"-m", "all", "-o", out, path});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("cube_dump: " + path + ":1.data", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("expected marker 'CUBEX.DATA' or 'ZCUBEX.DATA'"), std::string::npos);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    if (existed) {
      EXPECT_EQ(test::read_file(out), "previous dump\n");
      EXPECT_EQ(test::listing(dir_.path()), (std::vector<std::string>{"dmarker.cubex", "out.txt"}));
      std::filesystem::remove(out);
    } else {
      EXPECT_EQ(test::listing(dir_.path()), std::vector<std::string>{"dmarker.cubex"});
    }
  }
}

// A write that fails at the file size limit (as on a full disk) names the file and the reason;
// the previous file stays and no temporary is left.
TEST_F(BadInput, DumpToFileOnAFullDiskKeepsThePreviousFile) {
  const std::string path = write("valid.cubex", valid_archive().finish());
  const std::string out = write("out.txt", "previous dump\n");
  test::RunLimits full;
  full.file_bytes = 256;
  ASSERT_GT(test::run_tool("cube_dump", {"-m", "all", path}).out.size(), full.file_bytes);
  const test::RunResult r = test::run_tool("cube_dump", {"-m", "all", "-o", out, path}, full);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "cube_dump: " + out + ": write failed: File too large\n");
  EXPECT_EQ(test::read_file(out), "previous dump\n");
  EXPECT_EQ(test::listing(dir_.path()), (std::vector<std::string>{"out.txt", "valid.cubex"}));
}

}  // namespace
}  // namespace cubekit
