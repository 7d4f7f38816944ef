// Run-time values of the vectorised evaluator: a Column holds one number per lane or a single
// number for all lanes (most values in a row evaluation are the same everywhere, e.g. region
// names or loop counters, so broadcasting keeps them O(1)). Variable elements additionally
// remember whether each lane holds nothing, a number or a string (cubepl.md §4.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cubekit::cubepl::detail {

template <class T>
class Lanes {
 public:
  Lanes() = default;
  Lanes(T value) : scalar_(std::move(value)) {}  // NOLINT: broadcasting is the common case
  explicit Lanes(std::vector<T> lanes) : lanes_(std::move(lanes)) {}
  bool uniform() const { return lanes_.empty(); }
  const T& operator[](size_t i) const { return lanes_.empty() ? scalar_ : lanes_[i]; }
  const T& scalar() const { return scalar_; }
  // Per-lane storage of `width` lanes (copies the broadcast value out first).
  std::vector<T>& expand(size_t width) {
    if (lanes_.empty()) lanes_.assign(width, scalar_);
    return lanes_;
  }
  size_t stored() const { return lanes_.size(); }

 private:
  T scalar_{};
  std::vector<T> lanes_;
};

using Column = Lanes<double>;
using StrColumn = Lanes<std::string>;

// Applies f lane by lane; the result is broadcast when the input is. Inputs that are
// temporaries lend their buffer to the result (rows can be long: one lane per location).
template <class F>
Column map(Column a, size_t width, F f) {
  if (a.uniform()) return Column(f(a.scalar()));
  double* v = a.expand(width).data();
  for (size_t i = 0; i < width; ++i) v[i] = f(v[i]);
  return a;
}

template <class F>
Column zip(Column a, Column b, size_t width, F f) {
  if (a.uniform() && b.uniform()) return Column(f(a.scalar(), b.scalar()));
  if (b.uniform()) {
    double* v = a.expand(width).data();
    const double y = b.scalar();
    for (size_t i = 0; i < width; ++i) v[i] = f(v[i], y);
    return a;
  }
  double* w = b.expand(width).data();
  if (a.uniform()) {
    const double x = a.scalar();
    for (size_t i = 0; i < width; ++i) w[i] = f(x, w[i]);
  } else {
    const double* v = a.expand(width).data();
    for (size_t i = 0; i < width; ++i) w[i] = f(v[i], w[i]);
  }
  return b;
}

// Masks are Columns of 0 / 1: the lanes a statement or a skipped operand applies to.
bool any(const Column& mask, size_t width);
inline Column both(const Column& a, const Column& b, size_t width) {
  return zip(a, b, width, [](double x, double y) { return x != 0 && y != 0 ? 1.0 : 0.0; });
}
inline Column but_not(const Column& a, const Column& b, size_t width) {
  return zip(a, b, width, [](double x, double y) { return x != 0 && y == 0 ? 1.0 : 0.0; });
}

// cubepl.md §4.3: numbers print like %.14g, strings read their longest numeric prefix.
std::string to_text(double value);
double to_number(std::string_view text);

enum class Kind : uint8_t { kEmpty, kNumber, kString };

// One array element of a variable, over all lanes.
struct Element {
  Kind kind = Kind::kEmpty;  // for all lanes while `kinds` is empty
  std::vector<Kind> kinds;   // per lane otherwise
  Column num;                // meaningful where the lane holds a number
  StrColumn str;             // meaningful where the lane holds a string

  Kind kind_at(size_t lane) const { return kinds.empty() ? kind : kinds[lane]; }
  bool per_lane() const { return !kinds.empty() || !num.uniform() || !str.uniform(); }
  size_t lanes() const;  // stored lanes (0 when uniform)
};

Element number_element(Column values);
Element string_element(StrColumn values);
Column numbers_of(const Element& e, size_t width);
StrColumn strings_of(const Element& e, size_t width);
// Copies lane `from` of `src` into lane `to` of `dst` (making dst per-lane).
void copy_lane(Element& dst, size_t to, const Element& src, size_t from, size_t width);
// dst = src in the lanes of `mask`.
void assign(Element& dst, const Element& src, const Column& mask, size_t width);

using Array = std::vector<Element>;

}  // namespace cubekit::cubepl::detail
