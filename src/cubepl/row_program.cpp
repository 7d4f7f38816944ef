#include "cubepl/row_program.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/vector_clones.hpp"
#include "cubepl/builtins.hpp"

namespace cubekit::cubepl::detail {
namespace {

// A node's value: one number for all lanes (row empty) or one per lane. Which of the two a node
// gives follows the general evaluator's Column exactly (a broadcast stays broadcast), because
// a * b and a / b skip b where a is a broadcast 0, and skipping a metric reference is
// observable (it may evaluate another derived metric).
struct Value {
  std::vector<double> row;
  double scalar = 0;
  bool uniform() const { return row.empty(); }
};

// Row buffers are reused across evaluations and nested programs of one thread: a derived
// metric of a report is evaluated once per call path, each time with a few buffers.
class BufferPool {
 public:
  std::vector<double> take(size_t width) {
    if (free_.empty()) return std::vector<double>(width);
    std::vector<double> v = std::move(free_.back());
    free_.pop_back();
    v.resize(width);
    return v;
  }
  void give(std::vector<double>&& v) {
    if (free_.size() < kKept && v.capacity() > 0) free_.push_back(std::move(v));
  }

 private:
  static constexpr size_t kKept = 64;
  std::vector<std::vector<double>> free_;
};

// Division bounds the row loops it is in: SSE2's divpd divides 2 lanes in about the time AVX's
// vdivpd takes for 4. So the quotient loops have an AVX2 variant (core/vector_clones.hpp): the
// division is the same IEEE operation either way, the same bits.

CUBEKIT_WITH_AVX2 void quotients(const double* x, double* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = quotient(x[i], y[i]);
}
CUBEKIT_WITH_AVX2 void quotients_by(double* x, double y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = quotient(x[i], y);
}
CUBEKIT_WITH_AVX2 void quotients_of(double x, double* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = quotient(x, y[i]);
}

BufferPool& pool() {
  thread_local BufferPool p;
  return p;
}

Value broadcast(double x) {
  Value v;
  v.scalar = x;
  return v;
}

class RowEvaluator {
 public:
  explicit RowEvaluator(Environment& env) : env_(env), w_(env.width()) {}
  Value eval(const Node& n);
  void release(Value& v) { pool().give(std::move(v.row)); }

 private:
  template <class F>
  Value map(Value a, F f);
  template <class F>
  Value zip(Value a, Value b, F f);
  Value binary(Op op, Value a, Value b);
  Value divide(Value a, Value b);
  Value chain(const Node& n);
  Value function(const Node& n);
  Value argument(int which);
  Value metric(const Node& n);

  Environment& env_;
  size_t w_;
};

// The loops below are what issue 30 is about: plain loops over doubles with branch-free lane
// functions, which the compiler turns into vector instructions.
template <class F>
Value RowEvaluator::map(Value a, F f) {
  if (a.uniform()) return broadcast(f(a.scalar));
  double* v = a.row.data();
  for (size_t i = 0; i < w_; ++i) v[i] = f(v[i]);
  return a;
}

template <class F>
Value RowEvaluator::zip(Value a, Value b, F f) {
  if (a.uniform() && b.uniform()) return broadcast(f(a.scalar, b.scalar));
  if (b.uniform()) {
    double* v = a.row.data();
    const double y = b.scalar;
    for (size_t i = 0; i < w_; ++i) v[i] = f(v[i], y);
    return a;
  }
  double* w = b.row.data();
  if (a.uniform()) {
    const double x = a.scalar;
    for (size_t i = 0; i < w_; ++i) w[i] = f(x, w[i]);
    return b;
  }
  const double* v = a.row.data();
  for (size_t i = 0; i < w_; ++i) w[i] = f(v[i], w[i]);
  release(a);
  return b;
}

// zip(a, b, quotient) through the loops above.
Value RowEvaluator::divide(Value a, Value b) {
  if (a.uniform() && b.uniform()) return broadcast(quotient(a.scalar, b.scalar));
  if (b.uniform()) {
    quotients_by(a.row.data(), b.scalar, w_);
    return a;
  }
  if (a.uniform()) {
    quotients_of(a.scalar, b.row.data(), w_);
    return b;
  }
  quotients(a.row.data(), b.row.data(), w_);
  release(a);
  return b;
}

// Lambdas, not function pointers: each loop gets its own copy with the lane function inlined.
Value RowEvaluator::binary(Op op, Value a, Value b) {
  switch (op) {
    case Op::kAdd:
      return zip(std::move(a), std::move(b), [](double x, double y) { return x + y; });
    case Op::kSub:
      return zip(std::move(a), std::move(b), [](double x, double y) { return stable_minus(x, y); });
    case Op::kMul:
      return zip(std::move(a), std::move(b), [](double x, double y) { return product(x, y); });
    case Op::kDiv:
      return divide(std::move(a), std::move(b));
    case Op::kPow:
      return zip(std::move(a), std::move(b), [](double x, double y) { return std::pow(x, y); });
    case Op::kMin:  // std::min and std::max, spelled out (same NaN behaviour)
      return zip(std::move(a), std::move(b), [](double x, double y) { return y < x ? y : x; });
    default:
      return zip(std::move(a), std::move(b), [](double x, double y) { return x < y ? y : x; });
  }
}

Value RowEvaluator::eval(const Node& n) {
  switch (n.op) {
    case Op::kNumber:
    case Op::kDefined:
      return broadcast(n.number);
    case Op::kNeg:
      return map(eval(*n.kids[0]), [](double x) { return -x; });
    case Op::kAbs:
      return map(eval(*n.kids[0]), [](double x) { return std::fabs(x); });
    case Op::kChain:
      return chain(n);
    case Op::kMin:
    case Op::kMax: {
      Value a = eval(*n.kids[0]);
      return binary(n.op, std::move(a), eval(*n.kids[1]));
    }
    case Op::kFunc:
      return function(n);
    case Op::kArg1:
      return argument(1);
    case Op::kArg2:
      return argument(2);
    case Op::kMetric:
      return metric(n);
    default:  // strings in a numeric place count as 0 (§4.1)
      return broadcast(0.0);
  }
}

// ((a ∘ b) ∘ c) ..., left to right; a * b and a / b do not evaluate b where a is a broadcast 0.
Value RowEvaluator::chain(const Node& n) {
  Value value = eval(*n.kids[0]);
  for (size_t i = 1; i < n.kids.size(); ++i) {
    const Op op = n.steps[i - 1];
    if ((op == Op::kMul || op == Op::kDiv) && value.uniform() && value.scalar == 0) {
      value = broadcast(0.0);  // +0 also for a -0 on the left
      continue;
    }
    Value b = eval(*n.kids[i]);
    value = binary(op, std::move(value), std::move(b));
  }
  return value;
}

// sqrt, log, sin, ...: calls per lane (libm), with the domain diagnostic of the evaluator.
Value RowEvaluator::function(const Node& n) {
  Value x = eval(*n.kids[0]);
  bool bad = false;
  if (x.uniform()) {
    x.scalar = apply(n.func, x.scalar, bad);
  } else {
    for (double& v : x.row) {
      bool lane_bad = false;
      v = apply(n.func, v, lane_bad);
      bad = bad || lane_bad;
    }
  }
  if (bad) env_.diagnostic(std::string(name_of(n.func)) + ": argument outside the domain");
  return x;
}

Value RowEvaluator::argument(int which) {
  const std::span<const double> v = env_.arg(which);
  if (v.empty()) return broadcast(0.0);
  if (v.size() < w_) return broadcast(v[0]);
  Value out;
  out.row = pool().take(w_);
  std::copy(v.begin(), v.begin() + static_cast<ptrdiff_t>(w_), out.row.begin());
  return out;
}

Value RowEvaluator::metric(const Node& n) {
  Value out;
  out.row = pool().take(w_);
  env_.metric_row(n.ref, out.row);  // fills every lane (Environment's contract)
  if (w_ == 1) {
    const double x = out.row[0];
    release(out);
    return broadcast(x);
  }
  return out;
}

}  // namespace

bool rows_evaluable(const Node& n) {
  switch (n.op) {
    case Op::kNumber:
    case Op::kDefined:
    case Op::kString:
    case Op::kLower:
    case Op::kUpper:
    case Op::kEnv:
    case Op::kGet:
    case Op::kArg1:
    case Op::kArg2:
    case Op::kMetric:
    case Op::kNeg:
    case Op::kAbs:
    case Op::kChain:
    case Op::kMin:
    case Op::kMax:
    case Op::kFunc:
      break;
    default:
      return false;
  }
  // String nodes are 0 without looking at their operands; every other operand must qualify.
  if (n.op == Op::kLower || n.op == Op::kUpper || n.op == Op::kEnv) return true;
  return std::all_of(n.kids.begin(), n.kids.end(),
                     [](const NodePtr& k) { return !k->effects && rows_evaluable(*k); });
}

void evaluate_rows(const Node& root, Environment& env, std::span<double> out) {
  RowEvaluator evaluator(env);
  Value v = evaluator.eval(root);
  if (v.uniform())
    std::fill(out.begin(), out.end(), v.scalar);
  else
    std::copy(v.row.begin(), v.row.begin() + static_cast<ptrdiff_t>(out.size()), out.begin());
  evaluator.release(v);
}

}  // namespace cubekit::cubepl::detail
