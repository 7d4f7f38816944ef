// PERI-XML export (docs/peri-xml.md) read back with pugixml and checked against the library's
// own answers on real profiles: every call path and thread in the code and space dimensions,
// both flavours of every metric, and each <d> value the one the engine computes — all of them
// (zeros are the values left out).
#include "cubekit/peri_xml.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "io/peri_reader.hpp"
#include "test_support.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

size_t count(const pugi::xml_node& node, const char* name) {
  size_t n = 0;
  for (const pugi::xml_node& c : node.children())
    n += (std::string(c.name()) == name) + count(c, name);
  return n;
}

void check_export(const fs::path& path) {
  SCOPED_TRACE(path.string());
  const Report report = Report::open(path.string());
  const Model& model = report.model();
  MetricEngine engine(report);
  std::ostringstream text;
  write_peri_xml(engine, text);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(text.str().c_str())) << "not well-formed";
  const pugi::xml_node peri = doc.child("peri");
  EXPECT_EQ(count(peri.child("code"), "cnode"), model.cnodes.size());
  EXPECT_EQ(count(peri.child("code"), "region"), model.regions.size());
  EXPECT_EQ(count(peri.child("space").child("applications"), "thread"), model.locations.size());
  EXPECT_EQ(count(peri.child("space").child("applications"), "process"), model.groups.size());
  // Every exported value is the engine's; every non-zero value is exported.
  size_t exported = 0, expected = 0;
  for (const pugi::xml_node& by_metric : peri.child("data").children("d")) {
    const std::string id = by_metric.attribute("metric").value();
    const uint32_t metric_id = static_cast<uint32_t>(std::stoul(id));
    const Flavour flavour = id.ends_with(".incl") ? Flavour::kInclusive : Flavour::kExclusive;
    Index metric = kNoIndex;
    for (Index m = 0; m < model.metrics.size(); ++m)
      if (model.metrics[m].id == metric_id) metric = m;
    ASSERT_NE(metric, kNoIndex) << id;
    for (const pugi::xml_node& by_cnode : by_metric.children("d")) {
      const auto c = model.cnode_by_id(
          static_cast<uint32_t>(std::stoul(by_cnode.attribute("code").value() + 1)));
      ASSERT_TRUE(c);
      const Values v = engine.location_values(metric, *c, Flavour::kInclusive, flavour);
      for (const pugi::xml_node& value : by_cnode.children("d")) {
        const size_t column = std::stoul(value.attribute("spc").value() + 1);
        // Inclusive values of exclusive-stored metrics are summed bottom-up, the engine
        // sums each subtree on its own: the last bits may differ.
        const double want = v.scalar(column), got = value.text().as_double();
        if (flavour == Flavour::kExclusive)
          EXPECT_EQ(got, want) << id << " " << *c;
        else
          EXPECT_NEAR(got, want, 1e-12 * std::fabs(want)) << id << " " << *c;
        ++exported;
      }
    }
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      const Values v = engine.location_values(metric, c, Flavour::kInclusive, flavour);
      for (size_t l = 0; l < v.size(); ++l) {
        double x = 0;
        try {
          x = v.scalar(l);
        } catch (const Error&) {
          break;
        }
        expected += x != 0 && !std::isnan(x);
      }
    }
  }
  EXPECT_EQ(exported, expected);
  EXPECT_GT(exported, 0u);
}

TEST(PeriXml, ExportHoldsEveryValueOfRealProfiles) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  const fs::path real = shared / "data" / "real";
  for (const char* p :
       {"extrap/single_parameter/mm.x25y1z1.r1.cubex", "extrap/simple_threaded/cube-example4.cubex",
        "pycubexr/call_tree_test/call_tree_test.cubex", "cubelib/test16/profile.cube",
        "cubelib/examples/summary.cubex"})
    check_export(real / p);
}

// The data types whose values are one number each (RATE as its ratio): what PERI-XML holds.
bool holds_numbers(const Metric& m) {
  static const std::set<std::string> kNotNumbers = {"COMPLEX", "TAU_ATOMIC", "HISTOGRAM",
                                                    "NDOUBLES", "SCALE_FUNC"};
  return !kNotNumbers.count(m.dtype_text.substr(0, m.dtype_text.find('(')));
}

// Report → PERI-XML → report keeps every value: call-exclusive values (metric-inclusive, what
// is stored) are equal to the last bit at every call path and location, for every metric that
// holds single numbers; the trees keep their shape and names.
void check_round_trip(const fs::path& path, const fs::path& tmp) {
  SCOPED_TRACE(path.string());
  const Report original = Report::open(path.string());
  MetricEngine engine(original);
  const fs::path xml = tmp / "x.xml", back = tmp / "back.cubex";
  {
    std::ofstream out(xml);
    write_peri_xml(engine, out);
  }
  import_peri_xml(xml.string(), back.string());
  const Report copy = Report::open(back.string());
  MetricEngine copy_engine(copy);
  const Model &a = original.model(), &b = copy.model();
  ASSERT_EQ(a.cnodes.size(), b.cnodes.size());
  ASSERT_EQ(a.locations.size(), b.locations.size());
  EXPECT_EQ(a.groups.size(), b.groups.size());
  for (Index c = 0; c < a.cnodes.size(); ++c) {
    EXPECT_EQ(a.regions[a.cnodes[c].region].name, b.regions[b.cnodes[c].region].name);
    EXPECT_EQ(a.cnodes[c].id, b.cnodes[c].id) << "call path at position " << c;
  }
  size_t compared = 0;
  for (Index m = 0; m < a.metrics.size(); ++m) {
    if (a.metrics[m].ghost || a.metrics[m].is_void) continue;
    const auto in_copy = b.metric_by_uniq_name(a.metrics[m].uniq_name);
    if (!holds_numbers(a.metrics[m])) {  // left out and named (the test below)
      EXPECT_FALSE(in_copy) << a.metrics[m].uniq_name;
      continue;
    }
    ASSERT_TRUE(in_copy) << a.metrics[m].uniq_name;
    for (Index c = 0; c < a.cnodes.size(); ++c) {
      const Values x = engine.location_values(m, c, Flavour::kInclusive, Flavour::kExclusive);
      const Values y =
          copy_engine.location_values(*in_copy, c, Flavour::kInclusive, Flavour::kExclusive);
      // Locations correspond by position; their values sit in the column of their id.
      for (size_t k = 0; k < a.locations.size(); ++k) {
        double vx = 0;
        try {
          vx = x.scalar(a.locations[k].id);
        } catch (const Error&) {
          break;  // not single numbers: not exported
        }
        if (std::isnan(vx)) continue;
        EXPECT_EQ(y.scalar(b.locations[k].id), vx)
            << a.metrics[m].uniq_name << " cnode " << c << " location " << k;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0u);
}

// Call path ids that are not in pre-order (Score-P numbers some trees otherwise) and region
// ids that are not positions: after the round trip every id names the same call path, with the
// same region, the same parent and the same value. The import used to number call paths in
// document order, which gave id 66 of a Score-P profile to another region's call path.
// The time is in milliseconds, as in CubeLib's scale_test.cubex, whose time used to come back
// divided by 1000: the unit and the numbers come back as they were.
TEST(PeriXml, RoundTripKeepsEveryCallPathsId) {
  test::TempDir tmp("peri-ids");
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive).uom = "ms";
  // main → {recvi_ → brcastr8_, brcastr8_}, main → solve
  test::add_call_tree(*model, {"main", "recvi_", "brcastr8_", "brcastr8_", "solve"},
                      {kNoIndex, 0, 1, 0, 0});
  const std::vector<uint32_t> cnode_ids = {40, 66, 3, 12, 7}, region_ids = {9, 4, 70, 71, 2};
  for (Index c = 0; c < model->cnodes.size(); ++c) {
    model->cnodes[c].id = cnode_ids[c];
    model->regions[c].id = region_ids[c];
  }
  test::add_one_machine(*model, {1});
  const std::vector<double> values = {1.5, 2.25, 4.0, 8.5, 16.0};
  const std::string path = (tmp.path() / "ids.cubex").string();
  const Report original = test::write_first_metric(path, model, values.data());
  const fs::path xml = tmp.path() / "ids.xml", back = tmp.path() / "back.cubex";
  {
    MetricEngine engine(original);
    std::ofstream out(xml);
    write_peri_xml(engine, out);
  }
  import_peri_xml(xml.string(), back.string());
  const Report copy = Report::open(back.string());
  const Model& b = copy.model();
  MetricEngine copy_engine(copy);
  const Index time = *b.metric_by_uniq_name("time");
  EXPECT_EQ(b.metrics[time].uom, "ms");
  ASSERT_EQ(b.cnodes.size(), cnode_ids.size());
  for (Index c = 0; c < cnode_ids.size(); ++c) {
    const auto in_copy = b.cnode_by_id(cnode_ids[c]);
    ASSERT_TRUE(in_copy) << "cnode id " << cnode_ids[c];
    const Cnode& x = b.cnodes[*in_copy];
    EXPECT_EQ(b.regions[x.region].name, model->regions[c].name) << cnode_ids[c];
    EXPECT_EQ(b.regions[x.region].id, region_ids[c]) << cnode_ids[c];
    const Index parent = model->cnodes[c].parent;
    if (parent == kNoIndex)
      EXPECT_EQ(x.parent, kNoIndex);
    else
      EXPECT_EQ(b.cnodes[x.parent].id, cnode_ids[parent]) << cnode_ids[c];
    const Values v =
        copy_engine.location_values(time, *in_copy, Flavour::kInclusive, Flavour::kExclusive);
    EXPECT_EQ(v.scalar(0), values[c]) << cnode_ids[c];
  }
}

// A report with a metric of every data type: PERI-XML holds one number per value, so COMPLEX,
// TAU_ATOMIC, HISTOGRAM, NDOUBLES and SCALE_FUNC metrics are left out and named (they used to
// be declared with no values, and a SCALE_FUNC came back as CubeLib's sorting key); every other
// metric comes back with its name. The tool names the left-out ones on standard error.
TEST(PeriXml, MetricsThatAreNotNumbersAreLeftOutAndNamed) {
  test::TempDir tmp("peri-types");
  GeneratorOptions o;
  o.call_paths = 30;
  o.all_types = true;
  const std::string path = (tmp.path() / "types.cubex").string();
  generate_report(path, o);
  const Report original = Report::open(path);
  std::vector<std::string> expected_left_out, expected_kept;
  for (const Metric& m : original.model().metrics) {
    if (m.ghost || m.is_void) continue;
    if (!holds_numbers(m))
      expected_left_out.push_back(m.uniq_name + " (" + m.dtype_text + ")");
    else
      expected_kept.push_back(m.uniq_name);
  }
  ASSERT_GE(expected_left_out.size(), 4u);
  const fs::path xml = tmp.path() / "types.xml", back = tmp.path() / "back.cubex";
  std::vector<std::string> left_out;
  {
    MetricEngine engine(original);
    std::ofstream out(xml);
    left_out = write_peri_xml(engine, out);
  }
  EXPECT_EQ(left_out, expected_left_out);
  import_peri_xml(xml.string(), back.string());
  const Report copy = Report::open(back.string());
  std::vector<std::string> kept;
  for (const Metric& m : copy.model().metrics) kept.push_back(m.uniq_name);
  EXPECT_EQ(kept, expected_kept);
  const auto r =
      test::run_tool("cubekit", {"export-peri", "-o", (tmp.path() / "t.xml").string(), path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& metric : expected_left_out)
    EXPECT_NE(r.err.find("metric " + metric + " left out"), std::string::npos) << r.err;
}

TEST(PeriXml, RoundTripKeepsEveryValueOfRealProfiles) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  test::TempDir tmp("peri-round-trip");
  for (const auto& e : fs::recursive_directory_iterator(shared / "data" / "real")) {
    const std::string p = e.path().string();
    if (!e.is_regular_file() || (!p.ends_with(".cubex") && !p.ends_with(".cube"))) continue;
    try {
      Report::open(p);
    } catch (const std::exception&) {
      continue;  // the deliberately broken inputs
    }
    check_round_trip(e.path(), tmp.path());
  }
}

// The proposal's own example (tests/data/peri_proposal_example.xml, its slides' fragments put
// together): metrics mp0 ⊃ mp1, mp2; main calls foo twice; two processes on two nodes of a
// rack. The data name a region (r0: main's call path) and processes (p0, p1: their threads)
// under a state, as the proposal allows.
TEST(PeriXml, ImportsTheProposalsExample) {
  test::TempDir tmp("peri-proposal");
  const fs::path out = tmp.path() / "p.cubex";
  import_peri_xml(CUBEKIT_SOURCE_DIR "/tests/data/peri_proposal_example.xml", out.string());
  const Report r = Report::open(out.string());
  const Model& m = r.model();
  ASSERT_EQ(m.metrics.size(), 4u);
  EXPECT_EQ(m.metrics[1].uniq_name, "mp0");
  EXPECT_EQ(m.metrics[2].parent, 1u);
  ASSERT_EQ(m.cnodes.size(), 3u);
  EXPECT_EQ(m.regions[m.cnodes[0].region].name, "main");
  EXPECT_EQ(m.regions[m.cnodes[0].region].mod, "foo.c");
  EXPECT_EQ(m.regions[m.cnodes[0].region].begin, 3);
  ASSERT_EQ(m.locations.size(), 2u);
  EXPECT_EQ(m.groups[1].rank, 5783);
  EXPECT_EQ(m.system_nodes[m.groups[1].node].name, "jump02");
  MetricEngine engine(r);
  const Values main = engine.location_values(1, 0, Flavour::kInclusive, Flavour::kExclusive);
  EXPECT_EQ(main.scalar(0), 32872980);
  EXPECT_EQ(main.scalar(1), 45960582);
  const Values foo = engine.location_values(1, 1, Flavour::kInclusive, Flavour::kExclusive);
  EXPECT_EQ(foo.scalar(0), 509386);
  EXPECT_EQ(foo.scalar(1), 3029745);
  const Values incl = engine.location_values(1, 0, Flavour::kInclusive, Flavour::kInclusive);
  EXPECT_EQ(incl.scalar(1), 45960582 + 3029745);
}

TEST(PeriXml, BadDocumentsSayWhereAndWriteNothing) {
  test::TempDir tmp("peri-bad");
  const fs::path out = tmp.path() / "out.cubex";
  auto import_text = [&](const std::string& text) -> std::string {
    const fs::path xml = tmp.path() / "in.xml";
    std::ofstream(xml) << text;
    try {
      import_peri_xml(xml.string(), out.string());
    } catch (const FormatError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(import_text("<peri>\n<metrics>\n</peri>\n").find("in.xml:3:"), std::string::npos);
  const std::string undefined = import_text(
      "<peri><metrics><metric id=\"m\"/></metrics>\n<data>\n  <d "
      "metric=\"nope\"/>\n</data></peri>");
  EXPECT_NE(undefined.find("in.xml:3:"), std::string::npos) << undefined;
  EXPECT_NE(undefined.find("nope"), std::string::npos) << undefined;
  EXPECT_FALSE(fs::exists(out));
}

// Ids that are not the export's (empty, a prefix alone, repeated): document order, no crash.
// fuzz_peri found the empty id reading past its end.
TEST(PeriXml, IdsNotWrittenByTheExportKeepDocumentOrder) {
  test::TempDir tmp("peri-odd-ids");
  const fs::path xml = tmp.path() / "odd.xml", out = tmp.path() / "odd.cubex";
  std::ofstream(xml) << "<peri><metrics><metric id=\"m\" type=\"int\" name=\"M\"/></metrics>\n"
                        "<code><programs><program id=\"p\"><regions><region id=\"\"><name>main"
                        "</name></region><region id=\"r\"><name>f</name></region></regions>\n"
                        "<cnodes><cnode id=\"\" ref=\"\"><cnode id=\"c\" ref=\"r\"/></cnode>"
                        "</cnodes></program></programs></code></peri>\n";
  ASSERT_NO_THROW(import_peri_xml(xml.string(), out.string()));
  const Report r = Report::open(out.string());
  ASSERT_EQ(r.model().cnodes.size(), 2u);
  EXPECT_EQ(r.model().cnodes[0].id, 0u);
  EXPECT_EQ(r.model().cnodes[1].id, 1u);
  EXPECT_EQ(r.model().regions[r.model().cnodes[1].region].name, "f");
}

// A small document of the proposal's kind: metric m (integers), call paths c0 ⊃ c1, two
// threads on one node; `data` goes where `at` says (before or after the dimensions).
std::string small_document(const std::string& data, bool data_first) {
  const std::string dimensions =
      "<metrics><metric id=\"m\" type=\"int\" name=\"M\"/></metrics>\n"
      "<code><programs><program id=\"p\"><regions><region id=\"r0\"><name>main</name></region>"
      "<region id=\"r1\"><name>f</name></region></regions>\n"
      "<cnodes><cnode id=\"c0\" ref=\"r0\"><cnode id=\"c1\" ref=\"r1\"/></cnode></cnodes>"
      "</program></programs></code>\n"
      "<space><applications><application id=\"a\"><process id=\"p0\" pid=\"0\">"
      "<thread id=\"t&amp;0\" tid=\"0\"/><thread id=\"t1\" tid=\"1\"/></process></application>"
      "</applications></space>\n";
  return "<?xml version=\"1.0\"?>\n<peri>\n" +
         (data_first ? data + dimensions : dimensions + data) + "</peri>\n";
}

// The values of metric `m` of an imported document, by call path and thread.
std::vector<std::vector<double>> imported_values(const test::TempDir& tmp, const std::string& doc) {
  const fs::path xml = tmp.path() / "in.xml", out = tmp.path() / "out.cubex";
  std::ofstream(xml) << doc;
  fs::remove(out);
  import_peri_xml(xml.string(), out.string());
  const Report r = Report::open(out.string());
  MetricEngine engine(r);
  std::vector<std::vector<double>> values;
  for (Index c = 0; c < r.model().cnodes.size(); ++c) {
    const Values v = engine.location_values(0, c, Flavour::kInclusive, Flavour::kExclusive);
    values.push_back({v.scalar(0), v.scalar(1)});
  }
  return values;
}

TEST(PeriXml, ImportTakesDimensionsAfterTheData) {
  test::TempDir tmp("peri-order");
  const std::string data =
      "<data><d metric=\"m\"><d code=\"c0\"><d spc=\"t&amp;0\">3</d><d spc=\"t1\">4</d></d>"
      "<d code=\"c1\"><d spc=\"t1\">5</d></d></d></data>\n";
  const std::vector<std::vector<double>> expected = {{3, 4}, {0, 5}};
  EXPECT_EQ(imported_values(tmp, small_document(data, true)), expected);
  EXPECT_EQ(imported_values(tmp, small_document(data, false)), expected);
}

// Text as XML allows it: white space and '+' around a number, a CDATA section, a comment in
// the middle of a number, an entity-escaped id; unknown elements (with values inside) ignored;
// a <d> naming a process stands for its first thread; two values of one point add up.
TEST(PeriXml, ImportReadsValuesInEveryXmlForm) {
  test::TempDir tmp("peri-forms");
  const std::string data =
      "<data><d metric=\"m\">\n"
      "  <d code=\"c0\"><d spc=\"t&amp;0\"> +12\n</d><d spc=\"t1\"><![CDATA[7]]></d></d>\n"
      "  <d code=\"c1\"><d spc=\"t1\">1<!-- x -->5</d><unknown><d spc=\"t1\">99</d></unknown></d>\n"
      "  <d code=\"c1\" spc=\"p0\">2</d><d code=\"c1\"><d spc=\"t&amp;0\">3</d></d>\n"
      "</d></data>\n";
  const std::vector<std::vector<double>> expected = {{12, 7}, {5, 15}};
  EXPECT_EQ(imported_values(tmp, small_document(data, false)), expected);
}

// The data are read by several threads (docs/peri-xml.md): one thread and two give the same
// bits, here on a real profile's export whose values are doubles.
TEST(PeriXml, ImportIsTheSameOnOneThreadAndOnSeveral) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  const Report report =
      Report::open((shared / "data/real/cubelib/examples/summary.cubex").string());
  MetricEngine engine(report);
  std::ostringstream text;
  write_peri_xml(engine, text);
  const std::string doc = text.str();
  auto read_with = [&](const char* threads) {
    setenv("CUBEKIT_THREADS", threads, 1);
    io::PeriDocument d = io::read_peri_xml(doc, "summary.xml");
    unsetenv("CUBEKIT_THREADS");
    return d.values;
  };
  const auto one = read_with("1");
  EXPECT_EQ(one, read_with("2"));
  EXPECT_EQ(one, read_with("4"));
  size_t nonzero = 0;
  for (const auto& row : one)
    nonzero += static_cast<size_t>(
        std::count_if(row.begin(), row.end(), [](uint64_t v) { return v != 0; }));
  EXPECT_GT(nonzero, 1000u);
}

// Long runs of leaves, as an export writes them, read by the 64-byte look (xml_stream.cpp)
// in every form text may take: white space and CRLF around a number, '+', a character
// reference for a digit, an id escaped, attributes in another order; the inclusive twin's
// run (skipped) with values that would show if they counted. The sums are the test's own,
// from the values it wrote; one thread and two read the same.
TEST(PeriXml, ImportReadsLongRunsOfLeavesInEveryForm) {
  test::TempDir tmp("peri-runs");
  std::string twin = "<d metric=\"m.incl\">\r\n  <d code=\"c0\">";
  for (int i = 0; i < 200; ++i) twin += "<d spc=\"t1\">1000000</d><d spc=\"t&amp;0\">1000000</d>";
  twin += "</d>\r\n</d>\r\n";
  std::string run;
  std::vector<double> expected_c0(2, 0);
  for (int i = 0; i < 300; ++i) {
    const int v = i * 7 % 1000, thread = i % 2;
    const std::string digits = std::to_string(v);
    const std::vector<std::string> forms = {
        digits, " " + digits + " ", "\r\n" + digits + "\r\n", "+" + digits,
        "&#" + std::to_string(48 + digits[0] - '0') + ";" + digits.substr(1)};
    run +=
        std::string("<d spc=\"") + (thread == 0 ? "t&amp;0" : "t1") + "\">" + forms[i % 5] + "</d>";
    expected_c0[static_cast<size_t>(thread)] += v;
  }
  const std::string data =
      "<data>" + twin + "<d metric=\"m.excl\">\r\n  <d code=\"c0\">" + run +
      "</d>\r\n  <d spc=\"t1\" code=\"c1\">5</d><d code=\"c1\" spc=\"t1\">6</d>"
      "\r\n</d>\r\n</data>\r\n";
  std::string doc = small_document(data, false);
  const std::string one_metric = "<metric id=\"m\" type=\"int\" name=\"M\"/>";
  doc.replace(doc.find(one_metric), one_metric.size(),
              "<metric id=\"m.incl\" type=\"int\" name=\"M\"/>"
              "<metric id=\"m.excl\" type=\"int\" name=\"M\"/>");
  const std::vector<std::vector<double>> expected = {expected_c0, {0, 11}};
  for (const char* threads : {"1", "2"}) {
    setenv("CUBEKIT_THREADS", threads, 1);
    EXPECT_EQ(imported_values(tmp, doc), expected) << threads << " threads";
    unsetenv("CUBEKIT_THREADS");
  }

  // A bad number deep in the run is told at its line and column (the run is on one line).
  std::string bad = doc;
  const size_t at = bad.find("<d spc=\"t1\">", bad.find("<d metric=\"m.excl\">"));
  const size_t leaf = bad.find("<d spc=", at + 150 * 20);
  bad.insert(bad.find('<', leaf + 1), "x");
  const size_t line = static_cast<size_t>(std::count(bad.begin(), bad.begin() + leaf, '\n')) + 1;
  const size_t column = leaf - bad.rfind('\n', leaf);
  std::string error;
  try {
    imported_values(tmp, bad);
  } catch (const FormatError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("in.xml:" + std::to_string(line) + ":" + std::to_string(column) + ": '"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("x' is not a number"), std::string::npos) << error;

  // Cut off anywhere in the data: malformed, said with the file's name, never a crash.
  for (size_t cut = doc.find("<data>"); cut < doc.size() - 10; cut += 37) {
    try {
      io::read_peri_xml(std::string_view(doc).substr(0, cut), "cut.xml");
      ADD_FAILURE() << "no error for a document cut at " << cut;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("cut.xml:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("malformed XML"), std::string::npos) << e.what();
    }
  }
}

// The <data> read by ranges whose starts are guessed (docs/peri-xml.md "What is read"), here
// with ranges of any size so that small documents take that path: 40 children of <data>,
// inclusive twins and exclusive ones (several for one metric: their values add up) of varied
// sizes, each followed by `extra_child`, read by 2 and 4 threads against the sums the test
// makes of the values it wrote.
// Guesses proved wrong (the start's bytes in a comment, deeper in a child, in a second <data>)
// give the same values, read again without guesses; so do truncated documents and malformed
// twins their errors, each the one of the reading without guesses.
struct RangedDocument {
  std::string text;
  std::vector<int64_t> sums;  // call path × thread (location id), the exclusive values
};
RangedDocument ranged_document(const std::string& inside_blocks, const std::string& extra_child) {
  RangedDocument doc{"", std::vector<int64_t>(4, 0)};
  std::string data = "<data>\n";
  for (int child = 0; child < 40; ++child) {
    const bool twin = child % 2 == 0;
    data += std::string("<d metric=\"m.") + (twin ? "incl" : "excl") + "\">\n";
    for (int c = 0; c < 2; ++c) {
      data += " <d code=\"c" + std::to_string(c) + "\">" + inside_blocks;
      for (int i = 0; i < (child * 7 + c * 3) % 23; ++i) {
        const int t = i % 2, v = child * 100 + c * 10 + i;
        data += std::string("<d spc=\"") + (t == 0 ? "t&amp;0" : "t1") + "\">" + std::to_string(v) +
                "</d>";
        if (!twin) doc.sums[static_cast<size_t>(c * 2 + t)] += v;
      }
      data += "</d>\n";
    }
    data += "</d>\n";
    data += extra_child;
  }
  data += "</data>\n";
  doc.text = small_document(data, false);
  const std::string one_metric = "<metric id=\"m\" type=\"int\" name=\"M\"/>";
  doc.text.replace(doc.text.find(one_metric), one_metric.size(),
                   "<metric id=\"m.incl\" type=\"int\" name=\"M\"/>"
                   "<metric id=\"m.excl\" type=\"int\" name=\"M\"/>");
  return doc;
}

io::PeriDocument read_with_threads(const std::string& doc, const char* threads,
                                   size_t range_bytes) {
  setenv("CUBEKIT_THREADS", threads, 1);
  try {
    io::PeriDocument read = io::read_peri_xml(doc, "ranged.xml", nullptr, range_bytes);
    unsetenv("CUBEKIT_THREADS");
    return read;
  } catch (...) {
    unsetenv("CUBEKIT_THREADS");
    throw;
  }
}

std::vector<int64_t> signed_values(const io::PeriDocument& doc) {
  return {doc.values.at(0).begin(), doc.values.at(0).end()};
}

TEST(PeriXml, DataReadByGuessedRangesIsTheSameAsInOrder) {
  const RangedDocument doc = ranged_document("", "");
  ASSERT_NE(doc.sums[3], 0);
  for (const char* threads : {"2", "4"}) {
    for (size_t range_bytes : {size_t{1}, size_t{300}, size_t{2000}}) {
      SCOPED_TRACE(std::string(threads) + " threads, ranges of " + std::to_string(range_bytes));
      const io::PeriDocument read = read_with_threads(doc.text, threads, range_bytes);
      EXPECT_EQ(signed_values(read), doc.sums);
      EXPECT_GT(read.guessed_ranges, 1u);
      EXPECT_FALSE(read.read_again);
    }
  }
  const io::PeriDocument in_order = read_with_threads(doc.text, "2", 0);
  EXPECT_EQ(signed_values(in_order), doc.sums);
  EXPECT_EQ(in_order.guessed_ranges, 0u);
}

TEST(PeriXml, WrongGuessesOfRangesAreReadAgainInOrder) {
  // The bytes a start is guessed by, in a comment in every block.
  RangedDocument in_comment = ranged_document("<!-- <d metric=\"m.excl\"> -->", "");
  // ... deeper in a child of another form after each child (its values count: the sums get
  // them).
  RangedDocument deeper = ranged_document(
      "", "<d code=\"c1\"><d metric=\"m.excl\"><d spc=\"t1\">1000000</d></d></d>\n");
  deeper.sums[3] += 40 * 1000000;
  // ... in the next <data>: each child in a <data> of its own.
  RangedDocument two_data = ranged_document("", "</data><data>");
  for (RangedDocument* doc : {&in_comment, &deeper, &two_data}) {
    for (const char* threads : {"2", "4"}) {
      const io::PeriDocument read = read_with_threads(doc->text, threads, 1);
      EXPECT_EQ(signed_values(read), doc->sums) << threads << " threads";
      EXPECT_TRUE(read.read_again) << threads << " threads";
    }
  }
}

// Ranges are read in windows of their own (docs/peri-xml.md): 1 KiB here, with range_bytes 1.
// What is passed over token by token there, so that the window can move on between tokens,
// is what the reading in order skips at once: an empty inclusive twin inside a block (its
// siblings after it count), an unknown element holding a value (it does not), and an empty
// twin beside the children. A token longer than a window (a comment of 3,000 bytes) makes the
// document be read again in order, with the same values.
TEST(PeriXml, RangesReadInWindowsPassOverWhatTheReadingInOrderSkips) {
  RangedDocument passed = ranged_document(
      "<note><d spc=\"t1\">1000000</d></note><d metric='m.incl'/>", "<d metric=\"m.incl\"/>\n");
  for (const char* threads : {"2", "4"}) {
    for (size_t range_bytes : {size_t{1}, size_t{2000}}) {
      SCOPED_TRACE(std::string(threads) + " threads, ranges of " + std::to_string(range_bytes));
      const io::PeriDocument read = read_with_threads(passed.text, threads, range_bytes);
      EXPECT_EQ(signed_values(read), passed.sums);
      EXPECT_GT(read.guessed_ranges, 1u);
      EXPECT_FALSE(read.read_again);
    }
  }
  EXPECT_EQ(signed_values(read_with_threads(passed.text, "2", 0)), passed.sums);

  const RangedDocument long_comment = ranged_document("<!--" + std::string(3000, 'x') + "-->", "");
  const io::PeriDocument read = read_with_threads(long_comment.text, "2", 1);
  EXPECT_EQ(signed_values(read), long_comment.sums);
  EXPECT_TRUE(read.read_again);
}

TEST(PeriXml, MalformedDataReadByRangesIsToldAsInOrder) {
  auto error_of = [](const std::string& text, size_t range_bytes) -> std::string {
    try {
      read_with_threads(text, "2", range_bytes);
    } catch (const FormatError& e) {
      return e.what();
    }
    return "";
  };
  const RangedDocument doc = ranged_document("", "");
  // A wrong end tag and a '<' in a start tag deep in an inclusive twin, then an undefined id
  // in an exclusive child.
  const size_t twin = doc.text.find("<d metric=\"m.incl\">", doc.text.size() / 2);
  std::string wrong_end = doc.text, lt_in_tag = doc.text, undefined = doc.text;
  const size_t leaf = doc.text.find("</d><d spc=", doc.text.find("<d code=\"c1\">", twin));
  ASSERT_LT(leaf, doc.text.find("<d metric=\"m.excl\">", twin));
  wrong_end.replace(leaf, 4, "</x>");
  const size_t line =
      static_cast<size_t>(std::count(doc.text.begin(), doc.text.begin() + leaf, '\n')) + 1;
  const size_t column = leaf - doc.text.rfind('\n', leaf);
  EXPECT_EQ(error_of(wrong_end, 1), "ranged.xml:" + std::to_string(line) + ":" +
                                        std::to_string(column) +
                                        ": malformed XML: </x> where </d> was expected");
  lt_in_tag.insert(leaf + 10, "<");
  EXPECT_NE(error_of(lt_in_tag, 1).find("ranged.xml:" + std::to_string(line) + ":"),
            std::string::npos);
  EXPECT_EQ(error_of(lt_in_tag, 1), error_of(lt_in_tag, 0));
  const size_t excl = undefined.rfind("<d spc=\"t1\">");
  undefined.replace(excl, 12, "<d spc=\"t9\">");
  EXPECT_NE(error_of(undefined, 1).find("<d spc=\"t9\"> names no thread"), std::string::npos)
      << error_of(undefined, 1);
  EXPECT_EQ(error_of(undefined, 1), error_of(undefined, 0));
  // Cut off anywhere in the data: the error of the reading in order, with the file's name.
  for (size_t cut = doc.text.find("<data>"); cut < doc.text.size(); cut += 13) {
    const std::string cut_text = doc.text.substr(0, cut);
    const std::string ranged = error_of(cut_text, 1);
    EXPECT_NE(ranged.find("ranged.xml:"), std::string::npos) << "cut at " << cut;
    EXPECT_EQ(ranged, error_of(cut_text, 0)) << "cut at " << cut;
  }
}

TEST(PeriXml, BadDataSayWhereAndWhatFirst) {
  test::TempDir tmp("peri-bad-data");
  auto error_of = [&](const std::string& data) -> std::string {
    try {
      imported_values(tmp, small_document(data, false));
    } catch (const FormatError& e) {
      return e.what();
    }
    return "";
  };
  // The data begin on line 7 (the dimensions take lines 3-6): the value is on line 8, its
  // "</x>" in column 14.
  const std::string syntax =
      error_of("<data><d metric=\"m\"><d code=\"c0\">\n<d spc=\"t1\">5</x></d></d></data>\n");
  EXPECT_EQ(syntax.substr(syntax.find("in.xml")),
            "in.xml:8:14: malformed XML: </x> where </d> was expected");
  const std::string number =
      error_of("<data><d metric=\"m\"><d code=\"c0\">\n<d spc=\"t1\">5x</d></d></d></data>\n");
  EXPECT_EQ(number.substr(number.find("in.xml")), "in.xml:8:1: '5x' is not a number");
  // Of an undefined id (line 8) and a syntax error (line 9, the unquoted value in column 15),
  // the syntax error is told.
  const std::string both = error_of(
      "<data><d metric=\"m\"><d code=\"c0\">\n<d spc=\"nope\">1</d>\n<d spc=\"t1\" a=1>5</d>"
      "</d></d></data>\n");
  EXPECT_EQ(both.substr(both.find("in.xml")),
            "in.xml:9:15: malformed XML: attribute 'a': its value must be quoted");
  EXPECT_FALSE(fs::exists(tmp.path() / "out.cubex"));
}

// Hostile nesting: 200,000 nested <d> (no recursion reads them), a call tree 20,000 deep (read
// with an explicit stack), and a metric tree deeper than kMaxTreeNesting (refused, as every
// reader refuses it).
TEST(PeriXml, DeepNestingIsReadOrRefusedNeverACrash) {
  test::TempDir tmp("peri-deep");
  std::string deep_data = "<data><d metric=\"m\"><d code=\"c0\">";
  for (int i = 0; i < 200000; ++i) deep_data += "<d>";
  deep_data += "<d spc=\"t1\">7</d>";
  for (int i = 0; i < 200000; ++i) deep_data += "</d>";
  deep_data += "</d></d></data>\n";
  const std::vector<std::vector<double>> expected = {{0, 7}, {0, 0}};
  EXPECT_EQ(imported_values(tmp, small_document(deep_data, false)), expected);

  std::string chain =
      "<peri><code><programs><program id=\"p\"><regions><region id=\"r\">"
      "<name>f</name></region></regions><cnodes>";
  for (int i = 0; i < 20000; ++i) chain += "<cnode id=\"c" + std::to_string(i) + "\" ref=\"r\">";
  for (int i = 0; i < 20000; ++i) chain += "</cnode>";
  chain += "</cnodes></program></programs></code></peri>\n";
  const fs::path xml = tmp.path() / "chain.xml", out = tmp.path() / "chain.cubex";
  std::ofstream(xml) << chain;
  import_peri_xml(xml.string(), out.string());
  const Report r = Report::open(out.string());
  ASSERT_EQ(r.model().cnodes.size(), 20000u);
  EXPECT_EQ(r.model().cnodes[19999].parent, 19998u);

  std::string metrics = "<peri><metrics>";
  for (int i = 0; i <= kMaxTreeNesting; ++i)
    metrics += "<metric id=\"m" + std::to_string(i) + "\">";
  for (int i = 0; i <= kMaxTreeNesting; ++i) metrics += "</metric>";
  metrics += "</metrics></peri>\n";
  std::ofstream(xml) << metrics;
  try {
    import_peri_xml(xml.string(), (tmp.path() / "deep.cubex").string());
    ADD_FAILURE() << "a metric tree deeper than kMaxTreeNesting was read";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics nested deeper than 1000"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp.path() / "deep.cubex"));
}

TEST(PeriXml, ToolWritesTheFileWholeOrNotAtAll) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  test::TempDir tmp("peri");
  const fs::path out = tmp.path() / "x.xml";
  const auto ok = test::run_tool(
      "cubekit", {"export-peri", "-o", out.string(),
                  (shared / "data/real/extrap/single_parameter/mm.x25y1z1.r1.cubex").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_file(out.c_str()));
  const auto bad = test::run_tool("cubekit", {"export-peri", "-o", (tmp.path() / "y.xml").string(),
                                              (tmp.path() / "nope.cubex").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("nope.cubex"), std::string::npos) << bad.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace cubekit
