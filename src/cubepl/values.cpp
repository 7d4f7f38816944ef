#include "cubepl/values.hpp"

#include <charconv>
#include <cmath>

namespace cubekit::cubepl::detail {

bool any(const Column& mask, size_t width) {
  if (mask.uniform()) return mask.scalar() != 0;
  for (size_t i = 0; i < width; ++i) {
    if (mask[i] != 0) return true;
  }
  return false;
}

std::string to_text(double value) {
  // to_chars with precision is specified as printf %.14g in the "C" locale.
  char buffer[64];
  const auto r =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 14);
  return std::string(buffer, r.ptr);
}

double to_number(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
                             text[i] == '\r' || text[i] == '\f' || text[i] == '\v')) {
    ++i;
  }
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  double value = 0;
  std::from_chars(text.data() + i, text.data() + text.size(), value, std::chars_format::general);
  return negative ? -value : value;
}

size_t Element::lanes() const {
  size_t n = kinds.size();
  if (n == 0) n = num.stored();
  if (n == 0) n = str.stored();
  return n;
}

Element number_element(Column values) {
  Element e;
  e.kind = Kind::kNumber;
  e.num = std::move(values);
  return e;
}

Element string_element(StrColumn values) {
  Element e;
  e.kind = Kind::kString;
  e.str = std::move(values);
  return e;
}

Column numbers_of(const Element& e, size_t width) {
  if (!e.per_lane()) {
    if (e.kind == Kind::kString) return Column(to_number(e.str.scalar()));
    return Column(e.kind == Kind::kNumber ? e.num.scalar() : 0.0);
  }
  std::vector<double> out(width);
  for (size_t i = 0; i < width; ++i) {
    const Kind k = e.kind_at(i);
    out[i] = k == Kind::kNumber ? e.num[i] : k == Kind::kString ? to_number(e.str[i]) : 0.0;
  }
  return Column(std::move(out));
}

StrColumn strings_of(const Element& e, size_t width) {
  auto text = [&](size_t i) -> std::string {
    const Kind k = e.kind_at(i);
    return k == Kind::kString ? e.str[i] : k == Kind::kNumber ? to_text(e.num[i]) : "";
  };
  if (!e.per_lane()) return StrColumn(text(0));
  std::vector<std::string> out(width);
  for (size_t i = 0; i < width; ++i) out[i] = text(i);
  return StrColumn(std::move(out));
}

void copy_lane(Element& dst, size_t to, const Element& src, size_t from, size_t width) {
  if (dst.kinds.empty()) dst.kinds.assign(width, dst.kind);
  const Kind k = src.kind_at(from);
  dst.kinds[to] = k;
  if (k == Kind::kNumber) dst.num.expand(width)[to] = src.num[from];
  if (k == Kind::kString) dst.str.expand(width)[to] = src.str[from];
}

void assign(Element& dst, const Element& src, const Column& mask, size_t width) {
  if (mask.uniform()) {
    if (mask.scalar() != 0) dst = src;
    return;
  }
  for (size_t i = 0; i < width; ++i) {
    if (mask[i] != 0) copy_lane(dst, i, src, i, width);
  }
}

}  // namespace cubekit::cubepl::detail
