// Remapping specifications (.spec files of cube_remap2, tools guide §1.4.3). They look like XML
// but are not: CubePL texts inside <cubepl>…</cubepl> contain raw '<' and '>' ("${i} < 3",
// "<< … >>" blocks), so the text of an element runs up to its literal closing tag, as in
// CubeLib's scanner; the five predefined entities are then decoded.
#include <algorithm>
#include <unordered_set>

#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "format/anchor.hpp"

namespace cubekit {
namespace {

std::string decode_entities(std::string_view s) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    bool replaced = false;
    if (s[i] == '&')
      for (const auto& [name, c] : kEntities)
        if (s.substr(i, name.size()) == name) {
          out += c;
          i += name.size() - 1;
          replaced = true;
          break;
        }
    if (!replaced) out += s[i];
  }
  return out;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::toupper);
  return s;
}

struct Tag {
  std::string name;  // "metric", "/metric", ...
  std::vector<std::pair<std::string, std::string>> attrs;
  bool self_closing = false;
  size_t at = 0;  // offset of '<'
};

class SpecParser {
 public:
  SpecParser(std::string_view text, const std::string& where) : text_(text), where_(where) {}
  RemapSpec parse();

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw FormatError(where_ + ":" + format::line_column(text_, static_cast<ptrdiff_t>(at)) + ": " +
                      what);
  }
  // Skips white space, comments and <?…?> declarations; false at the end of the text.
  bool skip_space();
  Tag read_tag();
  // The raw text up to </name>, entity-decoded; the closing tag is consumed.
  std::string element_text(const Tag& open);
  void parse_doc();
  void parse_metric(const Tag& open, Index parent, int depth);
  bool attribute_true(const Tag& tag, const std::string& name, bool fallback);

  std::string_view text_;
  std::string where_;
  size_t pos_ = 0;
  RemapSpec spec_;
  std::unordered_set<std::string> names_;
};

bool SpecParser::skip_space() {
  while (pos_ < text_.size()) {
    if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    } else if (text_.substr(pos_, 4) == "<!--") {
      const size_t end = text_.find("-->", pos_ + 4);
      if (end == std::string_view::npos) fail(pos_, "comment without end '-->'");
      pos_ = end + 3;
    } else if (text_.substr(pos_, 2) == "<?") {
      const size_t end = text_.find("?>", pos_ + 2);
      if (end == std::string_view::npos) fail(pos_, "declaration without end '?>'");
      pos_ = end + 2;
    } else {
      return true;
    }
  }
  return false;
}

Tag SpecParser::read_tag() {
  Tag tag;
  tag.at = pos_;
  if (text_[pos_] != '<') fail(pos_, "expected a tag, found text");
  const size_t end = text_.find('>', pos_);
  if (end == std::string_view::npos) fail(pos_, "tag without closing '>'");
  std::string_view inside = text_.substr(pos_ + 1, end - pos_ - 1);
  pos_ = end + 1;
  if (!inside.empty() && inside.back() == '/') {
    tag.self_closing = true;
    inside.remove_suffix(1);
  }
  size_t i = 0;
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == ':' ||
           c == '-';
  };
  while (i < inside.size() && is_name(inside[i])) ++i;
  tag.name = std::string(inside.substr(0, i));
  if (tag.name.empty()) fail(tag.at, "malformed tag");
  while (true) {
    while (i < inside.size() && std::isspace(static_cast<unsigned char>(inside[i]))) ++i;
    if (i >= inside.size()) break;
    const size_t k = i;
    while (i < inside.size() && is_name(inside[i])) ++i;
    const std::string key(inside.substr(k, i - k));
    while (i < inside.size() && std::isspace(static_cast<unsigned char>(inside[i]))) ++i;
    if (key.empty() || i >= inside.size() || inside[i] != '=')
      fail(tag.at, "malformed attribute in <" + tag.name + ">");
    ++i;
    while (i < inside.size() && std::isspace(static_cast<unsigned char>(inside[i]))) ++i;
    std::string value;
    if (i < inside.size() && (inside[i] == '"' || inside[i] == '\'')) {
      const size_t close = inside.find(inside[i], i + 1);
      if (close == std::string_view::npos)
        fail(tag.at, "unterminated value of attribute '" + key + "'");
      value = decode_entities(inside.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {  // CubeLib also writes bare values (rowwise=false)
      const size_t v = i;
      while (i < inside.size() && !std::isspace(static_cast<unsigned char>(inside[i]))) ++i;
      value = std::string(inside.substr(v, i - v));
    }
    tag.attrs.emplace_back(key, value);
  }
  return tag;
}

std::string SpecParser::element_text(const Tag& open) {
  if (open.self_closing) return {};
  const std::string close = "</" + open.name + ">";
  const size_t end = text_.find(close, pos_);
  if (end == std::string_view::npos) fail(open.at, "<" + open.name + "> without " + close);
  std::string value = decode_entities(text_.substr(pos_, end - pos_));
  pos_ = end + close.size();
  return value;
}

bool SpecParser::attribute_true(const Tag& tag, const std::string& name, bool fallback) {
  for (const auto& [k, v] : tag.attrs) {
    if (k != name) continue;
    const std::string u = upper(v);
    if (u == "TRUE") return true;
    if (u == "FALSE") return false;
    fail(tag.at, "attribute " + name + "=\"" + v + "\" is neither true nor false");
  }
  return fallback;
}

void SpecParser::parse_doc() {
  while (true) {
    if (!skip_space()) fail(pos_, "end of file inside <doc>");
    const Tag t = read_tag();
    if (t.name == "/doc") return;
    if (t.name != "mirrors") fail(t.at, "unexpected <" + t.name + "> in <doc>");
    while (true) {
      if (!skip_space()) fail(pos_, "end of file inside <mirrors>");
      const Tag m = read_tag();
      if (m.name == "/mirrors") break;
      if (m.name != "murl") fail(m.at, "unexpected <" + m.name + "> in <mirrors>");
      spec_.mirrors.push_back(element_text(m));
    }
  }
}

void SpecParser::parse_metric(const Tag& open, Index parent, int depth) {
  if (depth > kMaxTreeNesting)
    fail(open.at, "metrics nested deeper than " + std::to_string(kMaxTreeNesting));
  Metric m;
  for (const auto& [k, v] : open.attrs) {
    if (k == "type") {
      const std::optional<MetricKind> kind =
          v.empty() ? MetricKind::kExclusive : metric_kind_from_name(upper(v));
      if (!kind) fail(open.at, "unknown metric type \"" + v + "\"");
      m.kind = *kind;
    } else if (k == "viztype") {
      const std::string u = upper(v);
      if (u != "GHOST" && u != "NORMAL") fail(open.at, "unknown viztype \"" + v + "\"");
      m.ghost = u == "GHOST";
    } else if (k != "convertible" && k != "cacheable") {
      fail(open.at, "unknown attribute '" + k + "' of <metric>");
    }
  }
  m.convertible = attribute_true(open, "convertible", true);
  m.cacheable = attribute_true(open, "cacheable", true);
  m.parent = parent;
  const Index self = static_cast<Index>(spec_.metrics.size());
  spec_.metrics.push_back(m);
  if (parent != kNoIndex) spec_.metrics[parent].children.push_back(self);
  std::unordered_set<std::string> seen;
  bool has_dtype = false;
  size_t dtype_at = 0;
  while (true) {
    if (!skip_space()) fail(open.at, "<metric> without </metric>");
    const Tag t = read_tag();
    if (t.name == "/metric") break;
    if (t.name == "metric") {
      parse_metric(t, self, depth + 1);
      continue;
    }
    if (t.name[0] == '/') fail(t.at, "expected </metric>, found <" + t.name + ">");
    if (t.name != "cubeplaggr" && !seen.insert(t.name).second)
      fail(t.at, "<" + t.name + "> given twice in one metric");
    Metric& x = spec_.metrics[self];
    std::string value = element_text(t);
    if (t.name == "disp_name")
      x.disp_name = std::move(value);
    else if (t.name == "uniq_name")
      x.uniq_name = std::move(value);
    else if (t.name == "dtype")
      x.dtype_text = std::move(value), has_dtype = true, dtype_at = t.at;
    else if (t.name == "uom")
      x.uom = std::move(value);
    else if (t.name == "val")
      x.val = std::move(value);
    else if (t.name == "url")
      x.url = std::move(value);
    else if (t.name == "descr")
      x.descr = std::move(value);
    else if (t.name == "cubeplinit")
      x.init_expression = std::move(value);
    else if (t.name == "cubepl") {
      x.expression = std::move(value);
      for (const auto& [k, v] : t.attrs)
        if (k == "rowwise" || k == "locationwise") x.rowwise = upper(v) != "FALSE";
    } else if (t.name == "cubeplaggr") {
      std::string type;
      for (const auto& [k, v] : t.attrs)
        if (k == "cubeplaggrtype") type = upper(v);
      std::string* slot = type == "PLUS"    ? &x.aggr_plus
                          : type == "MINUS" ? &x.aggr_minus
                          : type == "AGGR"  ? &x.aggr_aggr
                                            : nullptr;
      if (slot == nullptr) fail(t.at, "<cubeplaggr> needs cubeplaggrtype plus, minus or aggr");
      if (!slot->empty()) fail(t.at, "<cubeplaggr cubeplaggrtype=" + type + "> given twice");
      *slot = std::move(value);
    } else if (t.name == "attr") {
      // <attr key="…" value="…"/>, as in anchors
      std::string key, val;
      for (const auto& [k, v] : t.attrs) (k == "key" ? key : val) = v;
      x.attrs.emplace_back(key, val);
      seen.erase("attr");
    } else {
      fail(t.at, "unexpected <" + t.name + "> in <metric>");
    }
  }
  Metric& x = spec_.metrics[self];
  if (x.uniq_name.empty()) fail(open.at, "metric without <uniq_name>");
  if (!names_.insert(x.uniq_name).second)
    fail(open.at, "metric '" + x.uniq_name + "' defined twice");
  if (!has_dtype) fail(open.at, "metric '" + x.uniq_name + "' without <dtype>");
  try {
    x.dtype = DataType::parse(x.dtype_text);
  } catch (const FormatError& e) {
    fail(dtype_at, "metric '" + x.uniq_name + "': " + e.what());
  }
  if (x.kind == MetricKind::kInclusive && !x.dtype.allows_inclusive_storage())
    fail(open.at,
         "metric '" + x.uniq_name + "': INCLUSIVE storage is impossible for dtype " + x.dtype_text);
  if (is_derived(x.kind) && x.expression.empty())
    fail(open.at, "derived metric '" + x.uniq_name + "' without <cubepl> expression");
}

RemapSpec SpecParser::parse() {
  bool metrics_seen = false;
  while (skip_space()) {
    const Tag t = read_tag();
    if (t.name == "doc" && !metrics_seen) {
      parse_doc();
    } else if (t.name == "metrics" && !metrics_seen) {
      metrics_seen = true;
      for (const auto& [k, v] : t.attrs)
        if (k == "title") spec_.metrics_title = v;
      while (true) {
        if (!skip_space()) fail(pos_, "end of file, expected </metrics>");
        const Tag m = read_tag();
        if (m.name == "/metrics") break;
        if (m.name != "metric") fail(m.at, "unexpected <" + m.name + "> in <metrics>");
        parse_metric(m, kNoIndex, 0);
      }
    } else {
      fail(t.at, "unexpected <" + t.name + ">" + (metrics_seen ? " after </metrics>" : ""));
    }
  }
  if (!metrics_seen) fail(pos_, "no <metrics> element");
  // VOID is inherited by sub-metrics; the vector is in pre-order, parents first.
  for (Metric& m : spec_.metrics)
    m.is_void = m.val == "VOID" || (m.parent != kNoIndex && spec_.metrics[m.parent].is_void);
  return std::move(spec_);
}

}  // namespace

RemapSpec parse_remap_spec(std::string_view text, const std::string& where) {
  return SpecParser(text, where).parse();
}

}  // namespace cubekit
