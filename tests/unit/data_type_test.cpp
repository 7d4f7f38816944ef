// dtype names, sizes and the algebra table (cube-format.md §7).
#include <gtest/gtest.h>

#include <bit>
#include <limits>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/data_type.hpp"
#include "cubekit/error.hpp"
#include "cubekit/value_text.hpp"

namespace cubekit {
namespace {

TEST(DataType, CanonicalNamesAndAliases) {
  EXPECT_EQ(DataType::parse("UINT64").kind(), TypeKind::kUInt64);
  EXPECT_EQ(DataType::parse("FLOAT").kind(), TypeKind::kDouble);
  EXPECT_EQ(DataType::parse("INTEGER").kind(), TypeKind::kInt64);
  EXPECT_EQ(DataType::parse("UNSIGNED INTEGER").kind(), TypeKind::kUInt64);
  EXPECT_EQ(DataType::parse("CHAR").kind(), TypeKind::kUInt8);
  const DataType h = DataType::parse("HISTOGRAM(5)");
  EXPECT_EQ(h.kind(), TypeKind::kHistogram);
  EXPECT_EQ(h.param(), 5u);
  EXPECT_EQ(h.dtype_text(), "HISTOGRAM(5)");
}

TEST(DataType, DiskSizes) {
  EXPECT_EQ(DataType::parse("INT8").disk_size(), 1u);
  EXPECT_EQ(DataType::parse("UINT16").disk_size(), 2u);
  EXPECT_EQ(DataType::parse("DOUBLE").disk_size(), 8u);
  EXPECT_EQ(DataType::parse("COMPLEX").disk_size(), 16u);
  EXPECT_EQ(DataType::parse("RATE").disk_size(), 16u);
  EXPECT_EQ(DataType::parse("TAU_ATOMIC").disk_size(), 36u);
  EXPECT_EQ(DataType::parse("HISTOGRAM(5)").disk_size(), 16u + 40u);
  EXPECT_EQ(DataType::parse("NDOUBLES(10)").disk_size(), 80u);
  EXPECT_EQ(DataType::parse("SCALE_FUNC").disk_size(), 848u);
}

TEST(DataType, RejectsUnknownAndMalformed) {
  EXPECT_THROW(DataType::parse("QUADRUPLE"), FormatError);
  EXPECT_THROW(DataType::parse("HISTOGRAM"), FormatError);
  EXPECT_THROW(DataType::parse("HISTOGRAM(0)"), FormatError);
  EXPECT_THROW(DataType::parse("HISTOGRAM(x)"), FormatError);
  EXPECT_THROW(DataType::parse("uint64"), FormatError);  // names are case-sensitive
}

TEST(DataType, InclusiveStorageNeedsAnInverse) {
  EXPECT_TRUE(DataType::parse("DOUBLE").allows_inclusive_storage());
  EXPECT_FALSE(DataType::parse("MINDOUBLE").allows_inclusive_storage());
  EXPECT_FALSE(DataType::parse("MAXDOUBLE").allows_inclusive_storage());
  EXPECT_FALSE(DataType::parse("TAU_ATOMIC").allows_inclusive_storage());
  EXPECT_FALSE(DataType::parse("HISTOGRAM(3)").allows_inclusive_storage());
}

TEST(Algebra, IntegersWrapAtTheirWidth) {
  const DataType t(TypeKind::kUInt16);
  uint16_t a[2] = {10, 65535}, b[2] = {26, 1};
  minus_rows(t, reinterpret_cast<std::byte*>(a), reinterpret_cast<std::byte*>(b), 1);
  plus_rows(t, reinterpret_cast<std::byte*>(a + 1), reinterpret_cast<std::byte*>(b + 1), 1);
  EXPECT_EQ(a[0], 65520);  // 10 - 26 mod 2^16
  EXPECT_EQ(a[1], 0);
}

TEST(Algebra, MinAndMaxIdentityAndFold) {
  const DataType min(TypeKind::kMinDouble), max(TypeKind::kMaxDouble);
  double acc_min = 0, acc_max = 0;
  set_identity(min, reinterpret_cast<std::byte*>(&acc_min), 1);
  set_identity(max, reinterpret_cast<std::byte*>(&acc_max), 1);
  EXPECT_EQ(acc_min, DBL_MAX);
  EXPECT_EQ(acc_max, -DBL_MAX);
  const double row[3] = {3.5, -1.0, 2.0};
  fold_row(min, reinterpret_cast<std::byte*>(&acc_min), reinterpret_cast<const std::byte*>(row), 3);
  fold_row(max, reinterpret_cast<std::byte*>(&acc_max), reinterpret_cast<const std::byte*>(row), 3);
  EXPECT_EQ(acc_min, -1.0);
  EXPECT_EQ(acc_max, 3.5);
}

// fold_row is ⊕ applied location after location, bit for bit: signed zeros and NaNs, whose
// result depends on the order, come out as from plus_rows one value at a time.
TEST(Algebra, MinAndMaxFoldEqualsPlusValueByValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double row[] = {0.0, -0.0, 2.0, nan, -0.0, 0.0, 1.0, -3.0, nan, -3.0};
  for (TypeKind kind : {TypeKind::kMinDouble, TypeKind::kMaxDouble}) {
    const DataType t(kind);
    for (double start : {0.0, -0.0, 5.0, -5.0}) {
      double folded = start, one_by_one = start;
      fold_row(t, reinterpret_cast<std::byte*>(&folded), reinterpret_cast<const std::byte*>(row),
               std::size(row));
      for (const double& v : row)
        plus_rows(t, reinterpret_cast<std::byte*>(&one_by_one),
                  reinterpret_cast<const std::byte*>(&v), 1);
      EXPECT_EQ(std::bit_cast<uint64_t>(folded), std::bit_cast<uint64_t>(one_by_one))
          << "start " << start;
    }
  }
}

// fold_rows folds rows side by side: every result has the bits of fold_row on that row alone,
// for every count (groups of 8 and 4 and the rest), rows at odd addresses, NaNs, signed zeros
// and sums whose digits depend on the order of the additions.
TEST(Algebra, FoldRowsEqualsFoldRowRowByRow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double pattern[] = {1e16, 1.0, -1e16, 0.1, -0.0, nan, 0.0, 3.0, -2.5, 1e-300, 7.0};
  for (const char* text : {"DOUBLE", "MINDOUBLE", "MAXDOUBLE", "INT64", "UINT32", "INT8"}) {
    const DataType t = DataType::parse(text);
    const size_t n = 9, size = t.memory_size(), stride = n * size + 3;
    for (size_t count = 1; count <= 13; ++count) {
      std::vector<std::byte> rows(1 + count * stride);
      for (size_t j = 0; j < count; ++j)
        for (size_t i = 0; i < n; ++i) {
          std::byte* v = rows.data() + 1 + j * stride + i * size;
          if (t.lane_type() == LaneType::kDouble) {
            const bool with_nan = j % 3 == 0;  // NaN only in some rows
            double x = pattern[(i + j) % std::size(pattern)];
            if (std::isnan(x) && !with_nan) x = 4.0;
            std::memcpy(v, &x, sizeof x);
          } else {
            for (size_t b = 0; b < size; ++b)
              v[b] = std::byte(static_cast<uint8_t>(i * 31 + j * 7 + b));
          }
        }
      std::vector<uint64_t> together(count), alone(count);
      std::vector<std::byte*> accs(count);
      for (size_t j = 0; j < count; ++j) {
        set_identity(t, reinterpret_cast<std::byte*>(&together[j]), 1);
        set_identity(t, reinterpret_cast<std::byte*>(&alone[j]), 1);
        accs[j] = reinterpret_cast<std::byte*>(&together[j]);
        fold_row(t, reinterpret_cast<std::byte*>(&alone[j]), rows.data() + 1 + j * stride, n);
      }
      fold_rows(t, accs.data(), rows.data() + 1, stride, count, n);
      EXPECT_EQ(together, alone) << text << ", " << count << " rows";
    }
  }
  // The hand-computed case: ((0 + 1e16) + 1) + −1e16 is 0 in sequence (1e16 + 1 rounds to 1e16),
  // whatever else is folded beside it.
  const double row[] = {1e16, 1.0, -1e16};
  double sums[5] = {};
  std::byte* accs[5];
  std::vector<double> five_rows;
  for (int j = 0; j < 5; ++j) {
    accs[j] = reinterpret_cast<std::byte*>(&sums[j]);
    five_rows.insert(five_rows.end(), std::begin(row), std::end(row));
  }
  fold_rows(DataType(TypeKind::kDouble), accs, reinterpret_cast<const std::byte*>(five_rows.data()),
            sizeof row, 5, 3);
  for (double s : sums) EXPECT_EQ(s, 0.0);
}

// The row form is the value-by-value form, for every type (rows at odd addresses included).
TEST(Algebra, ScalarsOfARowEqualScalarOfEachValue) {
  for (const char* text :
       {"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "DOUBLE",
        "MINDOUBLE", "MAXDOUBLE", "COMPLEX", "RATE", "TAU_ATOMIC", "HISTOGRAM(3)", "NDOUBLES(2)"}) {
    const DataType t = DataType::parse(text);
    const size_t n = 5, size = t.memory_size();
    std::vector<std::byte> row(1 + n * size);
    for (size_t i = 0; i < row.size(); ++i) row[i] = std::byte(static_cast<uint8_t>(i * 37 + 11));
    std::vector<uint64_t> aligned((n * size + 7) / 8);
    std::memcpy(aligned.data(), row.data() + 1, n * size);
    std::vector<double> out(n);
    scalars(t, row.data() + 1, n, out.data());
    for (size_t i = 0; i < n; ++i) {
      const double one = scalar(t, reinterpret_cast<const std::byte*>(aligned.data()) + i * size);
      EXPECT_EQ(std::bit_cast<uint64_t>(out[i]), std::bit_cast<uint64_t>(one)) << text << " " << i;
    }
  }
}

// One conversion rule for every place that changes a value's type: doubles to integers are
// truncated and clamped (NaN 0), integers to integers wrap like a C++ cast.
TEST(Algebra, ConvertValuesTruncatesClampsAndWraps) {
  const DataType dbl(TypeKind::kDouble), u8(TypeKind::kUInt8), i16(TypeKind::kInt16),
      u64(TypeKind::kUInt64), i64(TypeKind::kInt64);
  const double in[] = {2.9, -2.9, 300.0, -1.0, std::numeric_limits<double>::quiet_NaN()};
  uint8_t bytes[5];
  convert_values(dbl, reinterpret_cast<const std::byte*>(in), u8,
                 reinterpret_cast<std::byte*>(bytes), 5, "test");
  EXPECT_EQ(std::vector<int>(bytes, bytes + 5), (std::vector<int>{2, 0, 255, 0, 0}));
  int16_t shorts[5];
  convert_values(dbl, reinterpret_cast<const std::byte*>(in), i16,
                 reinterpret_cast<std::byte*>(shorts), 5, "test");
  EXPECT_EQ(std::vector<int>(shorts, shorts + 5), (std::vector<int>{2, -2, 300, -1, 0}));
  const double huge[] = {1e30, -1e30};
  int64_t longs[2];
  convert_values(dbl, reinterpret_cast<const std::byte*>(huge), i64,
                 reinterpret_cast<std::byte*>(longs), 2, "test");
  EXPECT_EQ(longs[0], 9223372036854774784);  // the largest double below 2^63
  EXPECT_EQ(longs[1], std::numeric_limits<int64_t>::min());
  const uint64_t wide[] = {258};
  uint8_t narrow[1];
  convert_values(u64, reinterpret_cast<const std::byte*>(wide), u8,
                 reinterpret_cast<std::byte*>(narrow), 1, "test");
  EXPECT_EQ(narrow[0], 2);  // integer to integer: modulo the width
  // Signed values widen with their sign (two's complement), then wrap to the target's width.
  const int8_t minus_one[] = {-1, -128};
  uint64_t unsigned_wide[2];
  convert_values(DataType(TypeKind::kInt8), reinterpret_cast<const std::byte*>(minus_one), u64,
                 reinterpret_cast<std::byte*>(unsigned_wide), 2, "test");
  EXPECT_EQ(unsigned_wide[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(unsigned_wide[1], uint64_t{0} - 128);
  const uint32_t big_unsigned[] = {4294967295u};
  int16_t wrapped[1];
  convert_values(DataType(TypeKind::kUInt32), reinterpret_cast<const std::byte*>(big_unsigned), i16,
                 reinterpret_cast<std::byte*>(wrapped), 1, "test");
  EXPECT_EQ(wrapped[0], -1);
  // Integers to numbers exactly; MIN/MAXDOUBLE to integers as DOUBLE does.
  const int32_t ints[] = {-5, 7};
  double as_doubles[2];
  convert_values(DataType(TypeKind::kInt32), reinterpret_cast<const std::byte*>(ints),
                 DataType(TypeKind::kMaxDouble), reinterpret_cast<std::byte*>(as_doubles), 2,
                 "test");
  EXPECT_EQ(as_doubles[0], -5.0);
  EXPECT_EQ(as_doubles[1], 7.0);
  const double minima[] = {-7.9, 70000.5};
  int16_t from_min[2];
  convert_values(DataType(TypeKind::kMinDouble), reinterpret_cast<const std::byte*>(minima), i16,
                 reinterpret_cast<std::byte*>(from_min), 2, "test");
  EXPECT_EQ(from_min[0], -7);
  EXPECT_EQ(from_min[1], 32767);
  EXPECT_FALSE(convertible(DataType(TypeKind::kComplex), dbl));
  double out[1];
  EXPECT_THROW(convert_values(DataType(TypeKind::kComplex), reinterpret_cast<const std::byte*>(in),
                              dbl, reinterpret_cast<std::byte*>(out), 1, "metric 'x'"),
               Error);
}

// cube_mean's 1/n and cube_diff's −1 for single numbers: through a double, stored back as
// convert_values stores it; the other types lane by lane; SCALE_FUNC has no scale.
TEST(Algebra, ScaleValuesTruncatesIntegersAndScalesDoublesExactly) {
  int32_t ints[] = {7, -7, 2147483647};
  scale_values(DataType(TypeKind::kInt32), reinterpret_cast<std::byte*>(ints), 3, 0.5, "t");
  EXPECT_EQ(std::vector<int32_t>(ints, ints + 3), (std::vector<int32_t>{3, -3, 1073741823}));
  uint16_t unsigned_shorts[] = {5};  // −5 clamps to the type's 0
  scale_values(DataType(TypeKind::kUInt16), reinterpret_cast<std::byte*>(unsigned_shorts), 1, -1,
               "t");
  EXPECT_EQ(unsigned_shorts[0], 0);
  double minima[] = {0.75, std::numeric_limits<double>::infinity()};
  scale_values(DataType(TypeKind::kMinDouble), reinterpret_cast<std::byte*>(minima), 2, 1.0 / 3,
               "t");
  EXPECT_EQ(minima[0], 0.75 * (1.0 / 3));
  EXPECT_EQ(minima[1], std::numeric_limits<double>::infinity());  // the identity stays
  double complex_value[] = {2, -4};
  scale_values(DataType(TypeKind::kComplex), reinterpret_cast<std::byte*>(complex_value), 1, 0.5,
               "t");
  EXPECT_EQ(complex_value[0], 1);
  EXPECT_EQ(complex_value[1], -2);
  std::vector<std::byte> scale_func(DataType(TypeKind::kScaleFunc).memory_size());
  EXPECT_THROW(scale_values(DataType(TypeKind::kScaleFunc), scale_func.data(), 1, 0.5, "m"), Error);
}

// cube_mean's UINT64 terms (visits, bytes) scaled from the row where it lies into another:
// products below 2^52 take a vectorized shortcut, the others the general loop; both truncate
// toward zero as integer_of does. Expected values by hand (and, for 1/16, exact integer division).
TEST(Algebra, ScaleValuesOfUint64IntoAnotherRowTruncates) {
  const DataType u64(TypeKind::kUInt64);
  auto scaled = [&](std::vector<uint64_t> x, double factor) {
    // The source 2 bytes into its buffer, as rows lie in a mapped file.
    std::vector<std::byte> src(x.size() * 8 + 2);
    std::memcpy(src.data() + 2, x.data(), x.size() * 8);
    std::vector<uint64_t> out(x.size(), 99);
    scale_values(u64, src.data() + 2, reinterpret_cast<std::byte*>(out.data()), x.size(), factor,
                 "t");
    return out;
  };
  // Ties of s + 2^52 round to even (2.5 → 2, 3.5 → 4): truncation gives 2 and 3 either way.
  EXPECT_EQ(scaled({0, 1, 5, 7, 8, 9}, 0.5), (std::vector<uint64_t>{0, 0, 2, 3, 4, 4}));
  // 2^53 − 1 halved is 2^52 − 0.5: s + 2^52 rounds up to 2^53 (an exponent step), truncated
  // 2^52 − 1. The same row with 2^60 in it (product 2^59) takes the general loop.
  const uint64_t two52 = uint64_t{1} << 52;
  EXPECT_EQ(scaled({(uint64_t{1} << 53) - 1, 3}, 0.5), (std::vector<uint64_t>{two52 - 1, 1}));
  EXPECT_EQ(scaled({(uint64_t{1} << 53) - 1, 3, uint64_t{1} << 60}, 0.5),
            (std::vector<uint64_t>{two52 - 1, 1, uint64_t{1} << 59}));
  // 2^64 − 1 becomes the double 2^64: scaled by 1 it clamps to the largest double below 2^64.
  EXPECT_EQ(scaled({UINT64_MAX}, 1.0), (std::vector<uint64_t>{18446744073709549568u}));
  // A negative factor (−0 for a 0) and NaN leave the shortcut: 0 for all, as integer_of.
  EXPECT_EQ(scaled({0, 3}, -0.5), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(scaled({4}, std::nan("")), (std::vector<uint64_t>{0}));
  // A long row (vector loop and its remainder): with 1/16 exact, x · 1/16 truncated is x / 16.
  std::vector<uint64_t> x(1003), expected(1003);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = i * 7919 + (i % 3 == 0 ? (uint64_t{1} << 40) : 0);
    expected[i] = x[i] / 16;
  }
  EXPECT_EQ(scaled(x, 1.0 / 16), expected);
  // In place as before, and the other types through the same entry.
  double d[] = {3, -1};
  scale_values(DataType(TypeKind::kDouble), reinterpret_cast<const std::byte*>(d),
               reinterpret_cast<std::byte*>(d), 2, 0.25, "t");
  EXPECT_EQ(d[0], 0.75);
  EXPECT_EQ(d[1], -0.25);
  const double complex_value[] = {2, -4};
  double complex_out[2];
  scale_values(DataType(TypeKind::kComplex), reinterpret_cast<const std::byte*>(complex_value),
               reinterpret_cast<std::byte*>(complex_out), 1, 0.5, "t");
  EXPECT_EQ(complex_out[0], 1);
  EXPECT_EQ(complex_out[1], -2);
}

// One number per value: the types Cube 3 rows hold, convert between, and fold in place.
TEST(DataTypes, SingleNumbersAreTheIntegersAndTheThreeDoubles) {
  for (const char* text : {"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64",
                           "DOUBLE", "MINDOUBLE", "MAXDOUBLE"}) {
    EXPECT_TRUE(DataType::parse(text).is_single_number()) << text;
    EXPECT_TRUE(fold_reads_unaligned(DataType::parse(text))) << text;
  }
  for (const char* text :
       {"COMPLEX", "RATE", "TAU_ATOMIC", "HISTOGRAM(3)", "NDOUBLES(2)", "SCALE_FUNC"}) {
    EXPECT_FALSE(DataType::parse(text).is_single_number()) << text;
    EXPECT_FALSE(convertible(DataType::parse(text), DataType::parse("DOUBLE"))) << text;
  }
}

TEST(Algebra, DoubleDifferenceWithinTwoUlpIsZero) {
  const DataType t(TypeKind::kDouble);
  double a = 0.1 + 0.2, b = 0.3;  // differ in the last bit
  minus_rows(t, reinterpret_cast<std::byte*>(&a), reinterpret_cast<const std::byte*>(&b), 1);
  EXPECT_EQ(a, 0.0);
  double c = 1.0, d = 0.25;
  minus_rows(t, reinterpret_cast<std::byte*>(&c), reinterpret_cast<const std::byte*>(&d), 1);
  EXPECT_EQ(c, 0.75);
}

TEST(Algebra, TauAtomicMergesCountMinMaxSums) {
  const DataType t(TypeKind::kTauAtomic);
  double acc[5], x[5] = {2, 1.0, 4.0, 5.0, 17.0}, y[5] = {1, 0.5, 2.0, 0.5, 0.25};
  set_identity(t, reinterpret_cast<std::byte*>(acc), 1);
  plus_rows(t, reinterpret_cast<std::byte*>(acc), reinterpret_cast<std::byte*>(x), 1);
  plus_rows(t, reinterpret_cast<std::byte*>(acc), reinterpret_cast<std::byte*>(y), 1);
  EXPECT_EQ(acc[0], 3);
  EXPECT_EQ(acc[1], 0.5);
  EXPECT_EQ(acc[2], 4.0);
  EXPECT_EQ(acc[3], 5.5);
  EXPECT_EQ(acc[4], 17.25);
  EXPECT_DOUBLE_EQ(scalar(t, reinterpret_cast<std::byte*>(acc)), 5.5 / 3);
}

TEST(Algebra, RateScalarIsRatio) {
  const DataType t(TypeKind::kRate);
  const double r[2] = {4, 26};
  EXPECT_DOUBLE_EQ(scalar(t, reinterpret_cast<const std::byte*>(r)), 4.0 / 26.0);
  const double z[2] = {-1, 0};
  EXPECT_EQ(scalar(t, reinterpret_cast<const std::byte*>(z)), -DBL_MAX);
}

// CubeLib's RateValue prints its getDouble (±DBL_MAX for a zero duration), then both parts; its
// cube_dump -s csv2 of a report with a 0/0 rate shows "1.79769313486e+308[(0)/(0)]".
TEST(Algebra, RateTextWithoutDurationIsTheLargestDouble) {
  const DataType t(TypeKind::kRate);
  const double zero[2] = {0, 0};
  EXPECT_EQ(value_text(t, reinterpret_cast<const std::byte*>(zero)), "1.79769313486e+308[(0)/(0)]");
  const double negative[2] = {-2, 0};
  EXPECT_EQ(value_text(t, reinterpret_cast<const std::byte*>(negative)),
            "-1.79769313486e+308[(-2)/(0)]");
  const double r[2] = {1, 4};
  EXPECT_EQ(value_text(t, reinterpret_cast<const std::byte*>(r)), "0.25[(1)/(4)]");
}

}  // namespace
}  // namespace cubekit
