// The row evaluator of arithmetic-only CubePL programs (row_program.hpp, issue 30) against the
// general evaluator (evaluator.cpp) on random expression trees over rows that hold 0, -0,
// negative, tiny, huge, infinite and NaN values: every lane must have the same bits, and the
// metric references must be read in the same order (a * b and a / b skip b where a is a
// broadcast 0), with the same diagnostics. Plus hand-computed values of cubepl.md §5.1 on the
// row path and the split between the two paths.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/cubepl.hpp"
#include "cubepl/evaluator.hpp"
#include "cubepl/parser.hpp"
#include "cubepl/row_program.hpp"

namespace cubekit::cubepl {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Lanes of two metrics `m` (0) and `time` (1) and the operator arguments; records what the
// evaluation asked for.
class Lanes : public Environment {
 public:
  Lanes(std::vector<double> m, std::vector<double> time, std::vector<double> a1,
        std::vector<double> a2)
      : m_(std::move(m)), time_(std::move(time)), a1_(std::move(a1)), a2_(std::move(a2)) {}
  size_t width() const override { return m_.size(); }
  void metric_row(const MetricRef& ref, std::span<double> out) override {
    const auto& row = ref.metric == 0 ? m_ : time_;
    std::copy(row.begin(), row.end(), out.begin());
    reads.push_back(ref.metric);
  }
  double metric_call(const CallRef&) override { return 0; }
  std::optional<ArrayView> variable(std::string_view) override { return std::nullopt; }
  std::span<const double> arg(int which) override { return which == 1 ? a1_ : a2_; }
  void diagnostic(std::string_view message) override { diagnostics.emplace_back(message); }

  std::vector<Index> reads;
  std::vector<std::string> diagnostics;

 private:
  std::vector<double> m_, time_, a1_, a2_;
};

CompileContext row_context() {
  CompileContext c;
  c.find_metric = [](std::string_view name) -> std::optional<Index> {
    if (name == "m") return 0;
    if (name == "time") return 1;
    return std::nullopt;
  };
  return c;
}

Ast parse(const std::string& text) {
  VariableNames names;
  const CompileContext names_of_metrics = row_context();  // the parser keeps a reference to it
  detail::Parser parser(text, 0, text.size(), names_of_metrics, names);
  return parser.parse_program();
}

// A random arithmetic expression in CubePL's syntax (no `random`: its generator has state).
class Expressions {
 public:
  explicit Expressions(unsigned seed) : rng_(seed) {}
  std::string make(int depth) {
    if (depth == 0 || pick(4) == 0) return leaf();
    switch (pick(7)) {
      case 0:
        return "-" + make(depth - 1);
      case 1:
        return "|" + make(depth - 1) + "|";
      case 2:
        return std::string(pick(2) ? "min(" : "max(") + make(depth - 1) + ", " + make(depth - 1) +
               ")";
      case 3: {
        static const char* const kFunctions[] = {"sqrt", "log", "exp",   "sin",  "abs", "sgn",
                                                 "pos",  "neg", "floor", "ceil", "atan"};
        return std::string(kFunctions[pick(11)]) + "(" + make(depth - 1) + ")";
      }
      default: {  // a chain of 2-4 operands of one precedence level, or a power
        const int level = pick(3);
        std::string out = make(depth - 1);
        for (int i = 0, n = 1 + pick(3); i < n; ++i) {
          static const char* const kAdd[] = {" + ", " - "};
          static const char* const kMul[] = {" * ", " / "};
          out += level == 0 ? kAdd[pick(2)] : level == 1 ? kMul[pick(2)] : " ^ ";
          out += make(depth - 1);
          if (level == 2) break;
        }
        return "(" + out + ")";
      }
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string leaf() {
    static const char* const kLeaves[] = {"metric::m()", "metric::time()",
                                          "metric::m()", "metric::time()",
                                          "arg1",        "arg2",
                                          "0",           "1",
                                          "2.5",         "0.1",
                                          "1000000000",  "3"};
    return kLeaves[pick(12)];
  }
  std::mt19937 rng_;
};

// A row of `width` lanes drawn from values that exercise every special case of §5.1.
std::vector<double> special_row(std::mt19937& rng, size_t width) {
  static const double kValues[] = {0.0,     -0.0,    1.0,     -1.0,     2.0,  0.5,     3e-310,
                                   -3e-310, DBL_MIN, DBL_MAX, -DBL_MAX, kInf, -kInf,   kNaN,
                                   -kNaN,   1e300,   -1e300,  7.25,     1e-8, 123456.0};
  std::uniform_int_distribution<size_t> pick(0, std::size(kValues) - 1);
  std::uniform_real_distribution<double> any(-1e3, 1e3);
  std::vector<double> row(width);
  for (double& x : row) x = pick(rng) % 4 == 0 ? any(rng) : kValues[pick(rng)];
  return row;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// The same bits, except that any NaN equals any NaN: which operand's NaN an addition of two
// NaNs passes on (and so the sign "nan" / "-nan") follows the order of the operands in the
// instruction, which the compiler may swap for + and *, in either evaluator.
bool same_value(double a, double b) {
  return same_bits(a, b) || (std::isnan(a) && std::isnan(b));
}

struct Outcome {
  std::vector<double> values;
  std::vector<Index> reads;
  std::vector<std::string> diagnostics;
};

Outcome general(const Ast& ast, Lanes env) {
  Store globals;
  detail::Evaluator evaluator(ast, env, globals);
  const detail::Column result = evaluator.run();
  Outcome r;
  for (size_t i = 0; i < env.width(); ++i) r.values.push_back(result[i]);
  r.reads = env.reads;
  r.diagnostics = env.diagnostics;
  return r;
}

Outcome rows(const Ast& ast, Lanes env) {
  Outcome r;
  r.values.assign(env.width(), 0.0);
  detail::evaluate_rows(*ast.root, env, r.values);
  r.reads = env.reads;
  r.diagnostics = env.diagnostics;
  return r;
}

TEST(CubePLRows, RandomTreesGiveTheGeneralEvaluatorsBits) {
  std::mt19937 data(2026);
  Expressions expressions(30);
  size_t lanes_checked = 0;
  for (int t = 0; t < 3000; ++t) {
    const std::string text = expressions.make(1 + t % 5);
    SCOPED_TRACE(text);
    const Ast ast = parse(text);
    ASSERT_TRUE(ast.root != nullptr);
    ASSERT_TRUE(detail::rows_evaluable(*ast.root));
    // Odd widths leave a tail after the vector loops; width 1 broadcasts metric rows, and
    // arguments shorter than the row are broadcast too.
    const size_t width = t % 7 == 0 ? 1 : 1 + (t * 13) % 41;
    const size_t arg_width = t % 3 == 0 ? 1 : width;
    const Lanes env(special_row(data, width), special_row(data, width),
                    special_row(data, arg_width), special_row(data, arg_width));
    const Outcome want = general(ast, env);
    const Outcome got = rows(ast, env);
    for (size_t i = 0; i < width; ++i)
      ASSERT_TRUE(same_value(got.values[i], want.values[i]))
          << "lane " << i << ": rows " << got.values[i] << ", general " << want.values[i];
    EXPECT_EQ(got.reads, want.reads);
    EXPECT_EQ(got.diagnostics, want.diagnostics);
    lanes_checked += width;
  }
  EXPECT_GT(lanes_checked, 30000u);
}

// time / visits with the zero rules of §5.1 (x / 0 = ±DBL_MAX by the sign of x, 0 / y = 0),
// and the rounding-noise rule of a - b, by hand.
TEST(CubePLRows, DivisionAndDifferenceRulesByHand) {
  const Ast ratio = parse("metric::time() / metric::m()");
  const Lanes env({2, 0, 0, 0, 4, 0, -0.0}, {1, 1, -1, 0, 0, kNaN, 5}, {}, {});
  const Outcome r = rows(ratio, env);
  const std::vector<double> want = {0.5, DBL_MAX, -DBL_MAX, 0, 0, -DBL_MAX, DBL_MAX};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(same_bits(r.values[i], want[i])) << i << ": " << r.values[i];

  const Ast product = parse("metric::time() * metric::m()");
  const Outcome p = rows(product, Lanes({-2, 1e300, -1e300, kInf}, {0, 1e10, 1e10, 0}, {}, {}));
  EXPECT_TRUE(same_bits(p.values[0], 0.0));  // 0 * -2 = +0, not IEEE's -0
  EXPECT_EQ(p.values[1], DBL_MAX);           // overflow clamps
  EXPECT_EQ(p.values[2], -DBL_MAX);
  EXPECT_TRUE(same_bits(p.values[3], 0.0));  // 0 * inf = 0

  const Ast difference = parse("metric::time() - metric::m()");
  const Outcome d = rows(difference, Lanes({0.3, 1, 1}, {0.1 + 0.2, 3, 1}, {}, {}));
  EXPECT_EQ(d.values[0], 0.0);  // 0.30000000000000004 - 0.3 is noise
  EXPECT_EQ(d.values[1], 2.0);
  EXPECT_EQ(d.values[2], 0.0);
}

// A broadcast 0 on the left of * and / does not read the right operand (§5.1).
TEST(CubePLRows, ZeroOnTheLeftSkipsTheRightOperand) {
  const Outcome r = rows(parse("0 * metric::m() + (arg1 - arg1) / metric::time()"),
                         Lanes({1, 2}, {3, 4}, {5}, {}));
  EXPECT_TRUE(r.reads.empty());
  EXPECT_EQ(r.values, (std::vector<double>{0, 0}));
}

TEST(CubePLRows, DomainDiagnosticOnce) {
  const Outcome r = rows(parse("sqrt(metric::m())"), Lanes({4, -1, -4}, {0, 0, 0}, {}, {}));
  EXPECT_EQ(r.values, (std::vector<double>{2, 0, 0}));
  EXPECT_EQ(r.diagnostics, std::vector<std::string>{"sqrt: argument outside the domain"});
}

// Conditions, variables, strings, lambdas and metric::call stay with the general evaluator.
TEST(CubePLRows, WhichProgramsTakeTheRowPath) {
  for (const char* text : {"metric::time() / metric::m()", "max(arg1, arg2) - |metric::m()| ^ 2",
                           "-sqrt(3)", "lowercase(\"A\") + 1", "random(2) * 0"})
    EXPECT_TRUE(detail::rows_evaluable(*parse(text).root)) << text;
  for (const char* text : {"{ if (metric::m() > 0) { ${b} = 1; }; return ${b}; }", "${x} + 1",
                           "{ if (${a} != 0) { ${b}=1; }; return ${b}; }"})
    EXPECT_FALSE(detail::rows_evaluable(*parse(text).root)) << text;
}

// Program::evaluate takes the row path for such programs: nested evaluations share the
// thread's buffers, and a 1-lane evaluation gives the scalar.
TEST(CubePLRows, ProgramEvaluateUsesRows) {
  const Program p = compile("metric::time() / metric::m() + 1", row_context());
  Globals globals;
  Lanes one({4}, {2}, {}, {});
  EXPECT_EQ(p.evaluate(one, globals), 1.5);
  Lanes many({4, 0, 2}, {2, 3, 0}, {}, {});
  std::vector<double> out(3);
  p.evaluate(many, globals, out);
  EXPECT_EQ(out, (std::vector<double>{1.5, DBL_MAX + 1, 1}));
}

// The row kernels behind the operands, rewritten to vectorize (issue 30), against the plain
// C++ of each value: UINT64 to double as static_cast rounds it, DOUBLE's difference snapped to 0
// within 2 ulp of the operands (cubepl.md §5.1, CubeLib's rule).
TEST(CubePLRows, OperandKernelsMatchPlainArithmetic) {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> counts = {0,
                                  1,
                                  (uint64_t{1} << 53) + 1,
                                  (uint64_t{1} << 63) + 1,
                                  ~uint64_t{0},
                                  (uint64_t{1} << 32) - 1};
  for (int i = 0; i < 100000; ++i) counts.push_back(rng() >> (rng() % 64));
  std::vector<double> widened(counts.size());
  scalars(DataType(TypeKind::kUInt64), reinterpret_cast<const std::byte*>(counts.data()),
          counts.size(), widened.data());
  for (size_t i = 0; i < counts.size(); ++i)
    ASSERT_TRUE(same_bits(widened[i], static_cast<double>(counts[i]))) << counts[i];

  std::mt19937 data(6);
  std::vector<double> a = special_row(data, 301), b = special_row(data, 301);
  a.push_back(0.1 + 0.2);
  b.push_back(0.3);
  std::vector<double> diff = a;
  minus_rows(DataType(TypeKind::kDouble), reinterpret_cast<std::byte*>(diff.data()),
             reinterpret_cast<const std::byte*>(b.data()), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = a[i] - b[i];
    const bool noise =
        std::fabs(d) <= DBL_EPSILON * std::fabs(a[i] + b[i]) * 2 || std::fabs(d) < DBL_MIN;
    ASSERT_TRUE(same_bits(diff[i], noise ? 0.0 : d)) << a[i] << " - " << b[i];
  }
  EXPECT_EQ(diff.back(), 0.0);
}

}  // namespace
}  // namespace cubekit::cubepl
