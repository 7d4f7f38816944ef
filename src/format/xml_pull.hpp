// A small pull tokenizer for XML, used where building a DOM would cost too much: the system
// tree of reports with millions of locations. It understands what anchors contain (start, end
// and empty-element tags, attributes in either quote, the five entities and numeric character
// references, CDATA, comments, processing instructions) and nothing more (no DTDs).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  // Tokenizes xml[begin, end); `where` names the document in errors. Throws FormatError with
  // the byte offset of the problem (the caller turns it into line:column).
  XmlPull(std::string_view xml, size_t begin, size_t end, std::string where);
  // The next token; kEof at the end.
  const XmlToken& next();
  // Reads the text up to the end tag of the element just started (nested elements skipped).
  std::string element_text();
  // Skips the rest of the element just started.
  void skip_element();
  size_t offset() const { return pos_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void read_tag();
  void read_text();
  std::string decode(std::string_view raw) const;
  std::string_view xml_;
  size_t pos_, end_;
  std::string where_;
  XmlToken token_;
};

}  // namespace cubekit::format
