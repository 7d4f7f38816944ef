#include "cubekit/algebra.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/number_types.hpp"
#include "core/scale_func.hpp"
#include "core/unaligned.hpp"
#include "core/vector_clones.hpp"

namespace cubekit {
namespace {

using core::load_any;
using core::store_any;

// The values are bytes (rows of a mapped file, Values' words, scratch rows) that hold no
// objects of the value's type, so every load and store goes through memcpy: reading them
// through a T* would break strict aliasing. Compilers make plain (vectorized) moves of these.

// Lane i of the doubles at p.
double lane(const std::byte* p, size_t i) {
  return load_any<double>(p, i);
}
void set_lane(std::byte* p, size_t i, double v) {
  store_any(p + i * sizeof(double), v);
}

// Integers wrap at their width (CubeLib computes in the type itself); unsigned arithmetic makes
// that well defined for the signed types too.
template <class T>
void int_plus(std::byte* acc, const std::byte* x, size_t n) {
  using U = std::make_unsigned_t<T>;
  for (size_t i = 0; i < n; ++i) {
    const U a = static_cast<U>(load_any<T>(acc, i)), b = static_cast<U>(load_any<T>(x, i));
    store_any(acc + i * sizeof(T), static_cast<T>(a + b));
  }
}

template <class T>
void int_minus(std::byte* acc, const std::byte* x, size_t n) {
  using U = std::make_unsigned_t<T>;
  for (size_t i = 0; i < n; ++i) {
    const U a = static_cast<U>(load_any<T>(acc, i)), b = static_cast<U>(load_any<T>(x, i));
    store_any(acc + i * sizeof(T), static_cast<T>(a - b));
  }
}

template <class T>
void int_fold(std::byte* acc, const std::byte* x, size_t n) {
  using U = std::make_unsigned_t<T>;
  U sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<U>(load_any<T>(x, i));
  store_any(acc, static_cast<T>(static_cast<U>(load_any<T>(acc)) + sum));
}

// The ⊕ loops that cube_mean's accumulator and running sums spend their time in (DOUBLE, UINT64:
// int_plus's sums, MIN/MAXDOUBLE: the select `x < acc ? x : acc`) have an AVX2 variant
// (core/vector_clones.hpp), which keeps the bits.
CUBEKIT_WITH_AVX2 void add_lanes(std::byte* a, const std::byte* b, size_t n) {
  for (size_t i = 0; i < n; ++i) set_lane(a, i, lane(a, i) + lane(b, i));
}
CUBEKIT_WITH_AVX2 void add_uint64(std::byte* acc, const std::byte* x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    store_any(acc + i * sizeof(uint64_t), load_any<uint64_t>(acc, i) + load_any<uint64_t>(x, i));
}
CUBEKIT_WITH_AVX2 void min_lanes(std::byte* acc, const std::byte* x, size_t n) {
  for (size_t i = 0; i < n; ++i) set_lane(acc, i, std::min(lane(acc, i), lane(x, i)));
}
CUBEKIT_WITH_AVX2 void max_lanes(std::byte* acc, const std::byte* x, size_t n) {
  for (size_t i = 0; i < n; ++i) set_lane(acc, i, std::max(lane(acc, i), lane(x, i)));
}
void sub_lanes(std::byte* a, const std::byte* b, size_t n) {
  for (size_t i = 0; i < n; ++i) set_lane(a, i, lane(a, i) - lane(b, i));
}

// DOUBLE's ⊖ as CubeLib computes it: a difference within two units in the last place of the
// operands is exactly 0, so that exclusive values of inclusive-stored times do not show
// rounding noise such as -5.7e-14.
CUBEKIT_WITH_AVX2 void sub_doubles_snapped(std::byte* a, const std::byte* b, size_t n) {
  // Through AnyDouble, not load_any: GCC vectorizes the select only over double pointers.
  auto* x = reinterpret_cast<core::AnyDouble*>(a);
  const auto* y = reinterpret_cast<const core::AnyDouble*>(b);
  for (size_t i = 0; i < n; ++i) {
    const double d = x[i] - y[i];
    // `|`, not `||`: both tests without a branch.
    const bool equal =
        (std::fabs(d) <= DBL_EPSILON * std::fabs(x[i] + y[i]) * 2) | (std::fabs(d) < DBL_MIN);
    x[i] = equal ? 0.0 : d;
  }
}

// TAU_ATOMIC in memory: count, min, max, sum, sum of squares.
void tau_plus(std::byte* a, const std::byte* b) {
  set_lane(a, 0, lane(a, 0) + lane(b, 0));
  set_lane(a, 1, std::min(lane(a, 1), lane(b, 1)));
  set_lane(a, 2, std::max(lane(a, 2), lane(b, 2)));
  set_lane(a, 3, lane(a, 3) + lane(b, 3));
  set_lane(a, 4, lane(a, 4) + lane(b, 4));
}

void tau_minus(std::byte* a, const std::byte* b) {
  set_lane(a, 0, lane(a, 0) - lane(b, 0));
  set_lane(a, 3, lane(a, 3) - lane(b, 3));
  set_lane(a, 4, lane(a, 4) - lane(b, 4));
}

// HISTOGRAM(n) in memory: [min, max, bin 0, ..., bin n-1]. CubeLib calls a histogram valid
// exactly when min != DBL_MAX and max != -DBL_MAX; it does not look at min <= max. So "empty"
// here is the negation of that flag, and set_identity produces it with both sentinels.
bool histogram_empty(const double* h) {
  return h[0] == DBL_MAX || h[1] == -DBL_MAX;
}

// The n + 1 edges of n equal-width bins over [lo, hi], computed as lo + i * width like CubeLib,
// so that equal inputs give bit-identical edges (the sweep below compares them exactly).
void histogram_edges(double lo, double hi, size_t bins, double* edges) {
  const double width = (hi - lo) / static_cast<double>(bins);
  for (size_t i = 0; i <= bins; ++i) edges[i] = lo + static_cast<double>(i) * width;
}

// CubeLib's ⊕ for histograms (HistogramValue::operator+=), reproduced for identical output,
// quirks included, since the printed bins depend on them:
//  1. If b is empty, a stays; if a is empty, a becomes a copy of b.
//  2. The result spans [min(a.min, b.min), max(a.max, b.max)] with n equal-width bins (grid G).
//  3. a's bins are NOT re-binned: CubeLib locates a's edges on the new grid G rather than on a's
//     old range, so a's bin i stays in result bin i whatever a's old range was.
//  4. Each bin j of b (edges e_j, e_j+1 on b's own grid) is located by a sweep over the merged,
//     sorted edge lists: k(e) = index of the last edge of G at or below e (ties: G's edge first).
//     If k(e_j) == k(e_j+1) the whole count goes to result bin k(e_j); otherwise the fraction
//     (G[k(e_j)+1] - e_j) / (e_j+1 - e_j) goes to bin k(e_j) and the rest to bin k(e_j)+1 (a
//     zero-width bin sends everything to k(e_j)+1). Counts that land on index n (past the last
//     bin, e.g. from b's top edge coinciding with the result's max) are dropped, as CubeLib
//     writes them past its bin array.
// The sweep sorts a list of (position, list) marks with an unstable sort like CubeLib's, pushed in
// the same order, so even degenerate inputs (min == max everywhere: all edges equal) pick the
// same bin as CubeLib does when both are built against libstdc++.
struct EdgeMark {
  double position;
  unsigned list;  // 0: result grid, 1: a's edges (on the result grid), 2: b's edges
  size_t index;
};

bool strictly_increasing(const double* edges, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (!(edges[i - 1] < edges[i])) return false;  // NaN fails too
  return true;
}

// Where each edge of a (on the grid) and of b lies on the grid, by CubeLib's sweep: the marks
// sorted by (position, list), each edge of a or b at the grid edge last seen before it. Used
// where edges of one list coincide (a histogram of one point) or are NaN, so that the unstable
// sort orders such ties as CubeLib's does.
void locate_edges_by_sorting(const double* grid, const double* b_edges, size_t bins, size_t* a_bin,
                             size_t* b_bin) {
  thread_local std::vector<EdgeMark> marks;
  marks.clear();
  for (size_t i = 0; i <= bins; ++i) {
    marks.push_back({grid[i], 1, i});
    marks.push_back({b_edges[i], 2, i});
    marks.push_back({grid[i], 0, i});
  }
  std::sort(marks.begin(), marks.end(), [](const EdgeMark& x, const EdgeMark& y) {
    if (x.position != y.position) return x.position < y.position;
    return x.list < y.list;
  });
  // The first mark is never inspected (CubeLib starts its sweep at the second one); it is
  // always a grid edge at lo unless all positions coincide.
  std::fill(a_bin, a_bin + bins + 1, 0);
  std::fill(b_bin, b_bin + bins + 1, 0);
  size_t pivot = 0;
  for (size_t m = 1; m < marks.size(); ++m) {
    const EdgeMark& mark = marks[m];
    if (mark.list == 0)
      pivot = mark.index;
    else
      (mark.list == 1 ? a_bin : b_bin)[mark.index] = pivot;
  }
}

// The same sweep where both lists rise strictly: no two marks of one list share a position, so
// (position, list) orders the marks totally, the sorted order is the only one, and it is a merge
// of the lists. The first mark is grid edge 0 (lo <= b's min, and the grid's list comes first
// at a tie); a's edge i lies on grid edge i, b's edge j after the last grid edge at or below it.
void locate_edges_by_merging(const double* grid, const double* b_edges, size_t bins, size_t* a_bin,
                             size_t* b_bin) {
  size_t pivot = 0;
  for (size_t j = 0; j <= bins; ++j) {
    while (pivot < bins && grid[pivot + 1] <= b_edges[j]) ++pivot;
    b_bin[j] = pivot;
  }
  for (size_t i = 0; i <= bins; ++i) a_bin[i] = i;
}

// Room for one ⊕ of HISTOGRAM(bins): the operands, the two lists of edges, the result's bins
// and where the edges lie. On the stack up to kStackBins bins (the usual histograms: no
// allocation and no thread_local look-up per value), else in a buffer of the thread's.
struct HistogramScratch {
  static constexpr size_t kStackBins = 32;
  double a[kStackBins + 2], b[kStackBins + 2], grid[kStackBins + 1], b_edges[kStackBins + 1],
      out[kStackBins];
  size_t a_bin[kStackBins + 1], b_bin[kStackBins + 1];
};

void histogram_plus(double* a, const double* b, size_t bins, double* grid, double* b_edges,
                    double* out, size_t* a_bin, size_t* b_bin) {
  if (histogram_empty(b)) return;
  if (histogram_empty(a)) {
    std::copy(b, b + 2 + bins, a);
    return;
  }
  const double lo = std::min(a[0], b[0]);
  const double hi = std::max(a[1], b[1]);
  histogram_edges(lo, hi, bins, grid);
  histogram_edges(b[0], b[1], bins, b_edges);
  if (strictly_increasing(grid, bins + 1) && strictly_increasing(b_edges, bins + 1))
    locate_edges_by_merging(grid, b_edges, bins, a_bin, b_bin);
  else
    locate_edges_by_sorting(grid, b_edges, bins, a_bin, b_bin);

  std::fill(out, out + bins, 0.0);
  auto deposit = [&](size_t k, double count) {
    if (k < bins) out[k] += count;  // index n is past CubeLib's array: lost
  };
  // Moves bin i of `counts`, whose edges `edges` were located at `at`, per point 4 above.
  auto spread = [&](const double* counts, const double* edges, const size_t* at, size_t i) {
    double share = 1.0;
    if (at[i] != at[i + 1]) {
      const double span = edges[i + 1] - edges[i];
      share = span != 0 ? (grid[at[i] + 1] - edges[i]) / span : 0.0;
    }
    deposit(at[i], counts[i] * share);
    deposit(at[i] + 1, counts[i] * (1.0 - share));
  };
  // a's and b's bin i are interleaved, as in CubeLib: the order of the additions into a shared
  // bin decides the last bits of the result.
  for (size_t i = 0; i < bins; ++i) {
    spread(a + 2, grid, a_bin, i);  // point 3: a's edges are the result grid itself
    spread(b + 2, b_edges, b_bin, i);
  }
  a[0] = lo;
  a[1] = hi;
  std::copy(out, out + bins, a + 2);
}

// a ⊕ x_0 ⊕ ... ⊕ x_{n-1} on values in byte memory (x_i at x + i * value size), each copied
// into doubles: the accumulator once, each x_i in turn.
void histogram_fold_bytes(std::byte* a, const std::byte* x, size_t n, size_t bins) {
  const size_t bytes = (bins + 2) * sizeof(double);
  // The scratch space: on the stack up to kStackBins bins, else the thread's own buffers.
  HistogramScratch on_stack;
  double *a_copy = on_stack.a, *b_copy = on_stack.b, *grid = on_stack.grid,
         *b_edges = on_stack.b_edges, *out = on_stack.out;
  size_t *a_bin = on_stack.a_bin, *b_bin = on_stack.b_bin;
  if (bins > HistogramScratch::kStackBins) {
    thread_local std::vector<double> doubles;
    thread_local std::vector<size_t> bin_of_edge;
    doubles.resize(2 * (bins + 2) + 2 * (bins + 1) + bins);
    bin_of_edge.resize(2 * (bins + 1));
    a_copy = doubles.data();
    b_copy = a_copy + bins + 2;
    grid = b_copy + bins + 2;
    b_edges = grid + bins + 1;
    out = b_edges + bins + 1;
    a_bin = bin_of_edge.data();
    b_bin = a_bin + bins + 1;
  }
  std::memcpy(a_copy, a, bytes);
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(b_copy, x + i * bytes, bytes);
    histogram_plus(a_copy, b_copy, bins, grid, b_edges, out, a_bin, b_bin);
  }
  std::memcpy(a, a_copy, bytes);
}

}  // namespace

void set_identity(DataType type, std::byte* dst, size_t n) {
  if (n == 0) return;  // dst may be null then (an empty vector's data()): memset must not see it
  if (type.is_integer()) {
    std::memset(dst, 0, n * type.memory_size());
    return;
  }
  if (type.kind() == TypeKind::kScaleFunc) {
    std::memset(dst, 0, n * kScaleFuncSize);
    return;
  }
  const size_t lanes = type.lanes();
  std::memset(dst, 0, n * lanes * sizeof(double));  // 0.0 is all zero bits
  const TypeKind kind = type.kind();
  if (kind != TypeKind::kMinDouble && kind != TypeKind::kMaxDouble &&
      kind != TypeKind::kTauAtomic && kind != TypeKind::kHistogram)
    return;  // all lanes 0.0: no pass over the values (a row per call path: CubePL, algebra)
  for (std::byte* d = dst; d != dst + n * lanes * sizeof(double); d += lanes * sizeof(double)) {
    switch (type.kind()) {
      case TypeKind::kMinDouble:
        set_lane(d, 0, DBL_MAX);
        break;
      case TypeKind::kMaxDouble:
        set_lane(d, 0, -DBL_MAX);
        break;
      case TypeKind::kTauAtomic:
        set_lane(d, 1, DBL_MAX);
        set_lane(d, 2, -DBL_MAX);
        break;
      case TypeKind::kHistogram:
        set_lane(d, 0, DBL_MAX);
        set_lane(d, 1, -DBL_MAX);
        break;
      default:
        break;
    }
  }
}

void plus_rows(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  switch (type.kind()) {
    case TypeKind::kInt8:
      return int_plus<int8_t>(acc, x, n);
    case TypeKind::kUInt8:
      return int_plus<uint8_t>(acc, x, n);
    case TypeKind::kInt16:
      return int_plus<int16_t>(acc, x, n);
    case TypeKind::kUInt16:
      return int_plus<uint16_t>(acc, x, n);
    case TypeKind::kInt32:
      return int_plus<int32_t>(acc, x, n);
    case TypeKind::kUInt32:
      return int_plus<uint32_t>(acc, x, n);
    case TypeKind::kInt64:
      return int_plus<int64_t>(acc, x, n);
    case TypeKind::kUInt64:
      return add_uint64(acc, x, n);
    case TypeKind::kMinDouble:
      return min_lanes(acc, x, n);
    case TypeKind::kMaxDouble:
      return max_lanes(acc, x, n);
    case TypeKind::kTauAtomic:
      for (size_t i = 0; i < n; ++i)
        tau_plus(acc + i * type.memory_size(), x + i * type.memory_size());
      return;
    case TypeKind::kHistogram: {
      const size_t size = type.memory_size();
      for (size_t i = 0; i < n; ++i)
        histogram_fold_bytes(acc + size * i, x + size * i, 1, type.param());
      return;
    }
    case TypeKind::kScaleFunc:
      for (size_t i = 0; i < n; ++i)
        core::scale_func_plus(acc + i * kScaleFuncSize, x + i * kScaleFuncSize, 1.0);
      return;
    default:  // DOUBLE, COMPLEX, RATE, NDOUBLES: lane-wise sums
      return add_lanes(acc, x, n * type.lanes());
  }
}

void minus_rows(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  switch (type.kind()) {
    case TypeKind::kInt8:
      return int_minus<int8_t>(acc, x, n);
    case TypeKind::kUInt8:
      return int_minus<uint8_t>(acc, x, n);
    case TypeKind::kInt16:
      return int_minus<int16_t>(acc, x, n);
    case TypeKind::kUInt16:
      return int_minus<uint16_t>(acc, x, n);
    case TypeKind::kInt32:
      return int_minus<int32_t>(acc, x, n);
    case TypeKind::kUInt32:
      return int_minus<uint32_t>(acc, x, n);
    case TypeKind::kInt64:
      return int_minus<int64_t>(acc, x, n);
    case TypeKind::kUInt64:
      return int_minus<uint64_t>(acc, x, n);
    case TypeKind::kDouble:
      return sub_doubles_snapped(acc, x, n);
    case TypeKind::kMinDouble:
    case TypeKind::kMaxDouble:
    case TypeKind::kHistogram:
      return;  // no inverse: CubeLib leaves the value as it is
    case TypeKind::kTauAtomic:
      for (size_t i = 0; i < n; ++i)
        tau_minus(acc + i * type.memory_size(), x + i * type.memory_size());
      return;
    case TypeKind::kScaleFunc:
      for (size_t i = 0; i < n; ++i)
        core::scale_func_plus(acc + i * kScaleFuncSize, x + i * kScaleFuncSize, -1.0);
      return;
    default:
      return sub_lanes(acc, x, n * type.lanes());
  }
}

void minus_rows_unsnapped(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  if (type.kind() == TypeKind::kDouble) return sub_lanes(acc, x, n);
  minus_rows(type, acc, x, n);
}

bool fold_reads_unaligned(DataType type) {
  return type.is_single_number();  // the kernels below that load with load_any
}

void fold_row(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  switch (type.kind()) {
    case TypeKind::kInt8:
      return int_fold<int8_t>(acc, x, n);
    case TypeKind::kUInt8:
      return int_fold<uint8_t>(acc, x, n);
    case TypeKind::kInt16:
      return int_fold<int16_t>(acc, x, n);
    case TypeKind::kUInt16:
      return int_fold<uint16_t>(acc, x, n);
    case TypeKind::kInt32:
      return int_fold<int32_t>(acc, x, n);
    case TypeKind::kUInt32:
      return int_fold<uint32_t>(acc, x, n);
    case TypeKind::kInt64:
      return int_fold<int64_t>(acc, x, n);
    case TypeKind::kUInt64:
      return int_fold<uint64_t>(acc, x, n);
    case TypeKind::kDouble: {
      // Sequential order on purpose: CubeLib adds locations one after the other, and the
      // printed digits depend on the order of floating-point additions.
      double s = lane(acc, 0);
      for (size_t i = 0; i < n; ++i) s += lane(x, i);
      set_lane(acc, 0, s);
      return;
    }
    // Sequential like ⊕ itself (`x < acc ? x : acc`): the result is then the same bit for bit,
    // signed zeros and NaNs included; inlined, it is ten times faster than ⊕ per value.
    case TypeKind::kMinDouble: {
      double m = lane(acc, 0);
      for (size_t i = 0; i < n; ++i) m = std::min(m, lane(x, i));
      set_lane(acc, 0, m);
      return;
    }
    case TypeKind::kMaxDouble: {
      double m = lane(acc, 0);
      for (size_t i = 0; i < n; ++i) m = std::max(m, lane(x, i));
      set_lane(acc, 0, m);
      return;
    }
    case TypeKind::kHistogram:
      return histogram_fold_bytes(acc, x, n, type.param());
    default: {
      const size_t size = type.memory_size();
      for (size_t i = 0; i < n; ++i) plus_rows(type, acc, x + i * size, 1);
      return;
    }
  }
}

namespace {

// Folds K rows side by side, value i of every row before value i + 1: each row's additions (or
// min/max steps) stay in their order, so every result has the bits fold_row gives it, but the
// K chains are independent and the processor runs them at once instead of waiting on one.
template <size_t K, class Step>
void fold_chains(std::byte* const* accs, const std::byte* x, size_t stride, size_t n, Step step) {
  double s[K];
  for (size_t j = 0; j < K; ++j) s[j] = lane(accs[j], 0);
  for (size_t i = 0; i < n; ++i) {
#pragma GCC unroll 8
    for (size_t j = 0; j < K; ++j) s[j] = step(s[j], lane(x + j * stride, i));
  }
  for (size_t j = 0; j < K; ++j) set_lane(accs[j], 0, s[j]);
}

template <class Step>
void fold_double_rows(std::byte* const* accs, const std::byte* x, size_t stride, size_t count,
                      size_t n, Step step) {
  size_t j = 0;
  for (; j + 8 <= count; j += 8) fold_chains<8>(accs + j, x + j * stride, stride, n, step);
  for (; j + 4 <= count; j += 4) fold_chains<4>(accs + j, x + j * stride, stride, n, step);
  for (; j < count; ++j) fold_chains<1>(accs + j, x + j * stride, stride, n, step);
}

}  // namespace

void fold_rows(DataType type, std::byte* const* accs, const std::byte* x, size_t stride,
               size_t count, size_t n) {
  switch (type.kind()) {
    case TypeKind::kDouble:
      return fold_double_rows(accs, x, stride, count, n, [](double s, double v) { return s + v; });
    case TypeKind::kMinDouble:
      return fold_double_rows(accs, x, stride, count, n,
                              [](double m, double v) { return std::min(m, v); });
    case TypeKind::kMaxDouble:
      return fold_double_rows(accs, x, stride, count, n,
                              [](double m, double v) { return std::max(m, v); });
    default:
      for (size_t j = 0; j < count; ++j) fold_row(type, accs[j], x + j * stride, n);
  }
}

bool scale_lanes(DataType type, std::byte* x, size_t n, double factor) {
  size_t first = 0;  // the lanes scaled in each value: [first, lanes)
  switch (type.kind()) {
    case TypeKind::kComplex:
    case TypeKind::kRate:
    case TypeKind::kTauAtomic:
    case TypeKind::kNDoubles:
      break;
    case TypeKind::kHistogram:
      first = 2;  // min and max stay
      break;
    default:
      return false;
  }
  const size_t lanes = type.lanes();
  for (size_t i = 0; i < n; ++i) {
    std::byte* v = x + i * type.memory_size();
    for (size_t k = first; k < lanes; ++k) set_lane(v, k, lane(v, k) * factor);
  }
  return true;
}

bool identity_is_zero(DataType type) {
  std::vector<std::byte> one(type.memory_size());
  set_identity(type, one.data(), 1);
  return std::all_of(one.begin(), one.end(), [](std::byte b) { return b == std::byte{0}; });
}

double scalar(DataType type, const std::byte* v) {
  switch (type.kind()) {
    case TypeKind::kInt8:
      return load_any<int8_t>(v);
    case TypeKind::kUInt8:
      return load_any<uint8_t>(v);
    case TypeKind::kInt16:
      return load_any<int16_t>(v);
    case TypeKind::kUInt16:
      return load_any<uint16_t>(v);
    case TypeKind::kInt32:
      return load_any<int32_t>(v);
    case TypeKind::kUInt32:
      return load_any<uint32_t>(v);
    case TypeKind::kInt64:
      return static_cast<double>(load_any<int64_t>(v));
    case TypeKind::kUInt64:
      return static_cast<double>(load_any<uint64_t>(v));
    case TypeKind::kComplex:
      return std::hypot(lane(v, 0), lane(v, 1));
    case TypeKind::kRate:
      if (lane(v, 1) == 0) return lane(v, 0) < 0 ? -DBL_MAX : DBL_MAX;
      return lane(v, 0) / lane(v, 1);
    case TypeKind::kTauAtomic:
      return lane(v, 0) == 0 ? 0.0 : lane(v, 3) / lane(v, 0);
    case TypeKind::kHistogram: {
      double s = 0;
      for (size_t i = 0; i < type.param(); ++i) s += lane(v, 2 + i);
      return s;
    }
    case TypeKind::kNDoubles: {
      double s = 0;
      for (size_t i = 0; i < type.param(); ++i) s += lane(v, i);
      return s;
    }
    case TypeKind::kScaleFunc:
      return core::scale_func_asymptotic_key(v);
    default:
      return lane(v, 0);
  }
}

}  // namespace cubekit

namespace cubekit {
namespace {

template <class T>
void widen(const std::byte* values, size_t n, double* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(load_any<T>(values, i));
}

// UINT64 (visits, the usual divisor of CubePL): through exact_double, which vectorizes.
template <>
void widen<uint64_t>(const std::byte* values, size_t n, double* out) {
  for (size_t i = 0; i < n; ++i) out[i] = core::exact_double(load_any<uint64_t>(values, i));
}

}  // namespace

void scalars(DataType type, const std::byte* values, size_t n, double* out) {
  if (type.is_single_number())
    return core::with_number_type(type,
                                  [&](auto value) { widen<decltype(value)>(values, n, out); });
  // Composite values (scalar() reads them at any address).
  const size_t size = type.memory_size();
  for (size_t i = 0; i < n; ++i) out[i] = scalar(type, values + i * size);
}

}  // namespace cubekit
