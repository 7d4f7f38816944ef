// Tokens of XmlStream (xml_stream.hpp) with their text and attribute values decoded, for the
// pull readers of an anchor's call and system trees (tree_reader.cpp), which read them as a
// DOM reader would: an empty element is one token, errors name the document.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
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
  bool text_read = false;     // kStart from next_child: `text` holds the element's whole text
  std::vector<std::pair<std::string_view, std::string>> attributes;  // kStart
  std::string text;                                                  // kText, entities decoded
  std::string_view whole_text;  // text_read: the element's text, in the document or in `text`
  size_t offset = 0;            // in the document, for error positions
  const std::string* attribute(std::string_view key) const;
};

class XmlPull {
 public:
  // Tokenizes xml[begin, end), which must begin outside any element; `where` names the
  // document in errors. Throws FormatError "where:line:column: malformed XML: ...".
  XmlPull(std::string_view xml, size_t begin, size_t end, std::string where);
  // The next token; kEof at the end.
  const XmlToken& next();
  // The same, except that an element holding only character data (<name>text</name>) is read
  // whole in one step: its kStart has text_read set (element_text returns that text,
  // skip_element does nothing) and no kText or kEnd of it follow. White space before it is
  // passed.
  const XmlToken& next_child();
  // `release` is called with ranges [from, to) of the document read so far, about every
  // kReleaseChunk bytes: their pages may leave the resident set (a mapped anchor of hundreds of
  // MB). With 16 MiB, the three or four readers of a million-location anchor held up to ~60 MB
  // of it at once (peak RSS 0.96-1.00x the anchor, now 0.90-0.92x).
  void release_behind(std::function<void(size_t, size_t)> release) {
    release_ = std::move(release);
    released_ = released_floor_ = stream_.position();
  }
  // Gives back the pages read since the last release (a reader done with its part: the pages
  // of the call tree would stay resident while the system tree is read), and those of the
  // kReleaseChunk bytes before again, down to where this reader began: of a file the kernel
  // caches in large folios, a whole folio is mapped when one page of it is touched, pages given
  // back before too (a freshly written million-location anchor kept ~50 MB mapped so).
  void release_read() {
    const size_t from = std::max(released_floor_, released_ - std::min(released_, kReleaseChunk));
    if (release_ && stream_.position() > released_) release_(from, stream_.position());
    released_ = stream_.position();
  }
  static constexpr size_t kReleaseChunk = size_t{4} << 20;
  // Reads the text up to the end tag of the element just started (nested elements skipped).
  std::string element_text();
  // The same as a view, valid until the next token: an element read whole is not copied (a
  // million locations' names, ranks and types).
  std::string_view element_text_view();
  // Skips the rest of the element just started.
  void skip_element();
  // Goes on at `end`, just past the element just started, which another reader has read.
  void continue_after(size_t end) { stream_.continue_after(end); }
  size_t offset() const { return stream_.position(); }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& what) const;
  std::string_view xml_;
  XmlStream stream_;
  std::string where_;
  XmlToken token_;
  std::function<void(size_t, size_t)> release_;
  size_t released_ = 0;
  size_t released_floor_ = 0;  // where the reader was when release_behind was called
};

}  // namespace cubekit::format
