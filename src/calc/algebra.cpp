#include "cubekit/algebra.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "calc/scale_func.hpp"

namespace cubekit {
namespace {

// Integers wrap at their width (CubeLib computes in the type itself); unsigned arithmetic makes
// that well defined for the signed types too.
template <class T>
void int_plus(std::byte* acc, const std::byte* x, size_t n) {
  using U = std::make_unsigned_t<T>;
  auto* a = reinterpret_cast<T*>(acc);
  const auto* b = reinterpret_cast<const T*>(x);
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<U>(a[i]) + static_cast<U>(b[i]));
}

template <class T>
void int_minus(std::byte* acc, const std::byte* x, size_t n) {
  using U = std::make_unsigned_t<T>;
  auto* a = reinterpret_cast<T*>(acc);
  const auto* b = reinterpret_cast<const T*>(x);
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<U>(a[i]) - static_cast<U>(b[i]));
}

template <class T>
void int_fold(std::byte* acc, const std::byte* x, size_t n) {
  using U = std::make_unsigned_t<T>;
  const auto* b = reinterpret_cast<const T*>(x);
  U sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<U>(b[i]);
  auto* a = reinterpret_cast<T*>(acc);
  a[0] = static_cast<T>(static_cast<U>(a[0]) + sum);
}

void add_lanes(double* a, const double* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] += b[i];
}
void sub_lanes(double* a, const double* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] -= b[i];
}

// DOUBLE's ⊖ as CubeLib computes it: a difference within two units in the last place of the
// operands is exactly 0, so that exclusive values of inclusive-stored times do not show
// rounding noise such as -5.7e-14.
void sub_doubles_snapped(double* a, const double* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double d = a[i] - b[i];
    const bool equal = std::fabs(d) <= DBL_EPSILON * std::fabs(a[i] + b[i]) * 2 ||
                       std::fabs(d) < DBL_MIN;
    a[i] = equal ? 0.0 : d;
  }
}

double* dbl(std::byte* p) { return reinterpret_cast<double*>(p); }
const double* dbl(const std::byte* p) { return reinterpret_cast<const double*>(p); }

// TAU_ATOMIC in memory: count, min, max, sum, sum of squares.
void tau_plus(double* a, const double* b) {
  a[0] += b[0];
  a[1] = std::min(a[1], b[1]);
  a[2] = std::max(a[2], b[2]);
  a[3] += b[3];
  a[4] += b[4];
}

void tau_minus(double* a, const double* b) {
  a[0] -= b[0];
  a[3] -= b[3];
  a[4] -= b[4];
}

bool histogram_empty(const double* h) { return h[0] == DBL_MAX || h[1] == -DBL_MAX; }

// CubeLib's re-binning (cube-format.md §7.2): the result spans both ranges with the same number
// of equal-width bins; each input bin's count goes to the result bin holding its lower edge and
// the next one, split by the overlap with the first.
void histogram_plus(double* a, const double* b, size_t bins) {
  if (histogram_empty(b)) return;
  if (histogram_empty(a)) {
    std::copy(b, b + 2 + bins, a);
    return;
  }
  const double lo = std::min(a[0], b[0]);
  const double hi = std::max(a[1], b[1]);
  std::vector<double> out(bins, 0.0);
  const double width = (hi - lo) / static_cast<double>(bins);
  auto spread = [&](const double* h) {
    const double in_width = (h[1] - h[0]) / static_cast<double>(bins);
    for (size_t i = 0; i < bins; ++i) {
      const double count = h[2 + i];
      if (count == 0) continue;
      if (width <= 0) {
        out[0] += count;
        continue;
      }
      const double edge = h[0] + in_width * static_cast<double>(i);
      size_t k = static_cast<size_t>(std::clamp((edge - lo) / width, 0.0, double(bins - 1)));
      const double bin_end = lo + width * static_cast<double>(k + 1);
      const double share =
          in_width <= 0 ? 1.0 : std::clamp((bin_end - edge) / in_width, 0.0, 1.0);
      out[k] += count * share;
      if (k + 1 < bins)
        out[k + 1] += count * (1.0 - share);
      else
        out[k] += count * (1.0 - share);
    }
  };
  spread(a);
  spread(b);
  a[0] = lo;
  a[1] = hi;
  std::copy(out.begin(), out.end(), a + 2);
}

}  // namespace

void set_identity(DataType type, std::byte* dst, size_t n) {
  if (type.is_integer()) {
    std::memset(dst, 0, n * type.memory_size());
    return;
  }
  if (type.kind() == TypeKind::kScaleFunc) {
    std::memset(dst, 0, n * kScaleFuncSize);
    return;
  }
  const size_t lanes = type.lanes();
  double* d = dbl(dst);
  std::fill(d, d + n * lanes, 0.0);
  for (size_t i = 0; i < n; ++i, d += lanes) {
    switch (type.kind()) {
      case TypeKind::kMinDouble:
        d[0] = DBL_MAX;
        break;
      case TypeKind::kMaxDouble:
        d[0] = -DBL_MAX;
        break;
      case TypeKind::kTauAtomic:
        d[1] = DBL_MAX;
        d[2] = -DBL_MAX;
        break;
      case TypeKind::kHistogram:
        d[0] = DBL_MAX;
        d[1] = -DBL_MAX;
        break;
      default:
        break;
    }
  }
}

void plus_rows(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  switch (type.kind()) {
    case TypeKind::kInt8: return int_plus<int8_t>(acc, x, n);
    case TypeKind::kUInt8: return int_plus<uint8_t>(acc, x, n);
    case TypeKind::kInt16: return int_plus<int16_t>(acc, x, n);
    case TypeKind::kUInt16: return int_plus<uint16_t>(acc, x, n);
    case TypeKind::kInt32: return int_plus<int32_t>(acc, x, n);
    case TypeKind::kUInt32: return int_plus<uint32_t>(acc, x, n);
    case TypeKind::kInt64: return int_plus<int64_t>(acc, x, n);
    case TypeKind::kUInt64: return int_plus<uint64_t>(acc, x, n);
    case TypeKind::kMinDouble:
      for (size_t i = 0; i < n; ++i) dbl(acc)[i] = std::min(dbl(acc)[i], dbl(x)[i]);
      return;
    case TypeKind::kMaxDouble:
      for (size_t i = 0; i < n; ++i) dbl(acc)[i] = std::max(dbl(acc)[i], dbl(x)[i]);
      return;
    case TypeKind::kTauAtomic:
      for (size_t i = 0; i < n; ++i) tau_plus(dbl(acc) + 5 * i, dbl(x) + 5 * i);
      return;
    case TypeKind::kHistogram: {
      const size_t lanes = type.lanes();
      for (size_t i = 0; i < n; ++i)
        histogram_plus(dbl(acc) + lanes * i, dbl(x) + lanes * i, type.param());
      return;
    }
    case TypeKind::kScaleFunc:
      for (size_t i = 0; i < n; ++i)
        calc::scale_func_plus(acc + i * kScaleFuncSize, x + i * kScaleFuncSize, 1.0);
      return;
    default:  // DOUBLE, COMPLEX, RATE, NDOUBLES: lane-wise sums
      return add_lanes(dbl(acc), dbl(x), n * type.lanes());
  }
}

void minus_rows(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  switch (type.kind()) {
    case TypeKind::kInt8: return int_minus<int8_t>(acc, x, n);
    case TypeKind::kUInt8: return int_minus<uint8_t>(acc, x, n);
    case TypeKind::kInt16: return int_minus<int16_t>(acc, x, n);
    case TypeKind::kUInt16: return int_minus<uint16_t>(acc, x, n);
    case TypeKind::kInt32: return int_minus<int32_t>(acc, x, n);
    case TypeKind::kUInt32: return int_minus<uint32_t>(acc, x, n);
    case TypeKind::kInt64: return int_minus<int64_t>(acc, x, n);
    case TypeKind::kUInt64: return int_minus<uint64_t>(acc, x, n);
    case TypeKind::kDouble: return sub_doubles_snapped(dbl(acc), dbl(x), n);
    case TypeKind::kMinDouble:
    case TypeKind::kMaxDouble:
    case TypeKind::kHistogram:
      return;  // no inverse: CubeLib leaves the value as it is
    case TypeKind::kTauAtomic:
      for (size_t i = 0; i < n; ++i) tau_minus(dbl(acc) + 5 * i, dbl(x) + 5 * i);
      return;
    case TypeKind::kScaleFunc:
      for (size_t i = 0; i < n; ++i)
        calc::scale_func_plus(acc + i * kScaleFuncSize, x + i * kScaleFuncSize, -1.0);
      return;
    default:
      return sub_lanes(dbl(acc), dbl(x), n * type.lanes());
  }
}

void fold_row(DataType type, std::byte* acc, const std::byte* x, size_t n) {
  switch (type.kind()) {
    case TypeKind::kInt8: return int_fold<int8_t>(acc, x, n);
    case TypeKind::kUInt8: return int_fold<uint8_t>(acc, x, n);
    case TypeKind::kInt16: return int_fold<int16_t>(acc, x, n);
    case TypeKind::kUInt16: return int_fold<uint16_t>(acc, x, n);
    case TypeKind::kInt32: return int_fold<int32_t>(acc, x, n);
    case TypeKind::kUInt32: return int_fold<uint32_t>(acc, x, n);
    case TypeKind::kInt64: return int_fold<int64_t>(acc, x, n);
    case TypeKind::kUInt64: return int_fold<uint64_t>(acc, x, n);
    case TypeKind::kDouble: {
      // Sequential order on purpose: CubeLib adds locations one after the other, and the
      // printed digits depend on the order of floating-point additions.
      double s = dbl(acc)[0];
      for (size_t i = 0; i < n; ++i) s += dbl(x)[i];
      dbl(acc)[0] = s;
      return;
    }
    default: {
      const size_t size = type.memory_size();
      for (size_t i = 0; i < n; ++i) plus_rows(type, acc, x + i * size, 1);
      return;
    }
  }
}

double scalar(DataType type, const std::byte* v) {
  switch (type.kind()) {
    case TypeKind::kInt8: return *reinterpret_cast<const int8_t*>(v);
    case TypeKind::kUInt8: return *reinterpret_cast<const uint8_t*>(v);
    case TypeKind::kInt16: return *reinterpret_cast<const int16_t*>(v);
    case TypeKind::kUInt16: return *reinterpret_cast<const uint16_t*>(v);
    case TypeKind::kInt32: return *reinterpret_cast<const int32_t*>(v);
    case TypeKind::kUInt32: return *reinterpret_cast<const uint32_t*>(v);
    case TypeKind::kInt64: return static_cast<double>(*reinterpret_cast<const int64_t*>(v));
    case TypeKind::kUInt64: return static_cast<double>(*reinterpret_cast<const uint64_t*>(v));
    case TypeKind::kComplex: return std::hypot(dbl(v)[0], dbl(v)[1]);
    case TypeKind::kRate:
      if (dbl(v)[1] == 0) return dbl(v)[0] < 0 ? -DBL_MAX : DBL_MAX;
      return dbl(v)[0] / dbl(v)[1];
    case TypeKind::kTauAtomic: return dbl(v)[0] == 0 ? 0.0 : dbl(v)[3] / dbl(v)[0];
    case TypeKind::kHistogram: {
      double s = 0;
      for (size_t i = 0; i < type.param(); ++i) s += dbl(v)[2 + i];
      return s;
    }
    case TypeKind::kNDoubles: {
      double s = 0;
      for (size_t i = 0; i < type.param(); ++i) s += dbl(v)[i];
      return s;
    }
    case TypeKind::kScaleFunc: return calc::scale_func_dominant_coefficient(v);
    default: return dbl(v)[0];
  }
}

}  // namespace cubekit
