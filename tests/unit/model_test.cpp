// Row orders of the call forest and id rules (cube-format.md §4, §11).
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/model.hpp"

namespace cubekit {
namespace {

// The forest of cube-format.md §4.4: A[0](B[5](D[1]), C[2](E[3], F[4])), G[6].
Model example_forest() {
  Model m;
  m.regions.push_back(Region{});
  auto add = [&](uint32_t id, Index parent) {
    Cnode c;
    c.id = id;
    c.region = 0;
    c.parent = parent;
    const Index self = static_cast<Index>(m.cnodes.size());
    m.cnodes.push_back(c);
    if (parent != kNoIndex) m.cnodes[parent].children.push_back(self);
    return self;
  };
  const Index a = add(0, kNoIndex);
  const Index b = add(5, a);
  add(1, b);
  const Index c = add(2, a);
  add(3, c);
  add(4, c);
  add(6, kNoIndex);
  m.finalize("test");
  return m;
}

std::vector<uint32_t> ids(const Model& m, const std::vector<Index>& order) {
  std::vector<uint32_t> out;
  for (Index i : order) out.push_back(m.cnodes[i].id);
  return out;
}

TEST(CallTreeOrder, PreOrderForExclusiveMetrics) {
  const Model m = example_forest();
  EXPECT_EQ(ids(m, pre_order(m)), (std::vector<uint32_t>{0, 5, 1, 2, 3, 4, 6}));
  EXPECT_EQ(ids(m, storage_order(m, MetricKind::kExclusive)), ids(m, pre_order(m)));
}

TEST(CallTreeOrder, ChildrenFirstForInclusiveMetrics) {
  const Model m = example_forest();
  EXPECT_EQ(ids(m, children_first_order(m)), (std::vector<uint32_t>{0, 5, 2, 1, 3, 4, 6}));
  EXPECT_EQ(ids(m, storage_order(m, MetricKind::kInclusive)), ids(m, children_first_order(m)));
  // CubeLib reads SIMPLE like INCLUSIVE (cube-format.md §4.3).
  EXPECT_EQ(ids(m, storage_order(m, MetricKind::kSimple)), ids(m, children_first_order(m)));
}

// One table of type= texts, read and written: every kind round-trips; DERIVED is CubeLib's
// older name of POSTDERIVED; anything else (lower case too) is no kind.
TEST(MetricKinds, NamesRoundTrip) {
  for (MetricKind k : {MetricKind::kExclusive, MetricKind::kInclusive, MetricKind::kSimple,
                       MetricKind::kPostDerived, MetricKind::kPrederivedInclusive,
                       MetricKind::kPrederivedExclusive})
    EXPECT_EQ(metric_kind_from_name(metric_kind_name(k)), k) << metric_kind_name(k);
  EXPECT_EQ(metric_kind_from_name("DERIVED"), MetricKind::kPostDerived);
  EXPECT_EQ(metric_kind_name(MetricKind::kPostDerived), std::string("POSTDERIVED"));
  EXPECT_FALSE(metric_kind_from_name("postderived"));
  EXPECT_FALSE(metric_kind_from_name(""));
}

TEST(ModelRules, DuplicateCnodeIdIsRejected) {
  Model m = example_forest();
  m.cnodes[6].id = 5;
  try {
    m.finalize("x.cubex:anchor.xml");
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), "x.cubex:anchor.xml: cnode id 5 declared twice");
  }
}

// Call paths are found by id, and ids declared twice are rejected, whether the ids are few
// enough for a table indexed by id (0 to n-1, or with gaps) or spread up to 2^32-1 (a map).
TEST(ModelRules, CnodesAreFoundByIdWhateverTheIds) {
  const std::vector<std::vector<uint32_t>> id_sets = {
      {0, 1, 2, 3, 4, 5, 6},
      {6, 5, 4, 3, 2, 1, 0},
      {3, 9, 20, 7, 1, 30, 12},
      {7, 4000000000u, 12, 4294967295u, 0, 99999999, 5}};
  for (const auto& set : id_sets) {
    Model m = example_forest();
    for (Index i = 0; i < m.cnodes.size(); ++i) m.cnodes[i].id = set[i];
    m.finalize("x");
    for (Index i = 0; i < m.cnodes.size(); ++i) {
      ASSERT_TRUE(m.cnode_by_id(set[i]).has_value()) << set[i];
      EXPECT_EQ(*m.cnode_by_id(set[i]), i) << set[i];
    }
    for (uint32_t absent : {8u, 10u, 31u, 64u, 4000000001u})
      if (std::find(set.begin(), set.end(), absent) == set.end()) {
        EXPECT_FALSE(m.cnode_by_id(absent).has_value()) << absent;
      }
    m.cnodes[6].id = set[2];
    try {
      m.finalize("x");
      ADD_FAILURE() << "no error for cnode id " << set[2] << " declared twice";
    } catch (const FormatError& e) {
      EXPECT_EQ(std::string(e.what()), "x: cnode id " + std::to_string(set[2]) + " declared twice");
    }
  }
}

TEST(ModelRules, RegionIdDeclaredTwiceIsRejectedWhateverTheIds) {
  for (const uint32_t id : {3u, 4000000000u}) {
    Model m = example_forest();
    m.regions.resize(3);
    m.regions[0].id = 1;
    m.regions[1].id = id;
    m.regions[2].id = id;
    try {
      m.finalize("x");
      ADD_FAILURE() << "no error for region id " << id << " declared twice";
    } catch (const FormatError& e) {
      EXPECT_EQ(std::string(e.what()), "x: region id " + std::to_string(id) + " declared twice");
    }
  }
}

TEST(ModelRules, LocationIdsMustBeDense) {
  Model m = example_forest();
  m.locations.resize(2);
  m.locations[0].id = 0;
  m.locations[1].id = 2;
  try {
    m.finalize("x.cubex:anchor.xml");
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x.cubex:anchor.xml: location id 2 out of range: the 2 locations must have ids 0..1");
  }
}

TEST(ModelRules, VoidIsInheritedBySubMetrics) {
  Model m;
  m.metrics.resize(2);
  m.metrics[0].id = 0;
  m.metrics[0].val = "VOID";
  m.metrics[0].children = {1};
  m.metrics[1].id = 1;
  m.metrics[1].parent = 0;
  m.finalize("test");
  EXPECT_TRUE(m.metrics[1].is_void);
}

TEST(SharedText, CopiesShareOneTextAndCompareByValue) {
  const SharedText empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty, "");
  EXPECT_STREQ(empty.c_str(), "");
  SharedText a("Master thread");
  const SharedText copy = a;
  EXPECT_EQ(&copy.str(), &a.str());  // one block, not two texts
  EXPECT_EQ(copy, "Master thread");
  EXPECT_EQ(SharedText("Master thread"), a);  // equal texts of separate blocks
  EXPECT_NE(SharedText("thread"), a);
  EXPECT_EQ(a.size(), 13u);
  a = std::string("OMP thread 1");  // the copy keeps its text
  EXPECT_EQ(a, "OMP thread 1");
  EXPECT_EQ(copy, "Master thread");
  SharedText moved = std::move(a);
  EXPECT_EQ(moved, "OMP thread 1");
  const std::string& as_string = copy;
  EXPECT_EQ(as_string + "!", "Master thread!");
  EXPECT_EQ(Location().type, "thread");
  EXPECT_EQ(LocationGroup().type, "process");
}

// Attributes hold their list on the heap only when there is one (a million locations have
// none); copies are deep, order is kept, equality compares the pairs in order.
TEST(Attributes, ListLikeAVectorOfPairsInEightBytes) {
  EXPECT_EQ(sizeof(Attributes), sizeof(void*));
  Attributes none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(none, Attributes());
  Attributes a = {{"k", "1"}, {"j", "2"}};
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], (std::pair<std::string, std::string>{"k", "1"}));
  EXPECT_EQ(a.back().second, "2");
  Attributes copy = a;
  copy[0].second = "changed";  // a copy has its own list
  EXPECT_EQ(a[0].second, "1");
  EXPECT_NE(copy, a);
  EXPECT_NE(a, none);
  EXPECT_NE(a, (Attributes{{"k", "1"}}));
  EXPECT_NE(a, (Attributes{{"j", "2"}, {"k", "1"}}));  // order counts
  copy = a;
  EXPECT_EQ(copy, a);
  none.emplace_back("x", "y");
  none.push_back({"z", "w"});
  EXPECT_EQ(none, (Attributes{{"x", "y"}, {"z", "w"}}));
  std::vector<std::string> keys;
  for (const auto& [key, value] : none) keys.push_back(key + "=" + value);
  EXPECT_EQ(keys, (std::vector<std::string>{"x=y", "z=w"}));
  Attributes moved = std::move(none);
  EXPECT_EQ(moved.size(), 2u);
  moved.clear();
  EXPECT_TRUE(moved.empty());
  set_attributes(a, {{"j", "3"}, {"new", "4"}});  // j in place, new appended
  EXPECT_EQ(a, (Attributes{{"k", "1"}, {"j", "3"}, {"new", "4"}}));
  Attributes empty_list = {};
  set_attributes(empty_list, a);
  EXPECT_EQ(empty_list, a);
}

TEST(Topology, CoordinatesKeepTheirNumbersInOrder) {
  Topology t;
  t.add_coord(Topology::Owner::kLocation, 7, std::vector<int64_t>{3, 1});
  t.add_coord(Topology::Owner::kNode, 2, std::vector<int64_t>{});
  t.add_coord(Topology::Owner::kGroup, 0, std::vector<int64_t>{4, 5, 6});
  ASSERT_EQ(t.coords.size(), 3u);
  EXPECT_EQ(t.values, (std::vector<int64_t>{3, 1, 4, 5, 6}));
  auto numbers = [&](size_t i) {
    const std::span<const int64_t> v = t.values_of(t.coords[i]);
    return std::vector<int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(t.coords[0].owner_id, 7u);
  EXPECT_EQ(numbers(0), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.coords[1].owner, Topology::Owner::kNode);
  EXPECT_TRUE(numbers(1).empty());
  EXPECT_EQ(numbers(2), (std::vector<int64_t>{4, 5, 6}));
}

}  // namespace
}  // namespace cubekit
