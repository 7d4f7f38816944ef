#include "format/xml_pull.hpp"

#include <cstring>

#include "cubekit/error.hpp"
#include "format/anchor.hpp"

namespace cubekit::format {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_name(char c) {
  return !is_space(c) && c != '>' && c != '/' && c != '=' && c != '<' && c != '"' && c != '\'';
}

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

const std::string* XmlToken::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

XmlPull::XmlPull(std::string_view xml, size_t begin, size_t end, std::string where)
    : xml_(xml), pos_(begin), end_(std::min(end, xml.size())), where_(std::move(where)) {}

void XmlPull::fail(const std::string& what) const {
  throw FormatError(where_ + ":" + line_column(xml_, static_cast<ptrdiff_t>(pos_)) +
                    ": malformed XML: " + what);
}

// Entities as pugixml reads them: the five predefined ones and character references; any other
// '&' stays as it is (real files contain bare ampersands in region names).
std::string XmlPull::decode(std::string_view raw) const {
  if (raw.find('&') == std::string_view::npos) return std::string(raw);
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '&') {
      out += raw[i];
      continue;
    }
    const size_t semi = raw.find(';', i);
    const std::string_view ent =
        semi == std::string_view::npos ? std::string_view() : raw.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      out += '&';
    else if (ent == "lt")
      out += '<';
    else if (ent == "gt")
      out += '>';
    else if (ent == "quot")
      out += '"';
    else if (ent == "apos")
      out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      const bool hex = ent[1] == 'x' || ent[1] == 'X';
      char* stop = nullptr;
      const std::string digits(ent.substr(hex ? 2 : 1));
      const unsigned long cp = std::strtoul(digits.c_str(), &stop, hex ? 16 : 10);
      if (digits.empty() || *stop != '\0' || cp > 0x10FFFF) {
        out += '&';
        continue;
      }
      append_utf8(out, cp);
    } else {
      out += '&';
      continue;
    }
    i = semi;
  }
  return out;
}

const XmlToken& XmlPull::next() {
  token_.attributes.clear();
  token_.text.clear();
  token_.self_closing = false;
  while (pos_ < end_) {
    token_.offset = pos_;
    if (xml_[pos_] != '<') {
      read_text();
      return token_;
    }
    if (xml_.compare(pos_, 4, "<!--") == 0) {
      const size_t close = xml_.find("-->", pos_ + 4);
      if (close == std::string_view::npos || close >= end_) fail("unterminated comment");
      pos_ = close + 3;
      continue;
    }
    if (xml_.compare(pos_, 2, "<?") == 0) {
      const size_t close = xml_.find("?>", pos_ + 2);
      if (close == std::string_view::npos || close >= end_)
        fail("unterminated processing instruction");
      pos_ = close + 2;
      continue;
    }
    if (xml_.compare(pos_, 9, "<![CDATA[") == 0) {
      read_text();
      return token_;
    }
    read_tag();
    return token_;
  }
  token_.kind = XmlToken::Kind::kEof;
  token_.offset = pos_;
  return token_;
}

void XmlPull::read_text() {
  token_.kind = XmlToken::Kind::kText;
  while (pos_ < end_) {
    if (xml_.compare(pos_, 9, "<![CDATA[") == 0) {
      const size_t close = xml_.find("]]>", pos_ + 9);
      if (close == std::string_view::npos || close >= end_) fail("unterminated CDATA section");
      token_.text.append(xml_.substr(pos_ + 9, close - pos_ - 9));
      pos_ = close + 3;
      continue;
    }
    if (xml_[pos_] == '<') break;
    const void* lt = std::memchr(xml_.data() + pos_, '<', end_ - pos_);
    const size_t stop = lt ? static_cast<const char*>(lt) - xml_.data() : end_;
    token_.text += decode(xml_.substr(pos_, stop - pos_));
    pos_ = stop;
  }
}

void XmlPull::read_tag() {
  ++pos_;  // '<'
  const bool closing = pos_ < end_ && xml_[pos_] == '/';
  if (closing) ++pos_;
  const size_t name_begin = pos_;
  while (pos_ < end_ && is_name(xml_[pos_])) ++pos_;
  if (pos_ == name_begin) fail("expected a tag name after '<'");
  token_.name = xml_.substr(name_begin, pos_ - name_begin);
  token_.kind = closing ? XmlToken::Kind::kEnd : XmlToken::Kind::kStart;
  while (true) {
    while (pos_ < end_ && is_space(xml_[pos_])) ++pos_;
    if (pos_ >= end_) fail("unterminated tag <" + std::string(token_.name) + ">");
    if (xml_[pos_] == '>') {
      ++pos_;
      return;
    }
    if (xml_[pos_] == '/' && !closing) {
      if (pos_ + 1 >= end_ || xml_[pos_ + 1] != '>') fail("expected '>' after '/'");
      token_.self_closing = true;
      pos_ += 2;
      return;
    }
    if (closing) fail("unexpected text in end tag </" + std::string(token_.name) + ">");
    const size_t key_begin = pos_;
    while (pos_ < end_ && is_name(xml_[pos_])) ++pos_;
    if (pos_ == key_begin) fail("expected an attribute name");
    const std::string_view key = xml_.substr(key_begin, pos_ - key_begin);
    while (pos_ < end_ && is_space(xml_[pos_])) ++pos_;
    if (pos_ >= end_ || xml_[pos_] != '=') fail("expected '=' after attribute " + std::string(key));
    ++pos_;
    while (pos_ < end_ && is_space(xml_[pos_])) ++pos_;
    if (pos_ >= end_ || (xml_[pos_] != '"' && xml_[pos_] != '\''))
      fail("expected a quoted value for attribute " + std::string(key));
    const char quote = xml_[pos_++];
    const size_t value_end = xml_.find(quote, pos_);
    if (value_end == std::string_view::npos || value_end >= end_)
      fail("unterminated value of attribute " + std::string(key));
    token_.attributes.emplace_back(key, decode(xml_.substr(pos_, value_end - pos_)));
    pos_ = value_end + 1;
  }
}

std::string XmlPull::element_text() {
  if (token_.self_closing) return {};
  std::string text;
  int depth = 1;
  while (depth > 0) {
    const XmlToken& t = next();
    switch (t.kind) {
      case XmlToken::Kind::kEof:
        fail("element not closed");
      case XmlToken::Kind::kText:
        if (depth == 1) text += t.text;
        break;
      case XmlToken::Kind::kStart:
        if (!t.self_closing) ++depth;
        break;
      case XmlToken::Kind::kEnd:
        --depth;
        break;
    }
  }
  return text;
}

void XmlPull::skip_element() {
  if (token_.self_closing) return;
  int depth = 1;
  while (depth > 0) {
    const XmlToken& t = next();
    if (t.kind == XmlToken::Kind::kEof) fail("element not closed");
    if (t.kind == XmlToken::Kind::kStart && !t.self_closing) ++depth;
    if (t.kind == XmlToken::Kind::kEnd) --depth;
  }
}

}  // namespace cubekit::format
