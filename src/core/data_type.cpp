#include "cubekit/data_type.hpp"

#include <charconv>

#include "cubekit/error.hpp"

namespace cubekit {
namespace {

struct TypeInfo {
  TypeKind kind;
  std::string_view name;
  size_t disk_size;  // for parameterised types: the fixed part
  size_t disk_per_param;
  LaneType lane;
  size_t lanes;  // for parameterised types: the fixed part
  size_t lanes_per_param;
  bool inclusive_storage;
};

// The one table of per-type facts (cube-format.md §7.1 and §7.2).
constexpr TypeInfo kTypes[] = {
    {TypeKind::kInt8, "INT8", 1, 0, LaneType::kInt8, 1, 0, true},
    {TypeKind::kUInt8, "UINT8", 1, 0, LaneType::kUInt8, 1, 0, true},
    {TypeKind::kInt16, "INT16", 2, 0, LaneType::kInt16, 1, 0, true},
    {TypeKind::kUInt16, "UINT16", 2, 0, LaneType::kUInt16, 1, 0, true},
    {TypeKind::kInt32, "INT32", 4, 0, LaneType::kInt32, 1, 0, true},
    {TypeKind::kUInt32, "UINT32", 4, 0, LaneType::kUInt32, 1, 0, true},
    {TypeKind::kInt64, "INT64", 8, 0, LaneType::kInt64, 1, 0, true},
    {TypeKind::kUInt64, "UINT64", 8, 0, LaneType::kUInt64, 1, 0, true},
    {TypeKind::kDouble, "DOUBLE", 8, 0, LaneType::kDouble, 1, 0, true},
    {TypeKind::kMinDouble, "MINDOUBLE", 8, 0, LaneType::kDouble, 1, 0, false},
    {TypeKind::kMaxDouble, "MAXDOUBLE", 8, 0, LaneType::kDouble, 1, 0, false},
    {TypeKind::kComplex, "COMPLEX", 16, 0, LaneType::kDouble, 2, 0, true},
    {TypeKind::kRate, "RATE", 16, 0, LaneType::kDouble, 2, 0, true},
    {TypeKind::kTauAtomic, "TAU_ATOMIC", 36, 0, LaneType::kDouble, 5, 0, false},
    {TypeKind::kHistogram, "HISTOGRAM", 16, 8, LaneType::kDouble, 2, 1, false},
    {TypeKind::kNDoubles, "NDOUBLES", 0, 8, LaneType::kDouble, 0, 1, true},
    {TypeKind::kScaleFunc, "SCALE_FUNC", kScaleFuncSize, 0, LaneType::kScaleFunc, 1, 0, true},
};

const TypeInfo& info(TypeKind kind) {
  return kTypes[static_cast<size_t>(kind)];
}

struct Alias {
  std::string_view text;
  TypeKind kind;
};

// CubeLib 4.6's accepted spellings besides the canonical names.
constexpr Alias kAliases[] = {
    {"CHAR", TypeKind::kUInt8},
    {"SHORT INT", TypeKind::kInt16},
    {"SIGNED SHORT INT", TypeKind::kInt16},
    {"UNSIGNED SHORT INT", TypeKind::kUInt16},
    {"INT", TypeKind::kInt32},
    {"SIGNED INT", TypeKind::kInt32},
    {"UNSIGNED INT", TypeKind::kUInt32},
    {"INTEGER", TypeKind::kInt64},
    {"SIGNED INTEGER", TypeKind::kInt64},
    {"UNSIGNED INTEGER", TypeKind::kUInt64},
    {"FLOAT", TypeKind::kDouble},
};

}  // namespace

DataType DataType::parse(std::string_view text) {
  const size_t open = text.find('(');
  if (open != std::string_view::npos) {
    const std::string_view base = text.substr(0, open);
    if (text.back() != ')')
      throw FormatError("dtype '" + std::string(text) + "': expected NAME(n) with a closing ')'");
    const std::string_view arg = text.substr(open + 1, text.size() - open - 2);
    uint32_t n = 0;
    auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    if (ec != std::errc() || ptr != arg.data() + arg.size() || n == 0 || n > (1u << 20))
      throw FormatError("dtype '" + std::string(text) +
                        "': expected one positive integer argument");
    if (base == "HISTOGRAM") return {TypeKind::kHistogram, n};
    if (base == "NDOUBLES") return {TypeKind::kNDoubles, n};
    throw FormatError("unknown dtype '" + std::string(text) + "'");
  }
  for (const TypeInfo& t : kTypes) {
    if (t.name == text) {
      if (t.lanes_per_param != 0)
        throw FormatError("dtype '" + std::string(text) +
                          "' needs an argument: " + std::string(text) + "(n)");
      return {t.kind};
    }
  }
  for (const Alias& a : kAliases)
    if (a.text == text) return {a.kind};
  throw FormatError("unknown dtype '" + std::string(text) + "'");
}

std::string_view DataType::base_name() const {
  return info(kind_).name;
}

std::string DataType::dtype_text() const {
  std::string s(base_name());
  if (info(kind_).lanes_per_param != 0) s += "(" + std::to_string(param_) + ")";
  return s;
}

size_t DataType::disk_size() const {
  const TypeInfo& t = info(kind_);
  return t.disk_size + t.disk_per_param * param_;
}

LaneType DataType::lane_type() const {
  return info(kind_).lane;
}

size_t DataType::lanes() const {
  const TypeInfo& t = info(kind_);
  return t.lanes + t.lanes_per_param * param_;
}

size_t DataType::memory_size() const {
  switch (lane_type()) {
    case LaneType::kInt8:
    case LaneType::kUInt8:
      return 1;
    case LaneType::kInt16:
    case LaneType::kUInt16:
      return 2;
    case LaneType::kInt32:
    case LaneType::kUInt32:
      return 4;
    case LaneType::kScaleFunc:
      return kScaleFuncSize;
    default:
      return 8 * lanes();
  }
}

bool DataType::allows_inclusive_storage() const {
  return info(kind_).inclusive_storage;
}

}  // namespace cubekit
