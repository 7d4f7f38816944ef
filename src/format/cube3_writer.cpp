// Cube 3 export (cube-format.md §10): the definitions in the Cube 3 vocabulary, then one
// <matrix> per stored metric. Mirrors what CubeLib's export keeps and drops (§10.4) and its
// layout (indentation, a row for every call path, one value per line), so that the text is the
// one CubeLib writes; values are rounded as CubeLib rounds them unless exact ones are asked for.
// The values come from Cube3Rows: the document is format's, the call-exclusive values of a
// report are calc's (src/algebra/cube3_export.cpp hands them in).
#include "format/cube3_writer.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "core/tree_walk.hpp"
#include "cubekit/atomic_file.hpp"
#include "cubekit/error.hpp"
#include "format/anchor_writer.hpp"
#include "format/xml_escape.hpp"

namespace cubekit::format {
namespace {

// The document's bytes into an AtomicFile, plain or gzip-compressed: it appears at its name
// only once commit() succeeded.
class DocumentOutput {
 public:
  DocumentOutput(const std::string& path, bool gzip) : file_(path) {
    if (!gzip) return;
    // gzclose closes the descriptor it was given; a duplicate keeps the file's own for its sync.
    const int dup = ::dup(file_.descriptor());
    gz_ = dup < 0 ? nullptr : ::gzdopen(dup, "wb6");
    if (gz_ == nullptr) {
      if (dup >= 0) ::close(dup);
      fail("cannot start gzip compression");
    }
    buffer_.reserve(kChunk + 4096);
  }
  ~DocumentOutput() {
    if (gz_ != nullptr) ::gzclose(gz_);
  }
  DocumentOutput(const DocumentOutput&) = delete;
  DocumentOutput& operator=(const DocumentOutput&) = delete;

  void put(std::string_view s) {
    if (gz_ == nullptr) return file_.write(s);
    buffer_ += s;
    if (buffer_.size() >= kChunk) compress();
  }

  void commit() {
    if (gz_ != nullptr) {
      compress();
      const int rc = ::gzclose(gz_);
      gz_ = nullptr;
      if (rc != Z_OK) fail("gzip compression failed (disk full?)");
    }
    file_.commit();
  }

 private:
  static constexpr size_t kChunk = 1 << 20;

  [[noreturn]] void fail(const char* what) const {
    const int error = errno;
    throw IoError(file_.path() + ": " + what + ": " + std::strerror(error));
  }

  void compress() {
    if (buffer_.empty()) return;
    if (::gzwrite(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size())) !=
        static_cast<int>(buffer_.size()))
      fail("gzip write failed (disk full?)");
    buffer_.clear();
  }

  AtomicFile file_;
  gzFile gz_ = nullptr;
  std::string buffer_;
};

// Why a metric (and with it its subtree) cannot go into a Cube 3 document; empty if it can.
std::string exclusion_reason(const Metric& m) {
  if (is_derived(m.kind)) return "it is derived (Cube 3 has no derived metrics)";
  if (m.ghost) return "it is a ghost metric";
  if (!m.dtype.is_single_number())  // Cube 3 rows: one number per thread
    return "its values (" + m.dtype.dtype_text() + ") are not one number per thread";
  return {};
}

// Appends the shortest text that reads back as the same value (std::to_chars guarantees the
// round trip for doubles; integers are printed in their own width).
template <typename T>
void append_exact(std::string& out, T v) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, v);
  out.append(text, result.ptr);
}

// CubeLib prints a value with the C++ stream defaults, i.e. printf's %g with 6 significant
// digits (0.1 + 1e-15 shows as 0.1); MIN/MAXDOUBLE values with 12.
void append_rounded(std::string& out, double v, int digits) {
  char text[64];
  const int n = std::snprintf(text, sizeof text, "%.*g", digits, v);
  out.append(text, static_cast<size_t>(n));
}

template <typename T>
T load(const std::byte* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

void append_value(std::string& out, const DataType& dtype, const std::byte* at, bool exact) {
  switch (dtype.lane_type()) {
    case LaneType::kInt8:
      return append_exact(out, load<int8_t>(at));
    case LaneType::kUInt8:
      return append_exact(out, load<uint8_t>(at));
    case LaneType::kInt16:
      return append_exact(out, load<int16_t>(at));
    case LaneType::kUInt16:
      return append_exact(out, load<uint16_t>(at));
    case LaneType::kInt32:
      return append_exact(out, load<int32_t>(at));
    case LaneType::kUInt32:
      return append_exact(out, load<uint32_t>(at));
    case LaneType::kInt64:
      return append_exact(out, load<int64_t>(at));
    case LaneType::kUInt64:
      return append_exact(out, load<uint64_t>(at));
    case LaneType::kDouble: {
      const double v = load<double>(at);
      const bool min_max =
          dtype.kind() == TypeKind::kMinDouble || dtype.kind() == TypeKind::kMaxDouble;
      // The identity of MIN/MAXDOUBLE (±DBL_MAX) rounded to 12 digits would not read back
      // (CubeLib writes "-", which no Cube 3 reader takes): it is written exactly.
      if (exact || (min_max && std::abs(v) == std::numeric_limits<double>::max()))
        return append_exact(out, v);
      return append_rounded(out, v, min_max ? 12 : 6);
    }
    case LaneType::kScaleFunc:
      break;  // excluded before (not scalar)
  }
}

// Indentation as CubeLib writes it: two spaces per level.
std::string pad(size_t level) {
  return std::string(2 * level, ' ');
}

class Cube3Writer {
 public:
  Cube3Writer(const Model& model, const Cube3Rows& rows, DocumentOutput& out, bool exact_values,
              const Cube3Note& note)
      : rows_(rows), m_(model), out_(out), exact_values_(exact_values), note_(note) {}

  void write() {
    header();
    metrics();
    program();
    system();
    severity();
    out_.put("</cube>\n");
  }

 private:
  void element(size_t level, const char* tag, std::string_view text) {
    out_.put(pad(level) + '<' + tag + '>' + xml_escape(text) + "</" + tag + ">\n");
  }
  // `<tag title="...">` for the three trees; CubeLib leaves an empty title out.
  void open_tree(const char* tag, const std::string& title) {
    out_.put(std::string("  <") + tag);
    if (!title.empty()) out_.put(" title=\"" + xml_escape(title) + '"');
    out_.put(">\n");
  }
  void header();
  void metrics();
  void metric(Index i, size_t level);
  void program();
  void cnode(Index root);
  void system();
  void system_node(Index i, size_t level);
  void group(Index i, size_t level);
  void topologies();
  void topology(const Topology& t);
  void severity();
  void matrix(size_t k);

  const Cube3Rows& rows_;
  const Model& m_;
  DocumentOutput& out_;
  const bool exact_values_;
  const Cube3Note& note_;
  std::vector<Index> exported_;  // metrics written, in document order
};

void Cube3Writer::header() {
  out_.put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"3.0\">\n");
  // The version stamps CubeLib adds to Cube 4 anchors describe the Cube 4 file, not this one.
  static constexpr std::string_view kCube4Stamps[] = {
      "CUBE Library version", "CubePL Version", "Cube Version", "Cube anchor.xml syntax version"};
  // CubeLib keeps attributes in a map: they come out sorted by key.
  Attributes sorted = m_.attrs;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, value] : sorted) {
    if (std::find(std::begin(kCube4Stamps), std::end(kCube4Stamps), key) != std::end(kCube4Stamps))
      continue;
    out_.put("  <attr key=\"" + xml_escape(key) + "\" value=\"" + xml_escape(value) + "\"/>\n");
  }
  out_.put("  <doc>\n    <mirrors>\n");
  for (const std::string& u : m_.mirrors) element(3, "murl", u);
  out_.put("    </mirrors>\n  </doc>\n");
}

void Cube3Writer::metrics() {
  open_tree("metrics", m_.metrics_title);
  for (Index r : m_.metric_roots()) metric(r, 2);
  out_.put("  </metrics>\n");
}

void Cube3Writer::metric(Index i, size_t level) {
  const Metric& x = m_.metrics[i];
  if (const std::string why = exclusion_reason(x); !why.empty()) {
    if (note_) {
      std::string text = "metric '" + x.uniq_name + "' left out: " + why;
      if (!x.children.empty()) text += "; so are the metrics below it";
      note_(text);
    }
    return;
  }
  // Cube 3 metrics are numbered 0, 1, ... in document order, as CubeLib numbers the metrics it
  // holds: ids of metrics left out (a ghost metric, say) leave no gap.
  const size_t cube3_id = exported_.size();
  exported_.push_back(i);
  // No type attribute: Cube 3 metrics are all exclusive (cube-format.md §10.1).
  out_.put(pad(level) + "<metric id=\"" + std::to_string(cube3_id) + "\">\n");
  const std::string description = format::metric_description_xml(x);
  for (size_t at = 0; at < description.size();) {
    const size_t end = description.find('\n', at) + 1;
    out_.put(pad(level + 1) + description.substr(at, end - at));
    at = end;
  }
  for (Index k : x.children) metric(k, level + 1);
  out_.put(pad(level) + "</metric>\n");
}

void Cube3Writer::program() {
  open_tree("program", m_.program_title);
  for (const Region& r : m_.regions) {
    out_.put("    <region id=\"" + std::to_string(r.id) + "\" mod=\"" + xml_escape(r.mod) +
             "\" begin=\"" + std::to_string(r.begin) + "\" end=\"" + std::to_string(r.end) +
             "\">\n");
    element(3, "name", r.name);
    element(3, "url", r.url);
    element(3, "descr", r.descr);
    out_.put("    </region>\n");
  }
  for (Index c : m_.cnode_roots()) cnode(c);
  out_.put("  </program>\n");
}

void Cube3Writer::cnode(Index root) {
  size_t level = 2;
  auto open = [&](Index i) {
    const Cnode& c = m_.cnodes[i];
    std::string text = pad(level++) + "<cnode id=\"" + std::to_string(c.id) + '"';
    if (c.line != -1) text += " line=\"" + std::to_string(c.line) + '"';
    if (!c.mod.empty()) text += " mod=\"" + xml_escape(c.mod) + '"';
    text += " calleeId=\"" + std::to_string(m_.regions[c.region].id) + "\">\n";
    out_.put(text);
  };
  core::walk_nested(m_, root, open, [&](Index) { out_.put(pad(--level) + "</cnode>\n"); });
}

// Machines and nodes are numbered by position, as CubeLib renumbers system entities in document
// order; threads keep their id, which is their column in every row.
void Cube3Writer::system() {
  open_tree("system", m_.system_title);
  for (Index mi : m_.system_roots()) system_node(mi, 2);
  topologies();
  out_.put("  </system>\n");
}

// A machine (level 2) or node (level 3): its name, a machine's description, its processes, then
// its nodes.
void Cube3Writer::system_node(Index i, size_t level) {
  const SystemNode& s = m_.system_nodes[i];
  const std::string tag = s.parent == kNoIndex ? "machine" : "node";
  out_.put(pad(level) + '<' + tag + " Id=\"" + std::to_string(i) + "\">\n");
  element(level + 1, "name", s.name);
  if (s.parent == kNoIndex && !s.descr.empty()) element(level + 1, "descr", s.descr);
  for (Index gi : s.groups) group(gi, level + 1);
  for (Index ni : s.children) system_node(ni, level + 1);
  out_.put(pad(level) + "</" + tag + ">\n");
}

void Cube3Writer::group(Index i, size_t level) {
  const LocationGroup& g = m_.groups[i];
  out_.put(pad(level) + "<process Id=\"" + std::to_string(i) + "\">\n");
  element(level + 1, "name", g.name);
  element(level + 1, "rank", std::to_string(g.rank));
  for (Index li : g.locations) {
    const Location& l = m_.locations[li];
    out_.put(pad(level + 1) + "<thread Id=\"" + std::to_string(l.id) + "\">\n");
    element(level + 2, "name", l.name);
    element(level + 2, "rank", std::to_string(l.rank));
    out_.put(pad(level + 1) + "</thread>\n");
  }
  out_.put(pad(level) + "</process>\n");
}

void Cube3Writer::topologies() {
  out_.put("    <topologies>\n");
  for (const Topology& t : m_.topologies) topology(t);
  out_.put("    </topologies>\n");
}

// CubeLib's layout: `<cart name="N"  ndims="n">` (the name's trailing space and the separator
// both), dimension names on every dimension or none, coordinates in ascending owner id.
void Cube3Writer::topology(const Topology& t) {
  // Coordinates name their owner by the id read from the file; the document names machines,
  // nodes and processes by position.
  std::unordered_map<uint32_t, Index> node_at, group_at;
  for (Index i = 0; i < m_.system_nodes.size(); ++i) node_at.try_emplace(m_.system_nodes[i].id, i);
  for (Index i = 0; i < m_.groups.size(); ++i) group_at.try_emplace(m_.groups[i].id, i);
  std::string text = "      <cart ";
  if (!t.name.empty()) text += "name=\"" + xml_escape(t.name) + "\" ";
  text += " ndims=\"" + std::to_string(t.dims.size()) + "\">\n";
  const bool named = std::any_of(t.dims.begin(), t.dims.end(),
                                 [](const Topology::Dim& d) { return !d.name.empty(); });
  for (const auto& d : t.dims) {
    text += "        <dim ";
    if (named) text += "name=\"" + xml_escape(d.name) + "\" ";
    text += "size=\"" + std::to_string(d.size) + "\" periodic=\"" +
            (d.periodic ? "true" : "false") + "\"/>\n";
  }
  std::vector<const Topology::Coord*> coords;
  for (const auto& c : t.coords) coords.push_back(&c);
  std::stable_sort(coords.begin(), coords.end(),
                   [](const auto* a, const auto* b) { return a->owner_id < b->owner_id; });
  for (const Topology::Coord* c : coords) {
    std::string owner;
    if (c->owner == Topology::Owner::kLocation) {
      owner = "thrdId=\"" + std::to_string(c->owner_id);
    } else if (c->owner == Topology::Owner::kGroup) {
      const auto it = group_at.find(c->owner_id);
      if (it == group_at.end()) continue;
      owner = "procId=\"" + std::to_string(it->second);
    } else {
      const auto it = node_at.find(c->owner_id);
      if (it == node_at.end()) continue;
      const bool machine = m_.system_nodes[it->second].parent == kNoIndex;
      owner = (machine ? "machId=\"" : "nodeId=\"") + std::to_string(it->second);
    }
    text += "        <coord " + owner + "\">";
    const std::span<const int64_t> values = t.values_of(*c);
    for (size_t k = 0; k < values.size(); ++k) text += (k ? " " : "") + std::to_string(values[k]);
    text += "</coord>\n";
  }
  text += "      </cart>\n";
  out_.put(text);
}

void Cube3Writer::severity() {
  out_.put("<severity>\n");
  for (size_t k = 0; k < exported_.size(); ++k) {
    const Index i = exported_[k];
    if (!m_.metrics[i].is_void && rows_.has_data(i)) matrix(k);
  }
  out_.put("</severity>\n");
}

// The matrix of the k-th metric written: a row for every call path, even an all-zero one, one
// value per line, as CubeLib writes them.
void Cube3Writer::matrix(size_t k) {
  const Index metric = exported_[k];
  const Metric& x = m_.metrics[metric];
  out_.put("<matrix metricId=\"" + std::to_string(k) + "\">\n");
  std::string row;
  for (Index c = 0; c < m_.cnodes.size(); ++c) {
    const Cube3Row values = rows_.row(metric, c);
    row = "<row cnodeId=\"" + std::to_string(m_.cnodes[c].id) + "\">\n";
    for (size_t l = 0; l < values.count; ++l) {
      append_value(row, x.dtype, values.data + l * values.stride, exact_values_);
      row += '\n';
    }
    row += "</row>\n";
    out_.put(row);
  }
  out_.put("</matrix>\n");
  rows_.done(metric);
}

}  // namespace

void check_cube3_system_tree(const Model& model, const std::string& where) {
  const auto refuse = [&](const SystemNode& s, const std::string& why) {
    throw Error(where +
                ": the system tree cannot be written as Cube 3 (machine -> node -> "
                "process -> thread only): system tree node '" +
                s.name + "' (class " + s.class_name + ") " + why);
  };
  for (const SystemNode& s : model.system_nodes) {
    if (s.parent == kNoIndex) {
      if (!s.groups.empty()) refuse(s, "holds processes directly, without a node level");
    } else if (const SystemNode& p = model.system_nodes[s.parent]; p.parent != kNoIndex) {
      refuse(s, "lies below node '" + p.name + "' (class " + p.class_name +
                    "): Cube 3 has no third level above processes");
    }
  }
}

void write_cube3_document(const Model& model, const Cube3Rows& rows, const std::string& path,
                          bool gzip, bool exact_values, const Cube3Note& note) {
  DocumentOutput out(path, gzip);
  Cube3Writer(model, rows, out, exact_values, note).write();
  out.commit();
}

}  // namespace cubekit::format
