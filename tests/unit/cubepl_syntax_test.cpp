// CubePL syntax (cubepl.md §2, §3, the accept/reject table of §12.4, with our decisions on the
// [CL] rows, §13), error positions, values and conversions (§4), and the vectorised evaluator
// on a row of several lanes.
#include <gtest/gtest.h>

#include <pthread.h>

#include <cfloat>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cubekit/cubepl.hpp"

namespace cubekit::cubepl {
namespace {

// A row of lanes with one metric `m` (index 0) and one metric `time` (index 1).
class RowEnv : public Environment {
 public:
  explicit RowEnv(std::vector<double> m, std::vector<double> time = {})
      : m_(std::move(m)), time_(std::move(time)) {
    if (time_.empty()) time_.assign(m_.size(), 0.0);
    for (size_t i = 0; i < m_.size(); ++i) lane_ids_.push_back(static_cast<double>(i));
  }
  size_t width() const override { return m_.size(); }
  void metric_row(const MetricRef& ref, std::span<double> out) override {
    const auto& row = ref.metric == 0 ? m_ : time_;
    std::copy(row.begin(), row.end(), out.begin());
    refs.push_back(ref);
  }
  double metric_call(const CallRef& ref) override {
    calls.push_back(ref);
    return static_cast<double>(ref.cnode * 10 + ref.sysid);
  }
  std::optional<ArrayView> variable(std::string_view name) override {
    if (name == "calculation::sysres::id") return ArrayView{lane_ids_, {}, true};
    if (name == "cube::region::name") return ArrayView{{}, regions_, false};
    if (name == "cube::#metrics") return ArrayView{metrics_, {}, false};
    return std::nullopt;
  }
  std::span<const double> arg(int which) override { return which == 1 ? arg1 : arg2; }
  std::string metric_property(Index metric, std::string_view property) override {
    return metric == 1 && property == "uom" ? "sec" : "";
  }
  void set_metric_value(Index metric, std::string_view value) override {
    set.emplace_back(std::to_string(metric) + "=" + std::string(value));
  }
  std::string environment_variable(std::string_view name) override {
    return name == "HOME_X" ? "/x" : "";
  }
  void diagnostic(std::string_view message) override { diagnostics.emplace_back(message); }

  std::vector<double> arg1, arg2;
  std::vector<MetricRef> refs;
  std::vector<CallRef> calls;
  std::vector<std::string> set, diagnostics;

 private:
  std::vector<double> m_, time_, lane_ids_;
  std::vector<std::string> regions_ = {"main", "foo", "MPI_Send"};
  std::vector<double> metrics_ = {2};
};

CompileContext context(bool compatible = false) {
  CompileContext c;
  c.find_metric = [](std::string_view name) -> std::optional<Index> {
    if (name == "m") return 0;
    if (name == "time") return 1;
    return std::nullopt;
  };
  c.compatible = compatible;
  return c;
}

bool accepts(const std::string& text, bool compatible = false) {
  try {
    compile(text, context(compatible));
    return true;
  } catch (const CubePLError&) {
    return false;
  }
}

std::string error_of(const std::string& text, bool compatible = false) {
  try {
    compile(text, context(compatible));
  } catch (const CubePLError& e) {
    return e.what();
  }
  return "(accepted)";
}

double eval(const std::string& text, bool compatible = false) {
  RowEnv env({0});
  Globals globals;
  return compile(text, context(compatible)).evaluate(env, globals);
}

std::vector<double> eval_row(const std::string& text, std::vector<double> m,
                             std::vector<double> time = {}) {
  RowEnv env(std::move(m), std::move(time));
  Globals globals;
  std::vector<double> out(env.width());
  compile(text, context()).evaluate(env, globals, out);
  return out;
}

// Both modes agree on these rows of §12.4.
TEST(CubePLSyntax, AcceptRejectTableCommonRows) {
  for (bool compat : {false, true}) {
    SCOPED_TRACE(compat ? "compatible" : "default");
    EXPECT_TRUE(accepts("metric::time(i,e)", compat));
    for (const char* t : {"sqrt (4)", "max (1,2)", "sizeof (g)"})
      EXPECT_FALSE(accepts(t, compat)) << t;
    for (const char* t : {"lowercase (\"A\")", "$ { ab }", "${ ab }"})
      EXPECT_TRUE(accepts(t, compat)) << t;
    for (const char* t : {"1e3", "ln(2)", "cot(1)", "iff", "+1"})
      EXPECT_FALSE(accepts(t, compat)) << t;
    EXPECT_FALSE(accepts("{ if (${a}) { ${b}=1; }; return ${b}; }", compat));
    EXPECT_TRUE(accepts("{ if (${a} != 0) { ${b}=1; }; return ${b}; }", compat));
    EXPECT_FALSE(accepts("{ ${a} = 1 > 0; return ${a}; }", compat));
    for (const char* t : {"{ return 1 }", "{ return 1; };", "{ ;return 1; }"}) {
      EXPECT_FALSE(accepts(t, compat)) << t;
    }
    EXPECT_TRUE(accepts("{ if (1 == 1) { }; return 1; }", compat));
    EXPECT_FALSE(accepts("{ ${c} = 1; if (${c} == 1) { return 1; }; return 0; }", compat));
    EXPECT_FALSE(
        accepts("{ if (1 == 1) { ${a} = 1; } else if (1 == 2) { ${a} = 2; }; return 0; }", compat));
    EXPECT_FALSE(accepts("{ if (not ${a} == 1) { ${b} = 1; }; return 0; }", compat));
    EXPECT_TRUE(accepts("{ if (not (${a} == 1)) { ${b} = 1; }; return 0; }", compat));
    EXPECT_TRUE(accepts("1 // note\n", compat));
    EXPECT_FALSE(accepts("{ if (\"abc\" =~ /b/i) { ${r} = 1; }; return 0; }", compat));
    EXPECT_FALSE(accepts("{ if (\"x\" =~ 'x') { ${r} = 1; }; return 0; }", compat));
    EXPECT_TRUE(accepts("{ if (\"/b\" =~ /\\/b/) { ${r} = 1; }; return ${r}; }", compat));
    EXPECT_TRUE(accepts("", compat));
    EXPECT_TRUE(accepts(" \n\t", compat));
  }
}

// The [CL] rows: CubeLib 4.6 behaviour in compatibility mode, §13's recommendation by default.
TEST(CubePLSyntax, AcceptRejectTableQuirkRows) {
  for (const char* t : {"metric::time(i, e)", "metric::time( i )"}) {
    EXPECT_TRUE(accepts(t)) << t;  // Q2
    EXPECT_FALSE(accepts(t, true)) << t;
  }
  EXPECT_TRUE(accepts("1 // note"));  // Q4
  EXPECT_FALSE(accepts("1 // note", true));
  const std::string slash = "{ if (\"a/b\" =~ /a\\/b/) { ${r} = 1; }; return ${r}; }";
  EXPECT_EQ(eval(slash), 1);  // Q6
  EXPECT_FALSE(accepts(slash, true));
  const std::string init = "{ cube::init::metric::time << { return 0; } >>; return 0; }";
  EXPECT_TRUE(accepts(init));  // Q7
  EXPECT_FALSE(accepts(init, true));
  const std::string xor_text = "{ if ((${a} == 1) xor (${b} == 1)) { ${c} = 1; }; return ${c}; }";
  EXPECT_TRUE(accepts(xor_text));  // Q7, open question 14.2
  EXPECT_FALSE(accepts(xor_text, true));
  EXPECT_FALSE(accepts("1 @ + 2"));  // Q1
  EXPECT_EQ(eval("1 @ + 2", true), 3);
  EXPECT_EQ(eval("5 !", true), 5);
  EXPECT_TRUE(accepts("metric::call::time(max(0,1), i)"));  // Q3
  EXPECT_FALSE(accepts("metric::call::time(max(0,1), i)", true));
  EXPECT_FALSE(accepts("1.2.3"));  // Q5
  EXPECT_DOUBLE_EQ(eval("1.2.3", true), 1.2);
  EXPECT_FALSE(accepts("${1a}"));
  EXPECT_TRUE(accepts("${1a}", true));
}

TEST(CubePLSyntax, GhostDefinitionsReachTheContext) {
  std::vector<Definition> seen;
  CompileContext c = context();
  c.define = [&](const Definition& d) { seen.push_back(d); };
  compile(
      "{ cube::metric::postderived::gm << metric::time() * 2 >>; "
      "cube::metric::prederived::pe(e) << { if (1 > 0) { }; return 1; } >> ; "
      "cube::metric::plus::time << max(arg1, arg2) >>; return 0; }",
      c);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].what, Definition::What::kPostderived);
  EXPECT_EQ(seen[0].metric, "gm");
  EXPECT_EQ(seen[0].text, " metric::time() * 2 ");
  EXPECT_EQ(seen[1].what, Definition::What::kPrederivedExclusive);
  EXPECT_EQ(seen[1].text, " { if (1 > 0) { }; return 1; } ");  // a single '>' stays in the text
  EXPECT_EQ(seen[2].what, Definition::What::kPlus);
}

TEST(CubePLSyntax, EmbeddedTextIsCheckedWithOuterPositions) {
  const std::string e = error_of("{\n cube::metric::postderived::gm << 1 + >>; return 0; }");
  EXPECT_EQ(e.rfind("2:39: expected", 0), 0u) << e;
}

TEST(CubePLSyntax, ErrorsGiveLineColumnExpectedFound) {
  // The example of §11.1 (CubeLib says 1.27).
  const std::string e = error_of("{\n  ${a} = 1;\n  ${b} = 2 +;\n  return ${a};\n}");
  EXPECT_EQ(e.rfind("3:13: expected a value", 0), 0u) << e;
  EXPECT_NE(e.find("found ';'"), std::string::npos) << e;
  EXPECT_EQ(
      error_of("{ if (${a}) { ${b}=1; }; return ${b}; }").rfind("1:11: expected a comparison", 0),
      0u);
  EXPECT_NE(error_of("1 2").find("found '2'"), std::string::npos);
  EXPECT_NE(error_of("{ return 1 }").find("found '}'"), std::string::npos);
  EXPECT_NE(error_of("{ if (1 == 1) { } else if (1 == 1) { }; return 0; }").find("found 'if'"),
            std::string::npos);
  EXPECT_NE(error_of("sqrt (4)").find("white space"), std::string::npos);
  EXPECT_NE(error_of("iff").find("found 'iff'"), std::string::npos);
  EXPECT_NE(error_of("(1").find("found end of input"), std::string::npos);
  EXPECT_NE(error_of("\"abc").find("1:1:"), std::string::npos);
  EXPECT_NE(error_of("{ if (\"a\" =~ /[/) { }; return 0; }").find("regular expression"),
            std::string::npos);
  // Columns count characters, not bytes.
  EXPECT_EQ(error_of("\"ä\" +").rfind("1:6:", 0), 0u) << error_of("\"ä\" +");
}

// No CubePL version has `for` (CubeLib's grammar has no such token): cubekit accepts it as an
// extension, `for (${i} = a; cond; ${i} = b) { … };` = `${i} = a; while (cond) { …; ${i} = b; };`,
// and refuses it in CubeLib-compatible mode (and so in expressions written into reports).
TEST(CubePLSyntax, ForLoopIsACubekitExtension) {
  EXPECT_EQ(eval("{ ${s} = 0; for (${i} = 0; ${i} < 4; ${i} = ${i} + 1) { ${s} = ${s} + ${i}; };"
                 " return ${s}; }"),
            6);  // 0 + 1 + 2 + 3
  // The step runs after the body, the condition before it: a false condition runs nothing.
  EXPECT_EQ(eval("{ ${s} = 7; for (${i} = 5; ${i} < 4; ${i} = ${i} + 1) { ${s} = 0; }; "
                 "return ${s} + ${i}; }"),
            12);
  // Nested, with the inner bound depending on the outer variable: 0+1+2 = 3 inner steps.
  EXPECT_EQ(eval("{ ${n} = 0; for (${i} = 0; ${i} < 3; ${i} = ${i} + 1) { "
                 "for (${j} = 0; ${j} < ${i}; ${j} = ${j} + 1) { ${n} = ${n} + 1; }; }; "
                 "return ${n}; }"),
            3);
  const std::string compat = error_of(
      "{ ${s} = 0;\n  for (${i} = 0; ${i} < 3; ${i} = ${i} + 1) { ${s} = ${s} + 1; };"
      " return ${s}; }",
      true);
  EXPECT_EQ(compat.rfind("2:3: 'for' is not part of CubePL (a cubekit extension", 0), 0u) << compat;
  EXPECT_NE(error_of("{ for (${i} = 0; ${i} < 2;) { }; return 1; }").find("the for loop's step"),
            std::string::npos);
  EXPECT_NE(
      error_of("{ for (${i} = 0; ${i}; ${i} = 1) { }; return 1; }").find("a comparison operator"),
      std::string::npos);
  // `for` stays an ordinary (invalid) word elsewhere.
  EXPECT_NE(error_of("for").find("found 'for'"), std::string::npos) << error_of("for");
}

// §13 Q10: an if/elseif chain nested in a later elseif block of an outer chain must not change
// the outer chain (CubeLib counts elseifs in one global and returns 30 here).
TEST(CubePLSyntax, NestedElseifChainsStayApart) {
  EXPECT_EQ(eval("{ ${x} = 2; ${r} = 0; if (${x} == 1) { ${r} = 1; } elseif (${x} == 2) "
                 "{ ${r} = 2; } elseif (${x} == 3) { if (${x} > 0) { ${r} = 30; } "
                 "elseif (${x} < 0) { ${r} = 31; }; } else { ${r} = 4; }; return ${r}; }"),
            2);
}

TEST(CubePLSyntax, DeepNestingIsAnErrorNotACrash) {
  const std::string parens = std::string(5000, '(') + "1" + std::string(5000, ')');
  EXPECT_NE(error_of(parens).find("nested too deeply"), std::string::npos);
  std::string minus;
  for (int i = 0; i < 5000; ++i) minus += "- ";
  EXPECT_NE(error_of(minus + "1").find("nested too deeply"), std::string::npos);
  std::string ifs = "{ ";
  for (int i = 0; i < 2000; ++i) ifs += "if (1 == 1) { ";
  EXPECT_NE(error_of(ifs).find("nested too deeply"), std::string::npos);
  EXPECT_EQ(eval(std::string(100, '(') + "1" + std::string(100, ')')), 1);
  // The 600th '(' opens the 601st level (the whole text is the first).
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_EQ(error_of(deep), "1:601: expression nested too deeply");
}

// Runs f on a new thread whose stack has `bytes`: recursion deeper than that crashes the test.
void on_stack_of(size_t bytes, const std::function<void()>& f) {
  struct Call {
    const std::function<void()>* f;
    std::exception_ptr failure;
  } call{&f, nullptr};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->f)();
        } catch (...) {
          c->failure = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  ASSERT_EQ(rc, 0);
  pthread_join(thread, nullptr);
  if (call.failure) std::rethrow_exception(call.failure);
}

// A quarter of a thread's default stack (8 MiB).
constexpr size_t kSmallStack = 2u << 20;

// `first`, then term(1), …, term(count) (each an operator and its operand).
std::string chain(std::string first, int count, const std::function<std::string(int)>& term) {
  for (int i = 1; i <= count; ++i) first += term(i);
  return first;
}

// Operators of one precedence level make one flat node that is evaluated in a loop (issue 24),
// so a sum of 30,000 terms evaluates, as in CubeLib, instead of being refused for the height a
// tree of it would have (issue 9). On a small stack: nothing recurses along the chain, neither
// compiling, evaluating nor destroying it.
TEST(CubePLSyntax, LongSumsAndProductsEvaluate) {
  // 1 + 2 + … + 30000 = 30000 · 30001 / 2 = 450015000; every partial sum is an exact integer.
  const std::string sum =
      chain("metric::m()", 30000, [](int i) { return " + " + std::to_string(i); });
  // 30,000 factors: m and then 1s, every 30th a 2 (999 of them): m · 2^999, exactly.
  const std::string product =
      chain("metric::m()", 29999, [](int i) { return i % 30 == 0 ? " * 2" : " * 1"; });
  // m * 2 / 2 * 2 / 2 …: the partial results are 2m and m, exactly.
  const std::string quotient =
      chain("metric::m()", 30000, [](int i) { return i % 2 ? " * 2" : " / 2"; });
  const double two_999 = std::ldexp(1.0, 999);
  on_stack_of(kSmallStack, [&] {
    EXPECT_EQ(eval_row(sum, {0, 0.5, -450015000}),
              (std::vector<double>{450015000, 450015000.5, 0}));
    EXPECT_EQ(eval(sum, true), 450015000);
    EXPECT_EQ(eval_row(product, {1, 0.5, 3}),
              (std::vector<double>{two_999, two_999 / 2, 3 * two_999}));
    EXPECT_EQ(eval_row(quotient, {1, 3}), (std::vector<double>{1, 3}));
  });
}

// The other chains of one precedence level: subtraction, powers, and / or / xor.
TEST(CubePLSyntax, LongChainsOfEveryOperatorEvaluate) {
  // 30001 - 1 - 1 - … (30,000 ones) = 1: no difference is near stable minus's rounding snap.
  const std::string differences = chain("30001", 30000, [](int) { return " - 1"; });
  const std::string powers = chain("2", 30000, [](int) { return " ^ 1"; });
  const std::string conditions = "{ if (1 == 1" +
                                 chain("", 30000, [](int) { return " and 1 == 1"; }) +
                                 " or 1 == 2) { ${r} = 7; }; return ${r}; }";
  const std::string xors = "{ if (1 == 1" + chain("", 29999, [](int) { return " xor 1 == 1"; }) +
                           ") { ${r} = 7; }; return ${r}; }";
  on_stack_of(kSmallStack, [&] {
    EXPECT_EQ(eval(differences), 1);
    EXPECT_EQ(eval(powers), 2);
    EXPECT_EQ(eval(conditions), 7);
    EXPECT_EQ(eval(xors), 0);  // 30,000 true operands: an even number, so false
  });
}

// The chain is folded from the left exactly like the tree ((a + b) + c) + … it replaces.
TEST(CubePLSyntax, ChainsKeepTheLeftToRightOrder) {
  // Doubles near 1e16 are 2 apart and 1e16 + 1 rounds back to 1e16 (ties to even): ones added
  // after it one at a time are lost, ones added first are not. ("1e16" is no CubePL number.)
  const std::string e16 = "10000000000000000";
  EXPECT_EQ(eval(chain(e16, 30000, [](int) { return " + 1"; })), 1e16);
  EXPECT_EQ(eval(chain("1", 29999, [](int) { return " + 1"; }) + " + " + e16), 1e16 + 30000);
  EXPECT_EQ(eval("0.1 + 0.2 + 0.3"), 0.6000000000000001);
  EXPECT_EQ(eval("0.1 + (0.2 + 0.3)"), 0.6);
  // Mixed levels: m - t + 3 * m / 4 - 2 ^ 3 ^ 2 / 8 (2^3^2 = 64).
  EXPECT_EQ(eval_row("metric::m() - metric::time() + 3 * metric::m() / 4 - 2 ^ 3 ^ 2 / 8", {8, 2},
                     {1, 0.5}),
            (std::vector<double>{5, -5}));
  EXPECT_EQ(eval("2 * 3 - 4 / 2 + 1"), 5);
  EXPECT_EQ(eval("12 / 2 / 3"), 2);
  EXPECT_EQ(eval("10 - 2 - 3"), 5);
}

// * and / skip their right operand where the product so far is 0, also in the middle of a chain.
TEST(CubePLRows, ShortCutsInsideAChain) {
  EXPECT_EQ(eval_row("{ ${n} = 0; ${r} = metric::m() * 0 * { ${n} = ${n} + 1; return 1; } + 5; "
                     "return ${n} * 10 + ${r}; }",
                     {1, 2}),
            (std::vector<double>{5, 5}));
  EXPECT_EQ(eval_row("{ ${n} = 0; ${r} = metric::m() * 2 * { ${n} = ${n} + 1; return 1; } / 2; "
                     "return ${n} * 10 + ${r}; }",
                     {0, 3}),
            (std::vector<double>{0, 13}));
}

// Nesting is what makes a tree high now. The parser's own bound (600 nested parentheses, signs,
// blocks) stops most of it; `1*|…|` adds two nodes per level (a product and an absolute value),
// so the height bound is reached first: 500 levels make 1 + 2 · 500 = 1001 nodes on one path.
// The error stands at the end, where the outermost product gets its too-high operand.
TEST(CubePLSyntax, NestingTooHighIsAnError) {
  std::string nested;
  for (int i = 0; i < 500; ++i) nested += "1*|";
  nested += "1" + std::string(500, '|');
  EXPECT_EQ(error_of(nested),
            "1:2002: expression too deep: more than 1000 operations nested in each other "
            "(calls, signs, parentheses)");
  EXPECT_EQ(error_of(nested, true), error_of(nested));
}

// The bound makes recursion over the tree safe: the tallest accepted trees compile, evaluate
// and are destroyed on a small stack, under ASan too.
TEST(CubePLSyntax, TallestAcceptedTreesEvaluateOnASmallStack) {
  std::string nested;  // 499 levels: 1 + 2 · 499 = 999 nodes on one path
  for (int i = 0; i < 499; ++i) nested += "1*|";
  nested += "metric::m()" + std::string(499, '|');
  on_stack_of(kSmallStack, [&] {
    EXPECT_EQ(eval(nested), 0);
    EXPECT_EQ(eval_row(nested, {-2, 3}), (std::vector<double>{2, 3}));
  });
}

// CompileContext::read_environment = false (text stored in a report): env() gives "" and the
// compilation warns once, naming the position of the first env.
TEST(CubePLSyntax, EnvironmentReadsCanBeRefused) {
  const std::string text =
      "{ ${r} = 0; if (env(\"HOME_X\") eq \"/x\") { ${r} = 1; };\n"
      "if (env(\"HOME_X\") eq \"\") { ${r} = ${r} + 2; }; return ${r}; }";
  std::vector<std::string> warnings;
  CompileContext refused = context();
  refused.read_environment = false;
  refused.warn = [&](const std::string& w) { warnings.push_back(w); };
  RowEnv env({0});
  Globals globals;
  EXPECT_EQ(compile(text, refused).evaluate(env, globals), 2);
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "1:17: env() gives \"\" here: expressions stored in a report do not "
                          "read the environment unless CUBEKIT_CUBEPL_ENV=1"}));
  EXPECT_EQ(eval(text), 1);  // the default reads it
}

TEST(CubePLSyntax, ConditionsAndValuesStayApart) {
  for (const char* t : {"{ return (1 == 1); }", "{ if ((1 < 2) == 1) { }; return 0; }",
                        "{ if (1 < 2 < 3) { }; return 0; }", "{ if (true + 1 > 0) { }; return 0; }",
                        "1 < 2", "{ if (${a} and ${b} == 1) { }; return 0; }", "true"}) {
    EXPECT_FALSE(accepts(t)) << t;
  }
  for (const char* t :
       {"{ if ((${a}) > 1) { }; return 0; }", "{ if (((1 + 2) * 3 == 9)) { }; return 0; }",
        "{ if ((1 == 1) and (2 == 2 or false)) { }; return 0; }",
        "{ while (true) { }; return 0; }"}) {
    EXPECT_TRUE(accepts(t)) << t;
  }
}

TEST(CubePLSyntax, PrecedenceAndAssociativity) {
  EXPECT_EQ(eval("2^3^2"), 64);
  EXPECT_EQ(eval("-2^2"), -4);
  EXPECT_EQ(eval("-3 + 5"), 2);
  EXPECT_EQ(eval("-2 - 3"), -5);
  EXPECT_EQ(eval("2 * -3 ^ 2"), -18);
  EXPECT_EQ(eval("3 - -2 * 2"), 7);
  EXPECT_EQ(eval("{ ${x} = 4; return ${x} --1; }"), 5);
  EXPECT_EQ(eval("{ ${x} = 0; if (1 == 2 and 1 == 1 or 1 == 1) { ${x} = 1; }; return ${x}; }"), 1);
  EXPECT_EQ(eval("{ ${x} = 0; if (1 + 2 == 3) { ${x} = 1; }; return ${x}; }"), 1);
  EXPECT_EQ(eval("||1| - 2|"), 1);
}

TEST(CubePLSyntax, LiteralsAndComments) {
  EXPECT_EQ(eval("5."), 5);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("{ ${s} = \"a\\qb\\\\c\\\"\"; if (${s} eq \"aqb\\\\c\\\"\") { ${r} = 1; }; return "
                 "${r}; }"),
            1);
  EXPECT_EQ(eval("1 + // one\n 2 // two"), 3);
  EXPECT_EQ(eval("1\r\n+ 2"), 3);
  EXPECT_EQ(eval("{ return${ab}; }"), 0);
}

TEST(CubePLValues, ConversionsAndStrings) {
  EXPECT_EQ(eval("\"12\" + 1"), 1);
  EXPECT_EQ(eval("lowercase(\"5\") + 1"), 1);
  EXPECT_EQ(eval("{ ${x} = \" 3.5\"; ${y} = \"1e3\"; ${z} = \"-2x\"; return ${x} + ${y} + ${z}; }"),
            1001.5);
  EXPECT_EQ(eval("{ ${n} = 12; ${r} = 0; if (${n} =~ /^12$/) { ${r} = 1; }; return ${r}; }"), 1);
  EXPECT_EQ(eval("{ ${r} = 0; if (lowercase(3) eq \"3\") { ${r} = 1; }; return ${r}; }"), 1);
  EXPECT_EQ(eval("{ ${r} = 0; if (uppercase(\"aÄb\") eq \"AÄB\") { ${r} = 1; }; return ${r}; }"),
            1);
  EXPECT_EQ(eval("{ ${r} = 0; if (env(\"HOME_X\") eq \"/x\") { ${r} = 1; }; return ${r}; }"), 1);
  EXPECT_EQ(eval("{ ${r} = 0; if (cube::metric::get::time(\"uom\") eq \"sec\") { ${r} = 1; }; "
                 "return ${r}; }"),
            1);
  // §13 Q23: a copy keeps the source's kind even after the source was used as a number.
  EXPECT_EQ(eval("{ ${a} = \"abc\"; ${t} = ${a} + 1; ${b} = ${a}; ${r} = 0; if (${b} eq \"abc\") "
                 "{ ${r} = 1; }; return ${r}; }"),
            1);
  EXPECT_EQ(eval("{ ${r} = 0; if (${never} eq \"\") { ${r} = 1; }; return ${r} + ${never}; }"), 1);
}

TEST(CubePLValues, VariablesArraysSizeofDefined) {
  EXPECT_EQ(eval("{ ${a}[4] = 1; return sizeof(a); }"), 5);
  EXPECT_EQ(eval("{ return sizeof(cube::region::name) + sizeof(nothing); }"), 3);
  EXPECT_EQ(eval("{ return defined(later) * 10 + defined(x); }"), 0);
  EXPECT_EQ(eval("{ ${r} = defined(later); ${later} = 1; return ${r}; }"), 1);
  EXPECT_EQ(eval("{ ${a}[-1] = 5; return ${a}[-1] + sizeof(a); }"), 0);
  EXPECT_EQ(eval("{ ${a}[1.9] = 5; return ${a}[1]; }"), 5);
}

TEST(CubePLValues, ProvidedNamesAreReadOnly) {
  EXPECT_FALSE(accepts("{ ${cube::#metrics} = 3; return 0; }"));
  EXPECT_FALSE(accepts("{ global(cube::#metrics); return 0; }"));
  EXPECT_TRUE(accepts("{ ${cube::metric::unit::name} = 3; return 0; }"));  // a misspelling: local
  EXPECT_TRUE(is_reserved_name("calculation::sysres::sysid"));
  EXPECT_FALSE(is_reserved_name("cube::calleeid"));
}

TEST(CubePLValues, UnknownMetrics) {
  std::vector<std::string> warnings;
  CompileContext c = context();
  c.warn = [&](const std::string& w) { warnings.push_back(w); };
  EXPECT_TRUE(compile("metric::nosuch() + 1", c).metrics().empty());
  EXPECT_EQ(warnings.size(), 1u);
  c.strict = true;
  EXPECT_THROW(compile("metric::nosuch() + 1", c), CubePLError);
  EXPECT_FALSE(accepts("cube::metric::get::nosuch(\"uom\")"));
  EXPECT_EQ(eval("{ ${r} = 0; if (cube::metric::get::nosuch(\"uom\") eq \"uom\") { ${r} = 1; }; "
                 "return ${r}; }",
                 true),
            1);  // CubeLib: the property literal
  EXPECT_EQ(compile("metric::time() + metric::m(i) + metric::time(e)", context()).metrics(),
            (std::vector<Index>{0, 1}));
}

TEST(CubePLValues, VariableBindingIsCubeWide) {
  VariableNames names;
  CompileContext c = context();
  c.names = &names;
  Globals globals;
  RowEnv env({0});
  compile("{ global(total); ${total} = 7; ${tmp} = 1; return 0; }", c).evaluate(env, globals);
  EXPECT_EQ(compile("${total} + ${tmp}", c).evaluate(env, globals), 7);
  // A name first seen as local stays local, whatever later declarations say.
  EXPECT_EQ(compile("{ ${x} = 1; global(x); return ${x}; }", c).evaluate(env, globals), 1);
  EXPECT_EQ(compile("{ return ${x}; }", c).evaluate(env, globals), 0);
  EXPECT_EQ(
      compile("{ return defined(total) + defined(tmp) + defined(zzz); }", c).evaluate(env, globals),
      2);
}

TEST(CubePLValues, MetricReferenceForms) {
  RowEnv env({3});
  Globals globals;
  compile("metric::m() + metric::context::m(i) + metric::fixed::m(e,*) + metric::fixed::m()",
          context())
      .evaluate(env, globals);
  ASSERT_EQ(env.refs.size(), 4u);
  EXPECT_EQ(env.refs[0].given, 0);
  EXPECT_EQ(env.refs[1].call, Modifier::kInclusive);
  EXPECT_EQ(env.refs[2].form, MetricRef::Form::kFixed);
  EXPECT_EQ(env.refs[2].given, 2);
  EXPECT_EQ(env.refs[2].call, Modifier::kExclusive);
  EXPECT_EQ(env.refs[2].system, Modifier::kSame);
  EXPECT_EQ(compile("metric::call::m(2.7, e, 4, i)", context()).evaluate(env, globals), 24);
  EXPECT_EQ(env.calls.back().call, Modifier::kExclusive);
  EXPECT_TRUE(env.calls.back().has_system);
  EXPECT_FALSE(accepts("metric::call::m(1, *)"));
  EXPECT_FALSE(accepts("metric::m"));
  EXPECT_FALSE(accepts("metric::m ()"));
  EXPECT_FALSE(accepts("metric::m(i,e,i)"));
}

TEST(CubePLValues, OperatorsAndState) {
  RowEnv env({0, 0, 0});
  env.arg1 = {1, 5, 3};
  env.arg2 = {4, 2, 3};
  Globals globals;
  std::vector<double> out(3);
  compile("max(arg1, arg2) * 10 + arg1 - arg2", context()).evaluate(env, globals, out);
  EXPECT_EQ(out, (std::vector<double>{37, 53, 30}));
  compile("{ cube::metric::set::time(\"value\", \"VOID\"); return 0; }", context())
      .evaluate(env, globals, out);
  EXPECT_EQ(env.set, (std::vector<std::string>{"1=VOID"}));
  EXPECT_EQ(eval("{ ${i} = 0; ${s} = 0; while (${i} < 3) { ${s} = ${s} + random(0); ${i} = ${i} + "
                 "1; }; return ${s}; }"),
            0);
  EXPECT_EQ(eval("0.1 + 0.2 - 0.3"), 0);  // stable minus
}

// ---------------------------------------------------------------- row evaluation

TEST(CubePLRows, ArithmeticBroadcastsScalars) {
  EXPECT_EQ(eval_row("metric::m() * 2 + 1", {1, 2, 3, 4}), (std::vector<double>{3, 5, 7, 9}));
  EXPECT_EQ(eval_row("metric::m() / metric::time()", {0, 2, -1, 6}, {0, 0, 0, 3}),
            (std::vector<double>{0, DBL_MAX, -DBL_MAX, 2}));
  EXPECT_EQ(eval_row("7", {1, 2}), (std::vector<double>{7, 7}));
}

TEST(CubePLRows, BranchesAndLoopsPerLane) {
  EXPECT_EQ(eval_row("{ if (metric::m() > 2) { ${r} = 1; } elseif (metric::m() > 0) { ${r} = 2; "
                     "} else { ${r} = 3; }; return ${r}; }",
                     {0, 1, 3, -1}),
            (std::vector<double>{3, 2, 1, 3}));
  // Each lane loops its own number of times.
  EXPECT_EQ(eval_row("{ ${i} = 0; ${s} = 0; while (${i} < metric::m()) { ${i} = ${i} + 1; ${s} = "
                     "${s} + ${i}; }; return ${s}; }",
                     {0, 1, 4, 2}),
            (std::vector<double>{0, 1, 10, 3}));
}

TEST(CubePLRows, PerLaneIndicesAndStrings) {
  // Lane i writes and reads element i; strings per lane compare per lane.
  EXPECT_EQ(eval_row("{ ${a}[${calculation::sysres::id}] = metric::m(); return "
                     "${a}[${calculation::sysres::id}] + sizeof(a) * 100; }",
                     {5, 6, 7}),
            (std::vector<double>{305, 306, 307}));
  EXPECT_EQ(eval_row("{ ${r} = 0; if (${cube::region::name}[${calculation::sysres::id}] =~ "
                     "/^MPI/) { ${r} = 1; }; return ${r}; }",
                     {0, 0, 0}),
            (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(eval_row("{ ${s} = \"x\"; if (metric::m() > 0) { ${s} = \"y\"; }; ${r} = 0; if (${s} "
                     "eq \"y\") { ${r} = 1; }; return ${r}; }",
                     {1, 0}),
            (std::vector<double>{1, 0}));
}

TEST(CubePLRows, ShortCutsSkipSideEffectsPerLane) {
  // The lambda runs only in lanes whose left operand is non-zero.
  EXPECT_EQ(eval_row("{ ${n} = 0; ${r} = metric::m() * { ${n} = ${n} + 1; return 1; }; return "
                     "${n} * 10 + ${r}; }",
                     {0, 2, 0, 3}),
            (std::vector<double>{0, 12, 0, 13}));
  EXPECT_EQ(eval_row("{ ${n} = 0; if (metric::m() > 0 and { ${n} = 1; return 1; } == 1) { }; "
                     "return ${n}; }",
                     {0, 2}),
            (std::vector<double>{0, 1}));
  EXPECT_EQ(eval_row("{ ${n} = 0; if (metric::m() > 0 or { ${n} = 1; return 1; } == 1) { }; "
                     "return ${n}; }",
                     {0, 2}),
            (std::vector<double>{1, 0}));
}

TEST(CubePLRows, LocalsAreFreshGlobalsPersist) {
  VariableNames names;
  CompileContext c = context();
  c.names = &names;
  Globals globals;
  RowEnv env({1, 2});
  std::vector<double> out(2);
  compile("{ global(g); ${g} = 10; return 0; }", c).evaluate(env, globals, out);
  const Program p =
      compile("{ ${n} = ${n} + 1; ${g} = ${g} + metric::m(); return ${n} * 100 + ${g}; }", c);
  p.evaluate(env, globals, out);
  EXPECT_EQ(out, (std::vector<double>{111, 112}));
  p.evaluate(env, globals, out);
  EXPECT_EQ(out, (std::vector<double>{112, 114}));
}

TEST(CubePLRows, DiagnosticsOnlyForActiveLanes) {
  RowEnv env({-1, 4});
  Globals globals;
  std::vector<double> out(2);
  compile("{ ${r} = 0; if (metric::m() > 0) { ${r} = sqrt(metric::m()); }; return ${r}; }",
          context())
      .evaluate(env, globals, out);
  EXPECT_EQ(out, (std::vector<double>{0, 2}));
  EXPECT_TRUE(env.diagnostics.empty());
  compile("sqrt(metric::m())", context()).evaluate(env, globals, out);
  EXPECT_EQ(env.diagnostics.size(), 1u);
}

TEST(CubePLRows, EmptyProgramIsZero) {
  EXPECT_TRUE(compile("  ", context()).empty());
  EXPECT_EQ(eval_row("", {1, 2}), (std::vector<double>{0, 0}));
}

}  // namespace
}  // namespace cubekit::cubepl
