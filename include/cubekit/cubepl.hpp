// CubePL, the expression language of derived metrics (cubepl.md in the shared docs): compiling
// a program once and evaluating it over a whole row of locations at a time.
//
// The language layer knows nothing about how metric values are computed: every metric
// reference, ${cube::…}/${calculation::…} name and metric property goes through an Environment
// that the caller implements (the derived-metric engine for reports, a table in tests).
//
// Vectorised evaluation: one evaluation has `width` lanes (usually one per location of a row,
// or 1 for an aggregated query). Every operator works on all lanes at once, values that are the
// same in all lanes are kept as one broadcast scalar, and if/elseif/while take their branch per
// lane, so a row evaluation gives exactly the values of `width` separate point evaluations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/model.hpp"

namespace cubekit::cubepl {

// Flavour modifier of a metric reference: `*` keeps the flavour of the current context.
enum class Modifier : uint8_t { kSame, kInclusive, kExclusive };

// metric::M(a,b), metric::context::M(a,b) (form kContext) and metric::fixed::M(a,b) (kFixed).
// `given` counts the modifiers written: fixed::M() and fixed::M(a) mean something else than
// fixed::M(a,b) (cubepl.md §8.3), so the environment needs to know.
struct MetricRef {
  enum class Form : uint8_t { kContext, kFixed };
  Index metric = kNoIndex;
  Form form = Form::kContext;
  uint8_t given = 0;
  Modifier call = Modifier::kSame;
  Modifier system = Modifier::kSame;
};

// metric::call::M(cnode, call[, sysid, system]): ids are the evaluated argument expressions,
// truncated toward zero (they may be out of range or negative: answer 0).
struct CallRef {
  Index metric = kNoIndex;
  int64_t cnode = 0;
  Modifier call = Modifier::kInclusive;
  bool has_system = false;
  int64_t sysid = 0;
  Modifier system = Modifier::kInclusive;
};

// A read-only array provided by the environment for ${cube::…} and ${calculation::…}.
// Exactly one of `numbers` / `strings` is used. With `per_lane`, the array has one element
// whose value differs per lane: numbers[lane] (e.g. ${calculation::sysres::id} when a row of
// locations is evaluated at once).
struct ArrayView {
  std::span<const double> numbers;
  std::span<const std::string> strings;
  bool per_lane = false;
};

// What an evaluation asks of the outside world. Spans handed out must stay valid until the
// evaluation returns.
class Environment {
 public:
  virtual ~Environment() = default;
  // Lanes of this evaluation (≥ 1).
  virtual size_t width() const = 0;
  // Fills `out` (width() values) with the referenced metric for the current context.
  virtual void metric_row(const MetricRef& ref, std::span<double> out) = 0;
  // One value of metric::call::M(...) (the same for every lane).
  virtual double metric_call(const CallRef& ref) = 0;
  // ${name} for reserved (cube::…) and automatic (calculation::…) names; nullopt when the
  // environment does not provide it (reads give 0 / "").
  virtual std::optional<ArrayView> variable(std::string_view name) = 0;
  // arg1 / arg2 (which = 1 or 2): width() values, or one value broadcast to all lanes.
  virtual std::span<const double> arg(int which) {
    (void)which;
    return {};
  }
  // cube::metric::get::M("prop"). Unknown properties give "".
  virtual std::string metric_property(Index metric, std::string_view property) {
    (void)metric, (void)property;
    return {};
  }
  // cube::metric::set::M("value", text): "VOID" deactivates M, anything else reactivates it.
  virtual void set_metric_value(Index metric, std::string_view value) { (void)metric, (void)value; }
  // env("NAME"); the default reads the process environment.
  virtual std::string environment_variable(std::string_view name);
  // Run-time diagnostics (sqrt/log domain, bad array writes, ...). They never stop evaluation.
  virtual void diagnostic(std::string_view message) { (void)message; }
};

// Variable kinds are bound cube-wide, the first time any expression mentions a name
// (cubepl.md §7.3). Share one VariableNames among all compilations of one report.
class VariableNames {
 public:
  enum class Kind : uint8_t { kLocal, kGlobal };
  // Registers `name` as `kind` unless it is already known; returns the kind it has.
  Kind bind(std::string_view name, Kind kind);
  bool known(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, Kind>> names_;
};

// True for the ${cube::…} and ${calculation::…} names the engine provides (§7.4, §7.5).
bool is_reserved_name(std::string_view name);

// The ${cube::…} arrays of §7.4 computed once from a report's definitions, for an
// Environment's variable(). Ids are the positions in the Model's vectors; global system ids
// number system tree nodes, then location groups, then locations.
class CubeVariables {
 public:
  explicit CubeVariables(const Model& model, std::string filename = {});
  std::optional<ArrayView> find(std::string_view name) const;

 private:
  void metrics(const Model& model);
  void callpaths(const Model& model);
  void regions(const Model& model);
  void system(const Model& model);
  void counts(const Model& model);
  std::map<std::string, std::vector<double>, std::less<>> numbers_;
  std::map<std::string, std::vector<std::string>, std::less<>> strings_;
};

// A compile-time definition made by a statement: a ghost metric (cube::metric::postderived::N,
// cube::metric::prederived::N(i|e)) or an expression attached to a metric
// (cube::init::metric::N, cube::metric::plus::N, cube::metric::minus::N).
struct Definition {
  enum class What : uint8_t {
    kPostderived,
    kPrederivedInclusive,
    kPrederivedExclusive,
    kInit,
    kPlus,
    kMinus
  };
  What what = What::kPostderived;
  std::string metric;
  std::string text;
};

struct CompileContext {
  // Unique metric name → metric index, nullopt when unknown.
  std::function<std::optional<Index>(std::string_view)> find_metric;
  // Called for ghost definitions; when absent the embedded text is only syntax-checked.
  std::function<void(const Definition&)> define;
  // Compile-time warnings (unknown metric, redeclared variable, ...).
  std::function<void(const std::string&)> warn;
  // The line CubeLib 4.6 prints on standard output when it compiles a metric::set or
  // metric::get of a metric the report lacks (whether or not the statement ever runs); tools
  // that answer like CubeLib print these where it does.
  std::function<void(const std::string&)> cubelib_note;
  // Shared cube-wide; nullptr gives this compilation a table of its own.
  VariableNames* names = nullptr;
  // Unknown metric names are errors instead of the constant 0.
  bool strict = false;
  // env("NAME") reads the process environment. False for text stored in a report being read
  // (someone else's text): env() then gives "" and compiling warns.
  bool read_environment = true;
  // CubeLib 4.6 lexical quirks (cubepl.md §13 Q1-Q7, Q12): stray bytes dropped, no white space
  // in modifier lists, `//` needs a line end, atof numbers, `\/` only at the regex start, no
  // commas in metric::call ids, no xor / init / plus / minus headers.
  bool compatible = false;
};

struct Ast;    // a compiled program's tree (internal)
struct Store;  // the global variables' values (internal)

// Global variables: shared by all programs and evaluations of one report (they survive from
// the init expressions into the main evaluations). Not thread-safe for concurrent writers.
class Globals {
 public:
  Globals();
  ~Globals();
  Globals(Globals&&) noexcept;
  Globals& operator=(Globals&&) noexcept;
  Store& store() { return *store_; }

 private:
  std::unique_ptr<Store> store_;
};

// A compiled program. Immutable; evaluate() may run concurrently on different Environments
// (each call has its own locals) as long as the Globals are not written concurrently.
class Program {
 public:
  Program();  // the empty program (evaluates to 0)
  bool empty() const { return ast_ == nullptr; }
  const std::string& source() const { return source_; }
  // Metric indices referenced by metric::… forms (for dependency and cycle checks).
  const std::vector<Index>& metrics() const { return metrics_; }
  // Operations on the longest path through the syntax tree (0 for the empty program; at most
  // kMaxProgramHeight). Evaluation recurses that deep, plus the height of every program a
  // metric reference leads to.
  uint32_t height() const;
  // Evaluates with env.width() lanes into `out` (out.size() == env.width()).
  void evaluate(Environment& env, Globals& globals, std::span<double> out) const;
  // Convenience for width-1 environments.
  double evaluate(Environment& env, Globals& globals) const;

 private:
  friend Program compile(std::string_view, const CompileContext&);
  std::shared_ptr<const Ast> ast_;
  std::string source_;
  std::vector<Index> metrics_;
};

// Bound on Program::height(): deeper text is refused when compiled (CubePLError with
// line:column). A chain of derived metrics shares it (MetricEngine refuses reports whose
// reference chains nest deeper), so any evaluation stays far from the stack's end.
constexpr uint32_t kMaxProgramHeight = 1000;

// Compiles one slot's text. Empty or blank text gives the empty program. Throws CubePLError
// "line:column: expected …, found …" (1-based, columns in characters).
Program compile(std::string_view source, const CompileContext& context);

}  // namespace cubekit::cubepl
