#include "format/cube3.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include <pugixml.hpp>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "format/anchor.hpp"
#include "format/compression.hpp"
#include "format/tree_reader.hpp"

namespace cubekit::format {
namespace {

// The matrices were decoded while reading the document; loading only hands them out. A metric
// without a <matrix> has no data, like a .cubex metric without members, even where its values
// are rows of zeros (MIN/MAXDOUBLE: SeverityReader::zero_absent_rows).
class Cube3Source : public SeveritySource {
 public:
  Cube3Source(std::vector<std::shared_ptr<const SeverityMatrix>> matrices,
              std::vector<bool> in_document)
      : matrices_(std::move(matrices)), in_document_(std::move(in_document)) {}

  std::shared_ptr<const SeverityMatrix> load(const Model&, Index metric) const override {
    return metric < matrices_.size() ? matrices_[metric] : nullptr;
  }
  bool has_data(const Model&, Index metric) const override {
    return metric < in_document_.size() && in_document_[metric];
  }
  // A Cube 3 document is one XML file: there are no archive members to list.
  std::vector<MemberInfo> members() const override { return {}; }

 private:
  std::vector<std::shared_ptr<const SeverityMatrix>> matrices_;
  std::vector<bool> in_document_;  // by metric: whether the document has its <matrix>
};

// Error context: the document text (for line numbers) and the file name.
struct Context {
  std::string_view text;
  const std::string& where;

  // "file:line:column" of an element, or just "file" when pugixml cannot tell the offset.
  std::string at(const pugi::xml_node& node) const {
    ptrdiff_t offset = node.offset_debug();
    if (offset < 0) return where;
    // pugixml points at an element's name; the column of its '<' reads better.
    if (node.type() == pugi::node_element && offset > 0 &&
        static_cast<size_t>(offset) <= text.size() && text[offset - 1] == '<')
      --offset;
    return where + ":" + line_column(text, offset);
  }
  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& message) const {
    throw FormatError(at(node) + ": " + message);
  }
};

std::string child_text(const pugi::xml_node& node, const char* child) {
  return node.child(child).child_value();
}

// A decimal integer of `node`. The position is computed only on failure: computing it costs a
// scan of the document up to the node.
int64_t integer_of(std::string_view text, const pugi::xml_node& node, const std::string& what,
                   const Context& ctx) {
  try {
    return parse_int(text, ctx.where, what);
  } catch (const FormatError&) {
    ctx.fail(node, what + " '" + std::string(text) + "' is not a decimal integer");
  }
}

// A non-negative id; nullopt when it is too large to name anything.
std::optional<uint32_t> id_of(std::string_view text, const pugi::xml_node& node,
                              const std::string& what, const Context& ctx) {
  const int64_t v = integer_of(text, node, what, ctx);
  if (v < 0 || v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(v);
}

uint32_t parse_id(const pugi::xml_node& node, const char* what, const Context& ctx) {
  const char* id = id_attr(node);
  if (id == nullptr) ctx.fail(node, std::string("<") + node.name() + "> without Id attribute");
  const std::optional<uint32_t> v = id_of(id, node, what, ctx);
  if (!v) ctx.fail(node, std::string(what) + " " + id + " out of range");
  return *v;
}

// <name> and <rank> are each optional; CubeLib names an unnamed entity "<Kind> <rank>".
void name_and_rank(const pugi::xml_node& node, const char* kind, const Context& ctx,
                   SharedText& name, int64_t& rank) {
  if (node.child("rank")) rank = integer_of(child_text(node, "rank"), node, "rank", ctx);
  // An empty <name/> counts as none, as in CubeLib: "Process 3", "Thread 0".
  name = child_text(node, "name");
  if (name.empty()) name = std::string(kind) + " " + std::to_string(rank);
}

void parse_thread(const pugi::xml_node& node, Index group, Model& model, const Context& ctx) {
  Location l;
  l.id = parse_id(node, "thread Id", ctx);  // the column of the thread in every <row>
  name_and_rank(node, "Thread", ctx, l.name, l.rank);
  l.type = "thread";
  l.group = group;
  model.groups[group].locations.push_back(static_cast<Index>(model.locations.size()));
  model.locations.push_back(std::move(l));
}

void parse_process(const pugi::xml_node& node, Index parent, Model& model, const Context& ctx) {
  LocationGroup g;
  g.id = parse_id(node, "process Id", ctx);
  name_and_rank(node, "Process", ctx, g.name, g.rank);
  g.type = "process";
  g.node = parent;
  const Index self = static_cast<Index>(model.groups.size());
  model.system_nodes[parent].groups.push_back(self);
  model.groups.push_back(std::move(g));
  for (const pugi::xml_node& t : node.children("thread")) parse_thread(t, self, model, ctx);
}

// A <machine> or <node>: a system-tree node whose class is the element name.
Index add_system_node(const pugi::xml_node& node, Index parent, Model& model, const Context& ctx) {
  SystemNode s;
  s.id = parse_id(node, "system tree node Id", ctx);
  s.name = child_text(node, "name");
  s.class_name = node.name();
  s.descr = child_text(node, "descr");
  s.parent = parent;
  const Index self = static_cast<Index>(model.system_nodes.size());
  model.system_nodes.push_back(std::move(s));
  if (parent != kNoIndex) model.system_nodes[parent].children.push_back(self);
  return self;
}

void parse_system(const pugi::xml_node& system, Model& model, const Context& ctx) {
  model.system_title = system.attribute("title").value();
  for (const pugi::xml_node& machine : system.children("machine")) {
    const Index m = add_system_node(machine, kNoIndex, model, ctx);
    for (const pugi::xml_node& node : machine.children("node")) {
      const Index n = add_system_node(node, m, model, ctx);
      for (const pugi::xml_node& p : node.children("process")) parse_process(p, n, model, ctx);
    }
  }
  parse_topologies(system.child("topologies"), model, ctx.where);
}

// Parses the whitespace-separated decimal numbers of a <row> into `out`, at most `limit + 1`
// of them (one more than fits is enough to report the overflow).
void parse_numbers(std::string_view text, size_t limit, std::vector<double>& out,
                   const pugi::xml_node& row, const Context& ctx) {
  out.clear();
  const char* p = text.data();
  const char* end = p + text.size();
  while (out.size() <= limit) {
    while (p != end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p == end) break;
    if (*p == '+' && p + 1 != end && p[1] != '-') ++p;  // from_chars rejects a plus sign
    double v = 0;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || (next != end && !std::isspace(static_cast<unsigned char>(*next)))) {
      const char* stop = p;
      while (stop != end && !std::isspace(static_cast<unsigned char>(*stop))) ++stop;
      ctx.fail(row, "value '" + std::string(p, stop) + "' is not a decimal number");
    }
    out.push_back(v);
    p = next;
  }
}

// Integers are written as decimal numbers too; we round to the nearest integer (llround-like)
// and reject values that do not fit, since converting those would be undefined behaviour.
template <typename T>
void store_integers(const std::vector<double>& values, std::byte* row, const pugi::xml_node& node,
                    const Context& ctx) {
  // 2^digits is exact in a double, so the exclusive upper bound is checked exactly.
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
  for (size_t i = 0; i < values.size(); ++i) {
    const double r = std::round(values[i]);  // halves away from zero, as llround
    if (!(r >= lo && r < hi))
      ctx.fail(node, "value " + std::to_string(values[i]) + " of thread " + std::to_string(i) +
                         " does not fit the integer type");
    const T v = static_cast<T>(r);
    std::memcpy(row + i * sizeof(T), &v, sizeof(T));
  }
}

void store_row(const DataType& type, const std::vector<double>& values, std::byte* row,
               const pugi::xml_node& node, const Context& ctx) {
  switch (type.lane_type()) {
    case LaneType::kInt8:
      return store_integers<int8_t>(values, row, node, ctx);
    case LaneType::kUInt8:
      return store_integers<uint8_t>(values, row, node, ctx);
    case LaneType::kInt16:
      return store_integers<int16_t>(values, row, node, ctx);
    case LaneType::kUInt16:
      return store_integers<uint16_t>(values, row, node, ctx);
    case LaneType::kInt32:
      return store_integers<int32_t>(values, row, node, ctx);
    case LaneType::kUInt32:
      return store_integers<uint32_t>(values, row, node, ctx);
    case LaneType::kInt64:
      return store_integers<int64_t>(values, row, node, ctx);
    case LaneType::kUInt64:
      return store_integers<uint64_t>(values, row, node, ctx);
    case LaneType::kDouble:
      std::memcpy(row, values.data(), values.size() * sizeof(double));
      return;
    case LaneType::kScaleFunc:
      break;
  }
  ctx.fail(node, "Cube 3 value of type " + type.dtype_text() + " not supported");
}

// Cube 3 rows hold one number per thread; composite types never occurred in Cube 3 files.
class SeverityReader {
 public:
  SeverityReader(const Model& model, const Context& ctx)
      : model_(model), ctx_(ctx), matrices_(model.metrics.size()), seen_(model.metrics.size()) {
    for (Index i = 0; i < model.metrics.size(); ++i) metric_by_id_.emplace(model.metrics[i].id, i);
  }

  void read(const pugi::xml_node& severity) {
    for (const pugi::xml_node& matrix : severity.children("matrix")) read_matrix(matrix);
    for (Index metric = 0; metric < model_.metrics.size(); ++metric)
      zero_absent_rows(metric, severity);
  }

  std::shared_ptr<Cube3Source> take() {
    std::vector<bool> in_document(seen_.size());
    for (Index i = 0; i < seen_.size(); ++i) in_document[i] = !seen_[i].empty();
    return std::make_shared<Cube3Source>(
        std::vector<std::shared_ptr<const SeverityMatrix>>(matrices_.begin(), matrices_.end()),
        std::move(in_document));
  }

 private:
  void read_matrix(const pugi::xml_node& matrix) {
    const std::string mid = matrix.attribute("metricId").value();
    if (mid.empty()) ctx_.fail(matrix, "<matrix> without metricId attribute");
    const std::optional<uint32_t> id = id_of(mid, matrix, "metricId", ctx_);
    const auto it = id ? metric_by_id_.find(*id) : metric_by_id_.end();
    if (it == metric_by_id_.end()) ctx_.fail(matrix, "matrix metricId " + mid + " is not defined");
    const Metric& metric = model_.metrics[it->second];
    if (metric.is_void) return;  // VOID metrics carry no data (cube-format.md §10.3)
    if (!metric.dtype.is_single_number())
      ctx_.fail(matrix, "Cube 3 value of type " + metric.dtype_text + " not supported");
    auto& m = matrices_[it->second];
    if (!m) {
      m = std::make_shared<SeverityMatrix>(metric.dtype, model_.cnodes.size(),
                                           model_.locations.size());
      seen_[it->second].assign(model_.cnodes.size(), false);
    }
    for (const pugi::xml_node& row : matrix.children("row"))
      read_row(row, mid, *m, seen_[it->second]);
  }

  // CubeLib shows a call path without a <row> (or a metric without a <matrix>) as 0, not as the
  // type's identity, in every form of its cube_dump (docs/compatibility.md). Of the types a
  // document holds, MIN/MAXDOUBLE are the ones whose identity is not 0 but ±DBL_MAX (printed
  // "-"): their call paths without a row get a row of zeros.
  void zero_absent_rows(Index metric, const pugi::xml_node& severity) {
    const Metric& m = model_.metrics[metric];
    if (m.is_void || is_derived(m.kind) || !m.dtype.is_single_number() || identity_is_zero(m.dtype))
      return;
    auto& matrix = matrices_[metric];
    if (!matrix)
      matrix =
          std::make_shared<SeverityMatrix>(m.dtype, model_.cnodes.size(), model_.locations.size());
    for (Index c = 0; c < model_.cnodes.size(); ++c) {
      if (matrix->has_row(c)) continue;
      account(severity, matrix->row_bytes(), "call paths without a <row> hold zeros");
      std::memset(matrix->add_row(c), 0, matrix->row_bytes());
    }
  }

  // A row may list fewer values than there are threads (the rest are 0), and a MIN/MAXDOUBLE
  // call path without a row holds a row of zeros, so a small hostile document can describe
  // gigabytes of rows. Rows whose values are all 0 are not stored when 0 is the type's identity
  // (reading them back gives the same 0s), and what is stored may not exceed what a document
  // of this size could hold written out in full, with ample margin.
  void account(const pugi::xml_node& node, size_t bytes, const std::string& why) {
    stored_bytes_ += bytes;
    const uint64_t limit = 64 * static_cast<uint64_t>(ctx_.text.size()) + (64u << 20);
    if (stored_bytes_ > limit)
      ctx_.fail(node, "the rows so far need " + std::to_string(stored_bytes_) +
                          " bytes of values, more than a document of " +
                          std::to_string(ctx_.text.size()) + " bytes can describe (" + why + "; " +
                          std::to_string(model_.locations.size()) + " threads)");
  }

  void read_row(const pugi::xml_node& row, const std::string& mid, SeverityMatrix& m,
                std::vector<bool>& seen) {
    const std::string cid = row.attribute("cnodeId").value();
    const auto what = [&] { return "row cnodeId " + cid + " of matrix metricId " + mid; };
    if (cid.empty()) ctx_.fail(row, "<row> without cnodeId attribute in matrix metricId " + mid);
    const std::optional<uint32_t> id = id_of(cid, row, "cnodeId", ctx_);
    const std::optional<Index> cnode = id ? model_.cnode_by_id(*id) : std::nullopt;
    if (!cnode) ctx_.fail(row, what() + ": cnodeId " + cid + " is not defined");
    if (seen[*cnode]) ctx_.fail(row, what() + " appears twice");
    seen[*cnode] = true;
    const size_t threads = model_.locations.size();
    parse_numbers(row.child_value(), threads, values_, row, ctx_);
    if (values_.size() > threads)
      ctx_.fail(row, what() + " has more values than the " + std::to_string(threads) + " threads");
    if (std::all_of(values_.begin(), values_.end(), [](double v) { return v == 0; }) &&
        identity_is_zero(m.type()))
      return;
    account(row, m.row_bytes(), "rows list fewer values than the threads");
    // add_row() hands out uninitialised memory; all-zero bytes are 0 in every scalar type, and
    // missing trailing values mean 0.
    std::byte* out = m.add_row(*cnode);
    std::memset(out, 0, m.row_bytes());
    store_row(m.type(), values_, out, row, ctx_);
  }

  const Model& model_;
  const Context& ctx_;
  std::vector<std::shared_ptr<SeverityMatrix>> matrices_;  // by metric index
  std::vector<std::vector<bool>> seen_;                    // cnodes with a <row>, by metric
  uint64_t stored_bytes_ = 0;
  std::unordered_map<uint32_t, Index> metric_by_id_;
  std::vector<double> values_;  // scratch, reused for every row
};

std::string_view as_text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The <program> element (the same in Cube 3 and 4) is read by the pull reader from the text.
// CubeLib's grammar demands at least one metric, one region, one call path and one machine;
// it refuses a document without one of them (CubeLib's test 1.2 counts on that refusal for a
// file with empty <metrics>, <program> and <system>), and so does cubekit.
void require_dimension(bool present, const pugi::xml_node& element, const char* dimension,
                       const char* needed, const Context& ctx) {
  if (!present)
    ctx.fail(element, std::string("the ") + dimension + " dimension is empty: no " + needed +
                          " (a report needs one at least)");
}

void parse_definitions(const pugi::xml_node& cube, Model& model, const Context& ctx) {
  parse_header(cube, model);
  if (model.version != "3.0" && !model.version.starts_with("4."))
    ctx.fail(cube, "unsupported <cube version=\"" + model.version + "\">, expected 3.0 or 4.x");
  for (const char* part : {"metrics", "program", "system"})
    if (!cube.child(part)) ctx.fail(cube, "no <" + std::string(part) + "> element");
  parse_metrics(cube.child("metrics"), model, ctx.where);
  require_dimension(!model.metrics.empty(), cube.child("metrics"), "metric", "<metric>", ctx);
  size_t program_begin = 0, program_end = 0;
  find_element(ctx.text, "program", program_begin, program_end);
  if (program_begin == std::string_view::npos) ctx.fail(cube, "no <program> element");
  read_program(ctx.text, program_begin, program_end, model, ctx.where);
  require_dimension(!model.regions.empty() && !model.cnodes.empty(), cube.child("program"),
                    "program", "<region> and <cnode>", ctx);
  parse_system(cube.child("system"), model, ctx);
  require_dimension(!model.system_nodes.empty(), cube.child("system"), "system", "<machine>", ctx);
  model.finalize(ctx.where);
}

}  // namespace

void parse_cube3_system(const pugi::xml_node& system, Model& model, std::string_view text,
                        const std::string& where) {
  parse_system(system, model, Context{text, where});
}

Cube3Document read_cube3(std::span<const std::byte> bytes, const std::string& where) {
  if (bytes.empty()) throw FormatError(where + ": empty file");
  std::string inflated;
  if (is_gzip(bytes)) {
    inflated = gunzip(bytes, where);
    if (inflated.empty()) throw FormatError(where + ": empty file (after gunzip)");
  }
  const std::string_view text = is_gzip(bytes) ? std::string_view(inflated) : as_text(bytes);
  pugi::xml_document doc;
  load_xml(doc, text, where);
  const Context ctx{text, where};
  const pugi::xml_node cube = doc.child("cube");
  if (!cube) throw FormatError(where + ": no <cube> root element");
  auto model = std::make_shared<Model>();
  // Cube 4 anchors may carry inline <severity> too (cube-format.md §3.2). Their system tree is
  // usually Cube 4 style, which parse_anchor reads; CubeLib's own 4.0 test anchor still uses
  // the machine/node/process/thread tree, so that form is read the Cube 3 way whatever the
  // version.
  if (cube.child("system").child("systemtreenode")) {
    *model = parse_anchor(text, where);
  } else {
    parse_definitions(cube, *model, ctx);
  }
  // After finalize: VOID inheritance and the cnode id lookup are known only then.
  SeverityReader reader(*model, ctx);
  reader.read(cube.child("severity"));
  return {model, reader.take()};
}

}  // namespace cubekit::format
