// The rows CubePL's operands read (issue 30). The engine writes a decoded stored metric's
// per-location values as doubles straight into the evaluator's buffer (calc's
// location_scalars); through a prederived metric `metric::X(i)` or `metric::X(e)` they must
// have the bits of the stored metric's own location_values for every call path and flavour,
// over rows of -0, NaN, infinities, subnormal and huge values, rows left out and integer
// types, and the values worked out by hand. The engine sums a prederived metric over the
// locations several rows at a time; each sum must be the one chain of additions in location
// order, worked out by hand.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/source.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kBig = std::ldexp(1.0, 53);  // 2^53: 2^53 + 1 rounds back to 2^53

// Call tree r → {a, b}, a → {c, d}, b → {f}; three locations.
constexpr size_t kCnodes = 6, kLocations = 3;

// Rows held in memory per metric; a cnode without an entry has no row (the identity).
class MemorySource : public SeveritySource {
 public:
  std::map<Index, std::map<Index, std::vector<std::byte>>> rows;  // metric → cnode → bytes
  std::shared_ptr<const SeverityMatrix> load(const Model& model, Index metric) const override {
    auto matrix =
        std::make_shared<SeverityMatrix>(model.metrics[metric].dtype, kCnodes, kLocations);
    const auto& mine = rows.at(metric);
    matrix->reserve_rows(mine.size());
    for (const auto& [c, bytes] : mine) std::memcpy(matrix->add_row(c), bytes.data(), bytes.size());
    return matrix;
  }
  bool has_data(const Model&, Index metric) const override { return rows.count(metric) > 0; }
};

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Metrics: 0 t (DOUBLE, inclusive), 1 v (UINT64, exclusive), 2 n (INT32, inclusive), 3 e
// (DOUBLE, exclusive), 4 s (DOUBLE, exclusive; see PrederivedSumsFollowTheLocationOrder); then
// PREDERIVED_EXCLUSIVE operand(m, f) = `metric::X(i)` / `metric::X(e)` of each of t, v, n, e
// (5 to 12), then the derived ones of `derived` (name, kind, expression) from 13 on.
constexpr size_t kStored = 4;  // t, v, n, e
Index operand(Index stored, Flavour f) {
  return static_cast<Index>(5 + 2 * stored + (f == Flavour::kExclusive ? 1 : 0));
}
struct Derived {
  const char* name;
  MetricKind kind;
  const char* expression;
};
Report make_report(const std::vector<Derived>& derived = {}) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "t", "DOUBLE", MetricKind::kInclusive);
  test::add_metric(*model, "v", "UINT64", MetricKind::kExclusive);
  test::add_metric(*model, "n", "INT32", MetricKind::kInclusive);
  test::add_metric(*model, "e", "DOUBLE", MetricKind::kExclusive);
  test::add_metric(*model, "s", "DOUBLE", MetricKind::kExclusive);
  for (const char* name : {"t", "v", "n", "e"})
    for (const char* f : {"i", "e"})
      test::add_metric(*model, std::string(name) + "_" + f, "DOUBLE",
                       MetricKind::kPrederivedExclusive)
          .expression = std::string("metric::") + name + "(" + f + ")";
  for (const Derived& d : derived)
    test::add_metric(*model, d.name, "DOUBLE", d.kind).expression = d.expression;
  test::add_call_tree(*model, {"r", "a", "b", "c", "d", "f"}, {kNoIndex, 0, 0, 1, 1, 2});
  test::add_one_machine(*model, {kLocations});
  model->finalize("operand-rows");
  auto source = std::make_shared<MemorySource>();
  const std::vector<double> special = {0.0,     -0.0,   1.5,  -kInf,     kNaN,     DBL_MAX,
                                       DBL_MIN, 5e-324, kBig, 1 + 1e-15, -DBL_MAX, 3.0};
  for (Index c = 0; c < kCnodes; ++c) {
    std::vector<double> t, e;
    std::vector<uint64_t> v;
    std::vector<int32_t> n;
    for (size_t l = 0; l < kLocations; ++l) {
      t.push_back(special[(3 * c + 7 * l) % special.size()]);
      e.push_back(special[(5 * c + l) % special.size()]);
      v.push_back(std::vector<uint64_t>{0, 1, UINT64_MAX, (uint64_t{1} << 53) + 1}[(c + l) % 4]);
      n.push_back(std::vector<int32_t>{INT32_MIN, -7, 0, 12}[(c + 2 * l) % 4]);
    }
    if (c != 4) source->rows[0][c] = bytes_of(t);  // d has no time row
    if (c != 2) source->rows[1][c] = bytes_of(v);  // b has no visits row
    source->rows[2][c] = bytes_of(n);
    source->rows[3][c] = bytes_of(e);
    source->rows[4][c] =
        bytes_of(c % 2 == 0 ? std::vector<double>{kBig, 1, 1} : std::vector<double>{1, 1, kBig});
  }
  return Report("operand-rows", model, source);
}

std::vector<uint64_t> bits(const double* values, size_t n) {
  std::vector<uint64_t> out(n);
  std::memcpy(out.data(), values, n * sizeof(double));
  return out;
}

// Values of metric m at call path c as doubles, from the engine.
std::vector<double> row_of(MetricEngine& engine, Index m, Index c, Flavour f) {
  const Values v = engine.location_values(m, c, Flavour::kInclusive, f);
  std::vector<double> out(v.size());
  scalars(v.type(), v.data(), v.size(), out.data());
  return out;
}

TEST(OperandRows, DecodedRowsGiveTheBitsOfLocationValues) {
  const Report report = make_report();
  for (Index m = 0; m < kStored; ++m) ASSERT_NE(report.severities(m), nullptr);
  MetricEngine engine(report);
  for (Index m = 0; m < kStored; ++m)
    for (Index c = 0; c < kCnodes; ++c)
      for (Flavour f : {Flavour::kInclusive, Flavour::kExclusive}) {
        const std::vector<double> want = row_of(engine, m, c, f);
        const std::vector<double> got = row_of(engine, operand(m, f), c, Flavour::kExclusive);
        EXPECT_EQ(bits(got.data(), kLocations), bits(want.data(), kLocations))
            << "metric " << m << " cnode " << c << " flavour " << static_cast<int>(f);
      }
}

TEST(OperandRows, HandComputedExclusiveValues) {
  const Report report = make_report();
  ASSERT_NE(report.severities(0), nullptr);
  ASSERT_NE(report.severities(1), nullptr);
  MetricEngine engine(report);
  std::vector<double> out;
  // t at call path c, location l: special[(3c + 7l) % 12].
  // c (3) is a leaf: its own row [special 9, 4, 11] = [1 + 1e-15, NaN, 3].
  out = row_of(engine, operand(0, Flavour::kExclusive), 3, Flavour::kExclusive);
  EXPECT_EQ(out[0], 1 + 1e-15);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], 3.0);
  // r (0): own [0, 5e-324, 1.5] minus a's [-inf, -DBL_MAX, DBL_MAX] minus b's
  // [DBL_MIN, -0, 2^53]. Location 0: 0 - -inf = inf is snapped to 0, as CubeLib's rule has it
  // (|difference| ≤ 2 ulp of |sum|, and the sum is infinite too), then 0 - DBL_MIN. Location
  // 1: 5e-324 + DBL_MAX rounds to DBL_MAX, - -0 keeps it. Location 2: 1.5 - DBL_MAX rounds to
  // -DBL_MAX, and so does - 2^53.
  out = row_of(engine, operand(0, Flavour::kExclusive), 0, Flavour::kExclusive);
  EXPECT_EQ(out, (std::vector<double>{-DBL_MIN, DBL_MAX, -DBL_MAX}));
  // b (2): own [DBL_MIN, -0, 2^53] minus f's [-inf, -DBL_MAX, DBL_MAX]: inf snapped to 0,
  // +0 + DBL_MAX, 2^53 - DBL_MAX rounded to -DBL_MAX.
  out = row_of(engine, operand(0, Flavour::kExclusive), 2, Flavour::kExclusive);
  EXPECT_EQ(out, (std::vector<double>{0.0, DBL_MAX, -DBL_MAX}));
  // d (4) has no time row: 0 everywhere, exclusively and inclusively.
  out = row_of(engine, operand(0, Flavour::kInclusive), 4, Flavour::kExclusive);
  EXPECT_EQ(out, std::vector<double>(kLocations, 0.0));
  // visits of a (1): [1, UINT64_MAX, 2^53 + 1] as the nearest doubles; b (2) has no row.
  out = row_of(engine, operand(1, Flavour::kExclusive), 1, Flavour::kExclusive);
  EXPECT_EQ(out, (std::vector<double>{1.0, 0x1p64, kBig}));
  out = row_of(engine, operand(1, Flavour::kExclusive), 2, Flavour::kExclusive);
  EXPECT_EQ(out, std::vector<double>(kLocations, 0.0));
}

// A -0 own value becomes +0: CubeLib starts a call path's value from the identity 0 and adds
// its row, and 0 + -0 = +0. Seen through CubePL, -x then tells the two apart.
TEST(OperandRows, NegativeZeroOwnValueReadsAsPositiveZero) {
  const Report report =
      make_report({{"minus_e", MetricKind::kPrederivedExclusive, "-metric::e()"}});
  ASSERT_NE(report.severities(3), nullptr);
  MetricEngine engine(report);
  // e at b (2): special[10], [11], [0] = -DBL_MAX, 3, 0; at r (0): [0], [1], [2] = 0, -0, 1.5.
  const Values r = engine.location_values(13, 0, Flavour::kInclusive, Flavour::kExclusive);
  EXPECT_EQ(bits(reinterpret_cast<const double*>(r.data()), kLocations),
            bits(std::vector<double>{-0.0, -0.0, -1.5}.data(), kLocations));
}

// Sums over the locations, left to right: s holds [2^53, 1, 1] at even call paths, where
// (2^53 + 1) + 1 = 2^53 (each addition rounds to even), and [1, 1, 2^53] at odd ones, where
// 2 + 2^53 is exact. Six call paths: the engine's batch of four rows and a rest of two.
TEST(OperandRows, PrederivedSumsFollowTheLocationOrder) {
  const Report report = make_report({{"excl", MetricKind::kPrederivedExclusive, "metric::s()"},
                                     {"incl", MetricKind::kPrederivedInclusive, "metric::s(e)"}});
  MetricEngine engine(report);
  std::vector<double> expected;
  for (Index c = 0; c < kCnodes; ++c) expected.push_back(c % 2 == 0 ? kBig : kBig + 2);
  for (auto [metric, flavour] : {std::pair{13u, Flavour::kExclusive}, {14u, Flavour::kInclusive}}) {
    const Values sums = engine.aggregated_values(metric, Flavour::kInclusive, flavour);
    std::vector<double> got;
    for (Index c = 0; c < kCnodes; ++c) got.push_back(sums.scalar(c));
    EXPECT_EQ(got, expected) << "metric " << metric;
  }
}

}  // namespace
}  // namespace cubekit
