// cube_regioninfo's library part: region kinds (MPI / OMP / EPK by description, COM for a
// region with MPI or OpenMP below one of its call paths), the bytes per visit of each kind of
// event record, and the filter list's rules, on a small model built here.
#include "cubekit/region_info.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "cubekit/error.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

// main → solve → MPI_Allreduce (descr MPI); main → io; a region no call path calls.
Model small_model() {
  Model m;
  const char* names[] = {"main", "solve", "MPI_Allreduce", "io", "TRACING"};
  const char* descrs[] = {"", "", "MPI", "", "EPIK"};
  for (uint32_t r = 0; r < 5; ++r) {
    Region region;
    region.id = r;
    region.name = region.mangled_name = names[r];
    region.descr = descrs[r];
    m.regions.push_back(region);
  }
  const Index parent_of[] = {kNoIndex, 0, 1, 0};
  for (uint32_t c = 0; c < 4; ++c) {
    Cnode cnode;
    cnode.id = c;
    cnode.region = c;
    cnode.parent = parent_of[c];
    m.cnodes.push_back(cnode);
    if (cnode.parent != kNoIndex) m.cnodes[cnode.parent].children.push_back(c);
  }
  return m;
}

TEST(RegionInfo, KindsFollowDescriptionsAndCallees) {
  const std::vector<RegionKind> kinds = region_kinds(small_model());
  EXPECT_EQ(kinds, (std::vector<RegionKind>{RegionKind::kCommunication, RegionKind::kCommunication,
                                            RegionKind::kMpi, RegionKind::kUser,
                                            RegionKind::kMeasurement}));
  EXPECT_STREQ(region_kind_name(kinds[0]), "COM");
  EXPECT_STREQ(region_kind_name(kinds[4]), "EPK");
}

TEST(RegionInfo, BytesPerVisitByRecordKind) {
  EXPECT_EQ(trace_record_bytes("main"), 24u);           // user code (4 letters or fewer too)
  EXPECT_EQ(trace_record_bytes("MPI_Allreduce"), 40u);  // collective
  EXPECT_EQ(trace_record_bytes("MPI_Barrier"), 40u);    // synchronising collective
  EXPECT_EQ(trace_record_bytes("MPI_Isend"), 50u);      // send
  EXPECT_EQ(trace_record_bytes("MPI_Irecv"), 46u);      // receive
  EXPECT_EQ(trace_record_bytes("MPI_Sendrecv"), 72u);   // both
  EXPECT_EQ(trace_record_bytes("MPI_Put"), 72u);        // one-sided operation
  EXPECT_EQ(trace_record_bytes("MPI_Win_fence"), 28u);  // one-sided collective
  EXPECT_EQ(trace_record_bytes("MPI_Win_post"), 33u);   // one-sided synchronisation
  EXPECT_EQ(trace_record_bytes("MPI_Win_lock"), 45u);
  EXPECT_EQ(trace_record_bytes("MPI_Win_unlock"), 44u);
  EXPECT_EQ(trace_record_bytes("MPI_Comm_rank"), 24u);          // other MPI
  EXPECT_EQ(trace_record_bytes("omp_set_lock"), 34u);           // OpenMP lock API
  EXPECT_EQ(trace_record_bytes("!$omp parallel @a.f:3"), 44u);  // fork
  EXPECT_EQ(trace_record_bytes("!$omp critical @a.f:9"), 44u);
  EXPECT_EQ(trace_record_bytes("!$omp do @a.f:5"), 24u);
}

TEST(RegionInfo, FilterListPatternsAndWarnings) {
  test::TempDir dir("region_info");
  const auto list = dir.path() / "filter.txt";
  std::ofstream(list) << "# user regions\n  s*  trailing words\nMPI_*\nmain\nTRACING\n";
  const Model m = small_model();
  std::vector<std::string> warnings;
  const std::vector<bool> filtered = filtered_regions(
      m, region_kinds(m), list.string(), [&](const std::string& w) { warnings.push_back(w); });
  // COM regions are filtered with a warning; MPI and measurement regions cannot be.
  EXPECT_EQ(filtered, (std::vector<bool>{true, true, false, false, false}));
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                "Warning: Filter contains region \"main\" of type COM",
                "Warning: Filter \"s*\" matches region \"solve\" of type COM",
                "Warning: Filter matches region \"MPI_Allreduce\" of type MPI which cannot be "
                "filtered.",
                "Warning: Filter contains measurement-related region \"TRACING\" which cannot be "
                "filtered."}));
  EXPECT_THROW(filtered_regions(m, region_kinds(m), (dir.path() / "none").string(), {}), Error);
  EXPECT_THROW(filtered_regions(m, region_kinds(m), "/dev/zero", {}), Error);  // no hang
}

}  // namespace
}  // namespace cubekit
