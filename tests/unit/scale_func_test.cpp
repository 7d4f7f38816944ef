// The number a SCALE_FUNC value stands for in CubePL and sorting: CubeLib's asymptotic key of
// the dominant term a·x^(b/c)·log2(x)^d, 1000·b/c + d + a/1000 (cube-format.md §7.3 layout).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/scale_func.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/data_type.hpp"
#include "cubekit/value_text.hpp"
#include "test_support.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

struct Term {
  double a;
  int32_t b;
  uint32_t c;
  int32_t d;
};

// An 848-byte slot: u32 term count, u32 measurement count, then 20-byte terms.
std::vector<std::byte> slot_of(const std::vector<Term>& terms) {
  std::vector<std::byte> slot(848, std::byte{0});
  const uint32_t n = static_cast<uint32_t>(terms.size());
  std::memcpy(slot.data(), &n, 4);
  for (size_t i = 0; i < terms.size(); ++i) {
    std::byte* p = slot.data() + 8 + 20 * i;
    std::memcpy(p, &terms[i].a, 8);
    std::memcpy(p + 8, &terms[i].b, 4);
    std::memcpy(p + 12, &terms[i].c, 4);
    std::memcpy(p + 16, &terms[i].d, 4);
  }
  return slot;
}

struct Measurement {
  uint32_t processes;
  double mean, width;
};

// slot_of with measurements packed after the terms (20 bytes each).
std::vector<std::byte> slot_with(const std::vector<Term>& terms,
                                 const std::vector<Measurement>& measurements) {
  std::vector<std::byte> slot = slot_of(terms);
  const uint32_t m = static_cast<uint32_t>(measurements.size());
  std::memcpy(slot.data() + 4, &m, 4);
  for (size_t i = 0; i < measurements.size(); ++i) {
    std::byte* p = slot.data() + 8 + 20 * terms.size() + 20 * i;
    std::memcpy(p, &measurements[i].processes, 4);
    std::memcpy(p + 4, &measurements[i].mean, 8);
    std::memcpy(p + 12, &measurements[i].width, 8);
  }
  return slot;
}

double key_of(const std::vector<Term>& terms) {
  return scalar(DataType::parse("SCALE_FUNC"), slot_of(terms).data());
}

TEST(ScaleFuncKey, DominantTermByExponentThenLogThenCoefficient) {
  EXPECT_EQ(key_of({}), 0.0);
  // 100 + 2·x^(1/2)·log2(x): the square root dominates → 500 + 1 + 0.002.
  EXPECT_DOUBLE_EQ(key_of({{100, 0, 1, 0}, {2, 1, 2, 1}}), 501.002);
  // Same exponent: the higher log power wins, whatever the coefficients.
  EXPECT_DOUBLE_EQ(key_of({{7, 2, 1, 0}, {0.5, 2, 1, 2}}), 2002.0005);
  // Same exponent and log power: the larger coefficient; negative ones lose.
  EXPECT_DOUBLE_EQ(key_of({{-3, 1, 1, 0}, {5, 1, 1, 0}}), 1000.005);
  // Terms with coefficient 0 do not count.
  EXPECT_DOUBLE_EQ(key_of({{0, 3, 1, 0}, {4, 0, 1, 0}}), 0.004);
}

// CubeLib's ScaleFuncValue::getString puts each measurement "(processes,mean)" in front of
// the terms (also of a value without terms); CubeLib 4.6's cube_dump prints the report of
// values so (docs/models.md, checked with the original on a report given such values).
TEST(ScaleFuncText, MeasurementsComeFirst) {
  const DataType type = DataType::parse("SCALE_FUNC");
  const auto with = slot_with({{2, 0, 1, 0}, {3, 3, 2, 0}}, {{16, 2.5, 0.1}, {32, 4.125, 0.2}});
  EXPECT_EQ(value_text(type, with.data()), "(16,2.5)(32,4.125)3*x**(3.0/2.0) + 2");
  const auto only = slot_with({}, {{8, 1.0 / 3, 0}});
  EXPECT_EQ(value_text(type, only.data()), "(8,0.333333)0");
  EXPECT_EQ(value_text(type, slot_of({{2, 0, 1, 0}}).data()), "2");
}

// Adding keeps the accumulator's measurements, now after its new number of terms, and ignores
// the other operand's (CubeLib's op_plus_or_minus adds terms only).
TEST(ScaleFuncPlus, KeepsTheAccumulatorsMeasurements) {
  auto acc = slot_with({{2, 0, 1, 0}}, {{16, 2.5, 0.1}, {32, 4.125, 0.2}});
  const auto x = slot_with({{3, 3, 2, 0}, {1, 0, 1, 0}}, {{64, 9, 1}});
  core::scale_func_plus(acc.data(), x.data(), 1.0);
  const auto terms = core::scale_func_terms(acc.data());
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0].a, 3);
  EXPECT_EQ(terms[1].a, 3);  // 2 + 1
  const auto measurements = core::scale_func_measurements(acc.data());
  ASSERT_EQ(measurements.size(), 2u);
  EXPECT_EQ(measurements[0].processes, 16u);
  EXPECT_EQ(measurements[1].mean, 4.125);
  EXPECT_EQ(measurements[1].width, 0.2);
  // The bytes after the measurements are zero, as a written value pads them.
  const size_t end = 8 + 2 * 20 + 2 * 20;
  EXPECT_TRUE(std::all_of(acc.begin() + long(end), acc.end(),
                          [](std::byte b) { return b == std::byte{0}; }));
}

// cube_dump of SCALE_FUNC values that carry measurements, as CubeLib 4.6's cube_dump printed
// them for the same values (2026-11-27, a model report given these measurements): a call
// path's whole row keeps them (the inclusive value those of the call path's own value), values
// computed for one location or over all start empty and have none. main: 1.8 + 3·x^(3/2) with
// (16, 2.5), (32, 4.125); its callee solve: 8.4 + 3.9·x² with (8, 1/3).
TEST(ScaleFuncDump, MeasurementsWhereCubeLibPrintsThem) {
  test::TempDir dir("scale-func-dump");
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "SCALE_FUNC", MetricKind::kExclusive);
  test::add_call_tree(*model, {"main", "solve"}, {kNoIndex, 0});
  test::add_one_machine(*model, {1});
  const std::string path = (dir.path() / "m.cubex").string();
  model->finalize(path);
  const std::vector<std::vector<std::byte>> slots = {
      slot_with({{1.8, 0, 1, 0}, {3, 3, 2, 0}}, {{16, 2.5, 0}, {32, 4.125, 0}}),
      slot_with({{8.4, 0, 1, 0}, {3.9, 2, 1, 0}}, {{8, 1.0 / 3, 0}})};
  {
    ReportWriter writer(path, model);
    writer.begin_metric(0);
    for (Index c : storage_order(*model, MetricKind::kExclusive))
      writer.write_row(c, slots[c].data());
    writer.end_metric();
    writer.finish();
  }
  auto rows = [&](std::vector<std::string> args) {
    args.push_back(path);
    const test::RunResult r = test::run_tool("cube_dump", args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("main(", 0) == 0 || line.rfind("solve(", 0) == 0) lines.push_back(line);
    return lines;
  };
  using Lines = std::vector<std::string>;
  EXPECT_EQ(rows({"-m", "time"}), (Lines{"main(id=0)  (16,2.5)(32,4.125)3*x**(3.0/2.0) + 1.8",
                                         "solve(id=1) (8,0.333333)3.9*x**(2.0/1.0) + 8.4"}));
  EXPECT_EQ(rows({"-m", "time", "-z", "incl"}),
            (Lines{"main(id=0)  (16,2.5)(32,4.125)3.9*x**(2.0/1.0) + 3*x**(3.0/2.0) + 10",
                   "solve(id=1) (8,0.333333)3.9*x**(2.0/1.0) + 8.4"}));
  for (const char* t : {"0", "aggr"})
    EXPECT_EQ(rows({"-m", "time", "-z", "incl", "-t", t}),
              (Lines{"main(id=0)  3.9*x**(2.0/1.0) + 3*x**(3.0/2.0) + 10",
                     "solve(id=1) 3.9*x**(2.0/1.0) + 8.4"}))
        << t;
  std::filesystem::remove(path);
}

// A big-endian report's SCALE_FUNC value: its measurements are read where they are stored,
// right after its terms (cube-format.md §7.3), and come out in host order.
TEST(ScaleFuncRead, BigEndianMeasurementsFollowTheTerms) {
  std::string slot;
  test::append_value<uint32_t>(slot, 1, true);  // one term
  test::append_value<uint32_t>(slot, 1, true);  // one measurement
  test::append_value<double>(slot, 2.5, true);  // 2.5 · x^(1/2)
  test::append_value<int32_t>(slot, 1, true);
  test::append_value<uint32_t>(slot, 2, true);
  test::append_value<int32_t>(slot, 0, true);
  test::append_value<uint32_t>(slot, 16, true);  // (16, 3.5, 0.25)
  test::append_value<double>(slot, 3.5, true);
  test::append_value<double>(slot, 0.25, true);
  slot.resize(848, '\0');
  const std::string empty(848, '\0');
  std::string rows = slot + empty;  // call path 0: locations 0 and 1
  for (int i = 0; i < 4; ++i) rows += empty;
  test::AnchorSpec anchor;
  anchor.metrics = {{0, "model", "SCALE_FUNC"}};
  test::TarBuilder tar;
  tar.add("0.data", test::plain_data(rows))
      .add("0.index", test::dense_index(true))
      .add("anchor.xml", test::anchor_xml(anchor));
  test::TempDir dir("scale-func-big-endian");
  const std::string path = (dir.path() / "b.cubex").string();
  { std::ofstream(path, std::ios::binary) << tar.finish(); }
  {
    const Report report = Report::open(path);
    const auto matrix = report.severities(0);
    const std::byte* value = matrix->row(0);
    ASSERT_NE(value, nullptr);
    const auto terms = core::scale_func_terms(value);
    ASSERT_EQ(terms.size(), 1u);
    EXPECT_EQ(terms[0].a, 2.5);
    EXPECT_EQ(terms[0].c, 2u);
    const auto measurements = core::scale_func_measurements(value);
    ASSERT_EQ(measurements.size(), 1u);
    EXPECT_EQ(measurements[0].processes, 16u);
    EXPECT_EQ(measurements[0].mean, 3.5);
    EXPECT_EQ(measurements[0].width, 0.25);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cubekit
