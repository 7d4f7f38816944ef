// The 50 worked examples of cubepl.md §12 on the test cube T4, with expected values from the
// spec (hand computed there). The derived-metric semantics of §9 (prederived point values
// folded along the call tree and the system, postderived evaluation per query, custom
// operators, init expressions) are implemented here by a small reference engine on top of
// the public Environment interface; prederived point values are evaluated a whole row of
// locations at once and checked against point-by-point evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/cubepl.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit::cubepl {
namespace {

constexpr int kCnodes = 4, kLocs = 2, kStored = 3;
constexpr int kParent[kCnodes] = {-1, 0, 1, 0};
constexpr int kCallee[kCnodes] = {0, 1, 2, 3};
// time, visits, flop: [cnode][location], all stored exclusive (§12.1).
constexpr double kData[kStored][kCnodes][kLocs] = {
    {{2, 1}, {3, 5}, {1, 3}, {4, 2}},
    {{1, 1}, {2, 2}, {4, 8}, {1, 3}},
    {{100, 50}, {600, 1000}, {0, 0}, {800, 200}},
};

enum class Sys { kAll, kLoc, kGroup, kStn };
enum class Kind { kPost, kPreE, kPreI };

struct Query {
  int cnode = -1;  // -1: whole program
  bool incl = true;
  Sys sys = Sys::kAll;
  int id = 0;
  bool sys_incl = true;
};

// "T", "c1/E", "c0/I@L1", "c0/I@G0", "c0/I@S" (the notation of §12.1).
Query q(const std::string& text) {
  Query r;
  if (text == "T") return r;
  r.cnode = text[1] - '0';
  r.incl = text[3] == 'I';
  if (text.size() > 4) {
    const char kind = text[5];
    r.sys = kind == 'L' ? Sys::kLoc : kind == 'G' ? Sys::kGroup : Sys::kStn;
    if (kind != 'S') r.id = text[6] - '0';
  }
  return r;
}

std::vector<int> subtree(int c) {
  std::vector<int> out{c};
  for (int k = 0; k < kCnodes; ++k) {
    for (int p = kParent[k]; p >= 0; p = kParent[p]) {
      if (p == c) out.push_back(k);
    }
  }
  return out;
}

std::vector<int> children(int c) {
  std::vector<int> out;
  for (int k = 0; k < kCnodes; ++k) {
    if (kParent[k] == c) out.push_back(k);
  }
  return out;
}

// Locations a system part selects (groups and the node own no exclusive data).
std::vector<int> locations(const Query& query) {
  switch (query.sys) {
    case Sys::kAll:
      return {0, 1};
    case Sys::kLoc:
      return {query.id};
    case Sys::kGroup:
      return query.sys_incl ? std::vector<int>{query.id} : std::vector<int>{};
    case Sys::kStn:
      return query.sys_incl ? std::vector<int>{0, 1} : std::vector<int>{};
  }
  return {};
}

bool apply(Modifier m, bool current) {
  return m == Modifier::kSame ? current : m == Modifier::kInclusive;
}

class Cube;

// The contexts of §8.2 as one Environment: a point row P(c, F, locations as lanes), a
// selection S(c, f, Y) (lanes = locations for the postderived aggr path), the null context of
// init expressions, and operator expressions (arg1, arg2).
class Context : public Environment {
 public:
  enum class Mode { kNull, kPoint, kSelection, kOperator };
  Context(Cube& cube, int self, Mode mode) : mode_(mode), cube_(cube), self_(self) {}

  Mode mode_;
  int cnode = 0;
  bool incl = true;
  std::vector<int> lanes;          // locations, one per lane (point rows, aggr path)
  std::optional<Query> system;     // S context system part (cnode fields unused)
  std::vector<double> arg1, arg2;  // operator expressions

  void prepare();
  size_t width() const override {
    if (mode_ == Mode::kOperator) return arg1.size();
    return lanes.empty() ? 1 : lanes.size();
  }
  void metric_row(const MetricRef& ref, std::span<double> out) override;
  double metric_call(const CallRef& ref) override;
  std::optional<ArrayView> variable(std::string_view name) override;
  std::span<const double> arg(int which) override { return which == 1 ? arg1 : arg2; }
  std::string metric_property(Index metric, std::string_view property) override;
  void set_metric_value(Index metric, std::string_view value) override;
  std::string environment_variable(std::string_view name) override {
    return name == "CUBEPL_TEST" ? "yes" : "";
  }
  void diagnostic(std::string_view message) override { diagnostics.emplace_back(message); }
  std::vector<std::string> diagnostics;

 private:
  Cube& cube_;
  int self_;
  std::map<std::string, std::vector<double>, std::less<>> automatic_;
  std::map<std::string, bool, std::less<>> per_lane_;
};

struct DerivedMetric {
  std::string name;
  Kind kind = Kind::kPost;
  Program main, plus, minus, aggr;
  bool is_void = false;
};

class Cube {
 public:
  std::vector<std::string> names = {"time", "visits", "flop"};
  std::map<int, DerivedMetric> derived;
  VariableNames variable_names;
  Globals globals;
  std::vector<std::string> warnings;
  std::vector<Program> inits;  // run once by initialize()
  std::vector<int> init_owner;

  CompileContext context() {
    CompileContext c;
    c.find_metric = [this](std::string_view name) -> std::optional<Index> {
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) return static_cast<Index>(i);
      }
      return std::nullopt;
    };
    c.define = [this](const Definition& d) {
      if (d.what != Definition::What::kPostderived || c_find(d.metric)) return;
      names.push_back(d.metric);
      DerivedMetric m;
      m.name = d.metric;
      m.main = compile(d.text, context());
      derived[static_cast<int>(names.size()) - 1] = std::move(m);
    };
    c.warn = [this](const std::string& w) { warnings.push_back(w); };
    c.names = &variable_names;
    return c;
  }
  bool c_find(const std::string& name) const {
    for (const auto& n : names) {
      if (n == name) return true;
    }
    return false;
  }

  // dm: metric 3. Compilation order as in CubeLib: init, main, operators (§7.3).
  int add(Kind kind, const std::string& main, const std::string& init = "",
          const std::string& plus = "", const std::string& minus = "",
          const std::string& aggr = "") {
    const int id = static_cast<int>(names.size());
    names.push_back("dm");
    DerivedMetric m;
    m.name = "dm";
    m.kind = kind;
    derived[id] = DerivedMetric{};
    inits.push_back(compile(init, context()));
    init_owner.push_back(id);
    m.main = compile(main, context());
    m.plus = compile(plus, context());
    m.minus = compile(minus, context());
    m.aggr = compile(aggr, context());
    derived[id] = std::move(m);
    return id;
  }

  void initialize() {
    for (size_t i = 0; i < inits.size(); ++i) {
      Context ctx(*this, init_owner[i], Context::Mode::kNull);
      ctx.prepare();
      inits[i].evaluate(ctx, globals);
    }
  }

  double value(int metric, const Query& query);
  double stored(int metric, const Query& query) const;
  // Point values d(c, ·) of a prederived metric: one row evaluation over both locations.
  std::vector<double> point_row(int metric, int c);
  double point(int metric, int c, int loc);  // the same, one location at a time
  double op(const Program& p, double a, double b, bool minus);

 private:
  double pre_exclusive(int metric, const Query& query);
  double pre_inclusive(int metric, const Query& query);
  double post(int metric, const Query& query);
  double loc_level(int metric, int c, bool incl, int loc);
  double aggr_over_locs(int metric, int c);
};

double Cube::stored(int metric, const Query& query) const {
  const int c = query.cnode < 0 ? 0 : query.cnode;
  const bool incl = query.cnode < 0 || query.incl;
  double sum = 0;
  for (int k : incl ? subtree(c) : std::vector<int>{c}) {
    for (int l : locations(query)) sum += kData[metric][k][l];
  }
  return sum;
}

double Cube::value(int metric, const Query& query) {
  if (metric < kStored) return stored(metric, query);
  const DerivedMetric& m = derived.at(metric);
  if (m.is_void) return 0;
  switch (m.kind) {
    case Kind::kPreE:
      return pre_exclusive(metric, query);
    case Kind::kPreI:
      return pre_inclusive(metric, query);
    case Kind::kPost:
      return post(metric, query);
  }
  return 0;
}

double Cube::op(const Program& p, double a, double b, bool minus) {
  if (p.empty()) return minus ? a - b : a + b;
  Context ctx(*this, -1, Context::Mode::kOperator);
  ctx.arg1 = {a};
  ctx.arg2 = {b};
  return p.evaluate(ctx, globals);
}

std::vector<double> Cube::point_row(int metric, int c) {
  Context ctx(*this, metric, Context::Mode::kPoint);
  ctx.cnode = c;
  ctx.incl = derived.at(metric).kind == Kind::kPreI;
  ctx.lanes = {0, 1};
  ctx.prepare();
  std::vector<double> row(kLocs);
  derived.at(metric).main.evaluate(ctx, globals, row);
  return row;
}

double Cube::point(int metric, int c, int loc) {
  Context ctx(*this, metric, Context::Mode::kPoint);
  ctx.cnode = c;
  ctx.incl = derived.at(metric).kind == Kind::kPreI;
  ctx.lanes = {loc};
  ctx.prepare();
  return derived.at(metric).main.evaluate(ctx, globals);
}

double Cube::aggr_over_locs(int metric, int c) {
  const auto row = point_row(metric, c);
  double acc = 0;
  for (double v : row) acc = op(derived.at(metric).aggr, acc, v, false);
  return acc;
}

// §9.2, PREDERIVED_EXCLUSIVE.
double Cube::pre_exclusive(int metric, const Query& query) {
  const DerivedMetric& m = derived.at(metric);
  const int c = query.cnode < 0 ? 0 : query.cnode;
  const bool incl = query.cnode < 0 || query.incl;
  const std::vector<int> set = incl ? subtree(c) : std::vector<int>{c};
  if (query.sys == Sys::kAll) {
    double acc = 0;
    for (int k : set) acc = op(m.plus, acc, aggr_over_locs(metric, k), false);
    return acc;
  }
  auto at_location = [&](int l) {
    if (!incl) return point_row(metric, c)[l];
    double acc = 0;
    for (int k : set) acc = op(m.plus, acc, point_row(metric, k)[l], false);
    return acc;
  };
  if (query.sys == Sys::kLoc) return at_location(query.id);
  double acc = 0;
  for (int l : locations(query)) acc = op(m.aggr, acc, at_location(l), false);
  return acc;
}

double Cube::loc_level(int metric, int c, bool incl, int loc) {
  double v = point_row(metric, c)[loc];
  if (incl) return v;
  for (int k : children(c)) v = op(derived.at(metric).minus, v, point_row(metric, k)[loc], true);
  return v;
}

// §9.3, PREDERIVED_INCLUSIVE.
double Cube::pre_inclusive(int metric, const Query& query) {
  const DerivedMetric& m = derived.at(metric);
  const int c = query.cnode < 0 ? 0 : query.cnode;
  const bool incl = query.cnode < 0 || query.incl;
  if (query.sys == Sys::kAll) {
    double v = aggr_over_locs(metric, c);
    if (incl) return v;
    for (int k : children(c)) v = op(m.minus, v, aggr_over_locs(metric, k), true);
    return v;
  }
  if (query.sys == Sys::kLoc) return loc_level(metric, c, incl, query.id);
  double acc = 0;
  for (int l : locations(query)) acc = op(m.aggr, acc, loc_level(metric, c, incl, l), false);
  return acc;
}

// §9.5, POSTDERIVED: once per query, or per location and folded with a custom aggr.
double Cube::post(int metric, const Query& query) {
  const DerivedMetric& m = derived.at(metric);
  Context ctx(*this, metric, Context::Mode::kSelection);
  ctx.cnode = query.cnode < 0 ? 0 : query.cnode;
  ctx.incl = query.cnode < 0 || query.incl;
  if (m.aggr.empty()) {
    if (query.sys != Sys::kAll) ctx.system = query;
    ctx.prepare();
    return m.main.evaluate(ctx, globals);
  }
  ctx.lanes = locations(query);
  if (ctx.lanes.empty()) return 0;
  ctx.prepare();
  std::vector<double> row(ctx.lanes.size());
  m.main.evaluate(ctx, globals, row);
  double acc = 0;
  for (double v : row) acc = op(m.aggr, acc, v, false);
  return acc;
}

// ---------------------------------------------------------------- the environment

void Context::prepare() {
  auto set = [&](const std::string& name, std::vector<double> v, bool lanes_vary = false) {
    automatic_[name] = std::move(v);
    per_lane_[name] = lanes_vary;
  };
  if (mode_ == Mode::kNull || mode_ == Mode::kOperator) return;
  set("calculation::metric::id", {static_cast<double>(self_)});
  set("calculation::callpath::id", {static_cast<double>(cnode)});
  set("calculation::callpath::state", {incl ? 0.0 : 1.0});
  set("calculation::callpath::#elements", {1});
  set("calculation::region::id", {static_cast<double>(kCallee[cnode])});
  set("calculation::region::#elements", {1});
  if (!lanes.empty()) {
    std::vector<double> id, sysid;
    for (int l : lanes) {
      id.push_back(l);
      sysid.push_back(3 + l);
    }
    set("calculation::sysres::id", id, true);
    set("calculation::sysres::sysid", sysid, true);
    set("calculation::sysres::kind", std::vector<double>(lanes.size(), 7), true);
    set("calculation::sysres::state", std::vector<double>(lanes.size(), mode_ == Mode::kPoint),
        true);
    set("calculation::sysres::#elements", {1});
  } else if (system) {
    const int base = system->sys == Sys::kStn ? 0 : system->sys == Sys::kGroup ? 1 : 3;
    const int kind = system->sys == Sys::kStn ? 5 : system->sys == Sys::kGroup ? 6 : 7;
    set("calculation::sysres::id", {static_cast<double>(system->id)});
    set("calculation::sysres::sysid", {static_cast<double>(base + system->id)});
    set("calculation::sysres::kind", {static_cast<double>(kind)});
    set("calculation::sysres::state", {system->sys_incl ? 0.0 : 1.0});
    set("calculation::sysres::#elements", {1});
  } else {
    set("calculation::sysres::#elements", {0});
  }
}

void Context::metric_row(const MetricRef& ref, std::span<double> out) {
  std::fill(out.begin(), out.end(), 0.0);
  if (mode_ == Mode::kNull || mode_ == Mode::kOperator) return;
  const int m = static_cast<int>(ref.metric);
  Query query;
  query.cnode = cnode;
  query.incl = apply(ref.call, incl);
  const bool fixed = ref.form == MetricRef::Form::kFixed && ref.given < 2;
  if (fixed && ref.given == 0 && mode_ == Mode::kPoint) {
    std::fill(out.begin(), out.end(), cube_.value(m, Query{}));  // program total
    return;
  }
  if (fixed) {  // current call path (flavour per modifier), whole system
    std::fill(out.begin(), out.end(), cube_.value(m, query));
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    Query lane = query;
    if (!lanes.empty()) {
      lane.sys = Sys::kLoc;
      lane.id = lanes[i];
    } else if (system) {
      lane.sys = system->sys;
      lane.id = system->id;
      lane.sys_incl = apply(ref.system, system->sys_incl);
    }
    if (lane.sys == Sys::kLoc) lane.sys_incl = true;  // a location's exclusive = inclusive
    out[i] = cube_.value(m, lane);
  }
}

double Context::metric_call(const CallRef& ref) {
  if (mode_ == Mode::kOperator) return 0;
  if (ref.cnode < 0 || ref.cnode >= kCnodes) return 0;
  Query query;
  query.cnode = static_cast<int>(ref.cnode);
  query.incl = ref.call == Modifier::kInclusive;
  if (ref.has_system) {
    const int64_t s = ref.sysid;
    if (s < 0 || s > 4) return 0;
    query.sys = s == 0 ? Sys::kStn : s <= 2 ? Sys::kGroup : Sys::kLoc;
    query.id = static_cast<int>(s == 0 ? 0 : s <= 2 ? s - 1 : s - 3);
    query.sys_incl = ref.system == Modifier::kInclusive || query.sys == Sys::kLoc;
  }
  return cube_.value(static_cast<int>(ref.metric), query);
}

const std::map<std::string, std::vector<double>, std::less<>>& reserved_numbers() {
  static const std::map<std::string, std::vector<double>, std::less<>> table = {
      {"cube::#callpaths", {4}},
      {"cube::#regions", {4}},
      {"cube::#locations", {2}},
      {"cube::#metrics", {4}},
      {"cube::#root::callpaths", {1}},
      {"cube::callpath::calleeid", {0, 1, 2, 3}},
      {"cube::callpath::parent::id", {-1, 0, 1, 0}},
      {"cube::callpath::line", {1, 5, 12, 6}},
      {"cube::region::begin::line", {1, 10, 0, 30}},
  };
  return table;
}

const std::map<std::string, std::vector<std::string>, std::less<>>& reserved_strings() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> table = {
      {"cube::metric::uniq::name", {"time", "visits", "flop", "dm"}},
      {"cube::metric::dtype", {"DOUBLE", "UINT64", "DOUBLE", "DOUBLE"}},
      {"cube::metric::uom", {"sec", "occ", "", ""}},
      {"cube::region::name", {"main", "foo", "MPI_Send", "bar"}},
      {"cube::region::mod", {"app.c", "app.c", "MPI", "app.c"}},
      {"cube::location::name", {"thread 0", "thread 0"}},
  };
  return table;
}

std::optional<ArrayView> Context::variable(std::string_view name) {
  if (auto it = automatic_.find(name); it != automatic_.end()) {
    return ArrayView{it->second, {}, per_lane_.find(name)->second};
  }
  if (auto it = reserved_numbers().find(name); it != reserved_numbers().end()) {
    return ArrayView{it->second, {}, false};
  }
  if (auto it = reserved_strings().find(name); it != reserved_strings().end()) {
    return ArrayView{{}, it->second, false};
  }
  return std::nullopt;
}

std::string Context::metric_property(Index metric, std::string_view property) {
  if (property == "unique name" && metric < cube_.names.size()) return cube_.names[metric];
  if (property == "uom" && metric == 0) return "sec";
  return "";
}

void Context::set_metric_value(Index metric, std::string_view value) {
  auto it = cube_.derived.find(static_cast<int>(metric));
  if (it != cube_.derived.end()) it->second.is_void = value == "VOID";
}

// ---------------------------------------------------------------- helpers

void expect_close(double actual, double expected, const std::string& what) {
  const double tolerance = 1e-12 * std::max(1.0, std::fabs(expected));
  EXPECT_NEAR(actual, expected, tolerance) << what;
}

// ---------------------------------------------------------------- T4 through MetricEngine
//
// The same examples again through the library's own engine: T4 is written as a .cubex with
// dm as a derived metric (its expressions in the anchor), read back, and asked through
// MetricEngine's public queries. The expected values stay those of the spec.

Metric t4_metric(uint32_t id, const char* name, const char* dtype) {
  Metric m;
  m.id = id;
  m.uniq_name = m.disp_name = name;
  m.dtype_text = dtype;
  m.dtype = DataType::parse(dtype);
  return m;
}

std::shared_ptr<Model> t4_model(Kind kind, const std::string& main, const std::string& init,
                                const std::string& plus, const std::string& minus,
                                const std::string& aggr) {
  auto model = std::make_shared<Model>();
  model->metrics = {t4_metric(0, "time", "DOUBLE"), t4_metric(1, "visits", "UINT64"),
                    t4_metric(2, "flop", "DOUBLE"), t4_metric(3, "dm", "DOUBLE")};
  model->metrics[0].uom = "sec";
  Metric& dm = model->metrics[3];
  dm.kind = kind == Kind::kPost   ? MetricKind::kPostDerived
            : kind == Kind::kPreE ? MetricKind::kPrederivedExclusive
                                  : MetricKind::kPrederivedInclusive;
  dm.expression = main;
  dm.init_expression = init;
  dm.aggr_plus = plus;
  dm.aggr_minus = minus;
  dm.aggr_aggr = aggr;
  const char* regions[][2] = {
      {"main", "app.c"}, {"foo", "app.c"}, {"MPI_Send", "MPI"}, {"bar", "app.c"}};
  const int begins[] = {1, 10, 0, 30}, lines[] = {1, 5, 12, 6};
  for (uint32_t i = 0; i < 4; ++i) {
    Region r;
    r.id = i;
    r.name = r.mangled_name = regions[i][0];
    r.mod = regions[i][1];
    r.begin = begins[i];
    model->regions.push_back(r);
    Cnode n;
    n.id = i;
    n.region = static_cast<Index>(kCallee[i]);
    n.line = lines[i];
    n.parent = kParent[i] < 0 ? kNoIndex : static_cast<Index>(kParent[i]);
    model->cnodes.push_back(n);
  }
  model->cnodes[0].children = {1, 3};
  model->cnodes[1].children = {2};
  SystemNode machine;
  machine.name = machine.class_name = "machine";
  machine.groups = {0, 1};
  model->system_nodes.push_back(machine);
  for (uint32_t g = 0; g < 2; ++g) {
    LocationGroup group;
    group.id = g;
    group.name = "rank " + std::to_string(g);
    group.rank = g;
    group.node = 0;
    group.locations = {static_cast<Index>(g)};
    model->groups.push_back(group);
    Location loc;
    loc.id = g;
    loc.name = "thread 0";
    loc.group = static_cast<Index>(g);
    model->locations.push_back(loc);
  }
  model->finalize("t4");
  return model;
}

// T4 with dm written to `dir` and read back.
Report t4_report(const test::TempDir& dir, std::shared_ptr<Model> model) {
  const std::string path = (dir.path() / "t4.cubex").string();
  ReportWriter w(path, std::move(model));
  for (Index m = 0; m < kStored; ++m) {
    w.begin_metric(m);
    for (Index c = 0; c < kCnodes; ++c) {
      if (m == 1) {  // visits: UINT64
        const uint64_t row[kLocs] = {static_cast<uint64_t>(kData[m][c][0]),
                                     static_cast<uint64_t>(kData[m][c][1])};
        w.write_row(c, reinterpret_cast<const std::byte*>(row));
      } else {
        w.write_row(c, reinterpret_cast<const std::byte*>(kData[m][c]));
      }
    }
    w.end_metric();
  }
  w.finish();
  return Report::open(path);
}

// One query of §12.1's notation through MetricEngine.
double engine_value(MetricEngine& engine, Index dm, const Query& query) {
  constexpr Flavour kIncl = Flavour::kInclusive;
  if (query.cnode < 0) return engine.aggregated_values(dm, kIncl, kIncl).scalar(0);  // one root
  const Flavour call = query.incl ? kIncl : Flavour::kExclusive;
  const auto cnode = static_cast<Index>(query.cnode);
  switch (query.sys) {
    case Sys::kAll:
      return engine.aggregated_values(dm, kIncl, call).scalar(cnode);
    case Sys::kLoc:
      return engine.location_values(dm, cnode, kIncl, call).scalar(query.id);
    case Sys::kGroup:
      return engine.system_values(dm, cnode, kIncl, call).groups.scalar(query.id);
    case Sys::kStn:
      return engine.system_values(dm, cnode, kIncl, call).nodes.scalar(0);
  }
  return 0;
}

// Answers queries of dm (metric 3) defined as given, from a written T4 report.
class T4Engine {
 public:
  T4Engine(Kind kind, const std::string& main, const std::string& init = "",
           const std::string& plus = "", const std::string& minus = "",
           const std::string& aggr = "")
      : report_(t4_report(dir_, t4_model(kind, main, init, plus, minus, aggr))), engine_(report_) {}
  double value(const std::string& query) { return engine_value(engine_, 3, q(query)); }

 private:
  test::TempDir dir_{"t4"};
  Report report_;
  MetricEngine engine_;
};

// Compiles `text` as dm of `kind` and checks every (query, value) pair.
struct Case {
  std::string query;
  double value;
};

void check(Kind kind, const std::string& main, const std::vector<Case>& cases,
           const std::string& init = "", const std::string& plus = "",
           const std::string& minus = "", const std::string& aggr = "") {
  Cube cube;
  const int dm = cube.add(kind, main, init, plus, minus, aggr);
  cube.initialize();
  T4Engine engine(kind, main, init, plus, minus, aggr);
  for (const auto& c : cases) {
    expect_close(cube.value(dm, q(c.query)), c.value, main + " @ " + c.query);
    expect_close(engine.value(c.query), c.value, "MetricEngine: " + main + " @ " + c.query);
  }
  // Row evaluation must agree with point-by-point evaluation (§13 Q22).
  if (kind != Kind::kPost && !cube.derived.at(dm).is_void) {
    for (int c = 0; c < kCnodes; ++c) {
      const auto row = cube.point_row(dm, c);
      for (int l = 0; l < kLocs; ++l) {
        expect_close(row[l], cube.point(dm, c, l), main + " row vs point");
      }
    }
  }
}

// The whole-program value of a postderived dm; MetricEngine on the written T4 must agree.
double post_total(const std::string& text) {
  Cube cube;
  const int dm = cube.add(Kind::kPost, text);
  cube.initialize();
  const double value = cube.value(dm, Query{});
  const double from_engine = T4Engine(Kind::kPost, text).value("T");
  if (std::isnan(value)) {
    EXPECT_TRUE(std::isnan(from_engine)) << "MetricEngine: " << text;
  } else {
    expect_close(from_engine, value, "MetricEngine: " + text);
  }
  return value;
}

constexpr double kMax = 1.7976931348623157e308;

// ---------------------------------------------------------------- §12.2

TEST(CubePLWorked, W01to12Arithmetic) {
  expect_close(post_total("2 + 3 * 4 ^ 2 / 8"), 8, "W01");
  expect_close(post_total("-2^2 + 2^3^2 * 10"), 636, "W02");
  expect_close(post_total("2 ^ -1 * 4"), 0.0625, "W03");
  expect_close(post_total("7/2/2 - (2-3-4)"), 6.75, "W04");
  EXPECT_EQ(post_total("1/0"), kMax) << "W05";
  EXPECT_EQ(post_total("-1/0 + 0/0"), -kMax) << "W06";
  EXPECT_EQ(post_total("0 * (1/0) + (1/0) * 2"), kMax) << "W07";
  EXPECT_EQ(post_total("log(0) + 1"), -kMax) << "W08";
  expect_close(post_total("sqrt(-4) + log(-1) + 1"), 1, "W09");
  expect_close(post_total("floor(-1.5) * 10 + ceil(-1.5) + |-3| + min(3,-2) * 100"), -218, "W10");
  expect_close(post_total("sgn(-3) + sgn(0) + sgn(4) + pos(-2) + neg(-2) + pos(3) + neg(3)"), 1,
               "W11");
  expect_close(post_total("1 + { return 2; } * 3"), 7, "W12");
}

TEST(CubePLWorked, W09Diagnostics) {
  Cube cube;
  const int dm = cube.add(Kind::kPost, "sqrt(-4) + log(-1) + 1");
  Context ctx(cube, dm, Context::Mode::kSelection);
  ctx.prepare();
  EXPECT_EQ(cube.derived.at(dm).main.evaluate(ctx, cube.globals), 1);
  EXPECT_EQ(ctx.diagnostics.size(), 2u);
}

TEST(CubePLWorked, W13to19ValuesAndControl) {
  expect_close(post_total("{ ${x} = \"12\"; ${y} = \"12abc\"; ${z} = \"abc\"; return (${x} + 1) "
                          "* 10000 + (${y} + 1) * 100 + (\"12\" + 1) * 10 + ${z}; }"),
               131310, "W13");
  expect_close(
      post_total("{ ${x} = 100; ${y} = 2.5; ${z} = 1/3; ${v} = 123456789012345678; ${r} = 0; "
                 "if (${x} eq \"100\") { ${r} = ${r} + 1; }; if (${y} eq \"2.5\") { ${r} = ${r} + "
                 "10; }; if (${z} eq \"0.33333333333333\") { ${r} = ${r} + 100; }; if (${v} eq "
                 "\"1.2345678901235e+17\") { ${r} = ${r} + 1000; }; return ${r}; }"),
      1111, "W14");
  expect_close(post_total("{ ${x} = 0; if (1 == 1 or 1 == 1 and 1 == 2) { ${x} = 1; }; return "
                          "${x}; }"),
               0, "W15");
  expect_close(post_total("{ ${r} = 0; if (\"a\" == \"b\") { ${r} = ${r} + 1; }; if (${q} eq 5) "
                          "{ ${r} = ${r} + 10; }; if (5 =~ /5/) { ${r} = ${r} + 100; }; return "
                          "${r}; }"),
               1, "W16");
  expect_close(
      post_total("{ ${s} = \"MPI_Send\"; ${r} = 0; if (${s} =~ /^MPI_/) { ${r} = ${r} + 1; }; if "
                 "(${s} =~ /^mpi_/) { ${r} = ${r} + 10; }; if (${s} seq \"mpi_send\") { ${r} = "
                 "${r} + 100; }; if (lowercase(${s}) eq \"mpi_send\") { ${r} = ${r} + 1000; }; if "
                 "(${s} =~ /Send$/) { ${r} = ${r} + 10000; }; return ${r}; }"),
      11101, "W17");
  expect_close(post_total("{ ${i} = 0; ${s} = 0; while (${i} < 5) { ${s} = ${s} + ${i}; ${i} = "
                          "${i} + 1; }; return ${s}; }"),
               10, "W18");
  expect_close(post_total("{ ${i} = 0; while (${i} < 10) { ${i} = ${i} + 1; ${a}[${i}] = ${i} * "
                          "${i}; }; return ${a}[3] + ${a}[10] + ${a}[3.9] + ${a}[11]; }"),
               118, "W19");
}

TEST(CubePLWorked, W20to23CubeNames) {
  expect_close(post_total("{ return ${cube::#callpaths} * 1000 + ${cube::#regions} * 100 + "
                          "${cube::#locations} * 10 + ${cube::#metrics}; }"),
               4424, "W20");
  expect_close(post_total("{ ${r} = 0; if (cube::metric::get::time(\"uom\") eq \"sec\") { ${r} = "
                          "1; }; if (${cube::metric::dtype}[1] eq \"UINT64\") { ${r} = ${r} + 10; "
                          "}; if (${cube::metric::uniq::name}[${calculation::metric::id}] eq "
                          "\"dm\") { ${r} = ${r} + 100; }; return ${r}; }"),
               111, "W21");
  expect_close(post_total("{ return defined(cube::#metrics) + 10 * defined(never_mentioned); }"), 1,
               "W22");
  Cube cube;
  const int dm = cube.add(Kind::kPost, "metric::nosuch() + 1");
  EXPECT_EQ(cube.value(dm, Query{}), 1) << "W23";
  ASSERT_EQ(cube.warnings.size(), 1u);
  EXPECT_NE(cube.warnings[0].find("nosuch"), std::string::npos);
}

// ---------------------------------------------------------------- §12.3

TEST(CubePLWorked, W24FlopRate) {
  check(Kind::kPost, "metric::flop() / metric::time()",
        {{"T", 2750.0 / 21},
         {"c0/I", 2750.0 / 21},
         {"c0/I@S", 2750.0 / 21},
         {"c0/E", 50},
         {"c0/I@L0", 150},
         {"c0/I@G0", 150},
         {"c0/I@L1", 1250.0 / 11},
         {"c1/I", 1600.0 / 12},
         {"c1/E", 200},
         {"c1/I@L1", 125},
         {"c2/I", 0},
         {"c3/I@L1", 100}});
}

TEST(CubePLWorked, W25TimePerVisit) {
  check(Kind::kPost, "metric::time(i) / metric::visits(e)",
        {{"c0/I", 10.5},
         {"c0/E", 10.5},
         {"c0/I@L0", 10},
         {"c0/I@L1", 11},
         {"c1/I", 3},
         {"c2/I", 4.0 / 12},
         {"c2/I@L0", 0.25},
         {"c2/I@L1", 0.375},
         {"c3/I", 1.5},
         {"c3/I@L1", 2.0 / 3},
         {"T", 10.5}});
}

const char* kMpiRegex =
    "{ ${a} = 0; if (${cube::region::name}[${calculation::region::id}] =~ /^MPI_/) { ${a} = "
    "metric::time(); }; return ${a}; }";

TEST(CubePLWorked, W26W27RegexSelection) {
  check(Kind::kPreE, kMpiRegex,
        {{"T", 4},
         {"c0/I", 4},
         {"c0/E", 0},
         {"c1/I", 4},
         {"c1/E", 0},
         {"c2/E", 4},
         {"c3/I", 0},
         {"c0/I@L0", 1},
         {"c0/I@L1", 3},
         {"c0/I@G1", 3},
         {"c0/I@S", 4}});
  check(Kind::kPreE,
        "{ ${a} = 0; if (not (${cube::region::name}[${calculation::region::id}] =~ /^MPI_/)) { "
        "${a} = metric::time(); }; return ${a}; }",
        {{"T", 17},
         {"c0/I", 17},
         {"c0/E", 3},
         {"c1/I", 8},
         {"c1/E", 8},
         {"c2/I", 0},
         {"c3/I", 6},
         {"c0/I@L0", 9},
         {"c0/I@L1", 8}});
}

const char* kDepth =
    "{ ${d} = 0; ${c} = ${calculation::callpath::id}; while (${cube::callpath::parent::id}[${c}] "
    "!= -1) { ${c} = ${cube::callpath::parent::id}[${c}]; ${d} = ${d} + 1; }; return ${d}; }";

TEST(CubePLWorked, W28W29Depth) {
  check(Kind::kPost, kDepth,
        {{"c0/I", 0}, {"c1/I", 1}, {"c2/E", 2}, {"c3/I@L1", 1}, {"c1/E@L0", 1}, {"T", 0}});
  check(Kind::kPreE, kDepth,
        {{"c0/E", 0},
         {"c0/I", 8},
         {"c0/I@L0", 4},
         {"c1/E", 2},
         {"c1/I", 6},
         {"c2/I", 4},
         {"c3/I", 2},
         {"T", 8}});
}

TEST(CubePLWorked, W30to32Modifiers) {
  check(Kind::kPreE, "metric::time(i)",
        {{"c0/E", 21},
         {"c0/I", 43},
         {"c1/E", 12},
         {"c1/I", 16},
         {"c2/I", 4},
         {"c3/I", 6},
         {"T", 43}});
  check(Kind::kPost, "metric::time() - metric::time(e)",
        {{"c0/I", 18},
         {"c0/E", 0},
         {"c0/I@L0", 8},
         {"c0/I@L1", 10},
         {"c1/I", 4},
         {"c1/E", 0},
         {"c2/I", 0},
         {"c3/I", 0},
         {"T", 18}});
  check(Kind::kPost, "metric::time(*,e)",
        {{"c0/I", 21}, {"c0/E", 3}, {"c1/I@L1", 8}, {"c0/I@G0", 0}, {"c0/I@S", 0}});
}

TEST(CubePLWorked, W33to35Fixed) {
  check(Kind::kPreE, "metric::time() / metric::fixed::time()",
        {{"T", 1},
         {"c0/E", 3.0 / 21},
         {"c0/E@L0", 2.0 / 21},
         {"c1/I", 12.0 / 21},
         {"c1/E", 8.0 / 21},
         {"c0/I@L0", 10.0 / 21},
         {"c0/I@L1", 11.0 / 21},
         {"c3/I", 6.0 / 21}});
  check(Kind::kPreE, "metric::time() / metric::fixed::time(e)",
        {{"c0/E", 1},
         {"c1/E", 1},
         {"c2/I", 1},
         {"c3/I", 1},
         {"c0/I", 4},
         {"c1/I", 2},
         {"T", 4},
         {"c2/E@L0", 0.25},
         {"c2/E@L1", 0.75},
         {"c0/E@L0", 2.0 / 3},
         {"c0/I@L0", 2.0 / 3 + 3.0 / 8 + 1.0 / 4 + 4.0 / 6},
         {"c0/I@L1", 1.0 / 3 + 5.0 / 8 + 3.0 / 4 + 2.0 / 6}});
  check(Kind::kPost, "metric::fixed::time()",
        {{"c0/I", 21},
         {"c0/I@L0", 21},
         {"c0/I@G1", 21},
         {"c0/E@L1", 3},
         {"c1/I", 12},
         {"c1/E", 8},
         {"T", 21}});
}

TEST(CubePLWorked, W36W37ExplicitCallPath) {
  check(Kind::kPreE, "metric::call::time(1, i)",
        {{"c2/E", 24}, {"c1/I", 48}, {"c0/I", 96}, {"T", 96}, {"c0/E@L0", 12}});
  check(Kind::kPost, "metric::call::time(2, e, 4, e)",
        {{"T", 3}, {"c0/E", 3}, {"c1/I@L0", 3}, {"c3/E@L1", 3}, {"c0/I@G0", 3}});
}

TEST(CubePLWorked, W38InitClassification) {
  check(Kind::kPreE,
        "{ ${a} = 0; if (${ismpi}[${calculation::callpath::id}] == 1) { ${a} = metric::time(); "
        "}; return ${a}; }",
        {{"T", 4}, {"c0/I@L1", 3}, {"c1/E", 0}, {"c2/E", 4}, {"c0/E", 0}},
        "{ global(ismpi); ${i} = 0; while (${i} < ${cube::#callpaths}) { ${ismpi}[${i}] = 0; if "
        "(${cube::region::mod}[${cube::callpath::calleeid}[${i}]] eq \"MPI\") { ${ismpi}[${i}] = "
        "1; }; ${i} = ${i} + 1; }; return 0; }");
}

TEST(CubePLWorked, W39W40StringsAndElseif) {
  check(Kind::kPost,
        "{ ${x} = 0; if (uppercase(${cube::region::name}[${calculation::region::id}]) seq "
        "\"Foo\") { ${x} = 1; }; return ${x}; }",
        {{"c0/I", 0}, {"c1/I", 1}, {"c1/E@L1", 1}, {"c2/I", 0}, {"c3/I", 0}, {"T", 0}});
  check(Kind::kPost,
        "{ if (${calculation::region::id} == 0) { ${r} = 10; } elseif "
        "(${calculation::region::id} == 1) { ${r} = 20; } else { ${r} = 30; }; return ${r}; }",
        {{"c0/I", 10}, {"c1/E", 20}, {"c2/I", 30}, {"c3/I@L0", 30}, {"T", 10}});
}

TEST(CubePLWorked, W41W42AutomaticVariables) {
  check(Kind::kPost,
        "{ return ${calculation::callpath::id} * 10 + ${calculation::callpath::state}; }",
        {{"c0/I", 0}, {"c1/I", 10}, {"c1/E", 11}, {"c2/E@L1", 21}, {"c3/I@G0", 30}, {"T", 0}});
  check(Kind::kPreE,
        "{ return ${calculation::sysres::id} * 10 + ${calculation::sysres::kind} + "
        "${calculation::sysres::sysid} * 100; }",
        {{"c2/E", 724}, {"c2/E@L0", 307}, {"c1/I@L1", 834}, {"c0/I", 2896}, {"T", 2896}});
}

TEST(CubePLWorked, W43W44PrederivedInclusive) {
  check(Kind::kPreI, "2 * metric::visits()",
        {{"T", 44},
         {"c0/I", 44},
         {"c0/E", 4},
         {"c0/E@L0", 2},
         {"c1/I", 32},
         {"c1/E", 8},
         {"c2/I", 24},
         {"c2/E", 24},
         {"c3/I", 8},
         {"c0/I@L1", 28}});
  for (const char* text : {"metric::time()", "metric::time(i)"}) {
    check(Kind::kPreI, text, {{"T", 21}, {"c0/E", 3}, {"c1/E@L1", 5}, {"c0/I@L0", 10}});
  }
}

TEST(CubePLWorked, W45to48CustomOperators) {
  check(Kind::kPreE, "metric::time()",
        {{"c0/I", 8},
         {"T", 8},
         {"c0/E", 3},
         {"c1/I", 8},
         {"c0/I@L0", 4},
         {"c0/I@L1", 5},
         {"c0/I@S", 9}},
        "", "max(arg1, arg2)");
  check(Kind::kPreE, "metric::time()",
        {{"c0/E", 2},
         {"c1/E", 5},
         {"c2/I", 3},
         {"c3/I", 4},
         {"c0/I", 14},
         {"T", 14},
         {"c0/I@L0", 10},
         {"c0/I@S", 11}},
        "", "", "", "max(arg1, arg2)");
  check(Kind::kPreI, "metric::time(i)",
        {{"c0/I", 21},
         {"c0/E", -15},
         {"c0/E@L0", -6},
         {"c0/E@L1", -9},
         {"c1/E", 4},
         {"c2/E", 4},
         {"c3/E", 6}},
        "", "", "arg1 - 2*arg2");
  check(Kind::kPost, "metric::time()",
        {{"c0/I", 11},
         {"T", 11},
         {"c0/E", 2},
         {"c1/I", 8},
         {"c1/E", 5},
         {"c2/I", 3},
         {"c3/I", 4},
         {"c0/I@L0", 10},
         {"c0/I@S", 11}},
        "", "", "", "max(arg1, arg2)");
}

TEST(CubePLWorked, W49W50StateAndLocals) {
  check(Kind::kPreE, "metric::time()", {{"T", 0}, {"c0/E", 0}, {"c2/E@L1", 0}},
        "{ cube::metric::set::dm(\"value\", \"VOID\"); return 0; }");
  check(Kind::kPreE, "{ ${n} = ${n} + 1; return ${n}; }",
        {{"c2/E", 2}, {"c1/I", 4}, {"c0/I", 8}, {"T", 8}, {"c0/I@L0", 4}});
}

// The ghost-metric case of §12.4 (accepted, 42 at T when compiled after initialisation).
TEST(CubePLWorked, GhostMetricDefinedInCubePL) {
  Cube cube;
  const int dm =
      cube.add(Kind::kPost,
               "{ cube::metric::postderived::gm << metric::time() * 2 >>; return metric::gm(); }");
  EXPECT_EQ(cube.value(dm, Query{}), 42);
  EXPECT_EQ(cube.value(dm, q("c1/E")), 16);
}

// §13 Q22: a postderived metric evaluated for a row of locations decides its if per location.
TEST(CubePLWorked, RowWiseConditionsArePerLocation) {
  Cube cube;
  const int dm =
      cube.add(Kind::kPost, "{ ${a} = 0; if (metric::time() > 10.5) { ${a} = 1; }; return ${a}; }");
  Context ctx(cube, dm, Context::Mode::kSelection);
  ctx.cnode = 0;
  ctx.lanes = {0, 1};
  ctx.prepare();
  std::vector<double> row(2);
  cube.derived.at(dm).main.evaluate(ctx, cube.globals, row);
  EXPECT_EQ(row[0], 0);
  EXPECT_EQ(row[1], 1);
}

// CubeVariables built from a Model of T4 gives the arrays the reference engine above uses.
TEST(CubePLCubeVariables, FilledFromTheModel) {
  Model model;
  for (const char* name : {"time", "visits", "flop", "dm"}) {
    Metric m;
    m.uniq_name = m.disp_name = name;
    m.dtype_text = std::string(name) == "visits" ? "UINT64" : "DOUBLE";
    model.metrics.push_back(m);
  }
  model.metrics[0].uom = "sec";
  const char* regions[][2] = {
      {"main", "app.c"}, {"foo", "app.c"}, {"MPI_Send", "MPI"}, {"bar", "app.c"}};
  const int begins[] = {1, 10, 0, 30};
  for (int i = 0; i < 4; ++i) {
    Region r;
    r.id = static_cast<uint32_t>(i);
    r.name = regions[i][0];
    r.mod = regions[i][1];
    r.begin = begins[i];
    model.regions.push_back(r);
  }
  const int lines[] = {1, 5, 12, 6};
  for (int c = 0; c < kCnodes; ++c) {
    Cnode n;
    n.id = static_cast<uint32_t>(c);
    n.region = static_cast<Index>(kCallee[c]);
    n.line = lines[c];
    n.parent = kParent[c] < 0 ? kNoIndex : static_cast<Index>(kParent[c]);
    model.cnodes.push_back(n);
  }
  model.cnodes[0].children = {1, 3};
  model.cnodes[1].children = {2};
  SystemNode machine;
  machine.name = machine.class_name = "machine";
  machine.groups = {0, 1};
  model.system_nodes.push_back(machine);
  for (int g = 0; g < 2; ++g) {
    LocationGroup group;
    group.name = "rank " + std::to_string(g);
    group.rank = g;
    group.node = 0;
    group.locations = {static_cast<Index>(g)};
    model.groups.push_back(group);
    Location loc;
    loc.name = "thread 0";
    loc.group = static_cast<Index>(g);
    model.locations.push_back(loc);
  }
  const CubeVariables vars(model, "t4.cubex");
  for (const auto& [name, values] : reserved_numbers()) {
    const auto view = vars.find(name);
    ASSERT_TRUE(view) << name;
    EXPECT_EQ(std::vector<double>(view->numbers.begin(), view->numbers.end()), values) << name;
  }
  for (const auto& [name, values] : reserved_strings()) {
    if (name == "cube::metric::uom") continue;  // the table invents "occ" for visits
    const auto view = vars.find(name);
    ASSERT_TRUE(view) << name;
    EXPECT_EQ(std::vector<std::string>(view->strings.begin(), view->strings.end()), values) << name;
  }
  EXPECT_EQ(vars.find("cube::location::parent::sysid")->numbers[1], 2);
  EXPECT_EQ(vars.find("cube::locationgroup::parent::sysid")->numbers[1], 0);
  EXPECT_EQ(vars.find("cube::#locations::void")->numbers[0], 0);
  EXPECT_EQ(vars.find("cube::stn::parent::id")->numbers[0], -1);
  EXPECT_EQ(vars.find("cube::filename")->strings[0], "t4.cubex");
  EXPECT_FALSE(vars.find("cube::nothing"));
}

}  // namespace
}  // namespace cubekit::cubepl
