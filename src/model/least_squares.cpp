// One-sided Jacobi SVD (Hestenes): rotate pairs of columns of A until all are orthogonal; then
// A·V = U·Σ with the columns' norms as Σ, and x = V · Σ⁺ · Uᵀ · b.
#include "model/least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cubekit::model_detail {
namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// Replaces columns i and j of `m` by their rotation by (c, s).
void rotate(Columns& m, size_t i, size_t j, double c, double s) {
  for (size_t r = 0; r < m[i].size(); ++r) {
    const double a = m[i][r], b = m[j][r];
    m[i][r] = c * a - s * b;
    m[j][r] = s * a + c * b;
  }
}

// Orthogonalises the columns of `a` in place and returns V (columns), with A_in · V = a.
Columns orthogonalise(Columns& a) {
  const size_t n = a.size();
  Columns v(n, std::vector<double>(n, 0.0));
  for (size_t k = 0; k < n; ++k) v[k][k] = 1;
  const double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (size_t i = 0; i + 1 < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        const double alpha = dot(a[i], a[i]), beta = dot(a[j], a[j]), gamma = dot(a[i], a[j]);
        if (gamma == 0 || std::abs(gamma) <= eps * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::hypot(1.0, zeta));
        const double c = 1 / std::hypot(1.0, t);
        rotate(a, i, j, c, c * t);
        rotate(v, i, j, c, c * t);
      }
    if (!rotated) break;
  }
  return v;
}

}  // namespace

std::vector<double> least_squares(Columns a, const std::vector<double>& b) {
  const size_t n = a.size();
  const size_t rows = b.size();
  const Columns v = orthogonalise(a);
  std::vector<double> sigma(n);
  for (size_t k = 0; k < n; ++k) sigma[k] = std::sqrt(dot(a[k], a[k]));
  const double largest = n ? *std::max_element(sigma.begin(), sigma.end()) : 0;
  const double eps = std::numeric_limits<double>::epsilon();
  double cutoff = eps * double(std::max(rows, n)) * largest;
  if (std::any_of(sigma.begin(), sigma.end(), [&](double s) { return s <= cutoff; }))
    cutoff = eps * largest;
  std::vector<double> x(n, 0.0);
  for (size_t k = 0; k < n; ++k) {
    if (!(sigma[k] > cutoff)) continue;
    const double weight = dot(a[k], b) / (sigma[k] * sigma[k]);  // (u_k · b) / σ_k
    for (size_t j = 0; j < n; ++j) x[j] += weight * v[k][j];
  }
  return x;
}

}  // namespace cubekit::model_detail
