// The <program> and <system> elements of an anchor, read with the pull tokenizer: a report
// with a million locations or call paths would need half a gigabyte of DOM nodes for these
// parts alone (issue 5).
#include "format/tree_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "core/huge_pages.hpp"
#include "cubekit/error.hpp"
#include "format/anchor.hpp"
#include "format/xml_pull.hpp"

namespace cubekit::format {

size_t find_start_tag(std::string_view xml, std::string_view name) {
  const std::string open = "<" + std::string(name);
  size_t at = 0;
  // memmem, as below: <system> stands after the call tree, and string_view::find stops at each
  // of its '<' (4 ms of a 4 MB anchor's opening, on the one thread that reads it then).
  while (const void* hit = ::memmem(xml.data() + at, xml.size() - at, open.data(), open.size())) {
    at = static_cast<size_t>(static_cast<const char*>(hit) - xml.data());
    const size_t after = at + open.size();
    const char next = after < xml.size() ? xml[after] : '\0';
    if (next == '>' || next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == '/')
      return at;
    at = after;  // e.g. <systemtreenode outside <system>: not ours
  }
  return std::string_view::npos;
}

void find_element(std::string_view xml, std::string_view name, size_t& begin, size_t& end) {
  begin = end = std::string_view::npos;
  const std::string close = "</" + std::string(name) + ">";
  const size_t at = find_start_tag(xml, name);
  if (at == std::string_view::npos) return;
  // memmem: string_view::find stops at every '<', and these elements span hundreds of MB.
  const void* hit = ::memmem(xml.data() + at, xml.size() - at, close.data(), close.size());
  const size_t closing = hit ? static_cast<size_t>(static_cast<const char*>(hit) - xml.data())
                             : std::string_view::npos;
  begin = at;
  if (closing != std::string_view::npos) {
    end = closing + close.size();
  } else {
    const size_t gt = xml.find('>', at);  // <name/> or an unclosed element
    end = gt == std::string_view::npos ? xml.size() : gt + 1;
  }
}

namespace {

// Deeper call trees exist (recursion unrolled by the measurement) and cost nothing here: the
// forest is read without recursion. The bound only stops absurd documents early.
constexpr size_t kMaxCallDepth = 1u << 20;

// How far from the middle read_system_part looks for a tag to split the system tree at.
constexpr size_t kSplitSearch = size_t{4} << 20;

// The least of the system tree left to read for which read_system_part reads a part (unless a
// test forces the split): 1 MiB, about 3 ms of the system reader's time. Below it a part saves
// less than it costs (a reader, texts of its own, the splice). With 16 MiB, a report of 24,448
// locations (a 3 MB system tree) was read by one thread: 12.5-13.6 ms to open it, 11.0-12.1 ms
// with its second part read beside (four alternating rounds, chrt -f 50 perf stat -r 30).
constexpr size_t kMinPartBytes = size_t{1} << 20;
// read_system_part's split for tests (set_system_split_for_tests); negative: none.
std::atomic<double> split_for_tests{-1};
std::atomic<size_t> parts_taken{0};
std::atomic<size_t> program_parts_used{0};

// The fewest bytes of a location element as writers write them (<location Id="0">, <name>,
// <rank>, <type>, </location>): more locations than the document's bytes over this grow the
// model's vector beyond its reservation.
constexpr size_t kLeastLocationBytes = 64;
// A location group (<locationgroup Id="0"><name>p</name><rank>0</rank><type>process</type>).
constexpr size_t kLeastGroupBytes = 64;
// The same for a coordinate (<coord>0</coord>) and a call path (<cnode id="0" calleeId="0"/>).
constexpr size_t kLeastCoordBytes = 16;
constexpr size_t kLeastCnodeBytes = 28;
// A region as writers write it: <region id="0" mod="" begin="0" end="0"> with its name,
// mangled name, paradigm, role, url and description (150 bytes and more). Fewer bytes per
// region grow the vector beyond its reservation; more room would be address space for nothing.
constexpr size_t kLeastRegionBytes = 128;

// Room for `more` elements beyond the vector's own, reserved and not touched (the pages used
// become resident, the rest stays address space), with transparent huge pages asked for: a page
// fault costs about 10 µs on a virtual machine that makes page table entries slowly, and the
// million-location anchor's trees took ~35,000 of them (0.62-0.69 s to open; 0.38-0.48 s and
// ~9,000 faults with huge pages). Only for the largest vectors (call paths, locations, groups):
// each one's last huge page is whole, which the smaller ones do not repay in peak memory.
template <class T>
void reserve_unfaulted(std::vector<T>& v, size_t more) {
  v.reserve(v.size() + more);
  core::advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// Texts read once and shared by every location and group naming them ("Master thread",
// "thread", "MPI"): a million locations name themselves with a handful of texts. Up to kLimit
// distinct texts are remembered; others (unique names) get their own. Each field (a location's
// name, its type, ...) cycles through a few texts: the last kRecent given for it are compared
// first. The rest are looked up in an open-addressing table of a power-of-two size: a
// std::unordered_map took a tenth of the system tree's time, dividing by its bucket count.
class SharedTexts {
 public:
  enum Field { kLocationName, kLocationType, kGroupName, kGroupType, kFields };
  SharedText get(std::string_view text, Field field) {
    Recent& recent = recent_[field];
    for (size_t i = 0; i < kRecent; ++i)
      if (recent.views[i] == text) return recent.texts[i];  // an empty slot is the empty text
    SharedText shared = lookup(text);
    recent.texts[recent.next] = shared;
    recent.views[recent.next] = shared.view();  // its block outlives the slot
    recent.next = (recent.next + 1) % kRecent;
    return shared;
  }

 private:
  static constexpr size_t kLimit = 4096;
  static constexpr size_t kSlots = 2 * kLimit;  // at most half full: probe sequences stay short
  static constexpr size_t kRecent = 8;
  struct Recent {
    SharedText texts[kRecent];
    std::string_view views[kRecent];  // of texts[i], compared without a call per text
    size_t next = 0;
  };
  struct Slot {
    size_t hash = 0;
    SharedText text;
    std::string_view view;  // of `text`; empty: a free slot
  };
  SharedText lookup(std::string_view text) {
    if (text.empty()) return {};
    if (slots_.empty()) slots_.resize(kSlots);
    const size_t hash = std::hash<std::string_view>{}(text);
    size_t at = hash & (kSlots - 1);
    for (; !slots_[at].view.empty(); at = (at + 1) & (kSlots - 1))
      if (slots_[at].hash == hash && slots_[at].view == text) return slots_[at].text;
    SharedText shared{std::string(text)};
    if (stored_ < kLimit) {
      slots_[at] = {hash, shared, shared.view()};
      ++stored_;
    }
    return shared;
  }
  std::vector<Slot> slots_;  // made at the first text looked up
  size_t stored_ = 0;
  Recent recent_[kFields];
};

// The parts of a start tag that outlive the tokenizer's next token.
struct Start {
  std::string name;
  std::string id;
  bool has_id = false;
  bool self_closing = false;
  size_t offset = 0;
};

class TreeReader {
 public:
  TreeReader(std::string_view xml, size_t begin, size_t end, Model& model, std::string where,
             const ReleaseRange& release)
      : xml_(xml),
        pull_(xml, begin, end, where),
        model_(model),
        where_(std::move(where)),
        end_(end),
        release_(release) {
    if (release) pull_.release_behind(release);
  }
  size_t read_system(TopologiesAhead* ahead, SystemPart* part);
  // Reads the <systemtreenode> and <locationgroup> elements from the beginning as children of
  // system node 0, made here (SystemPart); returns where the first other token begins.
  size_t read_part(int& deepest);
  size_t read_program();
  // ProgramParts' readers: the regions up to parts.split, and the call forest from there.
  void read_regions(ProgramParts& parts);
  size_t read_cnodes(ProgramParts& parts);
  size_t read_topologies();

 private:
  size_t bytes_left() const { return std::min(end_, xml_.size()) - pull_.offset(); }
  // The first offset from `at` that is not XML white space (end_ at the most): where the next
  // sibling's tag must begin, for the part readers that look before they pull.
  size_t after_space(size_t at) const {
    while (at < end_ && std::string_view(" \t\r\n").find(xml_[at]) != std::string_view::npos) ++at;
    return at;
  }
  [[noreturn]] void fail(size_t offset, const std::string& what) const {
    throw FormatError(where_ + ":" + line_column(xml_, static_cast<ptrdiff_t>(offset)) + ": " +
                      what);
  }
  Start start_of(const XmlToken& t) const;
  uint32_t id_of(const Start& s, const char* what) const;
  void attr(const XmlToken& t, Attributes& attrs);
  // Calls child(token) for every child element of the element `s`, until its end tag.
  template <class Child>
  void children(const Start& s, Child child);
  // The same, until child(token) returns false (the element's rest is not read).
  template <class Child>
  void children_until(const Start& s, Child child);
  void system_node(const Start& s, Index parent, int depth);
  // Flattened: called from two places (system_node, read_part), GCC no longer inlined it and
  // called out of line for its name comparisons (memcmp), 5-10% more CPU for the system tree.
  [[gnu::flatten]] void group(const Start& s, Index node);
  void location(const Start& s, Index group);
  // True when `t` begins the part read by another thread and that part was taken: `t`'s
  // siblings up to the part's end are in the model as children of `node` (kNoIndex: the
  // system), `depth` being theirs.
  // at_split first: one comparison per node or group when there is no part.
  bool at_split(const XmlToken& t) const {
    return part_ != nullptr && t.offset == part_->split.load(std::memory_order_relaxed);
  }
  [[gnu::noinline]] bool took_part(const XmlToken& t, Index node, int depth);
  void splice(SystemPart& part, Index node);
  void topologies(const Start& s);
  void topologies_or_ahead(const XmlToken& t, TopologiesAhead* ahead);
  void dim(const XmlToken& t, Topology& topology);
  size_t program_bytes() const;  // of the <program> element, 0 when there is none
  void reserve_cnodes();
  void reserve_regions();
  void region(const XmlToken& t, std::unordered_map<uint32_t, Index>& region_by_id);
  // Reads the call forest below the <cnode> just started, without recursion (call trees can be
  // deep). Callee ids are resolved once every region is known.
  void cnode_forest(const XmlToken& root, std::vector<std::pair<Index, uint32_t>>& callees);
  void cnode(const XmlToken& t, Index parent, std::vector<std::pair<Index, uint32_t>>& callees);

  std::string_view xml_;
  XmlPull pull_;
  Model& model_;
  std::string where_;
  size_t end_;                   // of the document part read
  const ReleaseRange& release_;  // the caller's (read_cnodes passes over </program> itself)
  SharedTexts texts_;            // of locations and groups
  SystemPart* part_ = nullptr;   // the system tree's part read by another thread, if any
  int deepest_ = 0;              // the deepest system node read
};

bool TreeReader::took_part(const XmlToken& t, Index node, int depth) {
  if (t.self_closing || t.text_read) return false;
  SystemPart& part = *part_;
  part.ready.wait();
  // The system's children are nodes only (a group there is skipped).
  if (part.error || depth + part.depth > kMaxTreeNesting ||
      (node == kNoIndex && !part.model.system_nodes[0].groups.empty()))
    return false;
  splice(part, node);
  pull_.continue_after(part.end);
  ++parts_taken;
  return true;
}

void TreeReader::splice(SystemPart& part, Index node) {
  Model& from = part.model;
  // The part's node i (i > 0) becomes node `nodes + i`; its node 0 is `node`.
  const Index nodes = static_cast<Index>(model_.system_nodes.size() - 1);
  const Index groups = static_cast<Index>(model_.groups.size());
  const Index locations = static_cast<Index>(model_.locations.size());
  auto node_index = [&](Index i) { return i == 0 ? node : nodes + i; };
  if (node != kNoIndex) {
    SystemNode& parent = model_.system_nodes[node];
    for (const Index child : from.system_nodes[0].children)
      parent.children.push_back(nodes + child);
    for (const Index group : from.system_nodes[0].groups) parent.groups.push_back(groups + group);
  }
  for (size_t i = 1; i < from.system_nodes.size(); ++i) {
    SystemNode& n = from.system_nodes[i];
    n.parent = node_index(n.parent);
    for (Index& child : n.children) child += nodes;
    for (Index& group : n.groups) group += groups;
    model_.system_nodes.push_back(std::move(n));
  }
  // Each vector of the part is given back as soon as it is moved, and the groups' vector grows
  // to the size needed, not to twice its size: the peak memory is the model's.
  for (Location& l : from.locations) {
    l.group += groups;
    model_.locations.push_back(std::move(l));
  }
  std::vector<Location>().swap(from.locations);
  model_.groups.reserve(model_.groups.size() + from.groups.size());
  for (LocationGroup& g : from.groups) {
    g.node = node_index(g.node);
    for (Index& location : g.locations) location += locations;
    model_.groups.push_back(std::move(g));
  }
  from = Model();
}

Start TreeReader::start_of(const XmlToken& t) const {
  Start s;
  s.name = std::string(t.name);
  s.self_closing = t.self_closing || t.text_read;  // read whole: no child elements follow
  s.offset = t.offset;
  const std::string* id = t.attribute("Id");
  if (id == nullptr) id = t.attribute("id");
  if (id != nullptr) {
    s.id = *id;
    s.has_id = true;
  }
  return s;
}

uint32_t TreeReader::id_of(const Start& s, const char* what) const {
  if (!s.has_id) fail(s.offset, "<" + s.name + "> without Id attribute");
  const int64_t v = parse_int(s.id, where_, what);
  if (v < 0 || v > UINT32_MAX) fail(s.offset, std::string(what) + " " + s.id + " out of range");
  return static_cast<uint32_t>(v);
}

void TreeReader::attr(const XmlToken& t, Attributes& attrs) {
  const std::string* key = t.attribute("key");
  const std::string* value = t.attribute("value");
  std::string k = key ? *key : std::string(), v = value ? *value : std::string();
  pull_.skip_element();
  for (auto& kv : attrs)
    if (kv.first == k) {
      kv.second = std::move(v);
      return;
    }
  attrs.emplace_back(std::move(k), std::move(v));
}

template <class Child>
void TreeReader::children(const Start& s, Child child) {
  children_until(s, [&](const XmlToken& t) {
    child(t);
    return true;
  });
}

template <class Child>
void TreeReader::children_until(const Start& s, Child child) {
  if (s.self_closing) return;
  while (true) {
    const XmlToken& t = pull_.next_child();
    switch (t.kind) {
      case XmlToken::Kind::kEof:
        fail(t.offset, "malformed XML: <" + s.name + "> not closed");
      case XmlToken::Kind::kText:
        break;  // white space between elements
      case XmlToken::Kind::kEnd:
        if (t.name != s.name)
          fail(t.offset, "malformed XML: </" + std::string(t.name) + "> closes <" + s.name + ">");
        return;
      case XmlToken::Kind::kStart:
        if (!child(t)) return;
        break;
    }
  }
}

void TreeReader::location(const Start& s, Index group) {
  // Built in place: a million locations, each moved and destroyed, cost a tenth of their time.
  const Index self = static_cast<Index>(model_.locations.size());
  Location& l = model_.locations.emplace_back();
  l.id = id_of(s, "location Id");
  l.group = group;
  children(s, [&](const XmlToken& t) {
    if (t.name == "name")
      l.name = texts_.get(pull_.element_text_view(), SharedTexts::kLocationName);
    else if (t.name == "rank")
      l.rank = parse_int(pull_.element_text_view(), where_, "location rank");
    else if (t.name == "type")
      l.type = texts_.get(pull_.element_text_view(), SharedTexts::kLocationType);
    else if (t.name == "attr")
      attr(t, l.attrs);
    else
      pull_.skip_element();
  });
  model_.groups[group].locations.push_back(self);
}

void TreeReader::group(const Start& s, Index node) {
  if (part_ != nullptr) part_->progress.store(s.offset, std::memory_order_relaxed);
  const Index self = static_cast<Index>(model_.groups.size());
  model_.groups.emplace_back();
  model_.groups[self].id = s.has_id ? id_of(s, "location group Id") : 0;
  model_.groups[self].node = node;
  model_.system_nodes[node].groups.push_back(self);
  children(s, [&](const XmlToken& t) {
    LocationGroup& g = model_.groups[self];
    if (t.name == "name")
      g.name = texts_.get(pull_.element_text_view(), SharedTexts::kGroupName);
    else if (t.name == "rank")
      g.rank = parse_int(pull_.element_text_view(), where_, "location group rank");
    else if (t.name == "type")
      g.type = texts_.get(pull_.element_text_view(), SharedTexts::kGroupType);
    else if (t.name == "attr")
      attr(t, g.attrs);
    else if (t.name == "location")
      location(start_of(t), self);
    else
      pull_.skip_element();
  });
}

void TreeReader::system_node(const Start& s, Index parent, int depth) {
  if (depth > kMaxTreeNesting)
    fail(s.offset, "system tree nested deeper than " + std::to_string(kMaxTreeNesting));
  deepest_ = std::max(deepest_, depth);
  const Index self = static_cast<Index>(model_.system_nodes.size());
  model_.system_nodes.emplace_back();
  model_.system_nodes[self].id = s.has_id ? id_of(s, "system tree node Id") : 0;
  model_.system_nodes[self].parent = parent;
  if (parent != kNoIndex) model_.system_nodes[parent].children.push_back(self);
  children(s, [&](const XmlToken& t) {
    if (at_split(t) && took_part(t, self, depth + 1)) return;
    SystemNode& n = model_.system_nodes[self];
    if (t.name == "name")
      n.name = pull_.element_text();
    else if (t.name == "class")
      n.class_name = pull_.element_text();
    else if (t.name == "descr")
      n.descr = pull_.element_text();
    else if (t.name == "attr")
      attr(t, n.attrs);
    else if (t.name == "locationgroup")
      group(start_of(t), self);
    else if (t.name == "systemtreenode")
      system_node(start_of(t), self, depth + 1);
    else
      pull_.skip_element();
  });
}

// Score-P writes a coordinate per location: a million <coord> elements would cost more DOM
// than the whole system tree, so topologies are pulled too.
void TreeReader::topologies(const Start& s) {
  children(s, [&](const XmlToken& t) {
    if (t.name != "cart") return pull_.skip_element();
    // Room for as many coordinates as the rest of the document could hold, and for as many
    // numbers as they would have if all had the first one's count: reserved, not touched, as
    // the locations are (a vector doubling to two million numbers holds both copies).
    Topology topology;
    topology.coords.reserve(bytes_left() / kLeastCoordBytes);
    if (const std::string* name = t.attribute("name")) topology.name = *name;
    children(start_of(t), [&](const XmlToken& c) {
      if (c.name == "dim") return dim(c, topology);
      if (c.name != "coord") return pull_.skip_element();
      Topology::Coord coord;
      int best = -1;
      std::string_view owner_id;
      for (const auto& [key, value] : c.attributes) {
        const int rank = coord_owner_rank(key);
        if (rank >= 0 && (best < 0 || rank < best)) best = rank, owner_id = value;
      }
      if (best >= 0) set_coord_owner(coord, best, owner_id, where_);
      parse_coord_values(pull_.element_text(), topology, coord, where_);
      if (topology.coords.empty())  // a number takes at least 2 bytes ("0 ")
        topology.values.reserve(
            std::min(topology.coords.capacity() * coord.count, bytes_left() / 2));
      topology.coords.push_back(coord);
    });
    model_.topologies.push_back(std::move(topology));
  });
}

void TreeReader::dim(const XmlToken& t, Topology& topology) {
  auto value = [&](const char* key) {
    const std::string* v = t.attribute(key);
    return v ? std::string_view(*v) : std::string_view();
  };
  parse_topology_dim(value("name"), value("size"), value("periodic"), topology, where_);
  pull_.skip_element();
}

void TreeReader::topologies_or_ahead(const XmlToken& t, TopologiesAhead* ahead) {
  if (ahead == nullptr || t.self_closing || t.text_read ||
      ahead->claim(TopologiesAhead::Reader::kSystem))
    return topologies(start_of(t));
  ahead->ready.wait();
  if (t.offset != ahead->begin) return topologies(start_of(t));
  if (ahead->error) std::rethrow_exception(ahead->error);
  for (Topology& topology : ahead->topologies) model_.topologies.push_back(std::move(topology));
  pull_.continue_after(ahead->end);
}

size_t TreeReader::read_topologies() {
  const XmlToken& t = pull_.next();
  if (t.kind != XmlToken::Kind::kStart || t.name != "topologies")
    fail(t.offset, "expected <topologies>");
  topologies(start_of(t));
  pull_.release_read();
  return pull_.offset();
}

size_t TreeReader::read_system(TopologiesAhead* ahead, SystemPart* part) {
  part_ = part;
  if (part != nullptr && split_for_tests.load() >= 0) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (part->split.load() == SystemPart::kNone &&
           part->ready.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready &&
           std::chrono::steady_clock::now() < give_up) {
    }
  }
  const XmlToken& t = pull_.next();
  if (t.kind != XmlToken::Kind::kStart || t.name != "system") fail(t.offset, "expected <system>");
  if (const std::string* title = t.attribute("title")) model_.system_title = *title;
  const Start system = start_of(t);
  // Room for as many locations as the rest of the document could hold, reserved and not
  // touched: the pages used become resident, the rest stays address space. A vector doubling
  // to a million locations would hold both copies at its last growth.
  reserve_unfaulted(model_.locations, bytes_left() / kLeastLocationBytes);
  reserve_unfaulted(model_.groups, bytes_left() / kLeastGroupBytes);
  bool cube3 = false;
  children(system, [&](const XmlToken& c) {
    if (c.name == "systemtreenode" && at_split(c) && took_part(c, kNoIndex, 0)) return;
    if (c.name == "systemtreenode")
      system_node(start_of(c), kNoIndex, 0);
    else if (c.name == "topologies")
      topologies_or_ahead(c, ahead);
    else {
      if (c.name == "machine") cube3 = true;
      pull_.skip_element();
    }
  });
  if (cube3) {
    model_.system_title.clear();
    model_.system_nodes.clear();
    model_.groups.clear();
    model_.topologies.clear();
    std::vector<Location>().swap(model_.locations);  // the reservation too
    return std::string_view::npos;
  }
  pull_.release_read();
  return pull_.offset();
}

// Whether a start tag of element `name` (with its '<') begins at xml[at].
bool starts_tag(std::string_view xml, size_t at, std::string_view tag) {
  const size_t after = at + tag.size();
  return xml.substr(at, tag.size()) == tag && after < xml.size() &&
         std::string_view(" \t\r\n>/").find(xml[after]) != std::string_view::npos;
}

size_t TreeReader::read_part(int& deepest) {
  model_.system_nodes.emplace_back();  // the parent
  // No huge pages here: the part's vectors are copied into the model's and freed, and huge
  // pages rounded up would add ~5 MB to the million-location anchor's peak (0.97-0.99x of it).
  model_.locations.reserve(bytes_left() / kLeastLocationBytes);
  model_.groups.reserve(bytes_left() / kLeastGroupBytes);
  while (true) {
    const size_t at = after_space(pull_.offset());
    const bool node = starts_tag(xml_, at, "<systemtreenode");
    if (at >= end_ || (!node && !starts_tag(xml_, at, "<locationgroup"))) {
      deepest = deepest_;
      pull_.release_read();
      return at;
    }
    const XmlToken* t = &pull_.next();
    if (t->kind == XmlToken::Kind::kText) t = &pull_.next();  // the white space passed above
    if (t->kind != XmlToken::Kind::kStart || t->offset != at) fail(at, "expected a start tag");
    if (node)
      system_node(start_of(*t), 0, 0);
    else
      group(start_of(*t), 0);
  }
}

void TreeReader::region(const XmlToken& t, std::unordered_map<uint32_t, Index>& region_by_id) {
  const Start s = start_of(t);
  if (!s.has_id) fail(s.offset, "<region> without id attribute");
  Region r;
  r.id = id_of(s, "region id");  // -1 or 2^32 must not alias region 0xFFFFFFFF or 0
  if (const std::string* mod = t.attribute("mod")) r.mod = *mod;
  if (const std::string* b = t.attribute("begin")) r.begin = parse_int(*b, where_, "region begin");
  if (const std::string* e = t.attribute("end")) r.end = parse_int(*e, where_, "region end");
  bool mangled = false;
  children(s, [&](const XmlToken& c) {
    if (c.name == "name")
      r.name = pull_.element_text();
    else if (c.name == "mangled_name")
      r.mangled_name = pull_.element_text(), mangled = true;
    else if (c.name == "paradigm")
      r.paradigm = pull_.element_text();
    else if (c.name == "role")
      r.role = pull_.element_text();
    else if (c.name == "url")
      r.url = pull_.element_text();
    else if (c.name == "descr")
      r.descr = pull_.element_text();
    else if (c.name == "attr")
      attr(c, r.attrs);
    else
      pull_.skip_element();
  });
  if (!mangled) r.mangled_name = r.name;
  if (!region_by_id.try_emplace(r.id, static_cast<Index>(model_.regions.size())).second)
    fail(s.offset, "region id " + s.id + " declared twice");
  model_.regions.push_back(std::move(r));
}

void TreeReader::cnode(const XmlToken& t, Index parent,
                       std::vector<std::pair<Index, uint32_t>>& callees) {
  const Start s = start_of(t);
  if (!s.has_id) fail(s.offset, "<cnode> without id attribute");
  Cnode c;
  c.id = id_of(s, "cnode id");
  const std::string* callee = t.attribute("calleeId");
  if (callee == nullptr) fail(s.offset, "cnode " + s.id + " has no calleeId attribute");
  const int64_t rid = parse_int(*callee, where_, "calleeId");
  if (rid < 0 || rid > UINT32_MAX)
    throw FormatError(where_ + ": cnode " + s.id + " calls region " + *callee +
                      ", which is not declared");
  if (const std::string* line = t.attribute("line"))
    c.line = parse_int(*line, where_, "cnode line");
  if (const std::string* mod = t.attribute("mod")) c.mod = *mod;
  c.parent = parent;
  const Index self = static_cast<Index>(model_.cnodes.size());
  callees.emplace_back(self, static_cast<uint32_t>(rid));
  model_.cnodes.push_back(std::move(c));
  if (parent != kNoIndex) model_.cnodes[parent].children.push_back(self);
}

void TreeReader::cnode_forest(const XmlToken& root,
                              std::vector<std::pair<Index, uint32_t>>& callees) {
  // The open <cnode> elements, innermost last: index of the cnode and its start offset.
  std::vector<Index> open;
  cnode(root, kNoIndex, callees);
  if (root.self_closing || root.text_read) return;
  open.push_back(static_cast<Index>(model_.cnodes.size() - 1));
  while (!open.empty()) {
    const XmlToken& t = pull_.next();
    switch (t.kind) {
      case XmlToken::Kind::kEof:
        fail(t.offset, "malformed XML: <cnode> not closed");
      case XmlToken::Kind::kText:
        break;
      case XmlToken::Kind::kEnd:
        if (t.name != "cnode")
          fail(t.offset, "malformed XML: </" + std::string(t.name) + "> closes <cnode>");
        open.pop_back();
        break;
      case XmlToken::Kind::kStart: {
        Cnode& self = model_.cnodes[open.back()];
        if (t.name == "cnode") {
          if (open.size() > kMaxCallDepth)
            fail(t.offset, "call tree nested deeper than " + std::to_string(kMaxCallDepth));
          cnode(t, open.back(), callees);
          if (!t.self_closing) open.push_back(static_cast<Index>(model_.cnodes.size() - 1));
        } else if (t.name == "parameter") {
          auto value = [&](const char* key) {
            const std::string* v = t.attribute(key);
            return v ? *v : std::string();
          };
          self.parameters.push_back({value("partype"), value("parkey"), value("parvalue")});
          pull_.skip_element();
        } else if (t.name == "attr") {
          attr(t, self.attrs);
        } else {
          pull_.skip_element();
        }
        break;
      }
    }
  }
}

// Each call path's region, by the region ids of its calleeId.
void resolve_callees(Model& model, const std::vector<std::pair<Index, uint32_t>>& callees,
                     const std::unordered_map<uint32_t, Index>& region_by_id,
                     const std::string& where) {
  for (const auto& [cnode, region_id] : callees) {
    const auto r = region_by_id.find(region_id);
    if (r == region_by_id.end())
      throw FormatError(where + ": cnode " + std::to_string(model.cnodes[cnode].id) +
                        " calls region " + std::to_string(region_id) + ", which is not declared");
    model.cnodes[cnode].region = r->second;
  }
}

size_t TreeReader::read_program() {
  const XmlToken& t = pull_.next();
  if (t.kind != XmlToken::Kind::kStart || t.name != "program") fail(t.offset, "expected <program>");
  if (const std::string* title = t.attribute("title")) model_.program_title = *title;
  reserve_cnodes();
  reserve_regions();
  std::unordered_map<uint32_t, Index> region_by_id;
  std::vector<std::pair<Index, uint32_t>> callees;  // cnode, callee region id
  children(start_of(t), [&](const XmlToken& c) {
    if (c.name == "region")
      region(c, region_by_id);
    else if (c.name == "cnode")
      cnode_forest(c, callees);
    else
      pull_.skip_element();
  });
  resolve_callees(model_, callees, region_by_id, where_);
  pull_.release_read();
  return pull_.offset();
}

size_t TreeReader::program_bytes() const {
  size_t program_begin = 0, program_end = 0;
  find_element(xml_, "program", program_begin, program_end);
  if (program_begin == std::string_view::npos || program_end <= program_begin) return 0;
  return program_end - program_begin;
}

// Room for as many call paths (regions) as the program element could hold: grown by doubling,
// a vector was copied at each growth and touched about twice its final size in fresh pages
// (5,000 call paths: ~400 page faults of ~1,000). With the regions reserved and huge pages for
// the call paths, the anchor of 50,000 call paths opens in 39-40 instead of 54-56 ms.
void TreeReader::reserve_cnodes() {
  reserve_unfaulted(model_.cnodes, program_bytes() / kLeastCnodeBytes);
}

void TreeReader::reserve_regions() {
  model_.regions.reserve(model_.regions.size() + program_bytes() / kLeastRegionBytes);
}

// Reads as read_program does, up to the first <cnode> child of <program> (parts.first_cnode)
// or, when there is none, to the program's end tag (parts.regions_end).
void TreeReader::read_regions(ProgramParts& parts) {
  const XmlToken& t = pull_.next();
  if (t.kind != XmlToken::Kind::kStart || t.name != "program") fail(t.offset, "expected <program>");
  if (const std::string* title = t.attribute("title")) model_.program_title = *title;
  reserve_regions();
  children_until(start_of(t), [&](const XmlToken& c) {
    if (c.name == "cnode") {
      parts.first_cnode = c.offset;
      return false;
    }
    if (c.name == "region")
      region(c, parts.region_by_id);
    else
      pull_.skip_element();
    return true;
  });
  if (parts.first_cnode == std::string_view::npos) parts.regions_end = pull_.offset();
  pull_.release_read();
}

// Reads the call forests from parts.split on, as read_program does, up to </program>: the
// program's common shape, call forests and white space. Anything else (a <region>, another
// element, a comment) makes parts.unusual: the program is then read in order.
size_t TreeReader::read_cnodes(ProgramParts& parts) {
  reserve_cnodes();
  constexpr std::string_view kEndTag = "</program>";
  while (true) {
    const size_t at = after_space(pull_.offset());
    if (xml_.substr(at, kEndTag.size()) == kEndTag) {
      pull_.release_read();
      if (release_) release_(pull_.offset(), at + kEndTag.size());  // passed over, not pulled
      return at + kEndTag.size();
    }
    if (at >= end_ || !starts_tag(xml_, at, "<cnode")) break;
    const XmlToken* t = &pull_.next();
    if (t->kind == XmlToken::Kind::kText) t = &pull_.next();  // the white space passed above
    if (t->kind != XmlToken::Kind::kStart || t->offset != at) break;
    cnode_forest(*t, parts.callees);
  }
  parts.unusual = true;
  return std::string_view::npos;
}

}  // namespace

size_t read_program(std::string_view xml, size_t begin, size_t end, Model& model,
                    const std::string& where, const ReleaseRange& release) {
  return TreeReader(xml, begin, end, model, where, release).read_program();
}

void read_program_regions(std::string_view xml, size_t begin, size_t end, Model& model,
                          const std::string& where, const ReleaseRange& release,
                          ProgramParts& parts) {
  try {
    TreeReader(xml, begin, end, model, where, release).read_regions(parts);
  } catch (...) {
    parts.regions_error = std::current_exception();
  }
}

size_t finish_program(std::string_view xml, size_t begin, size_t end, Model& model,
                      const std::string& where, const ReleaseRange& release, ProgramParts& parts) {
  // The regions' reader reads what one reader reads up to the first <cnode> child: its error
  // is the first in the document.
  if (parts.regions_error) std::rethrow_exception(parts.regions_error);
  const bool none = parts.split == std::string_view::npos;
  if (none && parts.regions_end != std::string_view::npos) return parts.regions_end;
  if (!none && parts.first_cnode == parts.split && !parts.unusual) {
    if (parts.cnodes_error) std::rethrow_exception(parts.cnodes_error);
    resolve_callees(model, parts.callees, parts.region_by_id, where);
    ++program_parts_used;
    return parts.end;
  }
  model.program_title.clear();
  model.regions.clear();
  model.cnodes.clear();
  return read_program(xml, begin, end, model, where, release);
}

size_t read_system(std::string_view xml, size_t begin, size_t end, Model& model,
                   const std::string& where, const ReleaseRange& release, TopologiesAhead* ahead,
                   SystemPart* part) {
  return TreeReader(xml, begin, end, model, where, release).read_system(ahead, part);
}

namespace {

// The first start tag `tag` (with its '<') in xml[from, limit); npos: none.
size_t find_tag(std::string_view xml, size_t from, size_t limit, std::string_view tag) {
  while (from < limit) {
    const void* hit = ::memmem(xml.data() + from, limit - from, tag.data(), tag.size());
    if (hit == nullptr) break;
    const size_t at = static_cast<size_t>(static_cast<const char*>(hit) - xml.data());
    if (starts_tag(xml, at, tag)) return at;
    from = at + tag.size();
  }
  return std::string_view::npos;
}

}  // namespace

void read_program_cnodes(std::string_view xml, size_t begin, size_t end, Model& model,
                         const std::string& where, const ReleaseRange& release,
                         ProgramParts& parts) {
  try {
    parts.split = find_tag(xml, begin, end, "<cnode");
    if (parts.split == std::string_view::npos) return;
    parts.end = TreeReader(xml, parts.split, end, model, where, release).read_cnodes(parts);
  } catch (...) {
    parts.cnodes_error = std::current_exception();
  }
}

void set_system_split_for_tests(double fraction) {
  split_for_tests = fraction;
}

size_t system_parts_taken() {
  return parts_taken;
}

size_t program_parts_taken() {
  return program_parts_used;
}

void read_system_part(std::string_view xml, const std::string& where, const ReleaseRange& release,
                      SystemPart& part) {
  try {
    const size_t limit = std::min(part.limit, xml.size());
    const size_t at = part.progress.load(std::memory_order_relaxed);
    const bool forced = split_for_tests.load() >= 0;
    // What is left of a small tree takes the system reader less than a part would save (a part
    // also keeps texts of its own, not shared with the first part's locations).
    if (!forced && (limit > at ? limit - at : 0) < kMinPartBytes) {
      part.done.set_value();
      return;
    }
    const double fraction = forced ? split_for_tests.load() : 0.5;
    const size_t from =
        at + static_cast<size_t>(static_cast<double>(limit > at ? limit - at : 0) * fraction);
    // A node (its siblings after it make the part), else a group (a system of one node splits
    // between its groups). Looked for near `from` only: a search over the rest would make its
    // pages resident.
    const size_t near = std::min(limit, from + kSplitSearch);
    size_t split = find_tag(xml, from, near, "<systemtreenode");
    if (split == SystemPart::kNone) split = find_tag(xml, from, near, "<locationgroup");
    if (!part.finished.load() && split != SystemPart::kNone) {
      part.split.store(split, std::memory_order_release);
      TreeReader reader(xml, split, limit, part.model, where, release);
      part.end = reader.read_part(part.depth);
    }
  } catch (...) {
    part.error = std::current_exception();
  }
  part.done.set_value();
}

namespace {

// Where the <topologies> start tag of the system beginning at `system_begin` is: looked for
// from the document's end back over the tags after the system tree (coordinates, dims,
// </system>, </cube>); npos at the system tree's last location or node, or at the system.
size_t find_topologies(std::string_view xml, size_t system_begin) {
  auto is = [&](size_t at, std::string_view tag) {
    const size_t after = at + tag.size();
    return xml.substr(at, tag.size()) == tag &&
           (after >= xml.size() ||
            std::string_view(" \t\r\n>/").find(xml[after]) != std::string_view::npos);
  };
  for (size_t end = xml.size(); end > system_begin;) {
    const void* lt = ::memrchr(xml.data() + system_begin, '<', end - system_begin);
    if (lt == nullptr) break;
    const size_t at = static_cast<size_t>(static_cast<const char*>(lt) - xml.data());
    if (at == system_begin) break;
    if (is(at, "<topologies")) return at;
    if (is(at, "</systemtreenode") || is(at, "</location") || is(at, "<location") ||
        is(at, "</locationgroup") || is(at, "<systemtreenode"))
      break;
    end = at;
  }
  return std::string_view::npos;
}

}  // namespace

void read_topologies_ahead(std::string_view xml, size_t system_begin, const std::string& where,
                           const ReleaseRange& release, TopologiesAhead& ahead) {
  try {
    if (!ahead.claim(TopologiesAhead::Reader::kAhead)) {
      ahead.done.set_value();
      return;
    }
    ahead.begin = find_topologies(xml, system_begin);
    if (ahead.begin != std::string_view::npos) {
      Model scratch;
      ahead.end =
          TreeReader(xml, ahead.begin, xml.size(), scratch, where, release).read_topologies();
      ahead.topologies = std::move(scratch.topologies);
    }
  } catch (...) {
    ahead.error = std::current_exception();
  }
  ahead.done.set_value();
}

}  // namespace cubekit::format
