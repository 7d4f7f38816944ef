#include "server/api.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include "cubekit/call_graph.hpp"
#include "cubekit/error.hpp"
#include "cubekit/flame_layout.hpp"
#include "cubekit/model_output.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/pop.hpp"
#include "server/http_error.hpp"

namespace cubekit::server {

using nlohmann::json;

namespace {

constexpr size_t kMaxListedIds = 100000;
constexpr size_t kMaxSearchHits = 200;
constexpr size_t kMaxSeriesReports = 1000;

const std::string* param(const Params& p, const std::string& key) {
  const auto it = p.find(key);
  return it == p.end() ? nullptr : &it->second;
}

std::string required(const Params& p, const std::string& key) {
  const std::string* v = param(p, key);
  if (!v || v->empty()) throw HttpError(400, "parameter '" + key + "' is missing");
  return *v;
}

Flavour flavour(const Params& p, const std::string& key, Flavour fallback) {
  const std::string* v = param(p, key);
  if (!v) return fallback;
  if (*v == "incl") return Flavour::kInclusive;
  if (*v == "excl") return Flavour::kExclusive;
  throw HttpError(400, "parameter '" + key + "' must be 'incl' or 'excl', not '" + *v + "'");
}

// cube_dump's defaults: metric tree inclusive, call tree exclusive.
MetricQuery metric_query(const Params& p) {
  return {required(p, "metric"), flavour(p, "metric_flavour", Flavour::kInclusive),
          flavour(p, "calltree", Flavour::kExclusive)};
}

uint64_t number(const std::string& key, const std::string& text) {
  if (text.empty() || text.size() > 10 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw HttpError(400,
                    "parameter '" + key + "' must be a non-negative integer, not '" + text + "'");
  return std::stoull(text);
}

Index cnode_index(const Model& model, const std::string& text) {
  const auto c = model.cnode_by_id(static_cast<uint32_t>(number("cnode", text)));
  if (!c) throw HttpError(404, "no call path with id " + text);
  return *c;
}

std::vector<Index> cnode_list(const Model& model, const std::string& text) {
  std::vector<Index> out;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(cnode_index(model, text.substr(start, end - start)));
    if (out.size() > kMaxListedIds) throw HttpError(413, "too many call path ids");
    start = end + 1;
  }
  return out;
}

json id_or_null(const auto& vec, Index i) {
  return i == kNoIndex ? json(nullptr) : json(vec[i].id);
}

const std::string& cnode_name(const Model& m, Index c) {
  return m.regions[m.cnodes[c].region].name;
}

json metrics_json(const Model& m) {
  json out = json::array();
  for (const Metric& x : m.metrics)
    out.push_back({{"id", x.id},
                   {"uniq_name", x.uniq_name},
                   {"disp_name", x.disp_name},
                   {"parent", id_or_null(m.metrics, x.parent)},
                   {"kind", metric_kind_name(x.kind)},
                   {"dtype", x.dtype_text},
                   {"uom", x.uom},
                   {"descr", x.descr},
                   {"url", x.url},
                   {"ghost", x.ghost},
                   {"expression", x.expression}});
  return out;
}

// A call path's parameters (Score-P's dynamic regions: the iteration) as [[key, value], …].
json parameters_json(const Cnode& c) {
  json params = json::array();
  for (const Parameter& x : c.parameters) params.push_back({x.key, x.value});
  return params;
}

// The call paths as /tree's `calls`, a call path's parameters (Score-P's dynamic regions: the
// iteration) only where it has some. Written directly: nlohmann's tree of 100,000 objects took
// 0.5-0.9 s under load, and the viewer asks for it once per report, during the first clicks.
std::string cnodes_text(const Model& m) {
  std::string out = "[";
  for (const Cnode& c : m.cnodes) {
    out += out.size() == 1 ? "{\"id\":" : ",{\"id\":";
    out += std::to_string(c.id) + ",\"line\":" + std::to_string(c.line);
    out += ",\"mod\":" + json(c.mod).dump() + ",\"name\":" + json(m.regions[c.region].name).dump();
    if (!c.parameters.empty()) out += ",\"params\":" + parameters_json(c).dump();
    out += ",\"parent\":";
    out += c.parent == kNoIndex ? "null" : std::to_string(m.cnodes[c.parent].id);
    out += '}';
  }
  return out + "]";
}

json system_json(const Model& m) {
  json nodes = json::array(), groups = json::array(), locations = json::array();
  for (const SystemNode& n : m.system_nodes)
    nodes.push_back({{"id", n.id},
                     {"name", n.name},
                     {"class", n.class_name},
                     {"parent", id_or_null(m.system_nodes, n.parent)}});
  for (const LocationGroup& g : m.groups)
    groups.push_back({{"id", g.id},
                      {"name", g.name},
                      {"type", g.type},
                      {"rank", g.rank},
                      {"node", id_or_null(m.system_nodes, g.node)}});
  for (const Location& l : m.locations)
    locations.push_back({{"id", l.id},
                         {"name", l.name},
                         {"type", l.type},
                         {"rank", l.rank},
                         {"group", id_or_null(m.groups, l.group)}});
  return {{"nodes", nodes}, {"groups", groups}, {"locations", locations}};
}

json topologies_json(const Model& m) {
  static const char* kOwners[] = {"location", "group", "node"};
  json out = json::array();
  for (const Topology& t : m.topologies) {
    json dims = json::array(), coords = json::array();
    for (const Topology::Dim& d : t.dims)
      dims.push_back({{"name", d.name}, {"size", d.size}, {"periodic", d.periodic}});
    for (const Topology::Coord& c : t.coords)
      coords.push_back(
          {{"kind", kOwners[static_cast<int>(c.owner)]},
           {"id", c.owner_id},
           {"coords", std::vector<int64_t>(t.values_of(c).begin(), t.values_of(c).end())}});
    out.push_back({{"name", t.name}, {"dims", dims}, {"coords", coords}});
  }
  return out;
}

// The ids of a call path and its ancestors, root first.
json ancestry(const Model& m, Index c) {
  std::vector<uint32_t> ids;
  for (; c != kNoIndex; c = m.cnodes[c].parent) ids.push_back(m.cnodes[c].id);
  std::reverse(ids.begin(), ids.end());
  return ids;
}

}  // namespace

std::shared_ptr<OpenReport> Api::open(const Params& p, const char* key) {
  const std::string relative = required(p, key);
  return cache_.get(confinement_.resolve(relative), relative);
}

namespace {

// The series folder holding a listed report's experiment folder ("s/exp.p2.r1/a.cubex": "s"),
// or "" for a report less than two folders deep.
std::string series_candidate(const std::string& report) {
  const std::filesystem::path folder = std::filesystem::path(report).parent_path();
  return folder.has_parent_path() ? folder.parent_path().generic_string() : "";
}

// The series folder `folder` below the root as one item of the report list: its report and
// point counts, parameters and first report (the one /model names call paths by by default);
// null when read_series_folder does not take it for a series (an ordinary folder of reports)
// or one of its reports leads out of the root.
json series_item(const Confinement& confinement, const std::string& folder) {
  const std::filesystem::path absolute = confinement.root() / folder;
  Series series;
  try {
    series = read_series_folder(absolute.string());
    for (const SeriesReport& r : series.reports) confinement.require_inside(r.path, r.path);
  } catch (const std::runtime_error&) {
    return nullptr;
  }
  std::set<std::vector<double>> points;
  for (const SeriesReport& r : series.reports) points.insert(r.coordinate);
  const std::string first = std::filesystem::path(series.reports.front().path)
                                .lexically_relative(absolute)
                                .generic_string();
  return {{"path", folder},
          {"reports", series.reports.size()},
          {"points", points.size()},
          {"parameters", series.parameters},
          {"first", folder + "/" + first}};
}

}  // namespace

std::string Api::reports(const Params&) {
  json list = json::array();
  std::set<std::string> candidates;
  for (const ReportFile& f : confinement_.list()) {
    list.push_back({{"path", f.path}, {"size", f.size}});
    if (std::string folder = series_candidate(f.path); !folder.empty())
      candidates.insert(std::move(folder));
  }
  json series = json::array();
  for (const std::string& folder : candidates)
    if (json item = series_item(confinement_, folder); !item.is_null()) series.push_back(item);
  return json{{"reports", list}, {"series", series}}.dump();
}

std::string Api::tree(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  const std::string* parts_param = param(p, "parts");
  const std::string parts = parts_param ? *parts_param : "metrics,calls,system";
  auto wants = [&](const char* part) { return parts.find(part) != std::string::npos; };
  json out{{"report", report->name()},
           {"cnode_count", m.cnodes.size()},
           {"location_count", m.locations.size()}};
  if (wants("metrics")) out["metrics"] = metrics_json(m);
  if (wants("system")) {
    out["system"] = system_json(m);
    out["topologies"] = topologies_json(m);
  }
  if (!wants("calls")) return out.dump();
  return "{\"calls\":" + cnodes_text(m) + "," + out.dump().substr(1);
}

// The source of a call path's region (the viewer's source view): file and lines as the report
// names them and, when the file lies below the served root or --source-root, its text.
std::string Api::source(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  const Cnode& c = m.cnodes[cnode_index(m, required(p, "cnode"))];
  if (c.region >= m.regions.size()) throw HttpError(422, "the call path has no region");
  const Region& r = m.regions[c.region];
  json out{
      {"region", r.name}, {"mod", r.mod}, {"begin", r.begin}, {"end", r.end}, {"file", nullptr}};
  if (const auto found = sources_.find(r.mod)) {
    out["file"] = found->shown;
    out["lines"] = SourceFiles::lines(found->file);
  } else {
    out["reason"] = r.mod.empty() ? "the report names no file for this region"
                                  : r.mod + ": not found below the served folders";
  }
  // Source files need not be UTF-8: invalid bytes become U+FFFD instead of failing the answer.
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Children of one call path (or the roots), for trees that load lazily; with `metric`, each
// child's inclusive and exclusive value (metric flavour as given).
std::string Api::children(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  const std::string* parent = param(p, "cnode");
  const std::vector<Index> kids =
      parent ? m.cnodes[cnode_index(m, *parent)].children : m.cnode_roots();
  std::shared_ptr<const std::vector<double>> incl, excl;
  if (param(p, "metric")) {
    MetricQuery q{required(p, "metric"), flavour(p, "metric_flavour", Flavour::kInclusive)};
    q.call_flavour = Flavour::kInclusive;
    incl = report->aggregated(q);
    q.call_flavour = Flavour::kExclusive;
    excl = report->aggregated(q);
  }
  json out = json::array();
  for (Index c : kids) {
    json node{{"id", m.cnodes[c].id},
              {"name", cnode_name(m, c)},
              {"line", m.cnodes[c].line},
              {"mod", m.cnodes[c].mod},
              {"children", m.cnodes[c].children.size()}};
    if (!m.cnodes[c].parameters.empty()) node["params"] = parameters_json(m.cnodes[c]);
    if (incl) node["incl"] = (*incl)[c], node["excl"] = (*excl)[c];
    out.push_back(std::move(node));
  }
  return json{{"cnodes", out}}.dump();
}

// Call paths whose region name contains `name` (case-insensitive), each with its ancestry so
// that a lazily loaded tree can open the way to it.
std::string Api::search(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  std::string needle = required(p, "name");
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  needle = lower(needle);
  std::vector<bool> region_matches(m.regions.size());
  for (Index r = 0; r < m.regions.size(); ++r)
    region_matches[r] = lower(m.regions[r].name).find(needle) != std::string::npos;
  json hits = json::array();
  bool truncated = false;
  for (Index c = 0; c < m.cnodes.size(); ++c) {
    if (!region_matches[m.cnodes[c].region]) continue;
    if (hits.size() == kMaxSearchHits) {
      truncated = true;
      break;
    }
    hits.push_back({{"id", m.cnodes[c].id}, {"name", cnode_name(m, c)}, {"path", ancestry(m, c)}});
  }
  return json{{"hits", hits}, {"truncated", truncated}}.dump();
}

namespace {

constexpr size_t kMaxPerLocationCells = 4000000;

// One row of per-location values for each call path of `cnodes` (the viewer's iterations).
std::string per_location_rows(const Params& p, OpenReport& report, const MetricQuery& q) {
  const Model& m = report.model();
  const std::vector<Index> cnodes = cnode_list(m, required(p, "cnodes"));
  if (cnodes.size() * m.locations.size() > kMaxPerLocationCells)
    throw HttpError(413, "per_location: at most " + std::to_string(kMaxPerLocationCells) +
                             " values (call paths × locations) per question");
  json rows = json::array();
  for (Index c : cnodes) rows.push_back({m.cnodes[c].id, report.per_location(q, c)});
  return json{{"metric", report.metric_name(q.metric)}, {"rows", rows}}.dump();
}

// A value's JSON text: the shortest that reads back as the same double (56 where nlohmann
// writes 56.0: the same number to a reader), null when not finite, as nlohmann writes those.
void append_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  out.append(text, end);
}

// {"metric": name, "values": [[id, value], …]} of every call path, written directly: the flame
// graph and the sunburst ask for it at every metric change, and building nlohmann's tree of
// 100,000 pairs and freeing it took 40 ms of CPU per answer.
std::string whole_tree_values(const Model& m, const std::string& metric,
                              const std::vector<double>& per_cnode) {
  std::string out = R"({"metric":)" + json(metric).dump() + R"(,"values":[)";
  out.reserve(out.size() + per_cnode.size() * 28);
  for (Index c = 0; c < m.cnodes.size(); ++c) {
    out += c == 0 ? "[" : ",[";
    out += std::to_string(m.cnodes[c].id);
    out += ',';
    append_number(out, per_cnode[c]);
    out += ']';
  }
  return out + "]}";
}

}  // namespace

namespace {

// A count parameter (`top`, `regions`, `calls`): at least 1, at most `most`; `fallback` when
// absent.
size_t count_param(const Params& p, const std::string& key, size_t fallback, size_t most) {
  const std::string* text = param(p, key);
  if (!text) return fallback;
  const uint64_t n = number(key, *text);
  if (n < 1 || n > most)
    throw HttpError(
        400, "parameter '" + key + "' must be 1 to " + std::to_string(most) + ", not " + *text);
  return n;
}

// The `top` call paths of largest value (of equals, the earlier; NaN none), largest first,
// each with its region's name: what a viewer lists first of 100,000 call paths.
std::string top_values(const Model& m, const std::string& metric, const std::vector<double>& v,
                       size_t top) {
  std::vector<Index> order;
  for (Index c = 0; c < v.size(); ++c)
    if (!std::isnan(v[c])) order.push_back(c);
  const auto first = [&](Index x, Index y) { return v[x] > v[y] || (v[x] == v[y] && x < y); };
  const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(top, order.size()));
  std::partial_sort(order.begin(), end, order.end(), first);
  json values = json::array(), names = json::array();
  for (auto it = order.begin(); it != end; ++it) {
    values.push_back({m.cnodes[*it].id, v[*it]});
    names.push_back(cnode_name(m, *it));
  }
  return json{{"metric", metric}, {"values", values}, {"names", names}}.dump();
}

}  // namespace

std::string Api::values(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  const MetricQuery q = metric_query(p);
  json values = json::array();
  if (const std::string* cnode = param(p, "cnode")) {
    const std::vector<double> row = report->per_location(q, cnode_index(m, *cnode));
    if (const std::string* location = param(p, "location")) {
      const uint64_t l = number("location", *location);
      if (l >= row.size()) throw HttpError(404, "no location with id " + *location);
      values.push_back({l, row[l]});
    } else {
      for (size_t l = 0; l < row.size(); ++l) values.push_back({l, row[l]});
    }
  } else {
    if (param(p, "location"))
      throw HttpError(400, "parameter 'location' needs 'cnode' (one call path, one location)");
    const std::string* per_location = param(p, "per_location");
    if (per_location && *per_location == "1") return per_location_rows(p, *report, q);
    const auto per_cnode = report->aggregated(q);
    if (const std::string* list = param(p, "cnodes")) {
      for (Index c : cnode_list(m, *list)) values.push_back({m.cnodes[c].id, (*per_cnode)[c]});
    } else if (param(p, "top")) {
      return top_values(m, report->metric_name(q.metric), *per_cnode,
                        count_param(p, "top", 0, kMaxListedIds));
    } else {
      return whole_tree_values(m, report->metric_name(q.metric), *per_cnode);
    }
  }
  return json{{"metric", report->metric_name(q.metric)}, {"values", values}}.dump();
}

namespace {

// A region's exclusive value for ordering rows: none sorts below every number.
double exclusive_or_lowest(const OpenReport::RegionValues& v, Index r) {
  return v.no_exclusive[r] ? -std::numeric_limits<double>::infinity() : v.exclusive[r];
}

// The flat profile's rows: the regions with a value (exclusive or subroutines there and not
// 0), in region order, or with `top` the `top` of largest exclusive value, largest first (of
// equals, the earlier region).
std::vector<Index> flat_rows(const OpenReport::RegionValues& v, std::optional<size_t> top) {
  std::vector<Index> rows;
  for (Index r = 0; r < v.exclusive.size(); ++r)
    if ((!v.no_exclusive[r] && v.exclusive[r] != 0) ||
        (!v.no_subroutines[r] && v.subroutines[r] != 0))
      rows.push_back(r);
  if (!top) return rows;
  const size_t k = std::min(*top, rows.size());
  const auto larger = [&](Index a, Index b) {
    const double x = exclusive_or_lowest(v, a), y = exclusive_or_lowest(v, b);
    return x > y || (x == y && a < b) || (std::isnan(y) && !std::isnan(x));
  };
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(k), rows.end(),
                    larger);
  rows.resize(k);
  return rows;
}

constexpr size_t kMaxGraphRegions = 2000;
constexpr size_t kMaxGraphCalls = 10000;

}  // namespace

// Flat profile: per region the exclusive value over all its call paths and what its callees
// add ("subroutines", as cube_dump -r; "incl" is the two combined as the metric combines
// values: their sum, or the larger of them for a MAXDOUBLE metric), null where the region has
// no such value (cube_dump -r prints "0." there). Every region, or with `top` only the rows a
// viewer shows first (a report of 100,000 call paths has thousands of regions).
std::string Api::flat(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  MetricQuery q = metric_query(p);
  const OpenReport::RegionValues v = report->flat(q);
  const bool top = param(p, "top") != nullptr;
  std::vector<Index> rows(m.regions.size());
  std::iota(rows.begin(), rows.end(), Index{0});
  if (top) rows = flat_rows(v, count_param(p, "top", 0, kMaxListedIds));
  json regions = json::array();
  const auto value_or_null = [](bool none, double x) { return none ? json(nullptr) : json(x); };
  for (Index r : rows) {
    const bool no_exclusive = v.no_exclusive[r], no_subroutines = v.no_subroutines[r];
    regions.push_back({{"id", m.regions[r].id},
                       {"name", m.regions[r].name},
                       {"excl", value_or_null(no_exclusive, v.exclusive[r])},
                       {"incl", value_or_null(no_exclusive && no_subroutines, v.inclusive[r])},
                       {"subroutines", value_or_null(no_subroutines, v.subroutines[r])}});
  }
  json out{{"metric", report->metric_name(q.metric)}, {"regions", regions}};
  if (top) out["rows"] = flat_rows(v, std::nullopt).size();
  return out.dump();
}

// The call graph of one metric (cubekit/call_graph.hpp): the `regions` heaviest regions and
// at most `calls` calls among them (50 and 60 by default), with how many there are in all.
std::string Api::callgraph(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  MetricQuery q = metric_query(p);
  q.call_flavour = Flavour::kInclusive;
  const auto inclusive = report->aggregated(q);
  q.call_flavour = Flavour::kExclusive;
  const auto exclusive = report->aggregated(q);
  const CallGraph whole = call_graph(*report->call_graph_shape(), *inclusive, *exclusive);
  const CallGraph part = heaviest_part(whole, count_param(p, "regions", 50, kMaxGraphRegions),
                                       count_param(p, "calls", 60, kMaxGraphCalls));
  json regions = json::array(), calls = json::array();
  for (const CallGraph::Region& r : part.regions)
    regions.push_back({{"name", r.name},
                       {"excl", r.exclusive},
                       {"incl", r.inclusive},
                       {"top", m.cnodes[r.heaviest].id}});
  for (const CallGraph::Call& e : part.calls)
    calls.push_back({{"from", part.regions[e.caller].name},
                     {"to", part.regions[e.callee].name},
                     {"value", e.inclusive},
                     {"call_paths", e.call_paths}});
  return json{{"metric", report->metric_name(q.metric)},
              {"region_count", whole.regions.size()},
              {"call_count", whole.calls.size()},
              {"regions", regions},
              {"calls", calls}}
      .dump();
}

namespace {

// A positive finite number parameter (`extent`, `min_extent`); `fallback` when absent.
double positive_param(const Params& p, const std::string& key, std::optional<double> fallback) {
  const std::string* text = param(p, key);
  if (!text && fallback) return *fallback;
  if (!text) throw HttpError(400, "parameter '" + key + "' is missing");
  double v = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (error != std::errc() || end != text->data() + text->size() || !std::isfinite(v) || v <= 0)
    throw HttpError(400, "parameter '" + key + "' must be a positive number, not '" + *text + "'");
  return v;
}

constexpr size_t kMaxFlameDepth = 1000;

}  // namespace

// The flame graph's boxes (or the sunburst's arcs) of one metric: the call paths whose span
// of `extent` is at least `min_extent`, down to `depth` (cubekit/flame_layout.hpp), each with
// its place, so that a viewer receives what it draws instead of the whole tree and its values.
std::string Api::flame(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  MetricQuery q{required(p, "metric"), flavour(p, "metric_flavour", Flavour::kInclusive)};
  q.call_flavour = Flavour::kInclusive;
  FlameOptions options;
  options.extent = positive_param(p, "extent", std::nullopt);
  options.min_extent = positive_param(p, "min_extent", 0.5);
  if (const std::string* depth = param(p, "depth")) {
    const uint64_t d = number("depth", *depth);
    if (d > kMaxFlameDepth)
      throw HttpError(400, "parameter 'depth' must be 0 to " + std::to_string(kMaxFlameDepth) +
                               ", not " + *depth);
    options.max_depth = static_cast<uint32_t>(d);
  }
  options.max_boxes = kMaxListedIds;
  const auto inclusive = report->aggregated(q);
  FlameLayout layout;
  try {
    layout = flame_layout(m, *inclusive, options);
  } catch (const Error& e) {
    throw HttpError(413, e.what());
  }
  std::string out = R"({"metric":)" + json(report->metric_name(q.metric)).dump() + R"(,"total":)";
  append_number(out, layout.total);
  out += R"(,"call_paths":)" + std::to_string(m.cnodes.size()) + R"(,"boxes":[)";
  for (const FlameBox& b : layout.boxes) {
    const Cnode& c = m.cnodes[b.cnode];
    out += &b == layout.boxes.data() ? "{\"id\":" : ",{\"id\":";
    out += std::to_string(c.id) + R"(,"parent":)";
    out += c.parent == kNoIndex ? "null" : std::to_string(m.cnodes[c.parent].id);
    out += R"(,"name":)" + json(cnode_name(m, b.cnode)).dump();
    out += R"(,"depth":)" + std::to_string(b.depth) + R"(,"start":)";
    append_number(out, b.start);
    out += R"(,"extent":)";
    append_number(out, b.extent);
    out += R"(,"incl":)";
    append_number(out, (*inclusive)[b.cnode]);
    out += '}';
  }
  return out + "]}";
}

// The ids of a call path and its ancestors, root first: what a lazily loaded tree opens to
// show it.
std::string Api::path(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  return json{{"path", ancestry(m, cnode_index(m, required(p, "cnode")))}}.dump();
}

namespace {

// The q-quantile of sorted values, linear between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - static_cast<double>(below));
}

}  // namespace

// One metric over the locations: at one call path, or for the whole program (the inclusive
// values of the call-tree roots summed).
std::string Api::statistics(const Params& p) {
  const auto report = open(p);
  const Model& m = report->model();
  MetricQuery q = metric_query(p);
  std::vector<double> per_location(m.locations.size());
  json cnode_id = nullptr;
  if (const std::string* cnode = param(p, "cnode")) {
    const Index c = cnode_index(m, *cnode);
    per_location = report->per_location(q, c);
    cnode_id = m.cnodes[c].id;
  } else {
    q.call_flavour = Flavour::kInclusive;
    for (Index root : m.cnode_roots()) {
      const std::vector<double> row = report->per_location(q, root);
      for (size_t l = 0; l < row.size(); ++l) per_location[l] += row[l];
    }
  }
  std::vector<double> sorted = per_location;
  std::sort(sorted.begin(), sorted.end());
  const double sum = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  json locations = json::array();
  for (size_t l = 0; l < per_location.size(); ++l) locations.push_back({l, per_location[l]});
  json out{{"metric", report->metric_name(q.metric)},
           {"cnode", cnode_id},
           {"count", sorted.size()},
           {"sum", sum},
           {"per_location", locations}};
  if (!sorted.empty()) {
    out["min"] = sorted.front();
    out["max"] = sorted.back();
    out["mean"] = sum / static_cast<double>(sorted.size());
    out["q1"] = quantile(sorted, 0.25);
    out["median"] = quantile(sorted, 0.5);
    out["q3"] = quantile(sorted, 0.75);
  }
  return out.dump();
}

namespace {

// One row of /diff: a call path's region path and its index in report a and in report b
// (kNoIndex where the report lacks it), with both values.
struct DiffRow {
  Index a_cnode, b_cnode;
  double a, b;
};

// The row's path is spelled out here, for the rows sent only: paths grow as the square of the
// depth (a recursion 100,000 calls deep: 20 GB for all rows).
json diff_row_json(const DiffRow& r, const Model& a, const OpenReport::RegionPaths& a_paths,
                   const Model& b, const OpenReport::RegionPaths& b_paths) {
  const auto id = [](const Model& m, Index c) {
    return c == kNoIndex ? json(nullptr) : json(m.cnodes[c].id);
  };
  const std::string path =
      r.a_cnode != kNoIndex ? a_paths.path(a, r.a_cnode) : b_paths.path(b, r.b_cnode);
  return {{"path", path},
          {"a_cnode", id(a, r.a_cnode)},
          {"b_cnode", id(b, r.b_cnode)},
          {"a", r.a},
          {"b", r.b},
          {"diff", r.a - r.b}};
}

// The `top` rows of largest |a - b|, largest first (of equals, the earlier row).
void keep_largest_differences(std::vector<DiffRow>& rows, size_t top) {
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto size = [&](size_t i) {  // NaN (a value null) last
    const double d = std::abs(rows[i].a - rows[i].b);
    return std::isnan(d) ? -1.0 : d;
  };
  const auto first = [&](size_t x, size_t y) {
    return size(x) > size(y) || (size(x) == size(y) && x < y);
  };
  const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(top, order.size()));
  std::partial_sort(order.begin(), end, order.end(), first);
  std::vector<DiffRow> kept;
  for (auto it = order.begin(); it != end; ++it) kept.push_back(rows[*it]);
  rows = std::move(kept);
}

}  // namespace

// Values of report a minus report b per call path, call paths matched by region path; a call
// path only one side has counts 0 on the other. With `cnodes` only those call paths of a (a
// viewer's loaded rows), with `top` only the rows that differ most: a report of 100,000 call
// paths has 50 MB of rows. With `prepare=1` no rows: the comparison is prepared in advance.
std::string Api::diff(const Params& p) {
  if (const std::string* prepare = param(p, "prepare"); prepare && *prepare == "1") {
    // In advance (ReportCache::prepare_diff): b is not opened here, the answer does not wait.
    const std::string b = required(p, "b");
    const bool started =
        cache_.prepare_diff(open(p, "a"), confinement_.resolve(b), b, metric_query(p));
    return json{{"preparing", started}}.dump();
  }
  const auto a = open(p, "a");
  const std::string b_name = required(p, "b");
  const auto b = cache_.get(confinement_.resolve(b_name), b_name, /*start_background=*/false);
  const MetricQuery q = metric_query(p);
  const auto va = a->aggregated(q), vb = b->aggregated(q);
  const auto matching = a->matching(*b);
  const auto paths_a = a->region_paths();
  const OpenReport::RegionPaths &pa = *paths_a, &pb = *matching->other_paths;
  const std::string* listed = param(p, "cnodes");
  std::vector<Index> of_a(pa.label.size());
  std::iota(of_a.begin(), of_a.end(), Index{0});
  if (listed) of_a = cnode_list(a->model(), *listed);
  std::vector<DiffRow> rows;
  for (Index c : of_a) {
    const Index bc = matching->in_other[c];
    rows.push_back({c, bc, (*va)[c], bc == kNoIndex ? 0.0 : (*vb)[bc]});
  }
  if (!listed)
    for (Index c : matching->only_in_other) rows.push_back({kNoIndex, c, 0.0, (*vb)[c]});
  if (param(p, "top")) keep_largest_differences(rows, count_param(p, "top", 0, kMaxListedIds));
  json out = json::array();
  for (const DiffRow& r : rows) out.push_back(diff_row_json(r, a->model(), pa, b->model(), pb));
  return json{{"metric", a->metric_name(q.metric)}, {"values", out}}.dump();
}

namespace {

std::vector<std::string> comma_list(const std::string* text) {
  std::vector<std::string> out;
  if (!text || text->empty()) return out;
  for (size_t start = 0; start <= text->size();) {
    size_t end = text->find(',', start);
    if (end == std::string::npos) end = text->size();
    out.push_back(text->substr(start, end - start));
    start = end + 1;
  }
  return out;
}

json pop_values_json(const std::vector<PopValue>& values) {
  json out = json::array();
  for (const PopValue& v : values) {
    json item = {{"key", v.key}, {"label", v.label}, {"depth", v.depth}};
    item["value"] = v.value ? json(*v.value) : json(nullptr);
    if (!v.missing.empty()) item["missing"] = v.missing;
    out.push_back(item);
  }
  return out;
}

}  // namespace

// POP metrics (cubekit/pop.hpp) of one report, or of a scaling series given as several
// `report` parameters, for the call-tree roots or the `focus` call paths (ids or names).
std::string Api::pop(const Params& p) {
  PopOptions options;
  const std::string model_name = param(p, "model") ? *param(p, "model") : "mpi";
  const auto model = parse_pop_model(model_name);
  if (!model)
    throw HttpError(400, "parameter 'model' must be mpi, hybrid-add, hybrid-mult or bsc, not '" +
                             model_name + "'");
  options.model = *model;
  options.focus = comma_list(param(p, "focus"));
  if (const std::string* i = param(p, "individually")) options.individually = *i == "1";
  std::vector<std::shared_ptr<OpenReport>> open_reports;
  std::vector<std::string> names;
  for (auto [it, end] = p.equal_range("report"); it != end; ++it) {
    names.push_back(it->second);
    open_reports.push_back(cache_.get(confinement_.resolve(it->second), it->second));
  }
  if (open_reports.empty()) throw HttpError(400, "parameter 'report' is missing");
  std::vector<const Report*> series;
  for (const auto& r : open_reports) series.push_back(&r->report());
  std::vector<PopResult> results;
  try {
    if (open_reports.size() == 1) {
      results = *open_reports[0]->pop(options);  // kept per report
    } else {
      std::vector<DecodeBudget::Claim> claims;
      for (const auto& r : open_reports)
        claims.push_back(r->claim_cells(2));  // time per location and call path, and one more
      results = pop_metrics(series, options);
    }
  } catch (const Error& e) {
    std::string message = e.what();
    for (size_t i = 0; i < open_reports.size(); ++i)
      for (size_t at; (at = message.find(series[i]->path())) != std::string::npos;)
        message.replace(at, series[i]->path().size(), names[i]);
    throw HttpError(400, message);
  }
  json out = json::array();
  for (const PopResult& r : results)
    out.push_back({{"report", names[r.report]},
                   {"focus", r.focus},
                   {"call_paths", r.call_paths},
                   {"values", pop_values_json(r.values)}});
  return json{{"model", model_name}, {"results", out}}.dump();
}

namespace {

// The region names from the root of call path `cnode` (an id) of `report`.
std::vector<std::string> callpath_names(const Model& m, const std::string& cnode) {
  std::vector<std::string> names;
  for (Index c = cnode_index(m, cnode); c != kNoIndex; c = m.cnodes[c].parent)
    names.push_back(cnode_name(m, c));
  std::reverse(names.begin(), names.end());
  return names;
}

// Extra-P's measure and scaling of /model's parameters (their defaults: mean, weak).
SeriesOptions series_options(const Params& p) {
  SeriesOptions options;
  if (const std::string* text = param(p, "measure")) {
    const auto measure = parse_measure(*text);
    if (!measure)
      throw HttpError(
          400, "parameter 'measure' must be mean, median, minimum or maximum, not '" + *text + "'");
    options.measure = *measure;
  }
  if (const std::string* text = param(p, "scaling")) {
    const auto scaling = parse_scaling(*text);
    if (!scaling)
      throw HttpError(400, "parameter 'scaling' must be weak or strong, not '" + *text + "'");
    options.scaling = *scaling;
  }
  return options;
}

// The hypothesis space /model's `exponents` and `log_exponents` ask to fit with (both or
// neither), or nullopt for Extra-P's.
std::optional<HypothesisSpace> refit_space(const Params& p) {
  const std::string* exponents = param(p, "exponents");
  const std::string* logs = param(p, "log_exponents");
  if (!exponents && !logs) return std::nullopt;
  if (!exponents || !logs)
    throw HttpError(400, "parameters 'exponents' and 'log_exponents' go together");
  try {
    return parse_hypothesis_space(*exponents, *logs);
  } catch (const Error& e) {
    throw HttpError(400, e.what());
  }
}

}  // namespace

// The models of a series folder below the root (fitted once per state of its reports and
// options), for one metric and call-tree flavour, with their measured points; one call path
// with `cnode` (an id of `report`, by default the series' first report).
std::string Api::model(const Params& p) {
  const std::string relative = required(p, "series");
  const std::filesystem::path folder = confinement_.resolve_folder(relative, "series");
  const std::string metric = required(p, "metric");
  const Flavour calltree = flavour(p, "calltree", Flavour::kExclusive);
  const Series series = read_series_folder(folder.string());
  if (series.reports.size() > kMaxSeriesReports)
    throw HttpError(413, relative + ": more than " + std::to_string(kMaxSeriesReports) +
                             " reports in the series");
  for (const SeriesReport& r : series.reports) confinement_.require_inside(r.path, r.path);
  SeriesOptions options = series_options(p);
  options.hypotheses = refit_space(p);
  std::optional<std::vector<std::string>> callpath;
  if (const std::string* cnode = param(p, "cnode")) {
    const std::string& first = series.reports.front().path;
    const auto named = param(p, "report") ? open(p, "report") : cache_.get(first, first);
    callpath = callpath_names(named->model(), *cnode);
  }
  const std::shared_ptr<const SeriesModels> result = models_.get(series, options);
  bool metric_found = false;
  std::string models;
  for (const CallPathModel& m : result->models) {
    metric_found = metric_found || m.metric == metric;
    if (m.metric != metric || m.flavour != calltree || (callpath && m.callpath != *callpath))
      continue;
    models += std::string(models.empty() ? "" : ",") + model_json(m, {}, &series.parameters);
  }
  if (!metric_found) throw HttpError(404, relative + ": no model of a metric '" + metric + "'");
  if (callpath && models.empty())
    throw HttpError(404,
                    relative + ": no model of '" + metric + "' at call path " + *param(p, "cnode"));
  const std::string* measure = param(p, "measure");
  const std::string* scaling = param(p, "scaling");
  std::string out =
      json{{"series", relative},
           {"parameter", series.parameters.at(0)},
           {"parameters", series.parameters},
           {"metric", metric},
           {"calltree", calltree == Flavour::kInclusive ? "incl" : "excl"},
           {"measure", measure ? *measure : "mean"},
           {"scaling", scaling ? *scaling : "weak"},
           {"exponents", options.hypotheses ? json(*param(p, "exponents")) : json(nullptr)},
           {"log_exponents", options.hypotheses ? json(*param(p, "log_exponents")) : json(nullptr)}}
          .dump();
  out.pop_back();  // the closing brace: the models follow, as model_json wrote them
  return out + ",\"models\":[" + models + "]}";
}

}  // namespace cubekit::server
