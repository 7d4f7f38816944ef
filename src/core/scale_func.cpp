#include "core/scale_func.hpp"

#include <algorithm>
#include <cstring>

#include "cubekit/data_type.hpp"

namespace cubekit::core {
namespace {

constexpr size_t kTermBytes = 20;
constexpr size_t kTermsAt = 8;
constexpr size_t kMeasurementBytes = 20;  // u32 process count, f64 mean, f64 width (packed)

ScaleTerm read_term(const std::byte* p) {
  ScaleTerm t;
  std::memcpy(&t.a, p, 8);
  std::memcpy(&t.b, p + 8, 4);
  std::memcpy(&t.c, p + 12, 4);
  std::memcpy(&t.d, p + 16, 4);
  return t;
}

void write_term(std::byte* p, const ScaleTerm& t) {
  std::memcpy(p, &t.a, 8);
  std::memcpy(p + 8, &t.b, 4);
  std::memcpy(p + 12, &t.c, 4);
  std::memcpy(p + 16, &t.d, 4);
}

double exponent(const ScaleTerm& t) {
  return t.c == 0 ? 0.0 : double(t.b) / double(t.c);
}

bool more_dominant(const ScaleTerm& x, const ScaleTerm& y) {
  if (exponent(x) != exponent(y)) return exponent(x) > exponent(y);
  if (x.d != y.d) return x.d > y.d;
  return x.a > y.a;
}

bool like_terms(const ScaleTerm& x, const ScaleTerm& y) {
  return uint64_t(int64_t(x.b)) * y.c == uint64_t(int64_t(y.b)) * x.c && x.d == y.d;
}

}  // namespace

std::vector<ScaleTerm> scale_func_terms(const std::byte* slot) {
  uint32_t n = 0;
  std::memcpy(&n, slot, 4);
  n = std::min<uint32_t>(n, kScaleFuncMaxTerms);
  std::vector<ScaleTerm> terms;
  for (uint32_t i = 0; i < n; ++i) {
    const ScaleTerm t = read_term(slot + kTermsAt + i * kTermBytes);
    if (t.a != 0) terms.push_back(t);
  }
  std::stable_sort(terms.begin(), terms.end(), more_dominant);
  return terms;
}

void scale_func_plus(std::byte* acc, const std::byte* x, double sign) {
  std::vector<ScaleTerm> terms = scale_func_terms(acc);
  for (ScaleTerm t : scale_func_terms(x)) {
    t.a *= sign;
    auto it = std::find_if(terms.begin(), terms.end(),
                           [&](const ScaleTerm& u) { return like_terms(u, t); });
    if (it != terms.end())
      it->a += t.a;
    else
      terms.push_back(t);
  }
  std::erase_if(terms, [](const ScaleTerm& t) { return t.a == 0; });
  std::stable_sort(terms.begin(), terms.end(), more_dominant);
  if (terms.size() > kScaleFuncMaxTerms) terms.resize(kScaleFuncMaxTerms);  // least dominant go
  // acc's measurements follow its terms; CubeLib keeps them (and never merges x's), so they
  // move to follow the new terms.
  const std::vector<std::byte> measurements = scale_func_measurement_bytes(acc);
  const uint32_t n = static_cast<uint32_t>(terms.size());
  std::memcpy(acc, &n, 4);
  std::memset(acc + kTermsAt, 0, kScaleFuncSize - kTermsAt);
  for (uint32_t i = 0; i < n; ++i) write_term(acc + kTermsAt + i * kTermBytes, terms[i]);
  if (!measurements.empty())
    std::memcpy(acc + kTermsAt + n * kTermBytes, measurements.data(), measurements.size());
}

std::vector<std::byte> scale_func_measurement_bytes(const std::byte* slot) {
  uint32_t n = 0, m = 0;
  std::memcpy(&n, slot, 4);
  std::memcpy(&m, slot + 4, 4);
  n = std::min<uint32_t>(n, kScaleFuncMaxTerms);
  m = std::min<uint32_t>(m, kScaleFuncMaxMeasurements);
  const std::byte* at = slot + kTermsAt + n * kTermBytes;
  return std::vector<std::byte>(at, at + m * kMeasurementBytes);
}

std::vector<ScaleMeasurement> scale_func_measurements(const std::byte* slot) {
  const std::vector<std::byte> bytes = scale_func_measurement_bytes(slot);
  std::vector<ScaleMeasurement> out(bytes.size() / kMeasurementBytes);
  for (size_t i = 0; i < out.size(); ++i) {
    const std::byte* p = bytes.data() + i * kMeasurementBytes;
    std::memcpy(&out[i].processes, p, 4);
    std::memcpy(&out[i].mean, p + 4, 8);
    std::memcpy(&out[i].width, p + 12, 8);
  }
  return out;
}

double scale_func_asymptotic_key(const std::byte* slot) {
  const auto terms = scale_func_terms(slot);
  if (terms.empty()) return 0.0;
  const ScaleTerm& dominant = terms.front();
  return exponent(dominant) * 1000 + dominant.d + dominant.a / 1000;
}

}  // namespace cubekit::core
