// XmlStream (xml_stream.hpp): markup found with memchr, names and attributes as views into the
// document; only the stack of open element names is kept.
#include "format/xml_stream.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cubekit::format {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// Characters that end a name: white space and the markup around names (a table: names are
// scanned for every tag).
constexpr std::array<bool, 256> kEndsName = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : std::string_view(" \n\t\r>/=<\"'?!")) table[c] = true;
  return table;
}();
bool ends_name(char c) {
  return kEndsName[static_cast<unsigned char>(c)];
}

const char* find_char(const char* from, const char* end, char c) {
  if (from == end) return nullptr;
  if (*from == c) return from;
  return static_cast<const char*>(std::memchr(from, c, static_cast<size_t>(end - from)));
}

// The UTF-8 of a character reference's number ("65", "x41"); nothing if it is none.
void append_code_point(std::string& out, std::string_view number) {
  const bool hex = !number.empty() && (number[0] == 'x' || number[0] == 'X');
  const std::string_view digits = number.substr(hex ? 1 : 0);
  uint32_t code = 0;
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), code, hex ? 16 : 10);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
      code > 0x10FFFF)
    return;
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// Equal names (short: a loop, no memcmp call).
bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

std::string shown(std::string_view s) {
  return std::string(s.substr(0, 64));
}

// Where the markup characters stand among the 64 bytes from p (bit i: p[i]). Data sections
// are runs of short leaf elements: one look at 64 bytes finds the tags of about three leaves,
// instead of a memchr call or a byte loop per tag.
using Marks = XmlStream::MarkWindow;
[[gnu::always_inline]] inline Marks marks_of_64(const char* p) {
  constexpr int kBytes = 64;
  Marks m;
  m.from = p;
#if defined(__SSE2__)
  const __m128i lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>'), quote = _mm_set1_epi8('"'),
                apostrophe = _mm_set1_epi8('\'');
#pragma GCC unroll 4
  for (int i = 0; i < kBytes / 16; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    auto bits = [&](__m128i equal) {
      return uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(equal))} << (16 * i);
    };
    m.lt |= bits(_mm_cmpeq_epi8(v, lt));
    m.gt |= bits(_mm_cmpeq_epi8(v, gt));
    m.quotes |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, apostrophe)));
  }
#else
  for (int i = 0; i < kBytes; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    m.lt |= p[i] == '<' ? bit : 0;
    m.gt |= p[i] == '>' ? bit : 0;
    m.quotes |= p[i] == '"' || p[i] == '\'' ? bit : 0;
  }
#endif
  return m;
}

// A leaf `<NAME ...>TEXT</NAME>` at p: the offsets of its start tag's '>' and of its end tag's
// '<', and the quotes in its start tag (none or one quoted value, so no '>' hides in one).
struct LeafTags {
  unsigned start_end = 0, end_begin = 0;
  uint64_t quotes = 0;
};
enum class Leaf { kYes, kNo, kLonger };
// Whether the `bytes` from p that `m` describes hold such a leaf wholly.
[[gnu::always_inline]] inline Leaf leaf_in(const char* p, std::string_view name, const Marks& m,
                                           unsigned bytes, LeafTags& tags) {
  const size_t n = name.size();
  if (m.gt == 0) return Leaf::kLonger;
  const unsigned gt = static_cast<unsigned>(std::countr_zero(m.gt));
  if (gt + n + 4 > bytes) return Leaf::kLonger;
  const uint64_t in_tag = (uint64_t{1} << gt) - 1;
  if ((m.lt & in_tag) != 1 || p[gt - 1] == '/') return Leaf::kNo;
  const uint64_t quotes = m.quotes & in_tag;
  if (quotes != 0) {
    const uint64_t second = quotes & (quotes - 1);
    if (second == 0 || (second & (second - 1)) != 0 ||
        p[std::countr_zero(quotes)] != p[std::countr_zero(second)])
      return Leaf::kNo;
  }
  const uint64_t lt_after = m.lt & ~((uint64_t{2} << gt) - 1);
  if (lt_after == 0) return Leaf::kLonger;
  const unsigned lt = static_cast<unsigned>(std::countr_zero(lt_after));
  if (lt + n + 3 > bytes) return Leaf::kLonger;
  if (p[lt + 1] != '/' || !same_name(std::string_view(p + lt + 2, n), name) || p[lt + n + 2] != '>')
    return Leaf::kNo;
  tags = {gt, lt, quotes};
  return Leaf::kYes;
}
// Such a leaf at p, found with the marks of `window` (64 bytes from at most 32 before p, else
// taken anew). Fewer than 64 bytes left before `end`: false, the generic scanner reads it.
[[gnu::always_inline]] inline bool leaf_at(const char* p, const char* end, std::string_view name,
                                           Marks& window, LeafTags& tags) {
  const size_t n = name.size();
  if (end - p < 64 || n + 4 > 32 || p[0] != '<' || !same_name(std::string_view(p + 1, n), name) ||
      (p[n + 1] != ' ' && p[n + 1] != '>'))
    return false;
  if (window.from == nullptr || p < window.from || p - window.from > 32) window = marks_of_64(p);
  const auto shift = static_cast<unsigned>(p - window.from);
  const Marks m{p, window.lt >> shift, window.gt >> shift, window.quotes >> shift};
  const Leaf found = leaf_in(p, name, m, 64 - shift, tags);
  if (found != Leaf::kLonger || shift == 0) return found == Leaf::kYes;
  window = marks_of_64(p);
  return leaf_in(p, name, window, 64, tags) == Leaf::kYes;
}

}  // namespace

XmlStream::XmlStream(std::string_view document, size_t from) : doc_(document), pos_(from) {
  names_.reserve(64);
  attributes_.reserve(8);
}

XmlStream::XmlStream(std::string_view window, size_t from, size_t base)
    : XmlStream(window, from - base) {
  base_ = base;
}

void XmlStream::move_window(std::string_view window, size_t base) {
  size_t bytes = 0;
  for (const std::string_view name : names_) bytes += name.size();
  auto kept = std::make_unique<char[]>(std::max<size_t>(bytes, 1));
  char* at = kept.get();
  for (std::string_view& name : names_) {
    std::memcpy(at, name.data(), name.size());
    name = std::string_view(at, name.size());
    at += name.size();
  }
  kept_names_ = std::move(kept);  // the array moves with its address
  const size_t position = base_ + pos_, token = base_ + token_offset_;
  doc_ = window;
  base_ = base;
  pos_ = position - base;
  token_offset_ = token > base ? token - base : 0;
  name_ = text_ = {};
  attributes_.clear();
  window_ = {};
}

void XmlStream::fail(size_t at, const std::string& what) const {
  throw XmlSyntaxError(base_ + at, what);
}

std::string_view XmlStream::attribute(std::string_view name) const {
  for (const XmlAttribute& a : attributes_)
    if (a.name == name) return a.raw_value;
  return {};
}

size_t XmlStream::find(std::string_view what, size_t from, const char* unterminated) const {
  const size_t at = from <= doc_.size() ? doc_.find(what, from) : std::string_view::npos;
  if (at == std::string_view::npos) fail(token_offset_, std::string(unterminated) + " not closed");
  return at;
}

std::string_view XmlStream::scan_name(size_t& at) const {
  const size_t begin = at;
  while (at < doc_.size() && !ends_name(doc_[at])) ++at;
  if (at == begin) fail(begin, "a name was expected");
  return doc_.substr(begin, at - begin);
}

void XmlStream::pass_over_quoted(size_t& at) const {
  const char quote = doc_[at];
  const char* close = find_char(doc_.data() + at + 1, doc_.data() + doc_.size(), quote);
  if (close == nullptr) fail(at, "quoted value not closed");
  at = static_cast<size_t>(close - doc_.data()) + 1;
}

XmlStream::Token XmlStream::next() {
  if (pending_end_) {
    pending_end_ = false;
    name_ = names_.back();
    names_.pop_back();
    return Token::kEnd;
  }
  for (;;) {
    token_offset_ = pos_;
    if (pos_ >= doc_.size()) {
      if (!names_.empty()) fail(pos_, "<" + shown(names_.back()) + "> is not closed");
      return Token::kEndOfInput;
    }
    if (doc_[pos_] != '<') {
      const char* lt = find_char(doc_.data() + pos_, doc_.data() + doc_.size(), '<');
      const size_t end = lt == nullptr ? doc_.size() : static_cast<size_t>(lt - doc_.data());
      text_ = doc_.substr(pos_, end - pos_);
      cdata_ = false;
      pos_ = end;
      return Token::kText;
    }
    if (pos_ + 1 >= doc_.size()) fail(pos_, "'<' at the end of the document");
    const char c = doc_[pos_ + 1];
    if (c == '/') return end_tag();
    if (c == '?') {
      pos_ = find("?>", pos_ + 2, "processing instruction") + 2;
    } else if (c == '!') {
      if (markup_declaration()) return Token::kText;
    } else {
      return start_tag();
    }
  }
}

XmlStream::Token XmlStream::start_tag() {
  size_t at = pos_ + 1;
  name_ = scan_name(at);
  attributes_.clear();
  for (;;) {
    const size_t before_space = at;
    while (at < doc_.size() && is_space(doc_[at])) ++at;
    if (at >= doc_.size()) fail(token_offset_, "start tag <" + shown(name_) + " not closed");
    const char c = doc_[at];
    if (c == '>' || c == '/') {
      if (c == '/' && (at + 1 >= doc_.size() || doc_[at + 1] != '>'))
        fail(at, "'/' not followed by '>' in <" + shown(name_) + ">");
      pos_ = at + (c == '>' ? 1 : 2);
      names_.push_back(name_);
      pending_end_ = c == '/';
      return Token::kStart;
    }
    if (at == before_space) fail(at, "white space expected before an attribute");
    const std::string_view attribute_name = scan_name(at);
    while (at < doc_.size() && is_space(doc_[at])) ++at;
    if (at >= doc_.size() || doc_[at] != '=')
      fail(at, "attribute '" + shown(attribute_name) + "' of <" + shown(name_) + "> has no '='");
    ++at;
    while (at < doc_.size() && is_space(doc_[at])) ++at;
    if (at >= doc_.size() || (doc_[at] != '"' && doc_[at] != '\''))
      fail(at, "attribute '" + shown(attribute_name) + "': its value must be quoted");
    const size_t open = at;
    pass_over_quoted(at);
    const std::string_view value = doc_.substr(open + 1, at - open - 2);
    if (const size_t lt = value.find('<'); lt != std::string_view::npos)
      fail(open + 1 + lt, "'<' in the value of attribute '" + shown(attribute_name) + "'");
    for (const XmlAttribute& a : attributes_)
      if (same_name(a.name, attribute_name))
        fail(open, "attribute '" + shown(attribute_name) + "' given twice");
    attributes_.push_back({attribute_name, value});
  }
}

XmlStream::Token XmlStream::end_tag() {
  // The usual case first: exactly the open element's name, then '>'.
  if (!names_.empty()) {
    const std::string_view open = names_.back();
    const size_t close = pos_ + 2 + open.size();
    if (close < doc_.size() && doc_[close] == '>' &&
        same_name(doc_.substr(pos_ + 2, open.size()), open)) {
      name_ = open;
      names_.pop_back();
      pos_ = close + 1;
      return Token::kEnd;
    }
  }
  size_t at = pos_ + 2;
  name_ = scan_name(at);
  while (at < doc_.size() && is_space(doc_[at])) ++at;
  if (at >= doc_.size() || doc_[at] != '>')
    fail(at, "end tag </" + shown(name_) + " not closed by '>'");
  if (names_.empty()) fail(token_offset_, "</" + shown(name_) + "> closes no element");
  if (!same_name(names_.back(), name_))
    fail(token_offset_,
         "</" + shown(name_) + "> where </" + shown(names_.back()) + "> was expected");
  names_.pop_back();
  pos_ = at + 1;
  return Token::kEnd;
}

bool XmlStream::markup_declaration() {
  const std::string_view rest = doc_.substr(pos_);
  if (rest.starts_with("<!--")) {
    pos_ = find("-->", pos_ + 4, "comment") + 3;
    return false;
  }
  if (rest.starts_with("<![CDATA[")) {
    const size_t end = find("]]>", pos_ + 9, "CDATA section");
    text_ = doc_.substr(pos_ + 9, end - pos_ - 9);
    cdata_ = true;
    pos_ = end + 3;
    return true;
  }
  if (!rest.starts_with("<!DOCTYPE")) fail(pos_, "unknown markup after '<!'");
  // The internal subset ([...]) may hold '>' in declarations and quoted literals.
  size_t at = pos_ + 9;
  int brackets = 0;
  while (at < doc_.size()) {
    const char c = doc_[at];
    if (c == '"' || c == '\'') {
      pass_over_quoted(at);
      continue;
    }
    if (c == '[') ++brackets;
    if (c == ']') --brackets;
    if (c == '>' && brackets <= 0) {
      pos_ = at + 1;
      return false;
    }
    ++at;
  }
  fail(pos_, "DOCTYPE not closed");
}

bool XmlStream::next_leaf(std::string_view name, XmlAttribute& attribute, std::string_view& text) {
  if (pending_end_) return false;
  const char* p = doc_.data() + pos_;
  const char* const end = doc_.data() + doc_.size();
  while (p != end && is_space(*p)) ++p;
  const char* const lt = p;
  if (LeafTags tags; leaf_at(p, end, name, window_, tags) && tags.quotes != 0) {
    // The form of nearly every leaf, `<NAME A="V">TEXT</NAME>`, found by one look at 32 bytes.
    const size_t n = name.size();
    const unsigned open = static_cast<unsigned>(std::countr_zero(tags.quotes));
    const unsigned close = static_cast<unsigned>(63 - std::countl_zero(tags.quotes));
    const char* const attribute_name = p + n + 2;
    const char* q = attribute_name;
    while (!ends_name(*q)) ++q;
    if (close + 1 == tags.start_end && p[n + 1] == ' ' && q != attribute_name &&
        q == p + open - 1 && *q == '=') {
      attribute = {std::string_view(attribute_name, static_cast<size_t>(q - attribute_name)),
                   std::string_view(p + open + 1, close - open - 1)};
      text = std::string_view(p + tags.start_end + 1, tags.end_begin - tags.start_end - 1);
      token_offset_ = static_cast<size_t>(lt - doc_.data());
      pos_ = token_offset_ + tags.end_begin + n + 3;
      return true;
    }
  }
  // "<NAME " — then the attribute's name up to '=' and its quoted value.
  if (static_cast<size_t>(end - p) < name.size() + 2 || *p != '<' ||
      !same_name(std::string_view(p + 1, name.size()), name) || p[name.size() + 1] != ' ')
    return false;
  p += name.size() + 2;
  const char* const attribute_name = p;
  while (p != end && !ends_name(*p)) ++p;
  if (p == attribute_name || p == end || *p != '=' || ++p == end || (*p != '"' && *p != '\''))
    return false;
  const char quote = *p++;
  const char* const value = p;
  while (p != end && *p != quote && *p != '<') ++p;
  if (p == end || *p != quote || ++p == end || *p != '>') return false;
  const char* const value_end = p - 1;
  // The text, then exactly "</NAME>".
  const char* const text_begin = ++p;
  while (p != end && *p != '<') ++p;
  if (static_cast<size_t>(end - p) < name.size() + 3 || p[0] != '<' || p[1] != '/' ||
      !same_name(std::string_view(p + 2, name.size()), name) || p[name.size() + 2] != '>')
    return false;
  attribute = {
      std::string_view(attribute_name, static_cast<size_t>(value - 1 - attribute_name) - 1),
      std::string_view(value, static_cast<size_t>(value_end - value))};
  text = std::string_view(text_begin, static_cast<size_t>(p - text_begin));
  token_offset_ = static_cast<size_t>(lt - doc_.data());
  pos_ = static_cast<size_t>(p - doc_.data()) + name.size() + 3;
  return true;
}

bool XmlStream::next_text_element(std::string_view& name, std::string_view& text) {
  if (pending_end_) return false;
  const char* p = doc_.data() + pos_;
  const char* const end = doc_.data() + doc_.size();
  while (p != end && is_space(*p)) ++p;
  if (p == end || *p != '<') return false;
  const char* const lt = p;
  const char* const name_begin = ++p;
  while (p != end && !ends_name(*p)) ++p;
  if (p == name_begin || p == end || *p != '>') return false;
  const std::string_view element(name_begin, static_cast<size_t>(p - name_begin));
  const char* const text_begin = ++p;
  while (p != end && *p != '<') ++p;
  if (static_cast<size_t>(end - p) < element.size() + 3 || p[1] != '/' ||
      !same_name(std::string_view(p + 2, element.size()), element) || p[element.size() + 2] != '>')
    return false;
  name = element;
  text = std::string_view(text_begin, static_cast<size_t>(p - text_begin));
  token_offset_ = static_cast<size_t>(lt - doc_.data());
  pos_ = static_cast<size_t>(p - doc_.data()) + element.size() + 3;
  return true;
}

void XmlStream::skip_element() {
  if (pending_end_) {  // an empty element: nothing inside
    pending_end_ = false;
    names_.pop_back();
    return;
  }
  const size_t depth_after = names_.size() - 1;
  while (names_.size() > depth_after) {
    const char* lt = find_char(doc_.data() + pos_, doc_.data() + doc_.size(), '<');
    if (lt == nullptr) fail(doc_.size(), "<" + shown(names_.back()) + "> is not closed");
    pos_ = static_cast<size_t>(lt - doc_.data());
    token_offset_ = pos_;
    if (pos_ + 1 >= doc_.size()) fail(pos_, "'<' at the end of the document");
    const char c = doc_[pos_ + 1];
    if (c == '/') {
      end_tag();
    } else if (c == '?') {
      pos_ = find("?>", pos_ + 2, "processing instruction") + 2;
    } else if (c == '!') {
      markup_declaration();
    } else {
      // A start tag: its name, then its end, passing over quoted values (they may hold '>').
      size_t at = pos_ + 1;
      const std::string_view name = scan_name(at);
      const char* p = doc_.data() + at;
      const char* const end = doc_.data() + doc_.size();
      for (char quote = 0; p != end && (quote != 0 || *p != '>'); ++p) {
        if (quote != 0) {
          if (*p == quote) quote = 0;
        } else if (*p == '"' || *p == '\'') {
          quote = *p;
        } else if (*p == '<') {
          fail(static_cast<size_t>(p - doc_.data()),
               "'<' inside the start tag <" + shown(name) + ">");
        }
      }
      if (p == end) fail(pos_, "start tag <" + shown(name) + " not closed");
      pos_ = static_cast<size_t>(p - doc_.data()) + 1;
      if (p[-1] != '/') pass_leaf_text(name);
    }
  }
}

void XmlStream::pass_leaves(std::string_view name, size_t until) {
  const char* p = doc_.data() + pos_;
  const char* const end = doc_.data() + doc_.size();
  const char* const last = until <= base_ ? p : doc_.data() + std::min(until - base_, doc_.size());
  LeafTags tags;
  while (p < last && leaf_at(p, end, name, window_, tags)) p += tags.end_begin + name.size() + 3;
  pos_ = static_cast<size_t>(p - doc_.data());
}

void XmlStream::pass_leaf_text(std::string_view name) {
  // Most skipped elements hold just text: passed with their end tag in one step, a byte loop
  // over the (short) text costing less than a memchr call.
  const char* p = doc_.data() + pos_;
  const char* const end = doc_.data() + doc_.size();
  while (p != end && *p != '<') ++p;
  pos_ = static_cast<size_t>(p - doc_.data());
  if (static_cast<size_t>(end - p) > name.size() + 2 && p[1] == '/' &&
      same_name(std::string_view(p + 2, name.size()), name) && p[name.size() + 2] == '>') {
    pos_ += name.size() + 3;
    return;
  }
  names_.push_back(name);
  pass_leaves(name);  // the children of a data section's blocks are leaves of the same name
}

void XmlStream::pass_element() {
  if (pending_end_) {
    pending_end_ = false;
    names_.pop_back();
    return;
  }
  pass_leaves(names_.back());
  const char* p = doc_.data() + pos_;
  const char* const end = doc_.data() + doc_.size();
  for (size_t depth = 1; depth > 0;) {
    p = find_char(p, end, '<');
    if (p == nullptr || p + 1 == end)
      fail(doc_.size(), "<" + shown(names_.back()) + "> is not closed");
    if (p[1] == '/') {
      --depth;
      ++p;
    } else if (p[1] == '!' || p[1] == '?') {
      pos_ = static_cast<size_t>(p - doc_.data());
      token_offset_ = pos_;
      if (p[1] == '?')
        pos_ = find("?>", pos_ + 2, "processing instruction") + 2;
      else
        markup_declaration();
      p = doc_.data() + pos_;
    } else {
      // A start tag's end, passing over quoted values (they may hold '>').
      char quote = 0;
      for (++p; p != end && (quote != 0 || *p != '>'); ++p) {
        if (quote != 0) {
          if (*p == quote) quote = 0;
        } else if (*p == '"' || *p == '\'') {
          quote = *p;
        }
      }
      if (p == end) fail(doc_.size(), "a start tag is not closed");
      if (p[-1] != '/') ++depth;
    }
  }
  // p is just past the "</" of the element's end tag.
  const char* close = find_char(p, end, '>');
  if (close == nullptr) fail(doc_.size(), "an end tag is not closed");
  pos_ = static_cast<size_t>(close - doc_.data()) + 1;
  names_.pop_back();
}

std::string xml_unescape(std::string_view raw) {
  if (raw.find('&') == std::string_view::npos) return std::string(raw);
  std::string out;
  out.reserve(raw.size());
  for (size_t at = 0; at < raw.size(); ++at) {
    const size_t semi = raw[at] == '&' ? raw.find(';', at) : std::string_view::npos;
    const std::string_view ref =
        semi == std::string_view::npos ? std::string_view() : raw.substr(at + 1, semi - at - 1);
    const size_t before = out.size();
    if (ref == "lt") {
      out += '<';
    } else if (ref == "gt") {
      out += '>';
    } else if (ref == "amp") {
      out += '&';
    } else if (ref == "quot") {
      out += '"';
    } else if (ref == "apos") {
      out += '\'';
    } else if (ref.size() > 1 && ref[0] == '#') {
      append_code_point(out, ref.substr(1));
    }
    if (out.size() == before) {
      out += raw[at];  // no reference: the character itself
    } else {
      at = semi;
    }
  }
  return out;
}

}  // namespace cubekit::format
