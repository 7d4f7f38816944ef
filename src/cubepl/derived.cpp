// The derived-metric engine (cubepl.md §9): point values of prederived metrics evaluated a row
// of locations at a time, postderived metrics evaluated once per query (one lane per cnode for
// a whole call tree at once), folds with the default or the metric's own operators.
#include "cubekit/derived.hpp"

#include "cubekit/algebra.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "calc/kernels.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/cubepl.hpp"
#include "cubekit/error.hpp"
#include "cubepl/builtins.hpp"

namespace cubekit {
namespace {

using cubepl::ArrayView;
using cubepl::CallRef;
using cubepl::MetricRef;
using cubepl::Modifier;
using Row = std::vector<double>;

Flavour apply(Modifier m, Flavour current) {
  if (m == Modifier::kInclusive) return Flavour::kInclusive;
  if (m == Modifier::kExclusive) return Flavour::kExclusive;
  return current;
}

// The call-tree flavour a prederived metric's expression is evaluated with.
Flavour point_flavour(MetricKind kind) {
  return kind == MetricKind::kPrederivedInclusive ? Flavour::kInclusive : Flavour::kExclusive;
}

int flavour_index(Flavour f) {
  return f == Flavour::kInclusive ? 0 : 1;
}

Values to_values(const Row& row) {
  Values v(DataType(TypeKind::kDouble), row.size());
  for (size_t i = 0; i < row.size(); ++i) std::memcpy(v.at(i), &row[i], sizeof(double));
  return v;
}

// A derived metric declared with an integer dtype answers in that type, as CubeLib's values of
// such metrics are (cube_dump prints them as integers): truncated toward zero, clamped.
Values typed_values(const Row& row, DataType dtype) {
  Values v = to_values(row);
  if (!dtype.is_integer()) return v;
  Values typed(dtype, row.size());
  convert_values(v.type(), v.data(), dtype, typed.data(), row.size(), "derived value");
  return typed;
}

Row to_row(const Values& v) {
  Row out(v.size());
  scalars(v.type(), v.data(), v.size(), out.data());
  return out;
}

// sums[k] = Σ rows[k * L + columns[i]] for i in order, for k < n ≤ 4: one chain of additions
// per row, all in one loop (the chains are independent, so they overlap in the pipeline).
void sum_columns(const double* rows, size_t L, size_t n, const std::vector<Index>& columns,
                 double* sums) {
  if (n == 4) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (Index column : columns) {
      s0 += rows[column];
      s1 += rows[L + column];
      s2 += rows[2 * L + column];
      s3 += rows[3 * L + column];
    }
    sums[0] = s0, sums[1] = s1, sums[2] = s2, sums[3] = s3;
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    double s = 0;
    for (Index column : columns) s += rows[k * L + column];
    sums[k] = s;
  }
}

struct Programs {
  cubepl::Program main, init, plus, minus, aggr;
};

// cube::init::metric::N, cube::metric::plus::N, cube::metric::minus::N << text >>: applied once
// every expression of the report is compiled (the slot being replaced may be the one whose
// compilation defined it).
struct Attachment {
  Index metric;
  cubepl::Definition::What what;
  std::string text;
  bool user_text;  // written in a user's expression (Metric::user_expressions)
};

}  // namespace

struct MetricEngine::Impl {
  // How the current evaluation's lanes map to the report (cubepl.md §8.2).
  enum class Context : uint8_t {
    kNull,      // init expressions
    kOperator,  // plus / minus / aggr with arg1, arg2
    kPoint,     // prederived: one cnode, lanes = location columns
    kRow,       // postderived per location: one cnode, lanes = location columns
    kTree,      // postderived whole system: lanes = cnodes
    kSystem,    // postderived per system entity: one cnode, lanes = system nodes, then groups
  };

  class Env;

  Impl(Report r, std::vector<AdHocMetric> extra, MetricEngineOptions options);
  const Metric& metric(Index m) const {
    return m < model.metrics.size() ? model.metrics[m] : extra[m - model.metrics.size()];
  }
  size_t count() const { return model.metrics.size() + extra.size(); }
  // LookupError for a metric or cnode index this engine does not know (kNoIndex: no cnode).
  void check(Index m, Index cnode = kNoIndex) const;
  std::optional<Index> find(std::string_view uniq_name) const;
  cubepl::Program compile(Index m, const std::string& text, const char* slot,
                          std::optional<bool> user_text = std::nullopt);
  void compile_all();
  void define(const cubepl::Definition& d);
  void define_ghost(const cubepl::Definition& d);
  void attach(const cubepl::Definition& d);
  void apply_attachments();
  void check_cycles() const;
  void run_inits();

  // Own (metric-tree inclusive) values of any metric.
  Row row(Index m, Index c, Flavour f);
  // The same into `out` (one value per location): no row allocated for stored metrics and
  // cached points, the operands of prederived metrics.
  void row_into(Index m, Index c, Flavour f, std::span<double> out);
  const Row& aggregated(Index m, Flavour f);
  double program_total(Index m);
  bool needs_engine(Index m, Flavour metric_flavour) const;
  Values own_values(Index m, Index c, Flavour call_flavour);
  Values own_aggregated(Index m, Flavour call_flavour);
  double at_system(Index m, Index c, Flavour f, int64_t sysid, Flavour system);
  // Own values of metric m at cnode c per system node, then per location group (doubles).
  Row system_row(Index m, Index c, Flavour f);
  // Per-location values folded with m's aggr operator over each system node, then each group.
  Row aggr_over_entities(Index m, const Row& per_location);

  Row evaluate(const cubepl::Program& p, Context ctx, Index m, Index c, Flavour f);
  const Row& point(Index m, Index c);
  // point(m, c) into `out` (one value per location): the cached row, or evaluated without
  // caching it. A whole call tree's sums read each point once; caching them cost writing
  // C × L doubles to fresh memory (issue 30).
  void point_into(Index m, Index c, std::span<double> out);
  // Σ or m's aggr operator over the locations of one row of m.
  double over_locations(Index m, const Row& r);
  // own[c] = over_locations(m, point(m, c)) for every cnode c.
  void point_sums(Index m, Row& own);
  // a ⊕ b lane by lane with a metric's operator (empty program: the default).
  void fold(const cubepl::Program& op, bool minus, Row& acc, const Row& value);
  double fold1(const cubepl::Program& op, bool minus, double acc, double value);

  const Report report;  // the engine's own handle: the model and values live as long as it does
  const Model& model;
  const MetricEngineOptions options;
  bool compiling_user_text = false;  // the text being compiled came from the user
  // Ad-hoc metrics, then ghost metrics defined by CubePL statements. Deques: compiling one
  // expression may define a ghost metric while references to others are held.
  std::deque<Metric> extra;
  std::deque<Programs> programs;
  size_t first_defined = 0;  // index of the first metric defined by a CubePL statement
  std::vector<Attachment> attachments;
  cubepl::CompileContext context;
  std::vector<std::string> warnings;
  std::vector<std::string> cubelib_notes;
  std::vector<std::string> cubelib_notes_again;  // of a second compile (see the accessor)
  cubepl::VariableNames names;
  cubepl::Globals globals;
  // ${cube::…}: built when a program first reads one (most never do; building it walks the
  // whole model, which cost a tenth of evaluating time / visits over a report).
  std::optional<cubepl::CubeVariables> variables;
  const cubepl::CubeVariables& cube_variables() {
    if (!variables) variables.emplace(model, report.path());
    return *variables;
  }
  std::vector<Index> column_location;  // location column → index into Model::locations
  std::vector<Index> location_column;  // the reverse (Model::locations[l].id), read per row
  // The whole call forest in pre-order (children in stored order); a cnode's subtree is the
  // range from its own position to subtree_end[c]. Linear in the call paths, where a list of
  // descendants per cnode would be quadratic for deep chains.
  std::vector<Index> preorder;
  std::vector<size_t> preorder_position, subtree_end;
  // The cnode itself and its descendants, pre-order.
  std::span<const Index> subtree(Index c) const {
    return std::span<const Index>(preorder).subspan(preorder_position[c],
                                                    subtree_end[c] - preorder_position[c]);
  }
  void build_preorder();
  // System node, then group (the lanes of system_row) → the locations below it, ascending.
  // Built when a custom aggr operator first needs it.
  std::vector<std::vector<Index>> entity_locations;
  std::vector<bool> inactive;  // cube::metric::set::M("value", "VOID")
  std::map<std::pair<Index, int>, Row> aggregated_cache;
  std::map<Index, std::vector<std::optional<Row>>> points;
  std::recursive_mutex mutex;
};

class MetricEngine::Impl::Env : public cubepl::Environment {
 public:
  Env(Impl& e, Context ctx, Index metric, Index cnode, Flavour f, size_t width)
      : e_(e), ctx_(ctx), metric_(metric), cnode_(cnode), flavour_(f), width_(width) {}
  std::span<const double> a1, a2;

  size_t width() const override { return width_; }

  void metric_row(const MetricRef& ref, std::span<double> out) override {
    const bool whole_program = ref.form == MetricRef::Form::kFixed && ref.given == 0;
    if (ctx_ == Context::kOperator) return std::fill(out.begin(), out.end(), 0.0);
    if (ctx_ == Context::kNull) {
      std::fill(out.begin(), out.end(), whole_program ? e_.program_total(ref.metric) : 0.0);
      return;
    }
    const Flavour f = apply(ref.call, flavour_);
    if (ctx_ == Context::kSystem && !(ref.form == MetricRef::Form::kFixed && ref.given < 2)) {
      // The queried nodes and groups are inclusive; exclusively they own no data (§8.1).
      if (apply(ref.system, Flavour::kInclusive) == Flavour::kExclusive)
        return std::fill(out.begin(), out.end(), 0.0);
      const Row v = e_.system_row(ref.metric, cnode_, f);
      std::copy(v.begin(), v.end(), out.begin());
      return;
    }
    if (ctx_ == Context::kTree) {
      const Row& v = e_.aggregated(ref.metric, f);
      std::copy(v.begin(), v.end(), out.begin());
      return;
    }
    if (whole_program && ctx_ == Context::kPoint) {
      std::fill(out.begin(), out.end(), e_.program_total(ref.metric));
      return;
    }
    if (ref.form == MetricRef::Form::kFixed && ref.given < 2) {  // whole system
      std::fill(out.begin(), out.end(), e_.aggregated(ref.metric, f)[cnode_]);
      return;
    }
    e_.row_into(ref.metric, cnode_, f, out);
  }

  double metric_call(const CallRef& ref) override {
    if (ctx_ == Context::kOperator) return 0;
    if (ref.cnode < 0 || static_cast<uint64_t>(ref.cnode) >= e_.model.cnodes.size()) {
      diagnostic("metric::call: no call path with id " + std::to_string(ref.cnode));
      return 0;
    }
    const Index c = static_cast<Index>(ref.cnode);
    const Flavour f = apply(ref.call, Flavour::kInclusive);
    if (!ref.has_system) return e_.aggregated(ref.metric, f)[c];
    return e_.at_system(ref.metric, c, f, ref.sysid, apply(ref.system, Flavour::kInclusive));
  }

  std::optional<ArrayView> variable(std::string_view name) override {
    if (!name.starts_with("calculation::")) return e_.cube_variables().find(name);
    if (ctx_ == Context::kNull || ctx_ == Context::kOperator) return std::nullopt;
    const bool tree = ctx_ == Context::kTree;
    auto scalar = [&](double v) {
      scalars_.push_back(std::make_unique<double>(v));
      return ArrayView{std::span<const double>(scalars_.back().get(), 1), {}, false};
    };
    auto lanes = [&](Row v) {
      rows_.push_back(std::make_unique<Row>(std::move(v)));
      return ArrayView{*rows_.back(), {}, true};
    };
    const Model& model = e_.model;
    if (name == "calculation::metric::id") return scalar(metric_);
    if (name == "calculation::callpath::#elements" || name == "calculation::region::#elements")
      return scalar(1);
    if (name == "calculation::callpath::state")
      return scalar(flavour_ == Flavour::kInclusive ? 0 : 1);
    if (name == "calculation::callpath::id" || name == "calculation::region::id") {
      // The ids as the report writes them (CubeLib's get_id()), not positions in the model:
      // Score-P numbers call paths in the order it first saw them, not in tree order.
      const bool region = name == "calculation::region::id";
      auto id_of = [&](Index c) -> double {
        return region ? model.regions[model.cnodes[c].region].id : model.cnodes[c].id;
      };
      if (!tree) return scalar(id_of(cnode_));
      Row v(model.cnodes.size());
      for (Index c = 0; c < v.size(); ++c) v[c] = id_of(c);
      return lanes(std::move(v));
    }
    if (name == "calculation::sysres::#elements") return scalar(tree ? 0 : 1);
    if (tree || ctx_ == Context::kSystem) return std::nullopt;
    if (name == "calculation::sysres::state") return scalar(ctx_ == Context::kPoint ? 1 : 0);
    if (name == "calculation::sysres::kind") return scalar(7);
    if (name == "calculation::sysres::id" || name == "calculation::sysres::sysid") {
      const double base = name == "calculation::sysres::sysid"
                              ? static_cast<double>(model.system_nodes.size() + model.groups.size())
                              : 0.0;
      Row v(width_);
      for (size_t i = 0; i < width_; ++i) v[i] = base + e_.column_location[i];
      return lanes(std::move(v));
    }
    return std::nullopt;
  }

  std::span<const double> arg(int which) override { return which == 1 ? a1 : a2; }

  std::string metric_property(Index metric, std::string_view property) override {
    if (metric >= e_.count()) return {};
    const Metric& m = e_.metric(metric);
    if (property == "uniq_name" || property == "unique name") return m.uniq_name;
    if (property == "disp_name" || property == "display name") return m.disp_name;
    if (property == "url") return m.url;
    if (property == "description") return m.descr;
    if (property == "dtype") return m.dtype_text;
    if (property == "uom") return m.uom;
    for (const auto& [key, value] : m.attrs)
      if (key == property) return value;
    return {};
  }

  void set_metric_value(Index metric, std::string_view value) override {
    if (metric >= e_.count()) return;
    const bool now = value == "VOID";
    if (e_.inactive[metric] == now) return;
    e_.inactive[metric] = now;
    e_.aggregated_cache.clear();
    e_.points.clear();
  }

 private:
  Impl& e_;
  Context ctx_;
  Index metric_, cnode_;
  Flavour flavour_;
  size_t width_;
  std::vector<std::unique_ptr<double>> scalars_;
  std::vector<std::unique_ptr<Row>> rows_;
};

MetricEngine::Impl::Impl(Report r, std::vector<AdHocMetric> more,
                         MetricEngineOptions engine_options)
    : report(std::move(r)), model(report.model()), options(engine_options) {
  for (AdHocMetric& a : more) {
    Metric m;
    m.id = static_cast<uint32_t>(model.metrics.size() + extra.size());
    m.uniq_name = m.disp_name = a.uniq_name;
    m.dtype_text = "DOUBLE";
    m.dtype = DataType(TypeKind::kDouble);
    m.kind = MetricKind::kPostDerived;
    m.expression = std::move(a.expression);
    m.user_expressions = true;
    extra.push_back(std::move(m));
  }
  column_location.assign(model.locations.size(), 0);
  location_column.reserve(model.locations.size());
  for (const Location& l : model.locations) location_column.push_back(l.id);
  for (Index l = 0; l < model.locations.size(); ++l)
    if (model.locations[l].id < column_location.size()) column_location[model.locations[l].id] = l;
  build_preorder();
  first_defined = count();
  inactive.assign(count(), false);
  for (Index m = 0; m < count(); ++m) inactive[m] = metric(m).is_void;
  programs.resize(count());
  compile_all();
  check_cycles();
  run_inits();
}

// Iterative: call trees can be deeper than the stack. A cnode's subtree ends where the walk
// leaves it, which is known once its last descendant is placed.
void MetricEngine::Impl::build_preorder() {
  const size_t C = model.cnodes.size();
  preorder.reserve(C);
  preorder_position.assign(C, 0);
  subtree_end.assign(C, 0);
  std::vector<std::pair<Index, size_t>> stack;  // cnode, next child to enter
  for (Index root : model.cnode_roots()) {
    preorder_position[root] = preorder.size();
    preorder.push_back(root);
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      const auto& kids = model.cnodes[c].children;
      if (next == kids.size()) {
        subtree_end[c] = preorder.size();
        stack.pop_back();
        continue;
      }
      const Index k = kids[next++];
      preorder_position[k] = preorder.size();
      preorder.push_back(k);
      stack.push_back({k, 0});
    }
  }
}

std::optional<Index> MetricEngine::Impl::find(std::string_view uniq_name) const {
  if (auto m = model.metric_by_uniq_name(uniq_name)) return m;
  for (Index i = 0; i < extra.size(); ++i)
    if (extra[i].uniq_name == uniq_name) return static_cast<Index>(model.metrics.size() + i);
  return std::nullopt;
}

// `user_text`: whether the text came from the user; by default that of metric m's own texts.
cubepl::Program MetricEngine::Impl::compile(Index m, const std::string& text, const char* slot,
                                            std::optional<bool> user_text) {
  const bool outer = compiling_user_text;
  compiling_user_text = user_text.value_or(metric(m).user_expressions);
  context.read_environment = compiling_user_text || options.report_env;
  try {
    cubepl::Program program = cubepl::compile(text, context);
    compiling_user_text = outer;
    return program;
  } catch (const CubePLError& e) {
    compiling_user_text = outer;
    throw CubePLError("metric '" + metric(m).uniq_name + "', " + slot + ": " + e.what());
  }
}

void MetricEngine::Impl::compile_all() {
  context.find_metric = [this](std::string_view name) { return find(name); };
  context.define = [this](const cubepl::Definition& d) { define(d); };
  context.warn = [this](const std::string& w) { warnings.push_back(w); };
  context.cubelib_note = [this](const std::string& n) {
    cubelib_notes.push_back(n);
    cubelib_notes_again.push_back(n);
  };
  context.names = &names;
  // Order of CubeLib (§7.3): all init expressions, then all main ones, then the operators.
  // Ghost metrics defined on the way are appended and compiled at once (see define_ghost).
  for (Index m = 0; m < count(); ++m)
    if (is_derived(metric(m).kind))
      programs[m].init = compile(m, metric(m).init_expression, "init expression");
  for (Index m = 0; m < count(); ++m)
    if (is_derived(metric(m).kind) && m < first_defined)
      programs[m].main = compile(m, metric(m).expression, "expression");
  for (Index m = 0; m < count(); ++m) {
    const Metric& d = metric(m);
    if (!is_derived(d.kind)) continue;
    programs[m].plus = compile(m, d.aggr_plus, "plus operator");
    if (d.kind == MetricKind::kPrederivedInclusive)
      programs[m].minus = compile(m, d.aggr_minus, "minus operator");
    programs[m].aggr = compile(m, d.aggr_aggr, "aggr operator");
  }
  apply_attachments();
}

void MetricEngine::Impl::define(const cubepl::Definition& d) {
  using What = cubepl::Definition::What;
  if (d.what == What::kInit || d.what == What::kPlus || d.what == What::kMinus)
    attach(d);
  else
    define_ghost(d);
}

// A hidden DOUBLE metric without parent (cubepl.md §9.8), compiled right away so that every
// later reference resolves to it and it has values, unlike in CubeLib (§13 Q17).
void MetricEngine::Impl::define_ghost(const cubepl::Definition& d) {
  const std::string exists = " Metric with uniq name " + d.metric + " already exists in cube";
  cubelib_notes_again.push_back(exists);
  if (find(d.metric)) {
    warnings.push_back("ghost metric '" + d.metric +
                       "': a metric with this name exists already; definition ignored");
    cubelib_notes.push_back(exists);
    return;
  }
  Metric g;
  g.id = static_cast<uint32_t>(count());
  g.uniq_name = g.disp_name = d.metric;
  g.dtype_text = "DOUBLE";
  g.dtype = DataType(TypeKind::kDouble);
  g.kind = d.what == cubepl::Definition::What::kPostderived ? MetricKind::kPostDerived
           : d.what == cubepl::Definition::What::kPrederivedInclusive
               ? MetricKind::kPrederivedInclusive
               : MetricKind::kPrederivedExclusive;
  g.expression = d.text;
  g.ghost = true;
  g.user_expressions = compiling_user_text;  // defined by the expression being compiled
  const Index index = g.id;
  extra.push_back(std::move(g));
  programs.emplace_back();
  inactive.push_back(false);
  programs[index].main = compile(index, d.text, "expression");
}

void MetricEngine::Impl::attach(const cubepl::Definition& d) {
  using What = cubepl::Definition::What;
  const char* header = d.what == What::kInit   ? "cube::init::metric::"
                       : d.what == What::kPlus ? "cube::metric::plus::"
                                               : "cube::metric::minus::";
  const auto target = find(d.metric);
  auto ignored = [&](const std::string& why) {
    warnings.push_back(std::string(header) + d.metric + ": " + why + "; definition ignored");
  };
  if (!target) return ignored("no such metric");
  const MetricKind kind = metric(*target).kind;
  if (!is_derived(kind)) return ignored("not a derived metric");
  if (d.what == What::kPlus && kind == MetricKind::kPostDerived)
    return ignored("a postderived metric has no plus operator");
  if (d.what == What::kMinus && kind != MetricKind::kPrederivedInclusive)
    return ignored("only prederived inclusive metrics have a minus operator");
  attachments.push_back({*target, d.what, d.text, compiling_user_text});
}

// In the order written; a later attachment to the same slot replaces an earlier one. Their
// own compilation may attach more (handled by the index loop).
void MetricEngine::Impl::apply_attachments() {
  using What = cubepl::Definition::What;
  for (size_t i = 0; i < attachments.size(); ++i) {
    const Attachment a = attachments[i];
    const char* slot = a.what == What::kInit   ? "init expression"
                       : a.what == What::kPlus ? "plus operator"
                                               : "minus operator";
    cubepl::Program p = compile(a.metric, a.text, slot, a.user_text);
    Programs& target = programs[a.metric];
    (a.what == What::kInit   ? target.init
     : a.what == What::kPlus ? target.plus
                             : target.minus) = std::move(p);
  }
}

// Reference graph of the main expressions; a cycle would recurse forever (§9.9). Evaluating
// a metric recurses through the syntax trees of every metric it reaches, so the heights along
// a reference chain add up: a report whose chains exceed cubepl::kMaxProgramHeight is refused
// (like one over-deep expression). Walked without recursion: chains can be as long as the
// report has metrics.
void MetricEngine::Impl::check_cycles() const {
  // Stack frames of one metric reference (Env, row, evaluate, ...) over those of one operation.
  constexpr uint64_t kReferenceCost = 10;
  std::vector<uint8_t> state(count(), 0);   // 0 new, 1 on the path, 2 done
  std::vector<uint64_t> depth(count(), 0);  // heights summed along the deepest chain from m
  struct Step {
    Index metric;
    size_t next;  // position in programs[metric].main.metrics()
  };
  std::vector<Step> path;
  auto enter = [&](Index m) {
    state[m] = 1;
    path.push_back({m, 0});
  };
  for (Index root = 0; root < count(); ++root) {
    if (state[root] != 0) continue;
    enter(root);
    while (!path.empty()) {
      Step& top = path.back();
      const std::vector<Index>& refs = programs[top.metric].main.metrics();
      if (top.next < refs.size()) {
        const Index k = refs[top.next++];
        if (k >= count()) continue;
        if (state[k] == 1) {
          std::string cycle;
          auto it =
              std::find_if(path.begin(), path.end(), [&](const Step& s) { return s.metric == k; });
          for (; it != path.end(); ++it) cycle += metric(it->metric).uniq_name + " -> ";
          throw CubePLError("derived metrics reference each other in a cycle: " + cycle +
                            metric(k).uniq_name);
        }
        if (state[k] == 0) enter(k);
        continue;
      }
      const Index m = top.metric;
      uint64_t below = 0;  // a reference into another program costs engine frames too
      for (Index k : refs)
        if (k < count() && !programs[k].main.empty())
          below = std::max(below, depth[k] + kReferenceCost);
      depth[m] = below + programs[m].main.height();
      if (depth[m] > cubepl::kMaxProgramHeight)
        throw CubePLError("derived metric '" + metric(m).uniq_name +
                          "': its expression and those of the metrics it references nest " +
                          std::to_string(depth[m]) + " operations deep, more than " +
                          std::to_string(cubepl::kMaxProgramHeight));
      state[m] = 2;
      path.pop_back();
    }
  }
}

void MetricEngine::Impl::run_inits() {
  for (Index m = 0; m < count(); ++m) {
    if (programs[m].init.empty()) continue;
    Env env(*this, Context::kNull, m, 0, Flavour::kInclusive, 1);
    (void)programs[m].init.evaluate(env, globals);
  }
}

Row MetricEngine::Impl::evaluate(const cubepl::Program& p, Context ctx, Index m, Index c,
                                 Flavour f) {
  const size_t width = ctx == Context::kTree     ? model.cnodes.size()
                       : ctx == Context::kSystem ? model.system_nodes.size() + model.groups.size()
                                                 : model.locations.size();
  Row out(width, 0.0);
  if (width == 0) return out;
  Env env(*this, ctx, m, c, f, width);
  p.evaluate(env, globals, out);
  return out;
}

const Row& MetricEngine::Impl::point(Index m, Index c) {
  auto& rows = points[m];
  if (rows.empty()) rows.resize(model.cnodes.size());
  if (!rows[c])
    rows[c] = evaluate(programs[m].main, Context::kPoint, m, c, point_flavour(metric(m).kind));
  return *rows[c];
}

void MetricEngine::Impl::point_into(Index m, Index c, std::span<double> out) {
  if (auto it = points.find(m); it != points.end() && !it->second.empty() && it->second[c]) {
    std::copy(it->second[c]->begin(), it->second[c]->end(), out.begin());
    return;
  }
  if (out.empty()) return;
  Env env(*this, Context::kPoint, m, c, point_flavour(metric(m).kind), out.size());
  programs[m].main.evaluate(env, globals, out);
}

double MetricEngine::Impl::over_locations(Index m, const Row& r) {
  const cubepl::Program& aggr = programs[m].aggr;
  double acc = 0;
  if (aggr.empty())
    for (Index column : location_column) acc += r[column];
  else
    for (Index column : location_column) acc = fold1(aggr, false, acc, r[column]);
  return acc;
}

void MetricEngine::Impl::point_sums(Index m, Row& own) {
  const size_t C = model.cnodes.size(), L = model.locations.size();
  if (!programs[m].aggr.empty()) {
    for (Index c = 0; c < C; ++c) own[c] = over_locations(m, point(m, c));
    return;
  }
  // Each row's sum is one chain of additions in location order (CubeLib's); the chains of
  // kRows rows run side by side, so their latencies overlap.
  constexpr size_t kRows = 4;
  Row rows(kRows * L);
  for (Index first = 0; first < C; first += kRows) {
    const size_t n = std::min<size_t>(kRows, C - first);
    for (size_t k = 0; k < n; ++k)
      point_into(m, first + static_cast<Index>(k), std::span<double>(rows).subspan(k * L, L));
    sum_columns(rows.data(), L, n, location_column, own.data() + first);
  }
}

void MetricEngine::Impl::fold(const cubepl::Program& op, bool minus, Row& acc, const Row& value) {
  if (op.empty()) {
    for (size_t i = 0; i < acc.size(); ++i)
      acc[i] = minus ? cubepl::detail::stable_minus(acc[i], value[i]) : acc[i] + value[i];
    return;
  }
  if (acc.empty()) return;
  Env env(*this, Context::kOperator, kNoIndex, 0, Flavour::kInclusive, acc.size());
  env.a1 = acc;
  env.a2 = value;
  Row out(acc.size());
  op.evaluate(env, globals, out);
  acc = std::move(out);
}

double MetricEngine::Impl::fold1(const cubepl::Program& op, bool minus, double acc, double value) {
  // The default operators without the rows' allocations: subtrees are summed cnode by cnode.
  if (op.empty()) return minus ? cubepl::detail::stable_minus(acc, value) : acc + value;
  Row a{acc};
  fold(op, minus, a, Row{value});
  return a[0];
}

Row MetricEngine::Impl::row(Index m, Index c, Flavour f) {
  const Metric& d = metric(m);
  const size_t L = model.locations.size();
  if (inactive[m]) return Row(L, 0.0);
  if (!is_derived(d.kind))
    return to_row(cubekit::location_values(report, m, c, Flavour::kInclusive, f));
  const Programs& p = programs[m];
  switch (d.kind) {
    case MetricKind::kPrederivedExclusive: {
      if (f == Flavour::kExclusive) return point(m, c);
      Row acc(L, 0.0);
      for (Index k : subtree(c)) fold(p.plus, false, acc, point(m, k));
      return acc;
    }
    case MetricKind::kPrederivedInclusive: {
      Row acc = point(m, c);
      if (f == Flavour::kExclusive)
        for (Index k : model.cnodes[c].children) fold(p.minus, true, acc, point(m, k));
      return acc;
    }
    default:
      return evaluate(p.main, Context::kRow, m, c, f);
  }
}

void MetricEngine::Impl::row_into(Index m, Index c, Flavour f, std::span<double> out) {
  const MetricKind kind = metric(m).kind;
  if (!inactive[m] && !is_derived(kind)) {
    if (cubekit::location_scalars(report, m, c, f, out)) return;
    const Values v = cubekit::location_values(report, m, c, Flavour::kInclusive, f);
    scalars(v.type(), v.data(), v.size(), out.data());
    return;
  }
  if (!inactive[m] && kind == MetricKind::kPrederivedExclusive && f == Flavour::kExclusive) {
    const Row& v = point(m, c);
    std::copy(v.begin(), v.end(), out.begin());
    return;
  }
  const Row v = row(m, c, f);
  std::copy(v.begin(), v.end(), out.begin());
}

const Row& MetricEngine::Impl::aggregated(Index m, Flavour f) {
  const auto key = std::make_pair(m, flavour_index(f));
  if (auto it = aggregated_cache.find(key); it != aggregated_cache.end()) return it->second;
  const Metric& d = metric(m);
  const size_t C = model.cnodes.size();
  Row out(C, 0.0);
  if (inactive[m]) {
  } else if (!is_derived(d.kind)) {
    out = to_row(cubekit::aggregated_values(report, m, Flavour::kInclusive, f));
  } else if (d.kind == MetricKind::kPrederivedExclusive) {
    Row own(C);
    point_sums(m, own);
    if (f == Flavour::kExclusive) {
      out = std::move(own);
    } else {
      for (Index c = 0; c < C; ++c)
        for (Index k : subtree(c)) out[c] = fold1(programs[m].plus, false, out[c], own[k]);
    }
  } else if (d.kind == MetricKind::kPrederivedInclusive) {
    if (f == Flavour::kInclusive) {
      point_sums(m, out);
    } else {
      const Row incl = aggregated(m, Flavour::kInclusive);
      for (Index c = 0; c < C; ++c) {
        out[c] = incl[c];
        for (Index k : model.cnodes[c].children)
          out[c] = fold1(programs[m].minus, true, out[c], incl[k]);
      }
    }
  } else if (!programs[m].aggr.empty()) {  // POSTDERIVED with aggr: per location, then folded
    for (Index c = 0; c < C; ++c) out[c] = over_locations(m, row(m, c, f));
  } else {
    out = evaluate(programs[m].main, Context::kTree, m, 0, f);
  }
  return aggregated_cache[key] = std::move(out);
}

double MetricEngine::Impl::program_total(Index m) {
  double total = 0;
  const Row& v = aggregated(m, Flavour::kInclusive);
  for (Index r : model.cnode_roots()) total += v[r];
  return total;
}

// A postderived metric is evaluated once per system entity with its operands aggregated over
// that entity's locations (a ratio of sums, as CubeLib computes it for a selected node), every
// other metric is its per-location values summed up the system tree. A derived metric with its
// own aggr operator folds its per-location values with it instead (§9.2, §9.3, §9.5).
Row MetricEngine::Impl::system_row(Index m, Index c, Flavour f) {
  const size_t width = model.system_nodes.size() + model.groups.size();
  if (inactive[m]) return Row(width, 0.0);
  const bool own_aggr = is_derived(metric(m).kind) && !programs[m].aggr.empty();
  if (metric(m).kind == MetricKind::kPostDerived && !own_aggr)
    return evaluate(programs[m].main, Context::kSystem, m, c, f);
  if (own_aggr) return aggr_over_entities(m, row(m, c, f));
  const Values per_location = is_derived(metric(m).kind)
                                  ? to_values(row(m, c, f))
                                  : cubekit::location_values(report, m, c, Flavour::kInclusive, f);
  const SystemValues sums = cubekit::system_values(report, per_location);
  Row out(width);
  scalars(sums.nodes.type(), sums.nodes.data(), sums.nodes.size(), out.data());
  scalars(sums.groups.type(), sums.groups.data(), sums.groups.size(),
          out.data() + sums.nodes.size());
  return out;
}

Row MetricEngine::Impl::aggr_over_entities(Index m, const Row& per_location) {
  const size_t nodes = model.system_nodes.size(), groups = model.groups.size();
  if (entity_locations.empty()) {
    entity_locations.resize(nodes + groups);
    for (Index g = 0; g < groups; ++g) entity_locations[nodes + g] = model.groups[g].locations;
    // Nodes are in pre-order: children come after parents, so walk backwards.
    for (Index n = static_cast<Index>(nodes); n-- > 0;) {
      std::vector<Index>& below = entity_locations[n];
      for (Index g : model.system_nodes[n].groups)
        below.insert(below.end(), model.groups[g].locations.begin(),
                     model.groups[g].locations.end());
      for (Index k : model.system_nodes[n].children)
        below.insert(below.end(), entity_locations[k].begin(), entity_locations[k].end());
    }
    for (auto& below : entity_locations) std::sort(below.begin(), below.end());
  }
  Row out(nodes + groups, 0.0);
  for (size_t e = 0; e < out.size(); ++e)
    for (Index l : entity_locations[e])
      out[e] = fold1(programs[m].aggr, false, out[e], per_location[model.locations[l].id]);
  return out;
}

// metric::call::M(c, f, sysid, system): a location's value, or a node's or group's value as a
// system query answers it (exclusively they own no data).
double MetricEngine::Impl::at_system(Index m, Index c, Flavour f, int64_t sysid, Flavour system) {
  const int64_t nodes = static_cast<int64_t>(model.system_nodes.size());
  const int64_t groups = static_cast<int64_t>(model.groups.size());
  const int64_t locations = static_cast<int64_t>(model.locations.size());
  if (sysid < 0 || sysid >= nodes + groups + locations) return 0;
  if (sysid >= nodes + groups) return row(m, c, f)[model.locations[sysid - nodes - groups].id];
  if (system == Flavour::kExclusive) return 0;
  return system_row(m, c, f)[static_cast<size_t>(sysid)];
}

bool cubepl_env_switch() {
  const char* text = std::getenv("CUBEKIT_CUBEPL_ENV");
  return text != nullptr && std::string_view(text) == "1";
}

MetricEngine::MetricEngine(Report report, std::vector<AdHocMetric> extra,
                           MetricEngineOptions options)
    : impl_(std::make_unique<Impl>(std::move(report), std::move(extra), options)) {}
MetricEngine::~MetricEngine() = default;

const Report& MetricEngine::report() const {
  return impl_->report;
}
size_t MetricEngine::metric_count() const {
  return impl_->count();
}
const Metric& MetricEngine::metric(Index metric) const {
  impl_->check(metric);
  return impl_->metric(metric);
}
bool MetricEngine::is_void(Index metric) const {
  return metric < impl_->inactive.size() && impl_->inactive[metric];
}

void MetricEngine::Impl::check(Index m, Index cnode) const {
  if (m >= count())
    throw LookupError(report.path() + ": no metric at index " + std::to_string(m) +
                      ": the engine knows " + std::to_string(count()));
  if (cnode != kNoIndex) (void)model.cnode(cnode);
}
const std::vector<std::string>& MetricEngine::warnings() const {
  return impl_->warnings;
}

const std::vector<std::string>& MetricEngine::cubelib_notes() const {
  return impl_->cubelib_notes;
}

const std::vector<std::string>& MetricEngine::cubelib_notes_of_second_compile() const {
  return impl_->cubelib_notes_again;
}

// Metric-tree exclusive values (cube-format.md §8.4) as CubeLib computes them: the metric's
// own value minus each sub-metric's own value, child by child, whatever the sub-metric's kind.
// Stored metrics without derived sub-metrics go straight to calc (lock-free).
bool MetricEngine::Impl::needs_engine(Index m, Flavour metric_flavour) const {
  const Metric& d = metric(m);
  if (is_derived(d.kind)) return true;
  if (metric_flavour == Flavour::kInclusive) return false;
  return std::any_of(d.children.begin(), d.children.end(),
                     [&](Index k) { return is_derived(metric(k).kind); });
}

Values MetricEngine::Impl::own_values(Index m, Index c, Flavour call_flavour) {
  if (is_derived(metric(m).kind)) return typed_values(row(m, c, call_flavour), metric(m).dtype);
  return cubekit::location_values(report, m, c, Flavour::kInclusive, call_flavour);
}

Values MetricEngine::Impl::own_aggregated(Index m, Flavour call_flavour) {
  if (is_derived(metric(m).kind)) return typed_values(aggregated(m, call_flavour), metric(m).dtype);
  return cubekit::aggregated_values(report, m, Flavour::kInclusive, call_flavour);
}

Values MetricEngine::location_values(Index metric, Index cnode, Flavour metric_flavour,
                                     Flavour call_flavour) {
  Impl& e = *impl_;
  e.check(metric, cnode);
  if (!e.needs_engine(metric, metric_flavour))
    return cubekit::location_values(e.report, metric, cnode, metric_flavour, call_flavour);
  std::lock_guard lock(e.mutex);
  Values v = e.own_values(metric, cnode, call_flavour);
  if (metric_flavour == Flavour::kExclusive)
    for (Index k : e.metric(metric).children)
      subtract_sub_metric(e.report, metric, k, v, e.own_values(k, cnode, call_flavour));
  return v;
}

void MetricEngine::forget_values() {
  forget_derived_values();
  for (Index m = 0; m < impl_->model.metrics.size(); ++m) impl_->report.drop(m);
}

void MetricEngine::forget_derived_values() {
  Impl& e = *impl_;
  std::lock_guard lock(e.mutex);
  e.aggregated_cache.clear();
  e.points.clear();
}

uint64_t MetricEngine::cached_bytes() const {
  Impl& e = *impl_;
  std::lock_guard lock(e.mutex);
  uint64_t values = 0;
  for (const auto& [key, row] : e.aggregated_cache) values += row.size();
  for (const auto& [metric, rows] : e.points) {
    values += rows.size();  // the optional's slot, about one double each
    for (const auto& r : rows)
      if (r) values += r->size();
  }
  return values * sizeof(double);
}

SystemValues MetricEngine::system_values(Index metric, Index cnode, Flavour metric_flavour,
                                         Flavour call_flavour) {
  Impl& e = *impl_;
  e.check(metric, cnode);
  if (!e.needs_engine(metric, metric_flavour))
    return cubekit::system_values(
        e.report, cubekit::location_values(e.report, metric, cnode, metric_flavour, call_flavour));
  std::lock_guard lock(e.mutex);
  const size_t nodes = e.model.system_nodes.size(), groups = e.model.groups.size();
  Row v = e.system_row(metric, cnode, call_flavour);
  if (metric_flavour == Flavour::kExclusive)
    for (Index k : e.metric(metric).children) {
      const Row child = e.system_row(k, cnode, call_flavour);
      for (size_t i = 0; i < v.size(); ++i) v[i] -= child[i];
    }
  const DataType type = e.metric(metric).dtype;
  return {typed_values(Row(v.begin(), v.begin() + nodes), type),
          typed_values(Row(v.begin() + nodes, v.begin() + nodes + groups), type)};
}

Values MetricEngine::aggregated_values(Index metric, Flavour metric_flavour, Flavour call_flavour) {
  Impl& e = *impl_;
  e.check(metric);
  if (!e.needs_engine(metric, metric_flavour))
    return cubekit::aggregated_values(e.report, metric, metric_flavour, call_flavour);
  std::lock_guard lock(e.mutex);
  Values v = e.own_aggregated(metric, call_flavour);
  if (metric_flavour == Flavour::kExclusive)
    for (Index k : e.metric(metric).children)
      subtract_sub_metric(e.report, metric, k, v, e.own_aggregated(k, call_flavour));
  return v;
}

double MetricEngine::value(Index metric, Index cnode, Flavour metric_flavour,
                           Flavour call_flavour) {
  impl_->check(metric, cnode);
  return aggregated_values(metric, metric_flavour, call_flavour).number(cnode);
}

double MetricEngine::value(Index metric, Index cnode, Flavour metric_flavour, Flavour call_flavour,
                           Index location) {
  impl_->model.location(location);  // LookupError beyond the locations
  return location_values(metric, cnode, metric_flavour, call_flavour).number(location);
}

Values MetricEngine::region_values(Index metric, Flavour metric_flavour, Flavour call_flavour) {
  return region_sums(impl_->model, aggregated_values(metric, metric_flavour, call_flavour));
}

Values MetricEngine::stored_values(Index metric, Index cnode) {
  Impl& e = *impl_;
  e.check(metric, cnode);
  if (metric < e.model.metrics.size()) return cubekit::stored_values(e.report, metric, cnode);
  return Values(e.metric(metric).dtype, e.model.locations.size());  // ad hoc and ghost: derived
}

}  // namespace cubekit
