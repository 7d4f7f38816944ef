#include "cubepl/parser.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "cubepl/regex.hpp"

namespace cubekit::cubepl::detail {
namespace {

bool string_capable(Op op) {
  switch (op) {
    case Op::kString:
    case Op::kVar:
    case Op::kLower:
    case Op::kUpper:
    case Op::kEnv:
    case Op::kGet:
    case Op::kSizeof:
    case Op::kDefined:
      return true;
    default:
      return false;
  }
}

// Builds a node and derives the flags the evaluator's short cuts rely on, and its height.
// Inside the parser, Parser::make also checks the height.
NodePtr make_node(Op op, std::vector<NodePtr> kids = {}) {
  auto n = std::make_unique<Node>();
  n->op = op;
  n->kids = std::move(kids);
  n->strings = string_capable(op);
  n->effects = op == Op::kAssign || op == Op::kSet;
  for (const auto& k : n->kids) {
    n->effects = n->effects || k->effects;
    n->height = std::max(n->height, k->height + 1);
  }
  return n;
}

NodePtr number(double value) {
  auto n = make_node(Op::kNumber);
  n->number = value;
  return n;
}

std::vector<NodePtr> pair(NodePtr a, NodePtr b) {
  std::vector<NodePtr> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return v;
}

std::vector<NodePtr> one(NodePtr a) {
  std::vector<NodePtr> v;
  v.push_back(std::move(a));
  return v;
}

// Tokens that stand for one operation: the relations, and the functions of one or two
// arguments written `name(...)`.
struct TokenOp {
  Tok token;
  Op op;
};
constexpr TokenOp kRelations[] = {
    {Tok::kEq, Op::kEq},       {Tok::kNe, Op::kNe},         {Tok::kLt, Op::kLt},
    {Tok::kLe, Op::kLe},       {Tok::kGt, Op::kGt},         {Tok::kGe, Op::kGe},
    {Tok::kStrEq, Op::kStrEq}, {Tok::kStrSeq, Op::kStrSeq},
};
constexpr TokenOp kFunctions[] = {
    {Tok::kFunc1, Op::kFunc},      {Tok::kMin, Op::kMin},         {Tok::kMax, Op::kMax},
    {Tok::kLowercase, Op::kLower}, {Tok::kUppercase, Op::kUpper}, {Tok::kEnv, Op::kEnv},
};

// The operation `t` stands for in `table`; Op::kNop if none.
template <size_t N>
Op op_of(Tok t, const TokenOp (&table)[N]) {
  for (const TokenOp& entry : table)
    if (entry.token == t) return entry.op;
  return Op::kNop;
}

// Deeper nesting than any real expression; keeps recursive descent far from the stack limit.
constexpr int kMaxDepth = 600;

constexpr const char* kValueStart =
    "a value (number, string, ${variable}, (, |, function, metric::…, {)";

}  // namespace

Parser::Parser(std::string_view source, size_t begin, size_t end, const CompileContext& context,
               VariableNames& names)
    : src_(source), ctx_(context), names_(names), lex_(source, begin, end, context.compatible) {
  cur_ = lex_.next();
}

// ---------------------------------------------------------------- tokens

void Parser::advance() {
  prev_end_ = cur_.end;
  cur_ = lex_.next();
}

void Parser::fail_expected(const std::string& what) const {
  fail_at(src_, cur_.begin, "expected " + what + ", found " + describe(src_, cur_));
}

void Parser::expect(Tok kind, const char* what) {
  if (!at(kind)) fail_expected(what);
  advance();
}

// Function keywords and metric names need their `(` without white space (cubepl.md §2.2).
void Parser::expect_glued(Tok kind, const char* what) {
  if (at(kind) && cur_.space_before) {
    fail_at(src_, prev_end_, std::string("expected ") + what + " directly here, found white space");
  }
  expect(kind, what);
}

Parser::Nest::Nest(Parser& parser) : p(parser) {
  if (++p.depth_ > kMaxDepth) fail_at(p.src_, p.cur_.begin, "expression nested too deeply");
}

NodePtr Parser::make(Op op, std::vector<NodePtr> kids) {
  NodePtr n = make_node(op, std::move(kids));
  check_height(*n);
  return n;
}

// Attaches a kid to a node built earlier, keeping its flags and height right.
void Parser::adopt(Node& n, NodePtr kid) {
  n.effects = n.effects || kid->effects;
  n.height = std::max(n.height, kid->height + 1);
  n.kids.push_back(std::move(kid));
  check_height(n);
}

// Joins one more operand to a chain (ast.hpp, Op::kChain), which stays one node high.
void Parser::append(Node& chain, Op step, NodePtr kid) {
  chain.steps.push_back(step);
  adopt(chain, std::move(kid));
}

void Parser::check_height(const Node& n) const {
  if (n.height > kMaxTreeHeight)
    fail_at(src_, cur_.begin,
            "expression too deep: more than " + std::to_string(kMaxTreeHeight) +
                " operations nested in each other (calls, signs, parentheses)");
}

void Parser::warn(const std::string& message) const {
  if (ctx_.warn) ctx_.warn(message);
}

// ---------------------------------------------------------------- program

Ast Parser::parse_program() {
  Ast ast;
  if (!at(Tok::kEnd)) {
    ast.root = expr();
    if (!at(Tok::kEnd)) fail_expected("an operator or end of input");
  }
  // defined() sees every name the compilation registered, wherever it was mentioned.
  for (Node* d : defined_) {
    d->number = is_reserved_name(d->text) || names_.known(d->text) ? 1 : 0;
  }
  ast.locals = locals_.size();
  ast.read_environment = ctx_.read_environment;
  return ast;
}

// ---------------------------------------------------------------- values

NodePtr Parser::expr() {
  return sum(nullptr);
}

// `cond` (when not null) allows the leftmost primary to be a parenthesised condition; if it
// is one, *cond is set and no operator may follow, so the callers return at once.
NodePtr Parser::sum(bool* cond) {
  const Nest nest(*this);
  NodePtr left = signed_term(cond);
  if ((cond && *cond) || !(at(Tok::kPlus) || at(Tok::kMinus))) return left;
  NodePtr chain = make(Op::kChain, one(std::move(left)));
  while (at(Tok::kPlus) || at(Tok::kMinus)) {
    const Op op = at(Tok::kPlus) ? Op::kAdd : Op::kSub;
    advance();
    append(*chain, op, signed_term(nullptr));
  }
  return chain;
}

// Unary minus binds like binary +/-: it negates a whole product (`-2^2` = -4).
NodePtr Parser::signed_term(bool* cond) {
  if (!at(Tok::kMinus)) return product(cond);
  const Nest nest(*this);
  advance();
  return make(Op::kNeg, one(signed_term(nullptr)));
}

NodePtr Parser::product(bool* cond) {
  NodePtr left = power(cond);
  if ((cond && *cond) || !(at(Tok::kStar) || at(Tok::kSlash))) return left;
  NodePtr chain = make(Op::kChain, one(std::move(left)));
  while (at(Tok::kStar) || at(Tok::kSlash)) {
    const Op op = at(Tok::kStar) ? Op::kMul : Op::kDiv;
    advance();
    // The right operand is a whole power: 3 * 4 ^ 2 is 3 * 16, and 2 * -3 ^ 2 is -18.
    append(*chain, op, at(Tok::kMinus) ? operand() : power(nullptr));
  }
  return chain;
}

// `^` is left-associative in CubePL: 2^3^2 = 64.
NodePtr Parser::power(bool* cond) {
  NodePtr left = primary(cond);
  if ((cond && *cond) || !at(Tok::kCaret)) return left;
  NodePtr chain = make(Op::kChain, one(std::move(left)));
  while (at(Tok::kCaret)) {
    advance();
    append(*chain, Op::kPow, operand());
  }
  return chain;
}

// Right operand of * / ^: a primary, or a minus that takes a whole signed term (2^-1*4).
NodePtr Parser::operand() {
  if (!at(Tok::kMinus)) return primary(nullptr);
  const Nest nest(*this);
  advance();
  return make(Op::kNeg, one(signed_term(nullptr)));
}

NodePtr Parser::primary(bool* cond) {
  switch (cur_.kind) {
    case Tok::kNumber: {
      auto n = number(cur_.number);
      advance();
      return n;
    }
    case Tok::kString: {
      auto n = make(Op::kString);
      n->text = cur_.text;
      advance();
      return n;
    }
    case Tok::kVar:
      return variable();
    case Tok::kLParen:
      return paren(cond);
    case Tok::kBar: {
      advance();
      auto n = make(Op::kAbs, one(expr()));
      expect(Tok::kBar, "'|' closing the absolute value");
      return n;
    }
    case Tok::kArg1:
    case Tok::kArg2: {
      auto n = make(at(Tok::kArg1) ? Op::kArg1 : Op::kArg2);
      advance();
      return n;
    }
    case Tok::kMetric:
    case Tok::kMetricFixed:
      return metric_ref();
    case Tok::kMetricCall:
      return metric_call();
    case Tok::kMetricGet:
      return metric_get();
    case Tok::kLBrace:
      return lambda();
    default:
      return function();
  }
}

NodePtr Parser::paren(bool* cond) {
  advance();
  NodePtr inner = cond ? logic(cond) : expr();
  expect(Tok::kRParen, cond && *cond ? "')' or and/or" : "an operator or ')'");
  return inner;
}

NodePtr Parser::function() {
  const Token t = cur_;
  if (t.kind == Tok::kSizeof || t.kind == Tok::kDefined) {
    const Token name = lex_.paren_name();
    auto n = make(t.kind == Tok::kSizeof ? Op::kSizeof : Op::kDefined);
    n->text = name.text;
    if (t.kind == Tok::kSizeof) n->var = bind(name.text);
    if (t.kind == Tok::kDefined) defined_.push_back(n.get());
    advance();
    return n;
  }
  const Op op = op_of(t.kind, kFunctions);
  if (op == Op::kNop) fail_expected(kValueStart);
  if (op == Op::kEnv && !ctx_.read_environment && !env_warned_) {
    env_warned_ = true;
    warn(location(src_, t.begin) +
         ": env() gives \"\" here: expressions stored in a report do not read the "
         "environment unless CUBEKIT_CUBEPL_ENV=1");
  }
  advance();
  // lowercase/uppercase/env tolerate white space before `(`; the other functions do not.
  const bool loose = op == Op::kLower || op == Op::kUpper || op == Op::kEnv;
  loose ? expect(Tok::kLParen, "'('") : expect_glued(Tok::kLParen, "'('");
  std::vector<NodePtr> args;
  args.push_back(expr());
  if (op == Op::kMin || op == Op::kMax) {
    if (ctx_.compatible && call_ids_ > 0 && at(Tok::kComma)) {
      fail_at(src_, cur_.begin,
              "expected ')', found ',' (CubeLib 4.6 reads commas inside "
              "metric::call ids as argument separators)");
    }
    expect(Tok::kComma, "','");
    args.push_back(expr());
  }
  expect(Tok::kRParen, "')'");
  auto n = make(op, std::move(args));
  n->func = t.func;
  return n;
}

NodePtr Parser::variable() {
  auto n = make(Op::kVar);
  n->var = bind(cur_.text);
  advance();
  if (at(Tok::kLBracket)) {
    advance();
    adopt(*n, expr());
    n->has_index = true;
    n->effects = n->kids[0]->effects;
    expect(Tok::kRBracket, "an operator or ']'");
  }
  return n;
}

NodePtr Parser::lambda() {
  const Nest nest(*this);
  advance();
  auto n = make(Op::kLambda);
  while (!at(Tok::kReturn)) {
    adopt(*n, statement());
    expect(Tok::kSemi, "';' ending the statement");
  }
  advance();
  adopt(*n, expr());
  expect(Tok::kSemi, "';' after the returned value");
  expect(Tok::kRBrace, "'}' closing the lambda");
  for (const auto& k : n->kids) n->effects = n->effects || k->effects;
  return n;
}

// ---------------------------------------------------------------- metric references

std::optional<Index> Parser::find_metric(const std::string& name, size_t offset) {
  std::optional<Index> index;
  if (ctx_.find_metric) index = ctx_.find_metric(name);
  if (index) {
    metrics_.push_back(*index);
    return index;
  }
  if (ctx_.strict) fail_at(src_, offset, "unknown metric '" + name + "'");
  warn(location(src_, offset) + ": unknown metric '" + name + "'; the reference is always 0");
  return std::nullopt;
}

// Modifiers i / e / *; CubeLib allows no white space anywhere in the list.
Modifier Parser::modifier(bool star_allowed) {
  if (ctx_.compatible && cur_.space_before) {
    fail_at(src_, prev_end_, "expected a modifier directly here, found white space");
  }
  Modifier m = Modifier::kSame;
  if (at(Tok::kWord) && cur_.text == "i") {
    m = Modifier::kInclusive;
  } else if (at(Tok::kWord) && cur_.text == "e") {
    m = Modifier::kExclusive;
  } else if (!(star_allowed && at(Tok::kStar))) {
    fail_expected(star_allowed ? "a modifier i, e or *" : "a modifier i or e");
  }
  advance();
  return m;
}

NodePtr Parser::metric_ref() {
  const Token t = cur_;
  advance();
  expect_glued(Tok::kLParen, "'(' after the metric name");
  MetricRef ref;
  ref.form = t.kind == Tok::kMetricFixed ? MetricRef::Form::kFixed : MetricRef::Form::kContext;
  if (!at(Tok::kRParen)) {
    ref.call = modifier(true);
    ref.given = 1;
    if (at(Tok::kComma)) {
      if (ctx_.compatible && cur_.space_before) fail_expected("',' directly after the modifier");
      advance();
      ref.system = modifier(true);
      ref.given = 2;
    }
  }
  if (ctx_.compatible && cur_.space_before && at(Tok::kRParen)) {
    fail_at(src_, prev_end_, "expected ')' directly here, found white space");
  }
  expect(Tok::kRParen, ref.given == 2 ? "')'" : "a modifier list ending in ')'");
  const auto index = find_metric(t.text, t.begin);
  if (!index) return number(0);
  auto n = make(Op::kMetric);
  ref.metric = *index;
  n->ref = ref;
  return n;
}

NodePtr Parser::metric_call() {
  const Token t = cur_;
  advance();
  expect_glued(Tok::kLParen, "'(' after the metric name");
  auto n = make(Op::kCall);
  ++call_ids_;
  adopt(*n, expr());
  expect(Tok::kComma, "',' and a modifier");
  n->call.call = modifier(false);
  if (at(Tok::kComma)) {
    advance();
    adopt(*n, expr());
    expect(Tok::kComma, "',' and a modifier");
    n->call.system = modifier(false);
    n->call.has_system = true;
  }
  --call_ids_;
  expect(Tok::kRParen, "')'");
  const auto index = find_metric(t.text, t.begin);
  if (!index) return number(0);
  n->call.metric = *index;
  n->effects = false;
  for (const auto& k : n->kids) n->effects = n->effects || k->effects;
  return n;
}

Parser::MetricProperty Parser::metric_property() {
  MetricProperty out{cur_, {}, std::nullopt};
  advance();
  expect_glued(Tok::kLParen, "'(' after the metric name");
  if (!at(Tok::kString)) fail_expected("a property name string");
  out.property = cur_.text;
  advance();
  if (ctx_.find_metric) out.metric = ctx_.find_metric(out.name.text);
  return out;
}

NodePtr Parser::metric_get() {
  const auto [t, property, index] = metric_property();
  expect(Tok::kRParen, "')'");
  if (!index) {
    // CubeLib then yields the property literal; we refuse unless asked to be compatible.
    if (!ctx_.compatible) fail_at(src_, t.begin, "unknown metric '" + t.text + "'");
    warn(location(src_, t.begin) + ": unknown metric '" + t.text + "'");
    if (ctx_.cubelib_note)
      ctx_.cubelib_note(" Metric with uniq name " + t.text + " doesn't exists in cube");
    auto s = make(Op::kString);
    s->text = property;
    return s;
  }
  auto n = make(Op::kGet);
  n->metric = *index;
  n->text = property;
  return n;
}

// ---------------------------------------------------------------- conditions

// `(` condition `)` of if / elseif / while.
NodePtr Parser::condition_head() {
  expect(Tok::kLParen, "'('");
  bool cond = false;
  NodePtr c = logic(&cond);
  if (!cond) fail_expected("a comparison operator (== != < <= > >= eq seq =~)");
  expect(Tok::kRParen, "')' or and/or");
  return c;
}

// and / or / xor share one level and group from the left (`A or B and C` = `(A or B) and C`).
// *cond tells whether the result is a condition; a lone value is handed back to paren().
NodePtr Parser::logic(bool* cond) {
  const Nest nest(*this);
  NodePtr left = relation(cond);
  auto at_logic = [&] {
    return at(Tok::kAnd) || at(Tok::kOr) || (at(Tok::kXor) && !ctx_.compatible);
  };
  if (!at_logic()) return left;
  if (!*cond) fail_expected("a comparison operator (== != < <= > >= eq seq =~)");
  NodePtr chain = make(Op::kLogicChain, one(std::move(left)));
  while (at_logic()) {
    const Op op = at(Tok::kAnd) ? Op::kAnd : at(Tok::kOr) ? Op::kOr : Op::kXor;
    advance();
    bool right_cond = false;
    NodePtr right = relation(&right_cond);
    if (!right_cond) fail_expected("a comparison operator (== != < <= > >= eq seq =~)");
    append(*chain, op, std::move(right));
  }
  return chain;
}

NodePtr Parser::relation(bool* cond) {
  *cond = true;
  if (at(Tok::kTrue) || at(Tok::kFalse)) {
    auto n = make(at(Tok::kTrue) ? Op::kTrue : Op::kFalse);
    advance();
    return n;
  }
  if (at(Tok::kNot)) {
    advance();
    expect(Tok::kLParen, "'(' after not");
    bool inner = false;
    NodePtr c = logic(&inner);
    if (!inner) fail_expected("a comparison operator (== != < <= > >= eq seq =~)");
    expect(Tok::kRParen, "')' or and/or");
    return make(Op::kNot, one(std::move(c)));
  }
  *cond = false;
  NodePtr left = sum(cond);
  if (*cond) return left;
  if (at(Tok::kMatch)) {
    const Token re = lex_.regex();
    advance();
    auto n = make(Op::kMatch, one(std::move(left)));
    n->regex = std::make_shared<Regex>(re.text, location(src_, re.begin) + ": ");
    *cond = true;
    return n;
  }
  const Op op = op_of(cur_.kind, kRelations);
  if (op == Op::kNop) return left;
  advance();
  *cond = true;
  return make(op, pair(std::move(left), expr()));
}

// ---------------------------------------------------------------- statements

NodePtr Parser::statement() {
  switch (cur_.kind) {
    case Tok::kVar:
      return assignment();
    case Tok::kIf:
      return if_chain();
    case Tok::kWhile: {
      advance();
      NodePtr c = condition_head();
      return make(Op::kWhile, pair(std::move(c), block()));
    }
    case Tok::kLocal:
    case Tok::kGlobal:
      return declaration();
    case Tok::kMetricSet:
      return metric_set();
    case Tok::kGhostPost:
    case Tok::kGhostPre:
    case Tok::kInitMetric:
    case Tok::kPlusMetric:
    case Tok::kMinusMetric:
      return definition();
    default:
      if (at(Tok::kWord) && cur_.text == "for") return for_loop();
      fail_expected(
          "a statement (${…} =, if, while, for, local, global, cube::metric::…) or return");
  }
}

// `for (${i} = a; condition; ${i} = b) { … }`: a cubekit extension (no CubePL version has it,
// docs/cubepl.md "for loops"), so refused in CubeLib-compatible mode, which is also how
// expressions are checked before they are written into a report. Desugared to
// `{ init; while (condition) { body; step; }; }`.
NodePtr Parser::for_loop() {
  if (ctx_.compatible) {
    fail_at(src_, cur_.begin,
            "'for' is not part of CubePL (a cubekit extension that CubeLib cannot read); write "
            "the loop with while: ${i} = first; while (${i} < end) { …; ${i} = ${i} + 1; };");
  }
  advance();
  expect(Tok::kLParen, "'(' after for");
  if (!at(Tok::kVar)) fail_expected("an assignment ${…} = … starting the for loop");
  NodePtr init = assignment();
  expect(Tok::kSemi, "';' after the for loop's first assignment");
  bool cond = false;
  NodePtr c = logic(&cond);
  if (!cond) fail_expected("a comparison operator (== != < <= > >= eq seq =~)");
  expect(Tok::kSemi, "';' after the for loop's condition");
  if (!at(Tok::kVar)) fail_expected("an assignment ${…} = … as the for loop's step");
  NodePtr step = assignment();
  expect(Tok::kRParen, "')' closing the for loop's head");
  NodePtr body = block();
  auto repeated = make(Op::kBlock);
  adopt(*repeated, std::move(body));
  adopt(*repeated, std::move(step));
  for (const auto& k : repeated->kids) repeated->effects = repeated->effects || k->effects;
  auto loop = make(Op::kWhile, pair(std::move(c), std::move(repeated)));
  auto n = make(Op::kBlock);
  adopt(*n, std::move(init));
  adopt(*n, std::move(loop));
  for (const auto& k : n->kids) n->effects = n->effects || k->effects;
  return n;
}

NodePtr Parser::block() {
  const Nest nest(*this);
  expect(Tok::kLBrace, "'{'");
  auto n = make(Op::kBlock);
  while (!at(Tok::kRBrace)) {
    adopt(*n, statement());
    expect(Tok::kSemi, "';' ending the statement");
  }
  advance();
  for (const auto& k : n->kids) n->effects = n->effects || k->effects;
  return n;
}

NodePtr Parser::assignment() {
  const Token target = cur_;
  if (is_reserved_name(target.text)) {
    fail_at(src_, target.begin, "cannot assign to the provided variable ${" + target.text + "}");
  }
  NodePtr var = variable();
  expect(Tok::kAssign, "'=' after the variable");
  auto n = make(Op::kAssign);
  n->var = var->var;
  n->has_index = var->has_index;
  if (var->has_index) adopt(*n, std::move(var->kids[0]));
  adopt(*n, expr());
  return n;
}

NodePtr Parser::if_chain() {
  advance();
  auto n = make(Op::kIf);
  adopt(*n, condition_head());
  adopt(*n, block());
  while (at(Tok::kElseif)) {
    advance();
    adopt(*n, condition_head());
    adopt(*n, block());
  }
  if (at(Tok::kElse)) {
    advance();
    adopt(*n, block());
    n->has_else = true;
  }
  for (const auto& k : n->kids) n->effects = n->effects || k->effects;
  return n;
}

NodePtr Parser::declaration() {
  const bool global = at(Tok::kGlobal);
  const Token name = lex_.paren_name();
  const auto want = global ? VariableNames::Kind::kGlobal : VariableNames::Kind::kLocal;
  if (is_reserved_name(name.text)) {
    fail_at(src_, name.begin, "cannot declare the provided variable " + name.text);
  }
  const bool was_known = names_.known(name.text);
  if (names_.bind(name.text, want) != want && was_known) {
    warn(location(src_, name.begin) + ": " + name.text +
         " was bound earlier; the declaration has no effect");
  }
  advance();
  return make(Op::kNop);
}

NodePtr Parser::metric_set() {
  const auto [t, property, index] = metric_property();
  expect(Tok::kComma, "','");
  if (!at(Tok::kString)) fail_expected("a value string");
  const std::string value = cur_.text;
  advance();
  expect(Tok::kRParen, "')'");
  if (!index) {
    warn(location(src_, t.begin) + ": unknown metric '" + t.text + "'; statement ignored");
    if (ctx_.cubelib_note)
      ctx_.cubelib_note(" Metric with uniq name " + t.text +
                        " doesn't exists in cube. metric::set has no action.");
    return make(Op::kNop);
  }
  if (property != "value") {
    warn(location(src_, t.begin) + ": only the property \"value\" can be set; statement ignored");
    return make(Op::kNop);
  }
  auto n = make(Op::kSet);
  n->metric = *index;
  n->text = value;
  return n;
}

// Ghost metrics and attached expressions act at compile time; the embedded text is checked
// here (with positions in this program) and handed to the context.
NodePtr Parser::definition() {
  const Token t = cur_;
  Definition def;
  def.metric = t.text;
  def.what = t.kind == Tok::kGhostPost     ? Definition::What::kPostderived
             : t.kind == Tok::kInitMetric  ? Definition::What::kInit
             : t.kind == Tok::kPlusMetric  ? Definition::What::kPlus
             : t.kind == Tok::kMinusMetric ? Definition::What::kMinus
                                           : Definition::What::kPrederivedExclusive;
  advance();
  if (t.kind == Tok::kGhostPre) {
    expect(Tok::kLParen, "'(' and a modifier i or e");
    const Modifier m = modifier(false);
    if (m == Modifier::kInclusive) def.what = Definition::What::kPrederivedInclusive;
    expect(Tok::kRParen, "')'");
  }
  if (!at(Tok::kShl)) fail_expected("'<<' starting the embedded expression");
  const Token raw = lex_.raw_text();
  def.text = raw.text;
  {
    CompileContext check = ctx_;
    check.define = nullptr;
    check.warn = nullptr;
    check.strict = false;
    VariableNames scratch = names_;
    Parser inner(src_, raw.begin, raw.begin + raw.text.size(), check, scratch);
    inner.parse_program();
  }
  if (ctx_.define) {
    ctx_.define(def);
  } else {
    warn(location(src_, t.begin) + ": definition of '" + t.text + "' ignored here");
  }
  advance();
  return make(Op::kNop);
}

// ---------------------------------------------------------------- names

VarRef Parser::bind(const std::string& name) {
  VarRef v;
  v.name = name;
  if (is_reserved_name(name)) {
    v.storage = Storage::kProvided;
    return v;
  }
  if (names_.bind(name, VariableNames::Kind::kLocal) == VariableNames::Kind::kGlobal) {
    v.storage = Storage::kGlobal;
    return v;
  }
  v.slot = locals_.try_emplace(name, locals_.size()).first->second;
  return v;
}

}  // namespace cubekit::cubepl::detail
