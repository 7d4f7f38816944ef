// PERI-XML import (peri_import.hpp: import_peri_xml). One pass over the document with XmlStream:
// the elements beside <data> (the dimensions, small) are parsed with pugixml once the first
// <data> begins, and the <d> values are added into the metrics' rows as they stream by.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/parallel.hpp"
#include "cubekit/peri_import.hpp"
#include "cubekit/writer.hpp"
#include "format/anchor.hpp"
#include "format/mapped_file.hpp"
#include "format/xml_stream.hpp"
#include "io/peri_reader.hpp"

namespace cubekit::io {
namespace {

using format::xml_unescape;
using format::XmlAttribute;
using format::XmlStream;
using format::XmlSyntaxError;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool is_dimension(std::string_view element) {
  return element == "metrics" || element == "code" || element == "space" || element == "states" ||
         element == "time";
}

// Ids looked up by the views XmlStream gives, without making strings.
struct IdHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using IdMap = std::unordered_map<std::string, Index, IdHash, std::equal_to<>>;

// How a metric's values are held while reading: 64-bit integers for integer types (exact),
// doubles otherwise; one 8-byte lane each.
DataType lane_type(const Metric& m) {
  if (!m.dtype.is_integer()) return DataType(TypeKind::kDouble);
  const TypeKind k = m.dtype.kind();
  const bool is_signed = k == TypeKind::kInt8 || k == TypeKind::kInt16 || k == TypeKind::kInt32 ||
                         k == TypeKind::kInt64;
  return DataType(is_signed ? TypeKind::kInt64 : TypeKind::kUInt64);
}

// Text without XML's white space around it.
std::string_view trimmed(std::string_view text) {
  // Loops, not find_first_not_of: that searches the set with memchr for every character.
  auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

// A number as from_chars reads it, with an optional '+'.
template <class T>
bool parse_number(std::string_view text, T& value) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

class PeriReader {
 public:
  PeriReader(std::string_view text, std::string name, const format::MappedFile* mapped)
      : text_(text), path_(std::move(name)), mapped_(mapped) {}

  PeriDocument read() {
    try {
      read_document();
    } catch (const XmlSyntaxError& e) {
      throw FormatError(where(e.offset()) + ": malformed XML: " + e.what());
    }
    return {model_, std::move(values_)};
  }

 private:
  // An element beside <data> (a dimension, or one to ignore) or a <data>, by byte range.
  struct Part {
    size_t begin, end;
    bool data;
  };

  void read_document() {
    XmlStream xml(text_);
    XmlStream::Token t;
    while ((t = xml.next()) != XmlStream::Token::kStart)
      if (t == XmlStream::Token::kEndOfInput)
        throw FormatError(where(text_.size()) + ": no document element");
    root_tag_ = {xml.token_offset(), xml.position()};
    root_name_ = std::string(xml.name());
    std::vector<Part> parts;
    bool dimensions_read = false, late_dimensions = false;
    while ((t = xml.next()) != XmlStream::Token::kEnd) {
      if (t != XmlStream::Token::kStart) continue;  // text beside the dimensions
      const size_t begin = xml.token_offset();
      const bool is_data = xml.name() == "data";
      if (is_data) {
        if (!dimensions_read) read_dimensions(parts);
        dimensions_read = true;
        read_data(xml);
      } else {
        late_dimensions = late_dimensions || (dimensions_read && is_dimension(xml.name()));
        xml.skip_element();
      }
      parts.push_back({begin, xml.position(), is_data});
    }
    while (xml.next() != XmlStream::Token::kEndOfInput) {
      // what follows the document element: comments, white space (checked by the scanner)
    }
    if (!dimensions_read) {
      read_dimensions(parts);
    } else if (late_dimensions) {
      // A dimension after a <data>: read again, now knowing every id.
      forget_all();
      read_dimensions(parts);
      for (const Part& part : parts) {
        if (!part.data) continue;
        XmlStream again(text_, part.begin);
        again.next();
        read_data(again);
      }
    }
    if (data_error_) throw FormatError(where(data_error_->first) + ": " + data_error_->second);
  }

  // Back to the state before the first dimension was read.
  void forget_all() {
    model_ = std::make_shared<Model>();
    for (IdMap* ids : {&metric_ids_, &twin_excl_, &region_ids_, &cnode_ids_, &node_ids_,
                       &group_ids_, &location_ids_})
      ids->clear();
    location_keys_.clear();
    cnode_state_.clear();
    values_.clear();
    data_error_.reset();
    has_data_error_ = false;
  }

  // "file:line:column" of a byte offset into the document.
  std::string where(size_t offset) const {
    return path_ + ":" + format::line_column(text_, static_cast<ptrdiff_t>(offset));
  }
  // pugixml's offsets are into the dimensions' text (dimensions_text): back to the document.
  size_t document_offset(ptrdiff_t in_dimensions) const {
    const size_t offset = static_cast<size_t>(std::max<ptrdiff_t>(in_dimensions, 0));
    size_t in_document = text_.size();
    for (const auto& [from, to] : dimension_offsets_)
      if (from <= offset) in_document = to + (offset - from);
    return in_document;
  }
  std::string where(const pugi::xml_node& node) const {
    return where(document_offset(node.offset_debug()));
  }

  // ---- the dimensions: the root's start tag and every element beside <data>, for pugixml ----
  void read_dimensions(const std::vector<Part>& parts) {
    std::string text;
    dimension_offsets_.clear();
    auto append = [&](size_t begin, size_t end) {
      dimension_offsets_.emplace_back(text.size(), begin);
      text.append(text_.substr(begin, end - begin));
    };
    append(root_tag_.first, root_tag_.second);
    const bool empty_root = text.size() >= 2 && text[text.size() - 2] == '/';
    for (const Part& part : parts)
      if (!part.data) append(part.begin, part.end);
    if (!empty_root) text += "</" + root_name_ + ">";
    const pugi::xml_parse_result ok = doc_.load_buffer(text.data(), text.size());
    if (!ok)
      throw FormatError(where(document_offset(ok.offset)) + ": malformed XML: " + ok.description());
    const pugi::xml_node root = doc_.document_element();
    metrics(root.child("metrics"));
    code(root.child("code"));
    states(root.child("states"));
    space(root.child("space"));
    model_->finalize(path_);
    values_.assign(model_->metrics.size(), {});
    lane_kinds_.clear();
    for (const Metric& m : model_->metrics) lane_kinds_.push_back(lane_type(m).kind());
    row_allocated_ = std::make_unique<std::once_flag[]>(model_->metrics.size());
    row_ready_ = std::make_unique<std::atomic<bool>[]>(model_->metrics.size());
    location_keys_.resize(model_->locations.size());
    first_cnode_of_region_.assign(model_->regions.size(), kNoIndex);
    for (Index c = model_->cnodes.size(); c-- > 0;)
      first_cnode_of_region_[model_->cnodes[c].region] = c;
  }

  // ---- metrics -------------------------------------------------------------------------------
  void metrics(const pugi::xml_node& list) {
    for (const pugi::xml_node& m : list.children("metric")) metric(m, kNoIndex, 1);
  }

  void metric(const pugi::xml_node& node, Index parent, int depth) {
    const std::string id = node.attribute("id").value();
    if (depth > kMaxTreeNesting)
      throw FormatError(where(node) + ": metrics nested deeper than " +
                        std::to_string(kMaxTreeNesting));
    // write_peri_xml's inclusive twin: the exclusive one carries the values that are stored.
    if (ends_with(id, ".incl")) {
      const std::string base = id.substr(0, id.size() - 5);
      if (doc_.find_node([&](const pugi::xml_node& n) {
            return std::string(n.name()) == "metric" && n.attribute("id").value() == base + ".excl";
          }))
        return;
    }
    Metric m;
    m.id = static_cast<uint32_t>(model_->metrics.size());
    const std::string uniq = node.attribute("cube_uniq_name").value();
    m.uniq_name = !uniq.empty() ? uniq : ends_with(id, ".excl") ? id.substr(0, id.size() - 5) : id;
    m.disp_name = node.attribute("name").value();
    if (ends_with(m.disp_name, " (excl)")) m.disp_name.resize(m.disp_name.size() - 7);
    m.uom = node.attribute("units").value();
    m.descr = node.child_value("desc");
    const std::string dtype = node.attribute("cube_dtype").value();
    m.dtype_text = !dtype.empty()                                         ? dtype
                   : std::string(node.attribute("type").value()) == "int" ? "INT64"
                                                                          : "DOUBLE";
    try {
      m.dtype = DataType::parse(m.dtype_text);
    } catch (const Error&) {
      throw FormatError(where(node) + ": metric '" + id + "': unknown cube_dtype '" + dtype + "'");
    }
    // Values arrive as single numbers: composite types (RATE, NDOUBLES, HISTOGRAM, ...) are
    // kept as the numbers they were exported as.
    const TypeKind k = m.dtype.kind();
    if (!m.dtype.is_integer() && k != TypeKind::kDouble && k != TypeKind::kMinDouble &&
        k != TypeKind::kMaxDouble)
      m.dtype_text = "DOUBLE", m.dtype = DataType(TypeKind::kDouble);
    m.kind = MetricKind::kExclusive;
    m.parent = parent;
    const Index self = static_cast<Index>(model_->metrics.size());
    model_->metrics.push_back(m);
    if (parent != kNoIndex) model_->metrics[parent].children.push_back(self);
    metric_ids_[id] = self;
    if (ends_with(id, ".excl")) twin_excl_[id.substr(0, id.size() - 5) + ".incl"] = self;
    for (const pugi::xml_node& child : node.children("metric")) metric(child, self, depth + 1);
  }

  // ---- code ----------------------------------------------------------------------------------
  void code(const pugi::xml_node& code) {
    std::map<std::string, std::string> sources;
    for (const pugi::xml_node& s : code.child("sources").children("source"))
      sources[s.attribute("id").value()] = s.child_value("name");
    for (const pugi::xml_node& program : code.child("programs").children("program")) {
      for (const pugi::xml_node& r : program.child("regions").children("region")) {
        Region region;
        region.id = static_cast<uint32_t>(model_->regions.size());
        region.name = region.mangled_name = r.child_value("name");
        if (!r.attribute("type").empty()) region.role = r.attribute("type").value();
        const pugi::xml_node src = r.child("src");
        if (src) {
          region.mod = sources[src.attribute("ref").value()];
          region.begin = src.child("line").attribute("first").as_llong(-1);
          region.end = src.child("line").attribute("last").as_llong(-1);
        }
        region_ids_[r.attribute("id").value()] = static_cast<Index>(model_->regions.size());
        model_->regions.push_back(region);
      }
      for (const pugi::xml_node& c : program.child("cnodes").children("cnode")) cnode(c, kNoIndex);
    }
    adopt_written_ids(region_ids_, 'r', model_->regions);
    adopt_written_ids(cnode_ids_, 'c', model_->cnodes);
  }

  // cubekit's export names regions r<id> and call paths c<id> after their ids in the report.
  // Those ids come back, so a round trip keeps each call path's id even where the ids are not
  // in pre-order (the import numbers in document order otherwise, which then gives an id to
  // another call path). Documents with other ids, or with one id twice, keep document order.
  template <class Item>
  static void adopt_written_ids(const IdMap& ids, char prefix, std::vector<Item>& items) {
    if (ids.size() != items.size()) return;  // an id written twice: not ours
    std::vector<uint32_t> written(items.size());
    std::unordered_set<uint32_t> seen;
    for (const auto& [text, index] : ids) {
      if (text.size() < 2 || text[0] != prefix) return;
      const std::string_view digits = std::string_view(text).substr(1);
      uint32_t id = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
      if (ec != std::errc() || end != digits.data() + digits.size() || !seen.insert(id).second)
        return;
      written[index] = id;
    }
    for (size_t i = 0; i < items.size(); ++i) items[i].id = written[i];
  }

  // The call tree in pre-order, with an explicit stack: call trees may be deep (model.hpp).
  void cnode(const pugi::xml_node& top, Index top_parent) {
    std::vector<std::pair<pugi::xml_node, Index>> pending{{top, top_parent}};
    std::vector<pugi::xml_node> children;
    while (!pending.empty()) {
      const auto [node, parent] = pending.back();
      pending.pop_back();
      const auto region = region_ids_.find(std::string_view(node.attribute("ref").value()));
      if (region == region_ids_.end())
        throw FormatError(where(node) + ": cnode '" + node.attribute("id").value() +
                          "' refers to the undefined region '" + node.attribute("ref").value() +
                          "'");
      Cnode c;
      c.id = static_cast<uint32_t>(model_->cnodes.size());
      c.region = region->second;
      c.parent = parent;
      const Index self = static_cast<Index>(model_->cnodes.size());
      model_->cnodes.push_back(c);
      if (parent != kNoIndex) model_->cnodes[parent].children.push_back(self);
      cnode_ids_[node.attribute("id").value()] = self;
      if (!node.attribute("state").empty()) cnode_state_[self] = node.attribute("state").value();
      children.assign(node.children("cnode").begin(), node.children("cnode").end());
      for (auto child = children.rbegin(); child != children.rend(); ++child)
        pending.emplace_back(*child, self);
    }
  }

  void states(const pugi::xml_node& states) {
    std::map<std::string, std::vector<Parameter>> by_id;
    for (const pugi::xml_node& s : states.children("state"))
      for (const pugi::xml_node& p : s.children("p"))
        by_id[s.attribute("id").value()].push_back(
            {p.attribute("type").empty() ? "string" : p.attribute("type").value(),
             p.attribute("nm").value(), p.child_value()});
    for (const auto& [c, state] : cnode_state_) model_->cnodes[c].parameters = by_id[state];
  }

  // ---- space ---------------------------------------------------------------------------------
  void system_node(const pugi::xml_node& node, Index parent, int depth) {
    if (depth > kMaxTreeNesting)
      throw FormatError(where(node) + ": system tree nested deeper than " +
                        std::to_string(kMaxTreeNesting));
    SystemNode n;
    n.id = static_cast<uint32_t>(model_->system_nodes.size());
    n.name = node.child_value("name");
    const std::string element = node.name();
    n.class_name = element == "machine" ? "machine"
                   : element == "node"  ? "node"
                                        : node.attribute("type").as_string("unit");
    n.parent = parent;
    const Index self = static_cast<Index>(model_->system_nodes.size());
    model_->system_nodes.push_back(n);
    if (parent != kNoIndex) model_->system_nodes[parent].children.push_back(self);
    node_ids_[node.attribute("id").value()] = self;
    for (const pugi::xml_node& child : node.children())
      if (std::string(child.name()) == "unit" || std::string(child.name()) == "node")
        system_node(child, self, depth + 1);
  }

  void space(const pugi::xml_node& space) {
    for (const pugi::xml_node& m : space.child("machines").children("machine"))
      system_node(m, kNoIndex, 1);
    std::map<std::string, std::string> runs_on;
    for (const pugi::xml_node& map : space.child("mappings").children("mapping"))
      for (const pugi::xml_node& r : map.children("runson"))
        runs_on[r.attribute("aref").value()] = r.attribute("mref").value();
    for (const pugi::xml_node& app : space.child("applications").children("application"))
      for (const pugi::xml_node& p : app.children("process")) process(p, runs_on);
    for (const pugi::xml_node& t : space.child("topologies").children("cartesian")) topology(t);
  }

  Index some_node() {
    if (model_->system_nodes.empty()) {
      SystemNode machine;
      machine.name = "machine";
      machine.class_name = "machine";
      model_->system_nodes.push_back(machine);
    }
    return 0;
  }

  void process(const pugi::xml_node& p, const std::map<std::string, std::string>& runs_on) {
    LocationGroup g;
    g.id = static_cast<uint32_t>(model_->groups.size());
    g.name = p.child_value("name");
    if (g.name.empty()) g.name = std::string("process ") + p.attribute("pid").value();
    g.rank = p.attribute("pid").as_llong(static_cast<long long>(g.id));
    if (!p.attribute("type").empty()) g.type = p.attribute("type").value();
    const auto on = runs_on.find(p.attribute("id").value());
    const auto node = on == runs_on.end() ? node_ids_.end() : node_ids_.find(on->second);
    g.node = node == node_ids_.end() ? some_node() : node->second;
    const Index self = static_cast<Index>(model_->groups.size());
    model_->system_nodes[g.node].groups.push_back(self);
    model_->groups.push_back(g);
    group_ids_[p.attribute("id").value()] = self;
    std::vector<pugi::xml_node> threads(p.children("thread").begin(), p.children("thread").end());
    if (threads.empty()) threads.push_back(p);  // a process without threads: one of its own
    for (const pugi::xml_node& t : threads) {
      Location loc;
      loc.id = static_cast<uint32_t>(model_->locations.size());
      loc.name = t == p ? "" : t.child_value("name");
      if (loc.name.empty()) loc.name = std::string("thread ") + t.attribute("tid").value();
      loc.rank = t.attribute("tid").as_llong(0);
      if (!t.attribute("type").empty()) loc.type = t.attribute("type").value();
      loc.group = self;
      model_->groups[self].locations.push_back(static_cast<Index>(model_->locations.size()));
      if (t != p) {
        location_ids_[t.attribute("id").value()] = static_cast<Index>(model_->locations.size());
        location_keys_.resize(model_->locations.size() + 1);
        location_keys_.back() = t.attribute("id").value();
      }
      model_->locations.push_back(loc);
    }
  }

  void topology(const pugi::xml_node& t) {
    Topology topo;
    topo.name = t.child_value("name");
    for (const pugi::xml_node& d : t.children("dim"))
      topo.dims.push_back({d.attribute("name").value(), d.attribute("size").as_llong(0),
                           std::string(d.attribute("periodic").value()) == "true"});
    for (const pugi::xml_node& c : t.children("coord")) {
      const std::string ref = c.attribute("ref").value();
      Topology::Coord coord;
      if (const auto l = location_ids_.find(ref); l != location_ids_.end()) {
        coord.owner_id = model_->locations[l->second].id;
      } else if (const auto g = group_ids_.find(ref); g != group_ids_.end()) {
        coord.owner = Topology::Owner::kGroup;
        coord.owner_id = model_->groups[g->second].id;
      } else {
        continue;  // a coordinate of something else (machines' cpus...): not in a Cube report
      }
      std::istringstream numbers(c.child_value());
      for (long long x; numbers >> x;) coord.coords.push_back(x);
      topo.coords.push_back(coord);
    }
    model_->topologies.push_back(topo);
  }

  // ---- data ----------------------------------------------------------------------------------
  // A <data> is read by several threads. One reads the elements directly in it and the start
  // tags of theirs; the elements one level further down (a metric's call paths, say) it only
  // passes over (XmlStream::pass_element, a fraction of the cost of reading them) and queues,
  // with what their parent names; the other threads read what is queued, and the first joins
  // them when it is through. Values are added under a lock per (metric, call path) stripe, so
  // any nesting of the dimensions stays correct.

  // Where a <d> stands: what it and its ancestors name.
  struct Point {
    Index metric = kNoIndex, cnode = kNoIndex, location = kNoIndex;
  };
  struct OpenD {
    Point point;
    size_t offset = 0;
    bool has_child = false;
    bool raw = false;       // text is character data as written: entities not yet replaced
    std::string_view text;  // while it has no <d> child
  };
  // An element queued for reading: its bytes and what its parent <d> names.
  struct Block {
    size_t begin = 0, end = 0;
    Point context;
  };
  // Elements found, waiting to be read, in document order.
  class Queue {
   public:
    void push(const Block& block) {
      {
        std::lock_guard<std::mutex> guard(mutex_);
        blocks_.push_back(block);
        done_.push_back(false);
      }
      ready_.notify_one();
    }
    void finish() {
      {
        std::lock_guard<std::mutex> guard(mutex_);
        finished_ = true;
      }
      ready_.notify_all();
    }
    // Bytes from the first block not yet read to the end of the last one found.
    size_t backlog() {
      std::lock_guard<std::mutex> guard(mutex_);
      return first_open_ < blocks_.size() ? blocks_.back().end - blocks_[first_open_].begin : 0;
    }
    bool try_pop(Block& block, size_t& index) {
      std::lock_guard<std::mutex> guard(mutex_);
      if (next_ == blocks_.size()) return false;
      index = next_++;
      block = blocks_[index];
      return true;
    }
    bool pop(Block& block, size_t& index) {
      std::unique_lock<std::mutex> guard(mutex_);
      ready_.wait(guard, [&] { return finished_ || next_ < blocks_.size(); });
      if (next_ == blocks_.size()) return false;
      index = next_++;
      block = blocks_[index];
      return true;
    }
    // Block `index` is read. Returns the bytes before the first block not yet read once they
    // reach 16 MiB (else an empty range): they are not needed again.
    std::pair<size_t, size_t> done(size_t index) {
      std::lock_guard<std::mutex> guard(mutex_);
      done_[index] = true;
      while (first_open_ < next_ && done_[first_open_]) ++first_open_;
      const size_t upto =
          first_open_ < blocks_.size() ? blocks_[first_open_].begin : blocks_[first_open_ - 1].end;
      if (upto < released_ + (16u << 20)) return {0, 0};
      const std::pair<size_t, size_t> range{released_, upto};
      released_ = upto;
      return range;
    }

   private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::vector<Block> blocks_;
    std::vector<bool> done_;
    size_t next_ = 0, first_open_ = 0, released_ = 0;
    bool finished_ = false;
  };
  // One thread's reading.
  struct Cursor {
    std::vector<OpenD> open;
    Point context;           // what the parent of the element read names
    Queue* queue = nullptr;  // set: the children of <data>'s children are queued, not read
    std::function<void()> after_push;  // called by the finder after each block it queued
    std::string joined;                // text in pieces (CDATA, comments between)
    size_t locked = SIZE_MAX;          // the stripe held
    std::unique_lock<std::mutex> lock;
    Index last_location = kNoIndex;
  };
  static constexpr size_t kStripes = 256;
  static constexpr size_t kMaxBacklog = size_t{64} << 20;

  // Reads one <data> element (its start tag just read) up to its end tag. Errors are kept, the
  // first in the document of each kind: a syntax error ends the reading (thrown here), an
  // undefined id or a bad number only later (read_document: a dimension after this <data> may
  // still define what was missing).
  void read_data(XmlStream& xml) {
    Queue queue;
    const unsigned threads = available_threads();
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

  void read_block(Cursor& cursor, Queue& queue, const Block& block, size_t index) {
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
    const bool release = mapped_ != nullptr && whole_data && cursor.queue == nullptr;
    size_t released = xml.position();
    try {
      while (read_token(cursor, xml) && xml.depth() >= depth) {
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

  static void unlock(Cursor& cursor) {
    cursor.lock = {};
    cursor.locked = SIZE_MAX;
  }

  // One token; false after the end of the element the cursor's stream began with (or of
  // the <data> it reads).
  bool read_token(Cursor& cursor, XmlStream& xml) {
    std::vector<OpenD>& open = cursor.open;
    if (!open.empty() && (cursor.queue == nullptr || open.size() != 1) && read_leaf(cursor, xml))
      return true;
    const XmlStream::Token t = xml.next();
    if (t == XmlStream::Token::kStart) {
      if (xml.name() != "d" || has_data_error_) {
        xml.skip_element();  // unknown elements are ignored, with what they hold
        return true;
      }
      if (!open.empty()) open.back().has_child = true;
      if (cursor.queue != nullptr && open.size() == 1) {
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
        xml.skip_element();
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

  // A <d> with one id and a value, read in one step (most of them are). False: not of that
  // form, nothing read.
  bool read_leaf(Cursor& cursor, XmlStream& xml) {
    XmlAttribute id;
    std::string_view text;
    if (has_data_error_ || !xml.next_leaf("d", id, text)) return false;
    OpenD& parent = cursor.open.back();
    parent.has_child = true;
    OpenD d{parent.point, xml.token_offset(), false, true, text};
    if (narrow(cursor, xml, id, d.point)) value(cursor, d);
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
    const size_t stripe = (p.metric * size_t{2654435761u} + p.cnode) % kStripes;
    if (cursor.locked != stripe) {
      unlock(cursor);  // one lock held at a time: no two threads wait for each other
      cursor.lock = std::unique_lock<std::mutex>(stripe_locks_[stripe]);
      cursor.locked = stripe;
    }
    std::vector<uint64_t>& row = values_[p.metric];
    const size_t n = model_->locations.size();
    if (!row_ready_[p.metric].load(std::memory_order_acquire)) {
      std::call_once(row_allocated_[p.metric], [&] { row.assign(model_->cnodes.size() * n, 0); });
      row_ready_[p.metric].store(true, std::memory_order_release);
    }
    add_lane(kind, row[p.cnode * n + model_->locations[p.location].id], x);
    if (cursor.queue != nullptr) unlock(cursor);  // the finder holds no lock while it goes on
  }

  // A number in a lane of `kind` (lane_type), and the sum of two lanes.
  static bool parse_lane(TypeKind kind, std::string_view text, uint64_t& lane) {
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
  std::string path_;
  const format::MappedFile* mapped_;
  std::pair<size_t, size_t> root_tag_;
  std::string root_name_;
  std::vector<std::pair<size_t, size_t>> dimension_offsets_;  // (in their text, in the document)
  pugi::xml_document doc_;
  std::shared_ptr<Model> model_ = std::make_shared<Model>();
  IdMap metric_ids_, twin_excl_, region_ids_, cnode_ids_, node_ids_, group_ids_, location_ids_;
  std::vector<std::string> location_keys_;  // the ids of location_ids_, by location
  std::map<Index, std::string> cnode_state_;
  std::vector<Index> first_cnode_of_region_;
  std::vector<TypeKind> lane_kinds_;  // by metric
  std::unique_ptr<std::mutex[]> stripe_locks_ = std::make_unique<std::mutex[]>(kStripes);
  std::unique_ptr<std::once_flag[]> row_allocated_;  // by metric
  std::unique_ptr<std::atomic<bool>[]> row_ready_;
  std::vector<std::vector<uint64_t>> values_;
  std::mutex error_mutex_;
  std::optional<std::pair<size_t, std::string>> syntax_error_, data_error_;
  std::atomic<bool> has_data_error_ = false;
};

// The values as the report's rows, in the writer's order.
void write_peri_document(const PeriDocument& doc, const std::string& name, const std::string& out) {
  const Model& model = *doc.model;
  ReportWriter writer(out, doc.model);
  const size_t n = model.locations.size();
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const Metric& metric = model.metrics[m];
    writer.begin_metric(m);
    // A metric without values has no rows: all of them would be 0 (for minima and maxima,
    // whose missing rows mean ±DBL_MAX, rows of zeros are written).
    const bool sums =
        metric.dtype.kind() != TypeKind::kMinDouble && metric.dtype.kind() != TypeKind::kMaxDouble;
    const std::vector<uint64_t>& values = doc.values[m];
    if (values.empty() && sums) {
      writer.end_metric();
      continue;
    }
    const std::vector<uint64_t> zeros(values.empty() ? n : 0, 0);
    const DataType lanes = lane_type(metric);
    std::vector<uint64_t> row(lanes == metric.dtype ? 0 : (metric.dtype.memory_size() * n + 7) / 8);
    const std::string what = name + ": metric '" + metric.uniq_name + "'";
    for (Index c : storage_order(model, metric.kind)) {
      const uint64_t* from = values.empty() ? zeros.data() : values.data() + c * n;
      // A row of zeros is left out where 0 is what a missing row means. All-zero bits are 0
      // in every lane type.
      if (sums && std::all_of(from, from + n, [](uint64_t v) { return v == 0; })) continue;
      if (row.empty()) {  // the lanes are the stored type
        writer.write_row(c, reinterpret_cast<const std::byte*>(from));
        continue;
      }
      convert_values(lanes, reinterpret_cast<const std::byte*>(from), metric.dtype,
                     reinterpret_cast<std::byte*>(row.data()), n, what);
      writer.write_row(c, reinterpret_cast<const std::byte*>(row.data()));
    }
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace

PeriDocument read_peri_xml(std::string_view text, const std::string& name,
                           const format::MappedFile* mapped) {
  return PeriReader(text, name, mapped).read();
}

}  // namespace cubekit::io

namespace cubekit {

void import_peri_xml(const std::string& xml_path, const std::string& cubex_path) {
  const format::MappedFile file(xml_path);
  const std::string_view text(reinterpret_cast<const char*>(file.bytes().data()),
                              file.bytes().size());
  const io::PeriDocument doc = io::read_peri_xml(text, xml_path, &file);
  io::write_peri_document(doc, xml_path, cubex_path);
}

}  // namespace cubekit
