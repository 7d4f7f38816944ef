// What the anchor writer must do for CubeLib 4.6 to read the report (checked against the
// original with scripts/reference_check.sh, pinned here so that CI guards it without it).
#include <gtest/gtest.h>

#include <string>

#include "format/anchor_writer.hpp"
#include "small_model.hpp"

namespace cubekit {
namespace {

Model ghost_first_model() {
  Model model;
  test::add_one_machine(model, {1});
  Metric& ghost = test::add_metric(model, "ghost_time", "DOUBLE", MetricKind::kExclusive);
  ghost.ghost = true;
  test::add_metric(model, "time", "DOUBLE", MetricKind::kExclusive);
  test::add_metric(model, "visits", "UINT64", MetricKind::kExclusive);
  Region main;
  main.name = main.mangled_name = "main";
  model.regions.push_back(main);
  Cnode root;
  root.region = 0;
  model.cnodes.push_back(root);
  model.finalize("ghost_first_model");
  return model;
}

// CubeLib's writer puts ghost metrics after all others; with a ghost root in between, its
// cube_dump -m all crashes on the report (cube_remap2 with the spec embedded in Score-P
// profiles defines two ghosts before min_time and max_time).
TEST(AnchorWriter, GhostMetricsComeAfterAllOthers) {
  const std::string xml = format::anchor_xml(ghost_first_model());
  const size_t time = xml.find("<uniq_name>time<");
  const size_t visits = xml.find("<uniq_name>visits<");
  const size_t ghost = xml.find("<uniq_name>ghost_time<");
  ASSERT_NE(ghost, std::string::npos);
  EXPECT_LT(time, visits);
  EXPECT_LT(visits, ghost);
  EXPECT_NE(xml.find("<metric id=\"0\" type=\"EXCLUSIVE\" viztype=\"GHOST\">"), std::string::npos);
}

// Metrics CubeLib leaves out (inactive ones, with all below them) keep their ids: the others
// are written with theirs, gaps and all.
TEST(AnchorWriter, LeftOutMetricsKeepTheirIdsUnused) {
  Model model = ghost_first_model();
  model.anchor_omitted_metric_ids.push_back(1);  // time
  const std::string xml = format::anchor_xml(model);
  EXPECT_EQ(xml.find("<uniq_name>time<"), std::string::npos);
  EXPECT_NE(xml.find("<metric id=\"2\" type=\"EXCLUSIVE\">"), std::string::npos);
}

}  // namespace
}  // namespace cubekit
