// The <system> element of an anchor, read with the pull tokenizer: a report with a million
// locations would need half a gigabyte of DOM nodes for this part alone (issue 5).
#include "format/system_reader.hpp"


#include <cstring>

#include "cubekit/error.hpp"
#include "format/anchor.hpp"
#include "format/xml_pull.hpp"

namespace cubekit::format {

void find_system_element(std::string_view xml, size_t& begin, size_t& end) {
  begin = end = std::string_view::npos;
  size_t at = 0;
  while ((at = xml.find("<system", at)) != std::string_view::npos) {
    const char next = at + 7 < xml.size() ? xml[at + 7] : '\0';
    if (next == '>' || next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == '/')
      break;
    at += 7;  // e.g. <systemtreenode outside <system>: not ours
  }
  if (at == std::string_view::npos) return;
  const size_t close = xml.rfind("</system>");
  begin = at;
  if (close != std::string_view::npos && close > at) {
    end = close + 9;
  } else {
    const size_t gt = xml.find('>', at);  // <system/> or an unclosed element
    end = gt == std::string_view::npos ? xml.size() : gt + 1;
  }
}

namespace {

constexpr int kMaxNesting = 4096;

// The parts of a start tag that outlive the tokenizer's next token.
struct Start {
  std::string name;
  std::string id;
  bool has_id = false;
  bool self_closing = false;
  size_t offset = 0;
};

class SystemReader {
 public:
  SystemReader(std::string_view xml, size_t begin, size_t end, Model& model, std::string where)
      : xml_(xml), pull_(xml, begin, end, where), model_(model), where_(std::move(where)) {}
  void read();

 private:
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
  void system_node(const Start& s, Index parent, int depth);
  void group(const Start& s, Index node);
  void location(const Start& s, Index group);
  void topologies(const Start& s);
  void dim(const XmlToken& t, Topology& topology);

  std::string_view xml_;
  XmlPull pull_;
  Model& model_;
  std::string where_;
};

Start SystemReader::start_of(const XmlToken& t) const {
  Start s;
  s.name = std::string(t.name);
  s.self_closing = t.self_closing;
  s.offset = t.offset;
  const std::string* id = t.attribute("Id");
  if (id == nullptr) id = t.attribute("id");
  if (id != nullptr) {
    s.id = *id;
    s.has_id = true;
  }
  return s;
}

uint32_t SystemReader::id_of(const Start& s, const char* what) const {
  if (!s.has_id) fail(s.offset, "<" + s.name + "> without Id attribute");
  const int64_t v = parse_int(s.id, where_, what);
  if (v < 0 || v > UINT32_MAX) fail(s.offset, std::string(what) + " " + s.id + " out of range");
  return static_cast<uint32_t>(v);
}

void SystemReader::attr(const XmlToken& t, Attributes& attrs) {
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
void SystemReader::children(const Start& s, Child child) {
  if (s.self_closing) return;
  while (true) {
    const XmlToken& t = pull_.next();
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
        child(t);
        break;
    }
  }
}

void SystemReader::location(const Start& s, Index group) {
  Location l;
  l.id = id_of(s, "location Id");
  children(s, [&](const XmlToken& t) {
    if (t.name == "name")
      l.name = pull_.element_text();
    else if (t.name == "rank")
      l.rank = parse_int(pull_.element_text(), where_, "location rank");
    else if (t.name == "type")
      l.type = pull_.element_text();
    else if (t.name == "attr")
      attr(t, l.attrs);
    else
      pull_.skip_element();
  });
  l.group = group;
  model_.groups[group].locations.push_back(static_cast<Index>(model_.locations.size()));
  model_.locations.push_back(std::move(l));
}

void SystemReader::group(const Start& s, Index node) {
  const Index self = static_cast<Index>(model_.groups.size());
  model_.groups.emplace_back();
  model_.groups[self].id = s.has_id ? id_of(s, "location group Id") : 0;
  model_.groups[self].node = node;
  model_.system_nodes[node].groups.push_back(self);
  children(s, [&](const XmlToken& t) {
    LocationGroup& g = model_.groups[self];
    if (t.name == "name")
      g.name = pull_.element_text();
    else if (t.name == "rank")
      g.rank = parse_int(pull_.element_text(), where_, "location group rank");
    else if (t.name == "type")
      g.type = pull_.element_text();
    else if (t.name == "attr")
      attr(t, g.attrs);
    else if (t.name == "location")
      location(start_of(t), self);
    else
      pull_.skip_element();
  });
}

void SystemReader::system_node(const Start& s, Index parent, int depth) {
  if (depth > kMaxNesting)
    fail(s.offset, "system tree nested deeper than " + std::to_string(kMaxNesting));
  const Index self = static_cast<Index>(model_.system_nodes.size());
  model_.system_nodes.emplace_back();
  model_.system_nodes[self].id = s.has_id ? id_of(s, "system tree node Id") : 0;
  model_.system_nodes[self].parent = parent;
  if (parent != kNoIndex) model_.system_nodes[parent].children.push_back(self);
  children(s, [&](const XmlToken& t) {
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
void SystemReader::topologies(const Start& s) {
  children(s, [&](const XmlToken& t) {
    if (t.name != "cart") return pull_.skip_element();
    Topology topology;
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
      parse_coord_values(pull_.element_text(), coord, where_);
      topology.coords.push_back(std::move(coord));
    });
    model_.topologies.push_back(std::move(topology));
  });
}

void SystemReader::dim(const XmlToken& t, Topology& topology) {
  auto value = [&](const char* key) {
    const std::string* v = t.attribute(key);
    return v ? std::string_view(*v) : std::string_view();
  };
  parse_topology_dim(value("name"), value("size"), value("periodic"), topology, where_);
  pull_.skip_element();
}

void SystemReader::read() {
  const XmlToken& t = pull_.next();
  if (t.kind != XmlToken::Kind::kStart || t.name != "system") fail(t.offset, "expected <system>");
  if (const std::string* title = t.attribute("title")) model_.system_title = *title;
  const Start system = start_of(t);
  children(system, [&](const XmlToken& c) {
    if (c.name == "systemtreenode")
      system_node(start_of(c), kNoIndex, 0);
    else if (c.name == "topologies")
      topologies(start_of(c));
    else
      pull_.skip_element();
  });
}

}  // namespace

void read_system(std::string_view xml, size_t begin, size_t end, Model& model,
                 const std::string& where) {
  SystemReader(xml, begin, end, model, where).read();
}

}  // namespace cubekit::format
