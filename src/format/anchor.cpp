#include "format/anchor.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <unordered_map>

#include "cubekit/error.hpp"
#include "cubekit/parallel.hpp"
#include "format/cube3.hpp"
#include "format/tree_reader.hpp"

namespace cubekit::format {
namespace {

// Quotes the bare attribute values CubeLib and CubeW write inside <cubepl ...> and
// <cubeplaggr ...> start tags, so that a conforming XML parser accepts them. `emit` receives
// the text piece by piece (so the result can be built straight into the parser's buffer).
template <class Emit>
void quote_bare_attributes(std::string_view xml, Emit emit) {
  size_t pos = 0;
  while (true) {
    // memmem, not string_view::find: the latter stops at every '<' of a huge document.
    const void* hit = ::memmem(xml.data() + pos, xml.size() - pos, "<cubepl", 7);
    if (hit == nullptr) break;
    const size_t tag = static_cast<const char*>(hit) - xml.data();
    const size_t close = xml.find('>', tag);
    if (close == std::string_view::npos) break;
    emit(xml.substr(pos, tag - pos));
    std::string_view t = xml.substr(tag, close - tag);
    size_t from = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] != '=' || i + 1 >= t.size() || t[i + 1] == '"' || t[i + 1] == '\'') continue;
      size_t j = i + 1;
      while (j < t.size() && t[j] != ' ' && t[j] != '/' && t[j] != '\t' && t[j] != '\n') ++j;
      emit(t.substr(from, i + 1 - from));
      emit("\"");
      emit(t.substr(i + 1, j - i - 1));
      emit("\"");
      from = j;
      i = j - 1;
    }
    emit(t.substr(from));
    pos = close;
  }
  emit(xml.substr(pos));
}

}  // namespace

std::string line_column(std::string_view text, ptrdiff_t offset) {
  size_t line = 1, col = 1;
  for (ptrdiff_t i = 0; i < offset && i < static_cast<ptrdiff_t>(text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

namespace {

std::string text_of(const pugi::xml_node& node, const char* child) {
  return node.child(child).child_value();
}

bool parse_bool(const pugi::xml_attribute& a, bool fallback) {
  if (!a) return fallback;
  std::string v = a.value();
  std::transform(v.begin(), v.end(), v.begin(), ::tolower);
  if (v == "true") return true;
  if (v == "false") return false;
  return fallback;
}

void parse_metric(const pugi::xml_node& node, Index parent, Model& model, const std::string& where,
                  int depth) {
  if (depth > kMaxTreeNesting)
    throw FormatError(where + ": metrics nested deeper than " + std::to_string(kMaxTreeNesting));
  Metric m;
  const char* id = id_attr(node);
  if (id == nullptr) throw FormatError(where + ": <metric> without id attribute");
  const int64_t idv = parse_int(id, where, "metric id");
  if (idv < 0 || idv > UINT32_MAX)
    throw FormatError(where + ": metric id " + std::string(id) + " out of range");
  m.id = static_cast<uint32_t>(idv);
  // Absent or unknown: EXCLUSIVE, CubeLib's default.
  m.kind = metric_kind_from_name(node.attribute("type").value()).value_or(MetricKind::kExclusive);
  std::string viz = node.attribute("viztype").value();
  std::transform(viz.begin(), viz.end(), viz.begin(), ::toupper);
  m.ghost = viz == "GHOST";
  m.convertible = parse_bool(node.attribute("convertible"), true);
  m.cacheable = parse_bool(node.attribute("cacheable"), true);
  m.disp_name = text_of(node, "disp_name");
  m.uniq_name = text_of(node, "uniq_name");
  m.dtype_text = text_of(node, "dtype");
  m.uom = text_of(node, "uom");
  m.val = text_of(node, "val");
  m.url = text_of(node, "url");
  m.descr = text_of(node, "descr");
  const std::string what = where + ": metric '" + m.uniq_name + "' (id " + id + ")";
  try {
    m.dtype = DataType::parse(m.dtype_text);
  } catch (const FormatError& e) {
    throw FormatError(what + ": " + e.what());
  }
  if (m.kind == MetricKind::kInclusive && !m.dtype.allows_inclusive_storage())
    throw FormatError(what + ": INCLUSIVE storage is impossible for dtype " + m.dtype_text);
  if (const pugi::xml_node e = node.child("cubepl")) {
    m.expression = e.child_value();
    const pugi::xml_attribute rw =
        e.attribute("rowwise") ? e.attribute("rowwise") : e.attribute("locationwise");
    m.rowwise = parse_bool(rw, true);
  }
  m.init_expression = text_of(node, "cubeplinit");
  for (const pugi::xml_node& a : node.children("cubeplaggr")) {
    std::string kind = a.attribute("cubeplaggrtype").value();
    std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
    if (kind == "plus") m.aggr_plus = a.child_value();
    if (kind == "minus") m.aggr_minus = a.child_value();
    if (kind == "aggr") m.aggr_aggr = a.child_value();
  }
  parse_attrs(node, m.attrs);
  m.parent = parent;
  const Index self = static_cast<Index>(model.metrics.size());
  model.metrics.push_back(std::move(m));
  if (parent != kNoIndex) model.metrics[parent].children.push_back(self);
  for (const pugi::xml_node& child : node.children("metric"))
    parse_metric(child, self, model, where, depth + 1);
}

// std::isspace of the "C" locale, inline: parse_int runs for every location's rank and every
// coordinate number, and std::isspace is a call into the C library each time.
bool is_c_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');  // \t \n \v \f \r
}

}  // namespace

int64_t parse_int(std::string_view text, const std::string& where, const std::string& what) {
  while (!text.empty() && is_c_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_c_space(text.back())) text.remove_suffix(1);
  int64_t v = 0;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw FormatError(where + ": " + what + " '" + std::string(text) +
                      "' is not a decimal integer");
  return v;
}

const char* id_attr(const pugi::xml_node& node) {
  if (auto a = node.attribute("id")) return a.value();
  if (auto a = node.attribute("Id")) return a.value();
  return nullptr;
}

void load_xml(pugi::xml_document& doc, std::string_view xml, const std::string& where,
              const std::vector<XmlCut>& cuts) {
  // One copy only, made straight into memory pugixml then owns and parses in place: anchors of
  // a million locations are hundreds of megabytes.
  auto pieces = [&](auto emit) {
    size_t from = 0;
    for (const XmlCut& cut : cuts) {
      quote_bare_attributes(xml.substr(from, cut.begin - from), emit);
      emit(cut.replacement);
      from = cut.end;
    }
    quote_bare_attributes(xml.substr(from), emit);
  };
  size_t size = 0;
  pieces([&](std::string_view piece) { size += piece.size(); });
  char* buffer = static_cast<char*>(pugi::get_memory_allocation_function()(size + 1));
  if (buffer == nullptr)
    throw FormatError(where + ": out of memory for " + std::to_string(size) + " bytes of XML");
  size_t at = 0;
  pieces([&](std::string_view piece) {
    std::memcpy(buffer + at, piece.data(), piece.size());
    at += piece.size();
  });
  const pugi::xml_parse_result r = doc.load_buffer_inplace_own(
      buffer, size, pugi::parse_default | pugi::parse_ws_pcdata_single, pugi::encoding_utf8);
  // The offset is into the quoted text; lines are the same as in the original.
  ptrdiff_t offset = r.offset;
  for (const XmlCut& cut : cuts)
    if (offset > static_cast<ptrdiff_t>(cut.begin + cut.replacement.size()))
      offset += static_cast<ptrdiff_t>(cut.end - cut.begin - cut.replacement.size());
  if (!r)
    throw FormatError(where + ":" + line_column(xml, offset) +
                      ": malformed XML: " + r.description());
}

void parse_attrs(const pugi::xml_node& parent, Attributes& out) {
  for (const pugi::xml_node& a : parent.children("attr")) {
    std::string key = a.attribute("key").value();
    std::string value = a.attribute("value").value();
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
    if (it != out.end())
      it->second = std::move(value);
    else
      out.emplace_back(std::move(key), std::move(value));
  }
}

void parse_header(const pugi::xml_node& cube, Model& model) {
  model.version = cube.attribute("version").value();
  parse_attrs(cube, model.attrs);
  for (const pugi::xml_node& u : cube.child("doc").child("mirrors").children("murl"))
    model.mirrors.emplace_back(u.child_value());
}

void parse_metrics(const pugi::xml_node& metrics, Model& model, const std::string& where) {
  model.metrics_title = metrics.attribute("title").value();
  for (const pugi::xml_node& m : metrics.children("metric"))
    parse_metric(m, kNoIndex, model, where, 0);
}

namespace {

// The attributes naming a coordinate's owner, most specific first (Cube 4 names, then Cube 3's).
constexpr std::pair<std::string_view, Topology::Owner> kCoordOwners[] = {
    {"locId", Topology::Owner::kLocation}, {"thrdId", Topology::Owner::kLocation},
    {"lgId", Topology::Owner::kGroup},     {"procId", Topology::Owner::kGroup},
    {"stnId", Topology::Owner::kNode},     {"nodeId", Topology::Owner::kNode},
    {"machId", Topology::Owner::kNode}};

}  // namespace

int coord_owner_rank(std::string_view attribute) {
  for (size_t i = 0; i < std::size(kCoordOwners); ++i)
    if (kCoordOwners[i].first == attribute) return static_cast<int>(i);
  return -1;
}

void set_coord_owner(Topology::Coord& coord, int rank, std::string_view id,
                     const std::string& where) {
  coord.owner = kCoordOwners[rank].second;
  coord.owner_id = static_cast<uint32_t>(parse_int(id, where, "coord owner"));
}

void parse_coord_values(std::string_view text, Topology& topology, Topology::Coord& coord,
                        const std::string& where) {
  std::vector<int64_t>& values = topology.values;
  const size_t first = values.size();
  while (!text.empty()) {
    const size_t b = text.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) break;
    text.remove_prefix(b);
    const size_t e = std::min(text.find_first_of(" \t\r\n"), text.size());
    values.push_back(parse_int(text.substr(0, e), where, "topology coordinate"));
    text.remove_prefix(e);
  }
  if (values.size() > UINT32_MAX)
    throw FormatError(where + ": topology '" + topology.name + "' has 2^32 numbers or more");
  coord.first = static_cast<uint32_t>(first);
  coord.count = static_cast<uint32_t>(values.size() - first);
}

void parse_topology_dim(std::string_view name, std::string_view size, std::string_view periodic,
                        Topology& topology, const std::string& where) {
  Topology::Dim dim;
  dim.name = std::string(name);
  dim.size = parse_int(size, where, "topology dim size");
  dim.periodic = periodic == "true";
  topology.dims.push_back(std::move(dim));
}

void parse_topologies(const pugi::xml_node& topologies, Model& model, const std::string& where) {
  for (const pugi::xml_node& cart : topologies.children("cart")) {
    Topology t;
    t.name = cart.attribute("name").value();
    for (const pugi::xml_node& d : cart.children("dim"))
      parse_topology_dim(d.attribute("name").value(), d.attribute("size").value(),
                         d.attribute("periodic").value(), t, where);
    for (const pugi::xml_node& c : cart.children("coord")) {
      Topology::Coord coord;
      for (const auto& [name, owner] : kCoordOwners) {
        if (auto a = c.attribute(std::string(name).c_str())) {
          set_coord_owner(coord, coord_owner_rank(name), a.value(), where);
          break;
        }
      }
      parse_coord_values(c.child_value(), t, coord, where);
      t.coords.push_back(std::move(coord));
    }
    model.topologies.push_back(std::move(t));
  }
}

namespace {

// Where the call tree and the system tree end (npos: absent, or a system written the Cube 3
// way).
struct TreeEnds {
  size_t program = std::string_view::npos, system = std::string_view::npos;
};

// Reads the call tree and the system tree into `model` with the pull reader. They fill
// separate parts of the model: they are read side by side. Jobs are handed out in order: the
// system tree and the call tree start at once (either may be the longer: a huge system, or a
// call tree of thousands of call paths beside a few thousand locations), the call tree as two
// jobs, its regions and its call forest (ProgramParts: a call tree of many call paths is most
// of its anchor), then the system's topologies (Score-P: a coordinate per location), which
// stand after the system tree and are read ahead of it unless the system reader reached them
// first (it then reads them itself instead of waiting), then the second half of what is left
// of the system tree (SystemPart: the two threads end together). The error told is the first
// in the document.
TreeEnds read_trees(std::string_view xml, size_t program_begin, size_t system_begin, Model& model,
                    const std::string& where, const ReleaseRange& release) {
  const unsigned threads = available_threads();
  TreeEnds ends;
  const bool side_by_side = threads > 1 && system_begin != std::string_view::npos;
  const bool program_parts = threads > 1 && program_begin != std::string_view::npos;
  TopologiesAhead ahead;
  SystemPart part;
  part.progress = system_begin;
  ProgramParts program;
  std::exception_ptr errors[2];
  parallel_for(
      5,
      [&](size_t job) {
        if (job == 3) {
          if (side_by_side) read_topologies_ahead(xml, system_begin, where, release, ahead);
          return;
        }
        if (job == 4) {
          if (!side_by_side) return;
          ahead.ready.wait();  // job 3 has begun: jobs are handed out in order
          if (ahead.reader == TopologiesAhead::Reader::kSystem) {
            part.done.set_value();  // the system reader is past its tree
            return;
          }
          part.limit = ahead.begin != std::string_view::npos ? ahead.begin : xml.size();
          return read_system_part(xml, where, release, part);
        }
        if (job == 1 && program_parts)
          return read_program_regions(xml, program_begin, xml.size(), model, where, release,
                                      program);
        if (job == 2) {
          if (program_parts)
            read_program_cnodes(xml, program_begin, xml.size(), model, where, release, program);
          return;
        }
        const size_t tree = job == 1 ? 0 : 1;
        try {
          if (tree == 0 && program_begin != std::string_view::npos)
            ends.program = read_program(xml, program_begin, xml.size(), model, where, release);
          if (tree == 1 && system_begin != std::string_view::npos)
            ends.system =
                read_system(xml, system_begin, xml.size(), model, where, release,
                            side_by_side ? &ahead : nullptr, side_by_side ? &part : nullptr);
        } catch (...) {
          errors[tree] = std::current_exception();
        }
        if (tree == 1) part.finished = true;
      },
      threads);
  if (program_parts) {
    try {
      ends.program = finish_program(xml, program_begin, xml.size(), model, where, release, program);
    } catch (...) {
      errors[0] = std::current_exception();
    }
  }
  for (const size_t tree :
       {program_begin < system_begin ? 0 : 1, program_begin < system_begin ? 1 : 0})
    if (errors[tree]) std::rethrow_exception(errors[tree]);
  return ends;
}

}  // namespace

Model parse_anchor(std::string_view xml, const std::string& where, const ReleaseRange& release) {
  // The call tree and the system tree go through the pull reader (the system tree unless it
  // is written the Cube 3 way), first: they find where they end, so the document is passed
  // over once, and the pages they have read may go. pugixml then gets the rest, with empty
  // elements in their place.
  Model model;
  const size_t program_begin = find_start_tag(xml, "program");
  const size_t system_begin = find_start_tag(xml, "system");
  const TreeEnds ends = read_trees(xml, program_begin, system_begin, model, where, release);
  const size_t program_end = ends.program, system_end = ends.system;
  const bool stream_system = system_end != std::string_view::npos;
  std::vector<XmlCut> cuts;
  if (program_end != std::string_view::npos)
    cuts.push_back({program_begin, program_end, "<program/>"});
  if (stream_system) cuts.push_back({system_begin, system_end, "<system/>"});
  std::sort(cuts.begin(), cuts.end(),
            [](const XmlCut& a, const XmlCut& b) { return a.begin < b.begin; });
  if (cuts.size() == 2 && cuts[0].end > cuts[1].begin)
    throw FormatError(where + ": <program> and <system> overlap");
  pugi::xml_document doc;
  load_xml(doc, xml, where, cuts);
  const pugi::xml_node cube = doc.child("cube");
  if (!cube) throw FormatError(where + ": no <cube> root element");
  parse_header(cube, model);
  if (model.version.empty() || (model.version.rfind("4.", 0) != 0 && model.version != "3.0"))
    throw FormatError(where + ": unsupported <cube version=\"" + model.version +
                      "\">, expected 3.0 or 4.x");
  for (const char* part : {"metrics", "program", "system"})
    if (!cube.child(part)) throw FormatError(where + ": no <" + std::string(part) + "> element");
  parse_metrics(cube.child("metrics"), model, where);
  // Early Cube 4 anchors (CubeLib's 4.0 test file) still describe the system the Cube 3 way.
  if (!stream_system) parse_cube3_system(cube.child("system"), model, xml, where);
  model.finalize(where);
  return model;
}

}  // namespace cubekit::format
