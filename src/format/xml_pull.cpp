#include "format/xml_pull.hpp"

#include <algorithm>

#include "cubekit/error.hpp"
#include "format/anchor.hpp"

namespace cubekit::format {

const std::string* XmlToken::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

XmlPull::XmlPull(std::string_view xml, size_t begin, size_t end, std::string where)
    : xml_(xml),
      stream_(xml.substr(0, std::min(end, xml.size())), begin),
      where_(std::move(where)) {}

void XmlPull::fail(size_t offset, const std::string& what) const {
  throw FormatError(where_ + ":" + line_column(xml_, static_cast<ptrdiff_t>(offset)) +
                    ": malformed XML: " + what);
}

const XmlToken& XmlPull::next_child() {
  std::string_view name, raw;
  if (!stream_.next_text_element(name, raw)) return next();
  token_.kind = XmlToken::Kind::kStart;
  token_.name = name;
  token_.offset = stream_.token_offset();
  token_.attributes.clear();
  token_.self_closing = false;
  token_.text_read = true;
  if (raw.find('&') == std::string_view::npos) {
    token_.whole_text = raw;
  } else {
    token_.text = xml_unescape(raw);
    token_.whole_text = token_.text;
  }
  return token_;
}

const XmlToken& XmlPull::next() {
  if (release_ && stream_.position() >= released_ + kReleaseChunk) release_read();
  token_.attributes.clear();
  token_.text.clear();
  token_.self_closing = false;
  token_.text_read = false;
  try {
    const XmlStream::Token t = stream_.next();
    token_.offset = stream_.token_offset();
    token_.name = stream_.name();
    switch (t) {
      case XmlStream::Token::kStart:
        token_.kind = XmlToken::Kind::kStart;
        for (const XmlAttribute& a : stream_.attributes())
          token_.attributes.emplace_back(a.name, xml_unescape(a.raw_value));
        token_.self_closing = stream_.empty_element();
        if (token_.self_closing) stream_.skip_element();  // its kEnd
        break;
      case XmlStream::Token::kEnd:
        token_.kind = XmlToken::Kind::kEnd;
        break;
      case XmlStream::Token::kText:
        token_.kind = XmlToken::Kind::kText;
        token_.text =
            stream_.text_is_cdata() ? std::string(stream_.text()) : xml_unescape(stream_.text());
        break;
      case XmlStream::Token::kEndOfInput:
        token_.kind = XmlToken::Kind::kEof;
        break;
    }
  } catch (const XmlSyntaxError& e) {
    fail(e.offset(), e.what());
  }
  return token_;
}

std::string XmlPull::element_text() {
  if (token_.self_closing) return {};
  if (token_.text_read) {
    token_.text_read = false;
    return std::string(token_.whole_text);
  }
  std::string text;
  int depth = 1;
  while (depth > 0) {
    const XmlToken& t = next();
    switch (t.kind) {
      case XmlToken::Kind::kEof:
        fail(t.offset, "element not closed");
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

std::string_view XmlPull::element_text_view() {
  if (token_.text_read) {
    token_.text_read = false;
    return token_.whole_text;
  }
  std::string text = element_text();
  token_.text = std::move(text);
  return token_.text;
}

void XmlPull::skip_element() {
  if (token_.self_closing) return;
  if (token_.text_read) {
    token_.text_read = false;
    return;
  }
  try {
    stream_.skip_element();
  } catch (const XmlSyntaxError& e) {
    fail(e.offset(), e.what());
  }
}

}  // namespace cubekit::format
