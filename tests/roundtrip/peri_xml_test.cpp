// PERI-XML export (docs/peri-xml.md) read back with pugixml and checked against the library's
// own answers on real profiles: every call path and thread in the code and space dimensions,
// both flavours of every metric, and each <d> value the one the engine computes — all of them
// (zeros are the values left out).
#include "cubekit/peri_xml.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <pugixml.hpp>
#include <sstream>
#include <string>

#include "cubekit/error.hpp"
#include "test_support.hpp"
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
        EXPECT_EQ(value.text().as_double(), v.scalar(column)) << id << " " << *c;
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
