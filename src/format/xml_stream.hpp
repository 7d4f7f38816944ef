// The pull scanner over XML held in memory (a mapped file, or a window onto one that the reader
// refills between tokens): one token at a time, names and values as views into the document,
// nothing kept but the open elements' names. For the parts of documents a DOM cannot hold — an
// anchor's call and system trees with millions of entries (tree_reader.cpp, through XmlPull),
// PERI-XML's data section with one element per value (pugixml's tree of a 750 MB document took
// 4.5 GB) — and for skipping subtrees at memchr speed. pugixml stays the parser of the small parts.
// It reads the XML 1.0 syntax documents use: elements, attributes in either quote, character data
// with the five predefined entities and character references, CDATA sections, comments, processing
// instructions and a DOCTYPE (its internal subset is skipped, its entities are not expanded). End
// tags must match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::format {

// Malformed XML: what is wrong and the byte offset it was found at.
class XmlSyntaxError : public std::runtime_error {
 public:
  XmlSyntaxError(size_t offset, const std::string& what)
      : std::runtime_error(what), offset_(offset) {}
  size_t offset() const { return offset_; }

 private:
  size_t offset_;
};

struct XmlAttribute {
  std::string_view name;
  std::string_view raw_value;  // as written: entities not yet replaced (xml_unescape)
};

class XmlStream {
 public:
  enum class Token { kStart, kEnd, kText, kEndOfInput };

  // Scans `document` from byte `from`, which must begin markup or text outside any element
  // (the document's start, or an element's start tag to read just that element: stop at its
  // kEnd, where depth() is 0 again). Throws XmlSyntaxError.
  explicit XmlStream(std::string_view document, size_t from = 0);
  // The same over a window onto a longer document: `window` holds its bytes from offset `base`
  // on, and `from` is an offset into the document. Offsets in and out stay the document's; the
  // end of the window is the end of the input until move_window.
  XmlStream(std::string_view window, size_t from, size_t base);

  // The next token. An empty element (<a/>) is a kStart followed by its kEnd. Comments,
  // processing instructions and the DOCTYPE are passed over. At the end of the input every
  // element must be closed.
  Token next();

  // kStart / kEnd: the element's name. kText: the raw character data (xml_unescape) or a
  // CDATA section's content (text_is_cdata).
  std::string_view name() const { return name_; }
  std::string_view text() const { return text_; }
  bool text_is_cdata() const { return cdata_; }
  // kStart: whether it was written <x/> (its kEnd comes next).
  bool empty_element() const { return pending_end_; }
  // kStart: its attributes, valid until the next call.
  const std::vector<XmlAttribute>& attributes() const { return attributes_; }
  std::string_view attribute(std::string_view name) const;
  // Byte offset where the last token began, and where scanning goes on.
  size_t token_offset() const { return base_ + token_offset_; }
  size_t position() const { return base_ + pos_; }
  // The document offset where the window (the input) ends.
  size_t window_end() const { return base_ + doc_.size(); }
  // Goes on in `window`, the document's bytes from `base` on, which must hold the position:
  // the names of the open elements are kept (copied), the last token's name, text and
  // attributes are gone. For a reader that refills its buffer between tokens.
  void move_window(std::string_view window, size_t base);
  // Elements open after the last token (a kStart counts its own element).
  size_t depth() const { return names_.size(); }

  // The commonest element of a data section, `<NAME ATTR="VALUE">TEXT</NAME>` (one attribute,
  // character data without markup; white space may come before it), read in one step at the
  // current position: true with the attribute and the raw text, and the element is passed.
  // False, with nothing consumed, for every other form, which next() then reads token by token.
  // The offset of the element's '<' is then token_offset().
  bool next_leaf(std::string_view name, XmlAttribute& attribute, std::string_view& text);
  // The commonest element of an anchor's trees, `<NAME>TEXT</NAME>` (no attributes, character
  // data without markup; white space may come before it), read in one step: true with its name
  // and raw text, the element passed; false with nothing consumed for every other form.
  bool next_text_element(std::string_view& name, std::string_view& text);

  // After a kStart: passes over the element's content up to and including its end tag,
  // looking only at markup (much faster than next() on a large subtree). The element's end is
  // not reported as a token.
  void skip_element();
  // The same, faster, looking only at where tags begin and end, not at their names: for an
  // element that another XmlStream reads (and checks) anyway — the reader of PERI's data finds
  // where each value block ends with it and hands the block to another thread.
  void pass_element();
  // After a kStart: goes on at `end`, just past the element's end tag, the element having been
  // read (and checked) by another XmlStream — an anchor's topologies, read ahead.
  void continue_after(size_t end) {
    names_.pop_back();
    pos_ = end - base_;
  }
  // Inside an open element (its start tag read): goes on at `at`, its content before that having
  // been read (and checked) by other XmlStreams — PERI's data read in ranges by several threads.
  void continue_at(size_t at) { pos_ = at - base_; }
  // Passes over the leaves `<NAME ...>TEXT</NAME>` that follow (leaf_in's form), stopping at the
  // first thing of any other form, which next() then reads, or at the first leaf that begins at
  // or after the document offset `until`.
  void pass_leaves(std::string_view name, size_t until = SIZE_MAX);

 public:
  // Where '<', '>' and quotes stand in the 64 bytes from `from` (bit i: from[i]): the leaf
  // readers' look at several leaves at once (xml_stream.cpp).
  struct MarkWindow {
    const char* from = nullptr;
    uint64_t lt = 0, gt = 0, quotes = 0;
  };

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const;
  Token start_tag();
  Token end_tag();
  bool markup_declaration();  // <!-- -->, <![CDATA[ ]]> (true: a text token), <!DOCTYPE>
  size_t find(std::string_view what, size_t from, const char* unterminated) const;
  std::string_view scan_name(size_t& at) const;
  void pass_over_quoted(size_t& at) const;
  void pass_leaf_text(std::string_view name);  // skip_element's, after a start tag

  std::string_view doc_;  // the document, or the window onto it that begins at base_
  size_t base_ = 0;
  size_t pos_ = 0;
  size_t token_offset_ = 0;
  std::vector<std::string_view> names_;  // of the open elements, outermost first
  std::unique_ptr<char[]> kept_names_;   // what names_ views after move_window
  std::string_view name_, text_;
  bool cdata_ = false;
  bool pending_end_ = false;  // an empty element's kEnd comes next
  std::vector<XmlAttribute> attributes_;
  MarkWindow window_;
};

// Character data or an attribute value with its entity and character references replaced
// (&lt; &gt; &amp; &quot; &apos; &#N; &#xN;), as pugixml reads them: any other '&' stays as it
// is (real reports have bare ampersands in region names).
std::string xml_unescape(std::string_view raw);

}  // namespace cubekit::format
