#include "cubepl/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "cubepl/builtins.hpp"
#include "cubepl/regex.hpp"

namespace cubekit::cubepl::detail {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 20;  // a write beyond this is refused
constexpr uint64_t kMaxIterations = 1'000'000'000;  // CubeLib's silent while limit

// Array indices and ids are truncated toward zero; NaN and huge values become "invalid" (-1).
int64_t to_index(double x) {
  if (!(x > -1e18 && x < 1e18)) return -1;
  return static_cast<int64_t>(std::trunc(x));
}

Column all_lanes() {
  return Column(1.0);
}

}  // namespace

Evaluator::Evaluator(const Ast& ast, Environment& env, Store& globals)
    : ast_(ast), env_(env), globals_(globals), w_(env.width()), locals_(ast.locals) {}

Column Evaluator::run() {
  return num(*ast_.root, all_lanes());
}

// ---------------------------------------------------------------- numbers

Column Evaluator::num(const Node& n, const Column& mask) {
  switch (n.op) {
    case Op::kNumber:
    case Op::kDefined:
      return Column(n.number);
    case Op::kString:
    case Op::kLower:
    case Op::kUpper:
    case Op::kEnv:
    case Op::kGet:
      return Column(0.0);  // strings that are not variables count as 0 (§4.1)
    case Op::kVar:
      return numbers_of(read(n, mask), w_);
    case Op::kNeg:
      return map(num(*n.kids[0], mask), w_, [](double x) { return -x; });
    case Op::kAbs:
      return map(num(*n.kids[0], mask), w_, [](double x) { return std::fabs(x); });
    case Op::kChain:
      return chain(n, mask);
    case Op::kMin:
    case Op::kMax: {
      Column a = num(*n.kids[0], mask);  // first: the arguments may assign (lambdas)
      return arithmetic(n.op, std::move(a), num(*n.kids[1], mask));
    }
    case Op::kFunc:
      return function(n, mask);
    case Op::kSizeof:
      return size_of(n.var);
    case Op::kArg1:
      return argument(1);
    case Op::kArg2:
      return argument(2);
    case Op::kMetric:
      return metric(n);
    case Op::kCall:
      return call(n, mask);
    case Op::kLambda:
      return lambda(n, mask);
    default:
      return cond(n, mask);  // conditions only reach here through a parser error
  }
}

// Folds the chain from the left, one operand at a time, in a loop: the same operations in the
// same order as the left-deep tree ((a + b) + c) + ... would make, so the same bits.
Column Evaluator::chain(const Node& n, const Column& mask) {
  Column value = num(*n.kids[0], mask);
  for (size_t i = 1; i < n.kids.size(); ++i) {
    const Op op = n.steps[i - 1];
    const Node& right = *n.kids[i];
    if (op == Op::kMul || op == Op::kDiv) {
      value = short_cut(op, std::move(value), right, mask);
    } else {
      Column b = num(right, mask);
      value = arithmetic(op, std::move(value), std::move(b));
    }
  }
  return value;
}

Column Evaluator::arithmetic(Op op, Column a, Column b) {
  switch (op) {
    case Op::kAdd:
      return zip(std::move(a), std::move(b), w_, [](double x, double y) { return x + y; });
    case Op::kSub:
      return zip(std::move(a), std::move(b), w_, stable_minus);
    case Op::kPow:
      return zip(std::move(a), std::move(b), w_, [](double x, double y) { return std::pow(x, y); });
    case Op::kMin:
      return zip(std::move(a), std::move(b), w_, [](double x, double y) { return std::min(x, y); });
    default:
      return zip(std::move(a), std::move(b), w_, [](double x, double y) { return std::max(x, y); });
  }
}

// a * b and a / b: where a is 0 the result is 0 and b is not evaluated (§5.1).
Column Evaluator::short_cut(Op op, Column a, const Node& right, const Column& mask) {
  if (a.uniform() && a.scalar() == 0) return Column(0.0);
  Column b(0.0);
  if (right.effects) {
    const Column need = both(mask, a, w_);
    if (any(need, w_)) b = num(right, need);
  } else {
    b = num(right, mask);
  }
  if (op == Op::kMul) return zip(std::move(a), std::move(b), w_, product);
  return zip(std::move(a), std::move(b), w_, quotient);
}

Column Evaluator::function(const Node& n, const Column& mask) {
  const Column x = num(*n.kids[0], mask);
  bool bad = false;
  Column out;
  if (x.uniform()) {
    out = Column(apply(n.func, x.scalar(), bad));
    bad = bad && any(mask, w_);
  } else {
    std::vector<double> v(w_);
    for (size_t i = 0; i < w_; ++i) {
      bool lane_bad = false;
      v[i] = apply(n.func, x[i], lane_bad);
      bad = bad || (lane_bad && mask[i] != 0);
    }
    out = Column(std::move(v));
  }
  if (bad) env_.diagnostic(std::string(name_of(n.func)) + ": argument outside the domain");
  return out;
}

Column Evaluator::argument(int which) {
  const std::span<const double> v = env_.arg(which);
  if (v.empty()) return Column(0.0);
  if (v.size() < w_) return Column(v[0]);
  return Column(std::vector<double>(v.begin(), v.begin() + static_cast<ptrdiff_t>(w_)));
}

Column Evaluator::metric(const Node& n) {
  std::vector<double> out(w_);
  env_.metric_row(n.ref, out);
  if (w_ == 1) return Column(out[0]);
  return Column(std::move(out));
}

// metric::call ids may differ per lane; uniform ids (the usual case) cost one request.
Column Evaluator::call(const Node& n, const Column& mask) {
  const Column cnode = num(*n.kids[0], mask);
  const Column sysid = n.call.has_system ? num(*n.kids[1], mask) : Column(0.0);
  auto one = [&](size_t lane) {
    CallRef ref = n.call;
    ref.cnode = to_index(cnode[lane]);
    ref.sysid = to_index(sysid[lane]);
    return env_.metric_call(ref);
  };
  if (cnode.uniform() && sysid.uniform()) return Column(one(0));
  std::vector<double> v(w_, 0.0);
  for (size_t i = 0; i < w_; ++i) {
    if (mask[i] != 0) v[i] = one(i);
  }
  return Column(std::move(v));
}

Column Evaluator::lambda(const Node& n, const Column& mask) {
  for (size_t i = 0; i + 1 < n.kids.size(); ++i) exec(*n.kids[i], mask);
  return num(*n.kids.back(), mask);
}

Column Evaluator::size_of(const VarRef& var) {
  if (var.storage != Storage::kProvided) return Column(static_cast<double>(storage(var).size()));
  const auto view = env_.variable(var.name);
  if (!view) return Column(0.0);
  if (view->per_lane) return Column(1.0);
  return Column(static_cast<double>(std::max(view->numbers.size(), view->strings.size())));
}

// ---------------------------------------------------------------- strings

StrColumn Evaluator::str(const Node& n, const Column& mask) {
  switch (n.op) {
    case Op::kString:
      return StrColumn(n.text);
    case Op::kVar:
      return strings_of(read(n, mask), w_);
    case Op::kGet:
      return StrColumn(env_.metric_property(n.metric, n.text));
    case Op::kLower:
    case Op::kUpper:
    case Op::kEnv: {
      StrColumn in = text_of(*n.kids[0], mask);
      auto f = [&](std::string s) {
        if (n.op == Op::kLower) return ascii_lower(std::move(s));
        if (n.op == Op::kUpper) return ascii_upper(std::move(s));
        return ast_.read_environment ? env_.environment_variable(s) : std::string();
      };
      if (in.uniform()) return StrColumn(f(in.scalar()));
      std::vector<std::string> out(w_);
      for (size_t i = 0; i < w_; ++i) out[i] = f(in[i]);
      return StrColumn(std::move(out));
    }
    default: {  // sizeof / defined: the decimal text of the number
      const Column x = num(n, mask);
      if (x.uniform()) return StrColumn(to_text(x.scalar()));
      std::vector<std::string> out(w_);
      for (size_t i = 0; i < w_; ++i) out[i] = to_text(x[i]);
      return StrColumn(std::move(out));
    }
  }
}

// The string form of any value: CubeLib crashes on lowercase(3); we use "3" (§13 Q11).
StrColumn Evaluator::text_of(const Node& n, const Column& mask) {
  if (n.strings) return str(n, mask);
  const Column x = num(n, mask);
  if (x.uniform()) return StrColumn(to_text(x.scalar()));
  std::vector<std::string> out(w_);
  for (size_t i = 0; i < w_; ++i) out[i] = to_text(x[i]);
  return StrColumn(std::move(out));
}

// What an assignment stores: a variable's elements keep their kind (§13 Q23), other
// string-capable values store strings, everything else numbers.
Element Evaluator::value(const Node& n, const Column& mask) {
  if (n.op == Op::kVar) return read(n, mask);
  if (n.strings) return string_element(str(n, mask));
  return number_element(num(n, mask));
}

// ---------------------------------------------------------------- conditions

Column Evaluator::cond(const Node& n, const Column& mask) {
  switch (n.op) {
    case Op::kTrue:
      return Column(1.0);
    case Op::kFalse:
      return Column(0.0);
    case Op::kNot:
      return map(cond(*n.kids[0], mask), w_, [](double x) { return x == 0 ? 1.0 : 0.0; });
    case Op::kLogicChain:
      return logic_chain(n, mask);
    case Op::kStrEq:
    case Op::kStrSeq:
      return compare_strings(n, mask);
    case Op::kMatch:
      return match(n, mask);
    default:
      return compare(n, mask);
  }
}

// Like chain(): ((a and b) or c) ... folded from the left in a loop.
Column Evaluator::logic_chain(const Node& n, const Column& mask) {
  Column value = cond(*n.kids[0], mask);
  for (size_t i = 1; i < n.kids.size(); ++i)
    value = logical(n.steps[i - 1], std::move(value), *n.kids[i], mask);
  return value;
}

// and / or look at the right side only in lanes the left side leaves open (§5.2).
Column Evaluator::logical(Op op, Column a, const Node& right, const Column& mask) {
  if (op == Op::kXor) {
    return zip(std::move(a), cond(right, mask), w_,
               [](double x, double y) { return (x != 0) != (y != 0); });
  }
  const bool is_and = op == Op::kAnd;
  const Column open = is_and ? both(mask, a, w_) : but_not(mask, a, w_);
  Column b(0.0);
  if (any(open, w_)) b = cond(right, right.effects ? open : mask);
  if (is_and)
    return zip(std::move(a), std::move(b), w_,
               [](double x, double y) { return x != 0 && y != 0 ? 1.0 : 0.0; });
  return zip(std::move(a), std::move(b), w_,
             [](double x, double y) { return x != 0 || y != 0 ? 1.0 : 0.0; });
}

Column Evaluator::compare(const Node& n, const Column& mask) {
  Column a = num(*n.kids[0], mask);
  Column b = num(*n.kids[1], mask);
  auto as = [](bool t) { return t ? 1.0 : 0.0; };
  switch (n.op) {
    case Op::kEq:
      return zip(std::move(a), std::move(b), w_, [&](double x, double y) { return as(x == y); });
    case Op::kNe:
      return zip(std::move(a), std::move(b), w_, [&](double x, double y) { return as(x != y); });
    case Op::kLt:
      return zip(std::move(a), std::move(b), w_, [&](double x, double y) { return as(x < y); });
    case Op::kLe:
      return zip(std::move(a), std::move(b), w_, [&](double x, double y) { return as(x <= y); });
    case Op::kGt:
      return zip(std::move(a), std::move(b), w_, [&](double x, double y) { return as(x > y); });
    default:
      return zip(std::move(a), std::move(b), w_, [&](double x, double y) { return as(x >= y); });
  }
}

// eq / seq are false unless both sides are string-capable (§5.3).
Column Evaluator::compare_strings(const Node& n, const Column& mask) {
  const Node& l = *n.kids[0];
  const Node& r = *n.kids[1];
  if (!l.strings || !r.strings) return Column(0.0);
  const StrColumn a = str(l, mask);
  const StrColumn b = str(r, mask);
  const bool fold = n.op == Op::kStrSeq;
  auto same = [&](size_t i) {
    return (fold ? ascii_lower(a[i]) == ascii_lower(b[i]) : a[i] == b[i]) ? 1.0 : 0.0;
  };
  if (a.uniform() && b.uniform()) return Column(same(0));
  std::vector<double> out(w_);
  for (size_t i = 0; i < w_; ++i) out[i] = same(i);
  return Column(std::move(out));
}

Column Evaluator::match(const Node& n, const Column& mask) {
  const Node& subject = *n.kids[0];
  if (!subject.strings) return Column(0.0);
  const StrColumn s = str(subject, mask);
  if (s.uniform()) return Column(n.regex->search(s.scalar()) ? 1.0 : 0.0);
  std::vector<double> out(w_);
  for (size_t i = 0; i < w_; ++i) out[i] = mask[i] != 0 && n.regex->search(s[i]) ? 1.0 : 0.0;
  return Column(std::move(out));
}

// ---------------------------------------------------------------- variables

Array& Evaluator::storage(const VarRef& var) {
  if (var.storage == Storage::kLocal) return locals_[var.slot];
  return globals_.globals[var.name];
}

// One element for all lanes. A global written by an evaluation of another width is read as
// its first lane (such cross-width sharing is unspecified in CubePL, §9.9).
Element Evaluator::fetch(const VarRef& var, int64_t index) {
  if (index < 0) return {};
  if (var.storage != Storage::kProvided) {
    const Array& a = storage(var);
    if (static_cast<size_t>(index) >= a.size()) return {};
    const Element& e = a[static_cast<size_t>(index)];
    if (!e.per_lane() || e.lanes() == w_) return e;
    Element first;
    copy_lane(first, 0, e, 0, 1);
    first.kind = first.kinds[0];
    first.kinds.clear();
    first.num = Column(first.num[0]);
    first.str = StrColumn(first.str[0]);
    return first;
  }
  const auto view = env_.variable(var.name);
  if (!view) return {};
  const auto i = static_cast<size_t>(index);
  if (view->per_lane) {
    if (i != 0 || view->numbers.empty()) return {};
    if (view->numbers.size() < w_) return number_element(Column(view->numbers[0]));
    return number_element(Column(std::vector<double>(
        view->numbers.begin(), view->numbers.begin() + static_cast<ptrdiff_t>(w_))));
  }
  if (i < view->numbers.size()) return number_element(Column(view->numbers[i]));
  if (i < view->strings.size()) return string_element(StrColumn(view->strings[i]));
  return {};
}

Element Evaluator::read(const Node& var, const Column& mask) {
  if (!var.has_index) return fetch(var.var, 0);
  const Column index = num(*var.kids[0], mask);
  if (index.uniform()) return fetch(var.var, to_index(index.scalar()));
  Element out;
  for (size_t i = 0; i < w_; ++i) {
    const Element e = fetch(var.var, to_index(index[i]));
    copy_lane(out, i, e, e.per_lane() ? i : 0, w_);
  }
  return out;
}

bool Evaluator::writable(int64_t index, const std::string& name) {
  if (index >= 0 && index < kMaxElements) return true;
  env_.diagnostic("${" + name + "}[" + std::to_string(index) +
                  "]: index out of range; not written");
  return false;
}

void Evaluator::write(const Node& n, const Column& mask) {
  const Element v = value(*n.kids.back(), mask);
  const Column index = n.has_index ? num(*n.kids[0], mask) : Column(0.0);
  Array& a = storage(n.var);
  auto slot = [&](int64_t k) -> Element& {
    if (static_cast<size_t>(k) >= a.size()) a.resize(static_cast<size_t>(k) + 1);
    return a[static_cast<size_t>(k)];
  };
  if (index.uniform()) {
    const int64_t k = to_index(index.scalar());
    if (writable(k, n.var.name)) assign(slot(k), v, mask, w_);
    return;
  }
  for (size_t i = 0; i < w_; ++i) {
    if (mask[i] == 0) continue;
    const int64_t k = to_index(index[i]);
    if (writable(k, n.var.name)) copy_lane(slot(k), i, v, v.per_lane() ? i : 0, w_);
  }
}

// ---------------------------------------------------------------- statements

void Evaluator::exec(const Node& n, const Column& mask) {
  switch (n.op) {
    case Op::kAssign:
      write(n, mask);
      break;
    case Op::kIf:
      if_chain(n, mask);
      break;
    case Op::kWhile:
      while_loop(n, mask);
      break;
    case Op::kBlock:
      for (const auto& k : n.kids) exec(*k, mask);
      break;
    case Op::kSet:
      if (any(mask, w_)) env_.set_metric_value(n.metric, n.text);
      break;
    default:
      break;
  }
}

// Each lane takes the first branch whose condition holds for it.
void Evaluator::if_chain(const Node& n, const Column& mask) {
  Column open = mask;
  const size_t branches = (n.kids.size() - (n.has_else ? 1 : 0)) / 2;
  for (size_t b = 0; b < branches && any(open, w_); ++b) {
    const Column c = cond(*n.kids[2 * b], open);
    const Column take = both(open, c, w_);
    if (any(take, w_)) exec(*n.kids[2 * b + 1], take);
    open = but_not(open, c, w_);
  }
  if (n.has_else && any(open, w_)) exec(*n.kids.back(), open);
}

// Lanes leave the loop one by one; the loop ends when none is left.
void Evaluator::while_loop(const Node& n, const Column& mask) {
  Column open = mask;
  for (uint64_t round = 0; round < kMaxIterations; ++round) {
    open = both(open, cond(*n.kids[0], open), w_);
    if (!any(open, w_)) return;
    exec(*n.kids[1], open);
  }
}

}  // namespace cubekit::cubepl::detail
