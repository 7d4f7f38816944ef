// Tokens of XmlStream (xml_stream.hpp) with their text and attribute values decoded, for the
// pull readers of an anchor's call and system trees (tree_reader.cpp), which read them as a
// DOM reader would: an empty element is one token, errors name the document.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/xml_stream.hpp"

namespace cubekit::format {

struct XmlToken {
  enum class Kind { kStart, kEnd, kText, kEof };
  Kind kind = Kind::kEof;
  std::string_view name;      // kStart, kEnd
  bool self_closing = false;  // kStart of <x/>: no kEnd follows
  std::vector<std::pair<std::string_view, std::string>> attributes;  // kStart
  std::string text;                                                  // kText, entities decoded
  size_t offset = 0;  // in the document, for error positions
  const std::string* attribute(std::string_view key) const;
};

class XmlPull {
 public:
  // Tokenizes xml[begin, end), which must begin outside any element; `where` names the
  // document in errors. Throws FormatError "where:line:column: malformed XML: ...".
  XmlPull(std::string_view xml, size_t begin, size_t end, std::string where);
  // The next token; kEof at the end.
  const XmlToken& next();
  // Reads the text up to the end tag of the element just started (nested elements skipped).
  std::string element_text();
  // Skips the rest of the element just started.
  void skip_element();
  size_t offset() const { return stream_.position(); }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& what) const;
  std::string_view xml_;
  XmlStream stream_;
  std::string where_;
  XmlToken token_;
};

}  // namespace cubekit::format
