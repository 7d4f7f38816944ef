// How one call path's values are read (src/calc/calc.cpp, Report::severities_for_rows).
// call_values sums the inclusive value of exclusive storage over the subtree's rows in
// pre-order, as CubeLib does, whatever order the source hands its rows in: streamed when they
// come in pre-order, from the decoded matrix when they do not. A source that visits its rows
// backwards must still get the pre-order sum, worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

const double kBig = std::ldexp(1.0, 53);  // 2^53, where the doubles are 2 apart

// r → {a, b}, a → {c}; one location; exclusive values r 1, a 2^53, b 1, c −2^53.
std::shared_ptr<Model> tree() {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  test::add_call_tree(*model, {"r", "a", "b", "c"}, {kNoIndex, 0, 0, 1});
  test::add_one_machine(*model, {1});
  model->finalize("call-values-order");
  return model;
}

// Holds the rows in memory and hands them over last row first.
class BackwardsSource : public SeveritySource {
 public:
  std::shared_ptr<const SeverityMatrix> load(const Model&, Index) const override {
    auto matrix = std::make_shared<SeverityMatrix>(DataType(TypeKind::kDouble), 4, 1);
    matrix->reserve_rows(4);
    const double values[] = {1, kBig, 1, -kBig};
    for (Index c = 0; c < 4; ++c) std::memcpy(matrix->add_row(c), &values[c], sizeof(double));
    return matrix;
  }
  bool has_data(const Model&, Index) const override { return true; }
  void visit_rows(const Model& model, Index metric, const RowVisitor& visit, RowPlacement,
                  RowShare) const override {
    const auto matrix = load(model, metric);
    for (Index c = 4; c-- > 0;) visit(c, matrix->row(c));
  }
};

TEST(CallValues, InclusiveOfExclusiveStorageSumsThePreOrderWhateverTheRowOrder) {
  const Report report("backwards", tree(), std::make_shared<BackwardsSource>());
  // Pre-order r, a, c, b: (1 + 2^53) is a tie, rounded to 2^53; − 2^53 = 0; + 1 = 1. The
  // source's order b, c, a, r would give (1 − 2^53) + 2^53 + 1 = 2.
  MetricEngine engine(report);
  const Values v = engine.location_values(0, 0, Flavour::kInclusive, Flavour::kInclusive);
  double root = 0;
  std::memcpy(&root, v.data(), sizeof root);
  EXPECT_EQ(root, 1);
  // a's subtree (a, c) in either order: 2^53 − 2^53 = 0.
  const Values a = engine.location_values(0, 1, Flavour::kInclusive, Flavour::kInclusive);
  double sub = -1;
  std::memcpy(&sub, a.data(), sizeof sub);
  EXPECT_EQ(sub, 0);
}

// A few questions about single rows are answered by passes over the stored rows; after four,
// the metric is decoded once for the callers that go on call path after call path. A metric
// decoded already is answered from its matrix at once.
TEST(CallValues, AMetricIsDecodedAfterFourRowQuestions) {
  const Report report("backwards", tree(), std::make_shared<BackwardsSource>());
  for (int question = 0; question < 4; ++question)
    EXPECT_EQ(report.severities_for_rows(0), nullptr) << question;
  const auto matrix = report.severities_for_rows(0);
  ASSERT_NE(matrix, nullptr);
  EXPECT_EQ(matrix->stored_rows(), 4u);
  const Report decoded("backwards", tree(), std::make_shared<BackwardsSource>());
  ASSERT_NE(decoded.severities(0), nullptr);
  EXPECT_NE(decoded.severities_for_rows(0), nullptr);
}

}  // namespace
}  // namespace cubekit
