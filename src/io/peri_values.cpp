// Reading PERI-XML's <data> elements (peri_values.hpp): several threads, one block queue
// (peri_block_queue.hpp), values added under a lock per (metric, call path) stripe.
#include "io/peri_values.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstring>
#include <functional>
#include <mutex>
#include <span>

#include "core/huge_pages.hpp"
#include "cubekit/parallel.hpp"
#include "format/mapped_file.hpp"
#include "format/xml_stream.hpp"
#include "io/peri_block_queue.hpp"

namespace cubekit::io::peri {
namespace {

using format::xml_unescape;
using format::XmlAttribute;
using format::XmlStream;
using format::XmlSyntaxError;

bool is_xml_space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// Text without XML's white space around it.
std::string_view trimmed(std::string_view text) {
  // Loops, not find_first_not_of: that searches the set with memchr for every character.
  while (!text.empty() && is_xml_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_xml_space(text.back())) text.remove_suffix(1);
  return text;
}

// Up to 18 decimal digits, the common integer value (no overflow possible, also in an INT64
// lane); anything else is left to parse_number.
template <class T>
bool parse_digits(std::string_view text, T& value) {
  if (text.empty() || text.size() > 18) return false;
  uint64_t x = 0;
  for (const char c : text) {
    const auto digit = static_cast<unsigned char>(c - '0');
    if (digit > 9) return false;
    x = x * 10 + digit;
  }
  value = static_cast<T>(x);
  return true;
}

// A number as from_chars reads it, with an optional '+'.
template <class T>
bool parse_number(std::string_view text, T& value) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// A thread's copy of part of the document, for reading by guessed ranges: copied with
// MappedFile::read (from the text when there is no file), not read through the map — on a
// virtual machine the page table entries a mapping needs can cost several times the copy
// (docs/peri-xml.md). Two buffers are used in turn, so that a stream moving on to the next
// window still finds its open elements' names in the one it leaves.
class DocumentWindow {
 public:
  DocumentWindow(std::string_view text, const format::MappedFile* mapped, size_t capacity)
      : text_(text),
        mapped_(mapped != nullptr && mapped->keeps_descriptor() ? mapped : nullptr),
        capacity_(capacity),
        slack_(std::min(capacity / 4, kMaxSlack)) {}

  // A stream over the window from document offset `at` on.
  XmlStream stream(size_t at) {
    const std::string_view bytes = cover(at, slack_);  // before base_ is read: it may move
    return XmlStream(bytes, at, base_);
  }
  // Whether a stream reading this window is past its refill point: it moves on (refill) where
  // no view into the window is still held.
  bool low(const XmlStream& xml) const { return xml.position() > refill_point(xml); }
  void refill(XmlStream& xml) {
    const size_t at = xml.position();
    xml.move_window(load(at), at);
  }
  // Slack bytes before the window's end, where a stream moves on to the next window (and a run
  // of leaves stops for that); none in the document's last window.
  size_t refill_point(const XmlStream& xml) const {
    const size_t end = xml.window_end();
    return end < text_.size() ? end - std::min(end, slack_) : SIZE_MAX;
  }
  // The window holding the document's bytes [at, at + need) (up to its end): the one loaded
  // last if it does, else one loaded from `at`; base() is where it begins.
  std::string_view cover(size_t at, size_t need) {
    if (at < base_ || std::min(at + need, text_.size()) > base_ + view_.size()) load(at);
    return view_;
  }
  size_t base() const { return base_; }
  char byte(size_t at) { return cover(at, 1)[at - base_]; }

 private:
  static constexpr size_t kMaxSlack = size_t{64} << 10;  // longer tokens: read in order

  std::string_view load(size_t from) {
    std::unique_ptr<char[]>& buffer = buffers_[next_];
    next_ ^= 1;
    if (!buffer) buffer = std::make_unique_for_overwrite<char[]>(capacity_);
    size_t n = std::min(capacity_, text_.size() - from);
    if (mapped_ != nullptr)
      n = mapped_->read(from, std::as_writable_bytes(std::span(buffer.get(), n)));
    else
      std::memcpy(buffer.get(), text_.data() + from, n);
    base_ = from;
    view_ = std::string_view(buffer.get(), n);
    return view_;
  }

  std::string_view text_;
  const format::MappedFile* mapped_;
  size_t capacity_, slack_;
  std::array<std::unique_ptr<char[]>, 2> buffers_;
  size_t next_ = 0;
  size_t base_ = 0;
  std::string_view view_;
};

}  // namespace

DataType lane_type(const Metric& m) {
  if (!m.dtype.is_integer()) return DataType(TypeKind::kDouble);
  const TypeKind k = m.dtype.kind();
  const bool is_signed = k == TypeKind::kInt8 || k == TypeKind::kInt16 || k == TypeKind::kInt32 ||
                         k == TypeKind::kInt64;
  return DataType(is_signed ? TypeKind::kInt64 : TypeKind::kUInt64);
}

class ValueReader::Impl {
 public:
  Impl(std::string_view text, const format::MappedFile* mapped, const Model& model, const Ids& ids,
       size_t range_bytes)
      : text_(text),
        mapped_(mapped),
        range_bytes_(range_bytes),
        model_(&model),
        metric_ids_(ids.metric),
        twin_excl_(ids.twin_excl),
        region_ids_(ids.region),
        cnode_ids_(ids.cnode),
        group_ids_(ids.group),
        location_ids_(ids.location),
        location_keys_(ids.location_keys),
        first_cnode_of_region_(ids.first_cnode_of_region) {
    values_.assign(model_->metrics.size(), {});
    for (const Metric& m : model_->metrics) lane_kinds_.push_back(lane_type(m).kind());
    row_allocated_ = std::make_unique<std::once_flag[]>(model_->metrics.size());
    row_ready_ = std::make_unique<std::atomic<bool>[]>(model_->metrics.size());
  }

  struct OpenD {
    Point point;
    size_t offset = 0;
    bool has_child = false;
    bool raw = false;       // text is character data as written: entities not yet replaced
    std::string_view text;  // while it has no <d> child
    bool skip = false;      // passed over: an inclusive twin, an unknown element (in a window)
  };
  // One thread's reading.
  struct Cursor {
    std::vector<OpenD> open;
    Point context;                // what the parent of the element read names
    BlockQueue* queue = nullptr;  // set: the children of <data>'s children are queued, not read
    std::function<void()> after_push;  // called by the finder after each block it queued
    std::string joined;                // text in pieces (CDATA, comments between)
    size_t locked = SIZE_MAX;          // the stripe held
    std::unique_lock<std::mutex> lock;
    Index last_location = kNoIndex;
    DocumentWindow* window = nullptr;  // set: the stream reads this window, not the map
  };
  static constexpr size_t kStripes = 256;
  static constexpr size_t kMaxBacklog = size_t{64} << 20;
  static constexpr size_t kDirectBacklog = size_t{4} << 20;

  // Reads one <data> element (its start tag just read) up to its end tag. Errors are kept, the
  // first in the document of each kind: a syntax error ends the reading (thrown here), an
  // undefined id or a bad number only later (read_document: a dimension after this <data> may
  // still define what was missing).
  void read_data(XmlStream& xml) {
    const unsigned threads = available_threads();
    if (read_in_ranges(xml, threads)) return;
    BlockQueue queue;
    parallel_for(
        threads,
        [&](size_t job) {
          Cursor cursor;
          if (job == 0) {
            // Alone, the finder reads everything itself; with helpers it queues, and reads
            // queued blocks itself when it is too far ahead of them (the pages between the
            // first block not yet read and the last one found stay resident).
            Cursor own_blocks;
            cursor.queue = threads > 1 ? &queue : nullptr;
            cursor.after_push = [&] {
              Block block;
              for (size_t index; queue.backlog() > kMaxBacklog && queue.try_pop(block, index);)
                read_block(own_blocks, queue, block, index);
            };
            read_blocks(cursor, xml, xml.depth(), true);
            queue.finish();
            cursor.queue = nullptr;
          }
          Block block;
          for (size_t index; queue.pop(block, index);) read_block(cursor, queue, block, index);
        },
        threads);
    if (syntax_error_) throw XmlSyntaxError(syntax_error_->first, syntax_error_->second);
  }

  // ---- by guessed ranges (peri_values.hpp) ----
  // The starts of the ranges: the first where the <data>'s content begins, each other where
  // `pattern` is found first from its share of the bytes to the document's end (npos: none).
  class RangeStarts {
   public:
    RangeStarts(std::string_view text, std::string_view pattern, size_t begin, size_t count)
        : text_(text), pattern_(pattern), begin_(begin), count_(count) {
      starts_.assign(count, begin);
      found_ = std::make_unique<std::once_flag[]>(count);
      // memmem over a data section looks at about every byte; memchr for the pattern's byte
      // seen least in the first 64 KiB ('m' of "metric" in an export's) skips nearly all.
      std::array<size_t, 256> seen{};
      for (const char c : text.substr(begin, size_t{64} << 10))
        ++seen[static_cast<unsigned char>(c)];
      for (size_t i = 1; i < pattern.size(); ++i)
        if (seen[static_cast<unsigned char>(pattern[i])] <
            seen[static_cast<unsigned char>(pattern[rare_])])
          rare_ = i;
    }
    size_t count() const { return count_; }
    // Range r's start, searched in `window`'s copy of the document.
    size_t start(size_t r, DocumentWindow& window) {
      if (r == 0) return begin_;
      if (r >= count_) return std::string_view::npos;
      // Searched up to the next share's offset only (many threads, few large children: no
      // share searched through the ones after it); none there: the next range's start.
      std::call_once(found_[r], [&] {
        const size_t at = find(share(r), std::min(share(r + 1), text_.size()), window);
        starts_[r] = at != std::string_view::npos ? at : start(r + 1, window);
      });
      return starts_[r];
    }
    // Where range r's share begins (npos for r = count()): its start is there or later.
    size_t share(size_t r) const {
      return r < count_ ? begin_ + (text_.size() - begin_) / count_ * r : std::string_view::npos;
    }
    size_t data_end = std::string_view::npos;  // where </data> begins, found by the last range

   private:
    // The first pattern beginning in [from, to] (npos: none), window by window.
    size_t find(size_t from, size_t to, DocumentWindow& window) const {
      const size_t end = std::min(text_.size(), to + pattern_.size()), n = pattern_.size();
      for (size_t at = from + rare_; at < end;) {  // where the rare byte may stand
        const std::string_view bytes = window.cover(at - rare_, n);
        const size_t base = window.base(), stop = std::min(end, base + bytes.size());
        const void* hit = std::memchr(bytes.data() + (at - base), pattern_[rare_], stop - at);
        if (hit == nullptr) {
          at = stop;
          continue;
        }
        const size_t start =
            base + static_cast<size_t>(static_cast<const char*>(hit) - bytes.data()) - rare_;
        if (start + n <= end && std::memcmp(window.cover(start, n).data() + (start - window.base()),
                                            pattern_.data(), n) == 0)
          return start;
        at = start + rare_ + 1;
      }
      return std::string_view::npos;
    }

    std::string_view text_, pattern_;
    size_t begin_, count_, rare_ = 0;
    std::vector<size_t> starts_;
    std::unique_ptr<std::once_flag[]> found_;
  };

  // The bytes that begin the <data>'s first child up to its first attribute's opening quote
  // (`<d metric="`), which the other children's starts are guessed by; empty if it has none.
  std::string_view child_pattern(size_t at) const {
    while (at < text_.size() && is_xml_space(text_[at])) ++at;
    const std::string_view head = text_.substr(at, 64);
    const size_t quote = head.find_first_of("\"'<>", 1);
    if (head.size() < 2 || head[0] != '<' || !std::isalpha(static_cast<unsigned char>(head[1])) ||
        quote == std::string_view::npos || (head[quote] != '"' && head[quote] != '\''))
      return {};
    return head.substr(0, quote + 1);
  }

  // Reads the <data> (its start tag just read) by guessed ranges when it is large enough and
  // threads are free; false if not tried. Throws RangesGuessedWrong (peri_values.hpp).
  bool read_in_ranges(XmlStream& xml, unsigned threads) {
    const size_t begin = xml.position();
    if (range_bytes_ == 0 || threads < 2 || xml.empty_element() ||
        text_.size() - begin < 2 * range_bytes_)
      return false;
    const std::string_view pattern = child_pattern(begin);
    if (pattern.empty()) return false;
    RangeStarts ranges(
        text_, pattern, begin,
        std::min<size_t>(size_t{4} * threads, (text_.size() - begin) / range_bytes_));
    std::atomic<size_t> next_range = 0;
    const size_t window_bytes = std::clamp(range_bytes_, size_t{1} << 10, size_t{4} << 20);
    parallel_for(
        threads,
        [&](size_t) {
          DocumentWindow window(text_, mapped_, window_bytes);
          Cursor cursor;
          cursor.window = &window;
          for (size_t r; !given_up() && (r = next_range++) < ranges.count();)
            read_range(cursor, ranges, r);
        },
        threads);
    if (given_up() || syntax_error_ || data_error_ || ranges.data_end == std::string_view::npos)
      throw RangesGuessedWrong{};
    guessed_ranges_ += ranges.count();
    xml.continue_at(ranges.data_end);
    return true;
  }

  // Range r: the <data>'s children from its start on, up to the next range's start, which the
  // reading must land on exactly (the last range: up to </data>). Anything else — landing
  // past it, </data> before it, a comment or text beside the children, an error — gives up.
  // Read in the cursor's window: the map's pages are not touched. The next range's start lies
  // in the next share or later, and is asked for only when the reading gets there: its reader
  // has searched for it meanwhile, and no thread waits for another's search.
  void read_range(Cursor& cursor, RangeStarts& ranges, size_t r) {
    DocumentWindow& window = *cursor.window;
    const size_t npos = std::string_view::npos, from = ranges.start(r, window);
    // Where `at` stands against the next range's start: before it (< 0), on it, past it.
    auto against_next = [&](size_t at) -> int {
      if (at < ranges.share(r + 1)) return -1;
      const size_t to = ranges.start(r + 1, window);
      return at < to ? -1 : at == to ? 0 : 1;
    };
    for (size_t at = from; from != npos && against_next(at) != 0 && !given_up();) {
      while (at < text_.size() && is_xml_space(window.byte(at))) ++at;
      const int where = against_next(at);
      if (where == 0) break;
      if (where > 0 || at + 1 >= text_.size() || window.byte(at) != '<' ||
          window.byte(at + 1) == '!' || window.byte(at + 1) == '?')
        return give_up();
      if (window.byte(at + 1) == '/') {  // the end of the <data> (checked by its stream)
        if (ranges.start(r + 1, window) != npos) return give_up();
        ranges.data_end = at;
        break;
      }
      XmlStream child = window.stream(at);
      if (!read_blocks(cursor, child, 1, true)) return give_up();
      at = child.position();
    }
  }
  bool given_up() const { return given_up_.load(std::memory_order_relaxed) || has_data_error_; }
  void give_up() { given_up_ = true; }

  void read_block(Cursor& cursor, BlockQueue& queue, const Block& block, size_t index) {
    XmlStream element(text_, block.begin);
    cursor.context = block.context;
    if (read_blocks(cursor, element, 1, false) && element.position() != block.end)
      keep_error(syntax_error_, block.begin, "the element begun here ends elsewhere");
    // Pages read stay in the page cache, not in this process's resident set.
    const auto [from, to] = queue.done(index);
    if (mapped_ != nullptr && to > from) mapped_->release(from, to - from);
  }

  // Reads tokens while `depth` elements are open (`whole_data`: those of a <data>). False after
  // a syntax error (kept).
  bool read_blocks(Cursor& cursor, XmlStream& xml, size_t depth, bool whole_data) {
    bool ok = true;
    // The finder alone releases what it has read; with helpers the queue knows (read_data).
    const bool release =
        mapped_ != nullptr && whole_data && cursor.queue == nullptr && cursor.window == nullptr;
    size_t released = xml.position();
    try {
      while (read_token(cursor, xml) && xml.depth() >= depth) {
        if (cursor.window != nullptr && cursor.window->low(xml) && !holds_text(cursor))
          cursor.window->refill(xml);
        if (release && xml.position() - released > (16u << 20)) {
          mapped_->release(released, xml.position() - released);
          released = xml.position();
        }
      }
    } catch (const XmlSyntaxError& e) {
      keep_error(syntax_error_, e.offset(), e.what());
      cursor.open.clear();
      ok = false;
    }
    unlock(cursor);
    return ok;
  }

  // Whether an open <d> holds a view of its text (which a refill would leave behind).
  static bool holds_text(const Cursor& cursor) {
    for (const OpenD& d : cursor.open)
      if (!d.has_child && !d.text.empty()) return true;
    return false;
  }

  static void unlock(Cursor& cursor) {
    cursor.lock = {};
    cursor.locked = SIZE_MAX;
  }

  // One token; false after the end of the element the cursor's stream began with (or of
  // the <data> it reads).
  bool read_token(Cursor& cursor, XmlStream& xml) {
    std::vector<OpenD>& open = cursor.open;
    if (!open.empty() && open.back().skip) return pass_token(cursor, xml);
    if (!open.empty() && (cursor.queue == nullptr || open.size() != 1) && read_leaves(cursor, xml))
      return true;
    const XmlStream::Token t = xml.next();
    if (t == XmlStream::Token::kStart) {
      if (xml.name() != "d" || has_data_error_) {
        skip(cursor, xml);  // unknown elements are ignored, with what they hold
        return true;
      }
      if (!open.empty()) open.back().has_child = true;
      // While the helpers have enough queued, the finder reads the block itself rather than
      // passing over it for them: a pass is work on top of the reading.
      if (cursor.queue != nullptr && open.size() == 1 && cursor.queue->backlog() < kDirectBacklog) {
        const size_t begin = xml.token_offset();
        xml.pass_element();  // its reader checks it
        cursor.queue->push({begin, xml.position(), open.back().point});
        cursor.after_push();
        return true;
      }
      OpenD& d = open.emplace_back();
      d.point = open.size() > 1 ? open[open.size() - 2].point : cursor.context;
      d.offset = xml.token_offset();
      if (!enter(cursor, xml, d.point)) {
        open.pop_back();
        skip(cursor, xml);
      }
    } else if (t == XmlStream::Token::kText) {
      if (open.empty() || open.back().has_child) return true;
      OpenD& d = open.back();
      if (d.text.empty()) {  // entities are replaced only if the text is no number as it is
        d.text = xml.text();
        d.raw = !xml.text_is_cdata();
      } else {
        std::string joined = d.raw ? xml_unescape(d.text) : std::string(d.text);
        joined += xml.text_is_cdata() ? std::string(xml.text()) : xml_unescape(xml.text());
        cursor.joined = std::move(joined);
        d.text = cursor.joined;
        d.raw = false;
      }
    } else if (t == XmlStream::Token::kEnd) {
      if (open.empty()) return false;  // </data>
      if (!open.back().has_child && !has_data_error_) value(cursor, open.back());
      open.pop_back();
    }
    return t != XmlStream::Token::kEndOfInput;
  }

  // Passes over the element whose start tag was just read. A stream over the whole document
  // does so at once; one over a window token by token (pass_token), so that it can move on to
  // the next window between them.
  static void skip(Cursor& cursor, XmlStream& xml) {
    if (cursor.window == nullptr) return xml.skip_element();
    cursor.open.emplace_back().skip = true;
  }
  static bool pass_token(Cursor& cursor, XmlStream& xml) {
    if (!xml.empty_element()) xml.pass_leaves("d", cursor.window->refill_point(xml));
    const XmlStream::Token t = xml.next();
    if (t == XmlStream::Token::kStart) cursor.open.emplace_back().skip = true;
    if (t == XmlStream::Token::kEnd) cursor.open.pop_back();
    return t != XmlStream::Token::kEndOfInput;
  }

  // The <d>s with one id and a value that follow, each read in one step (nearly all of a
  // data section). False: the next is not of that form, nothing read.
  bool read_leaves(Cursor& cursor, XmlStream& xml) {
    XmlAttribute id;
    std::string_view text;
    if (has_data_error_ || !xml.next_leaf("d", id, text)) return false;
    OpenD& parent = cursor.open.back();
    parent.has_child = true;
    // A run under one metric and call path (an export's every block): their row and lock are
    // taken once, and a leaf naming the next thread with a plain number is added at once.
    const Point block = parent.point;
    const bool one_row = block.metric != kNoIndex && block.cnode != kNoIndex;
    const TypeKind kind = one_row ? lane_kinds_[block.metric] : TypeKind::kDouble;
    uint64_t* row = one_row ? locked_row(cursor, block) : nullptr;
    do {
      OpenD d{block, xml.token_offset(), false, true, text};
      const bool located = next_location(cursor, id, d.point);
      uint64_t x = 0;
      if (located && row != nullptr && parse_lane(kind, text, x)) {
        add_lane(kind, row[model_->locations[d.point.location].id], x);
        continue;
      }
      if (located || narrow(cursor, xml, id, d.point)) add_value(cursor, d);
      if (row != nullptr) row = locked_row(cursor, block);  // add_value may have taken another
    } while (!has_data_error_ && next_leaf_of_run(cursor, xml, id, text));
    if (cursor.queue != nullptr) unlock(cursor);  // the finder holds no lock while it goes on
    return true;
  }

  // The next leaf of a run; a stream over a window running low moves on first (the leaves
  // before are done with, and their parent has a child: no view is held).
  static bool next_leaf_of_run(Cursor& cursor, XmlStream& xml, XmlAttribute& id,
                               std::string_view& text) {
    if (cursor.window != nullptr && cursor.window->low(xml)) cursor.window->refill(xml);
    return xml.next_leaf("d", id, text);
  }

  // spc naming the thread after the last one read (exported documents list them in order,
  // leaving out zeros) or the one its number counts ("t12": the 13th); else narrow's lookup.
  bool next_location(Cursor& cursor, const XmlAttribute& a, Point& p) const {
    if (a.name != "spc") return false;
    Index guess = cursor.last_location + 1;
    if (guess >= location_keys_.size() || location_keys_[guess] != a.raw_value) {
      const std::string_view id = a.raw_value;
      if (id.size() < 2 || !parse_digits(id.substr(1), guess) || guess >= location_keys_.size() ||
          location_keys_[guess] != id)
        return false;
    }
    p.location = cursor.last_location = guess;
    return true;
  }

  // Keeps the error found first in the document (threads find them in any order).
  void keep_error(std::optional<std::pair<size_t, std::string>>& slot, size_t offset,
                  const std::string& what) {
    std::lock_guard<std::mutex> guard(error_mutex_);
    if (!slot || offset < slot->first) slot = {offset, what};
  }
  void data_error(size_t offset, const std::string& what) {
    keep_error(data_error_, offset, what);
    has_data_error_ = true;
  }

  // The <d> start tag's ids narrow `p`. False: nothing inside counts (an inclusive twin, whose
  // values follow from the exclusive ones, or an undefined id, kept as an error).
  bool enter(Cursor& cursor, const XmlStream& xml, Point& p) {
    for (const XmlAttribute& a : xml.attributes())
      if (!narrow(cursor, xml, a, p)) return false;
    return true;
  }

  // One attribute of enter's.
  bool narrow(Cursor& cursor, const XmlStream& xml, const XmlAttribute& a, Point& p) {
    std::string unescaped;
    std::string_view id = a.raw_value;
    if (id.find('&') != std::string_view::npos) id = unescaped = xml_unescape(id);
    if (a.name == "spc") {
      // Threads come in order: the one after the last is tried before the table.
      const Index next = cursor.last_location + 1;
      if (next < location_keys_.size() && location_keys_[next] == id) {
        p.location = cursor.last_location = next;
        return true;
      }
      if (lookup(location_ids_, id, p.location)) {
        cursor.last_location = p.location;
        return true;
      }
      // A process stands for its first thread, a region (below) for its first call path:
      // the proposal's "reference to non-leaf hierarchy identifiers".
      Index group = kNoIndex;
      if (!lookup(group_ids_, id, group)) return missing(xml, a, "thread or process");
      if (model_->groups[group].locations.empty()) {
        data_error(xml.token_offset(),
                   "process '" + std::string(id) + "' has no thread to hold its values");
        return false;
      }
      p.location = model_->groups[group].locations.front();
    } else if (a.name == "metric") {
      if (twin_excl_.contains(id)) return false;
      if (!lookup(metric_ids_, id, p.metric)) return missing(xml, a, "metric");
    } else if (a.name == "code") {
      if (lookup(cnode_ids_, id, p.cnode)) return true;
      Index region = kNoIndex;
      if (!lookup(region_ids_, id, region)) return missing(xml, a, "call path or region");
      p.cnode = first_cnode_of_region_[region];
      if (p.cnode == kNoIndex) {
        data_error(xml.token_offset(),
                   "region '" + std::string(id) +
                       "' has no call path (<cnode ref=...>) to hold its values");
        return false;
      }
    }
    return true;
  }

  static bool lookup(const IdMap& ids, std::string_view id, Index& found) {
    const auto it = ids.find(id);
    if (it == ids.end()) return false;
    found = it->second;
    return true;
  }

  bool missing(const XmlStream& xml, const XmlAttribute& a, const char* what) {
    data_error(xml.token_offset(), "<d " + std::string(a.name) + "=\"" + std::string(a.raw_value) +
                                       "\"> names no " + what);
    return false;
  }

  // A leaf <d>'s text added to its point's value. Values of several states (or a region's and
  // its call path's) add up: a report has no state dimension.
  void value(Cursor& cursor, const OpenD& d) {
    add_value(cursor, d);
    if (cursor.queue != nullptr) unlock(cursor);  // the finder holds no lock while it goes on
  }
  // value's, keeping the stripe's lock for the next value.
  void add_value(Cursor& cursor, const OpenD& d) {
    std::string_view number = trimmed(d.text);
    if (number.empty()) return;  // holds nothing
    const Point& p = d.point;
    if (p.metric == kNoIndex || p.cnode == kNoIndex || p.location == kNoIndex)
      return data_error(d.offset, "a value needs a metric, a call path (code) and a thread (spc)");
    const TypeKind kind = lane_kinds_[p.metric];
    uint64_t x = 0;
    bool ok = parse_lane(kind, number, x);
    std::string unescaped;
    if (!ok && d.raw && number.find('&') != std::string_view::npos) {
      number = trimmed(unescaped = xml_unescape(number));
      ok = parse_lane(kind, number, x);
    }
    if (!ok)
      return data_error(d.offset, "'" + std::string(number.substr(0, 64)) + "' is not a number");
    add_lane(kind, locked_row(cursor, p)[model_->locations[p.location].id], x);
  }

  // The values of p's metric at p's call path (by location id), their stripe's lock held by
  // the cursor.
  uint64_t* locked_row(Cursor& cursor, const Point& p) {
    const size_t stripe = (p.metric * size_t{2654435761u} + p.cnode) % kStripes;
    if (cursor.locked != stripe) {
      unlock(cursor);  // one lock held at a time: no two threads wait for each other
      cursor.lock = std::unique_lock<std::mutex>(stripe_locks_[stripe]);
      cursor.locked = stripe;
    }
    std::vector<uint64_t>& row = values_[p.metric];
    const size_t n = model_->locations.size();
    if (!row_ready_[p.metric].load(std::memory_order_acquire)) {
      std::call_once(row_allocated_[p.metric], [&] {
        // Huge pages: a metric of 100 MB zeroed in 4 KiB pages took ~25,000 faults of ~10 µs.
        row.reserve(model_->cnodes.size() * n);
        core::advise_huge_pages(row.data(), row.capacity() * sizeof(uint64_t));
        row.assign(model_->cnodes.size() * n, 0);
      });
      row_ready_[p.metric].store(true, std::memory_order_release);
    }
    return row.data() + p.cnode * n;
  }

  // A number in a lane of `kind` (lane_type), and the sum of two lanes.
  static bool parse_lane(TypeKind kind, std::string_view text, uint64_t& lane) {
    if (kind != TypeKind::kDouble && parse_digits(text, lane)) return true;
    if (kind == TypeKind::kInt64) {
      int64_t x = 0;
      const bool ok = parse_number(text, x);
      lane = static_cast<uint64_t>(x);
      return ok;
    }
    if (kind == TypeKind::kUInt64) return parse_number(text, lane);
    double x = 0;
    const bool ok = parse_number(text, x);
    std::memcpy(&lane, &x, sizeof x);
    return ok;
  }
  static void add_lane(TypeKind kind, uint64_t& sum, uint64_t x) {
    if (kind == TypeKind::kInt64 || kind == TypeKind::kUInt64) {
      sum += x;  // two's complement: the same bits for signed lanes
      return;
    }
    double a = 0, b = 0;
    std::memcpy(&a, &sum, sizeof a);
    std::memcpy(&b, &x, sizeof b);
    a += b;
    std::memcpy(&sum, &a, sizeof a);
  }

  std::string_view text_;
  const format::MappedFile* mapped_;
  size_t range_bytes_;
  size_t guessed_ranges_ = 0;
  std::atomic<bool> given_up_ = false;
  const Model* model_;
  const IdMap &metric_ids_, &twin_excl_, &region_ids_, &cnode_ids_, &group_ids_, &location_ids_;
  const std::vector<std::string>& location_keys_;  // the ids of location_ids_, by location
  const std::vector<Index>& first_cnode_of_region_;
  std::vector<TypeKind> lane_kinds_;  // by metric
  std::unique_ptr<std::mutex[]> stripe_locks_ = std::make_unique<std::mutex[]>(kStripes);
  std::unique_ptr<std::once_flag[]> row_allocated_;  // by metric
  std::unique_ptr<std::atomic<bool>[]> row_ready_;
  std::vector<std::vector<uint64_t>> values_;
  std::mutex error_mutex_;
  std::optional<std::pair<size_t, std::string>> syntax_error_, data_error_;
  std::atomic<bool> has_data_error_ = false;
};

ValueReader::ValueReader(std::string_view text, const format::MappedFile* mapped,
                         const Model& model, const Ids& ids, size_t range_bytes)
    : impl_(std::make_unique<Impl>(text, mapped, model, ids, range_bytes)) {}

ValueReader::~ValueReader() = default;

void ValueReader::read_data(XmlStream& xml) {
  impl_->read_data(xml);
}

const std::optional<std::pair<size_t, std::string>>& ValueReader::data_error() const {
  return impl_->data_error_;
}

std::vector<std::vector<uint64_t>> ValueReader::take_values() {
  return std::move(impl_->values_);
}

size_t ValueReader::guessed_ranges() const {
  return impl_->guessed_ranges_;
}

}  // namespace cubekit::io::peri
