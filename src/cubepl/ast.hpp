// The syntax tree of a compiled program. One node type with a kind tag: the evaluator
// dispatches on the kind, the parser fills only the fields a kind uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/cubepl.hpp"
#include "cubepl/lexer.hpp"

namespace cubekit::cubepl::detail {

class Regex;  // regex.hpp

enum class Op : uint8_t {
  // values
  kNumber,  // number
  kString,  // text
  kVar,     // var; kids: [index]
  kNeg,     // kids: a
  kAbs,     // kids: a
  // A chain of operators of one precedence level: `a - b + c`, `a * b / c`, `a ^ b ^ c`.
  // kids: a, b, c, ...; steps[i] is the operator (kAdd/kSub, kMul/kDiv or kPow) that joins
  // kids[i + 1] to the value of everything before it, so the chain is ((a - b) + c) + ... .
  // One flat node, not a tree as high as the text is long: a sum of 30,000 terms is walked in
  // a loop (issue 24).
  kChain,
  kAdd,  // operators of kChain's steps
  kSub,
  kMul,
  kDiv,
  kPow,
  kFunc,  // func; kids: a
  kMin,   // kids: a, b
  kMax,
  kLower,  // kids: a
  kUpper,
  kEnv,
  kSizeof,   // var
  kDefined,  // number (decided when compiling)
  kArg1,
  kArg2,
  kMetric,  // ref
  kCall,    // call (metric, modifiers); kids: cnode[, sysid]
  kGet,     // metric, text = property
  kLambda,  // kids: statements..., return value (last)
  // conditions (values 0/1)
  kTrue,
  kFalse,
  kNot,
  kLogicChain,  // `c and d or e`: like kChain, steps kAnd/kOr/kXor
  kAnd,         // operators of kLogicChain's steps
  kOr,
  kXor,
  kEq,  // kids: a, b (likewise the other comparisons)
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kStrEq,
  kStrSeq,
  kMatch,  // regex; kids: subject
  // statements
  kAssign,  // var; kids: [index,] value  (has_index says whether kids[0] is the index)
  kIf,      // kids: cond, block, cond, block, ... [, else block]; has_else
  kWhile,   // kids: cond, block
  kBlock,   // kids: statements
  kSet,     // metric, text = value  (only the "value" property does anything)
  kNop,     // compile-time statements (local/global, ghost definitions)
};

// Where a variable lives.
enum class Storage : uint8_t { kLocal, kGlobal, kProvided };

struct VarRef {
  std::string name;
  Storage storage = Storage::kLocal;
  size_t slot = 0;  // locals: index into the evaluation's local table
};

struct Node {
  Op op = Op::kNumber;
  double number = 0;
  std::string text;
  Func func = Func::kSqrt;
  VarRef var;
  bool has_index = false;
  bool has_else = false;
  bool effects = false;  // the subtree assigns or sets metric state (matters for short cuts)
  bool strings = false;  // string-capable value (cubepl.md §4.1)
  // Nodes on the longest path down to a leaf (1 for a leaf). The parser refuses trees higher
  // than kMaxTreeHeight, so the evaluator and the destructor may recurse over the tree.
  uint32_t height = 1;
  MetricRef ref;
  CallRef call;
  Index metric = kNoIndex;
  std::shared_ptr<const Regex> regex;
  std::vector<std::unique_ptr<Node>> kids;
  std::vector<Op> steps;  // kChain / kLogicChain: kids.size() - 1 operators
};

using NodePtr = std::unique_ptr<Node>;

// Bound on Node::height. Chains are flat, so only nesting makes a tree high: parentheses,
// function calls, signs and blocks inside each other. The parser's nesting bound counts some of
// those levels; one level can add several nodes (`1*|1*|…|…|`), so this bound, checked where
// nodes are made, is what keeps the evaluator and the destructor, which recurse, from
// overflowing the stack. A test evaluates trees of this height on a small thread stack, under
// ASan too.
constexpr uint32_t kMaxTreeHeight = kMaxProgramHeight;

}  // namespace cubekit::cubepl::detail

namespace cubekit::cubepl {

// A compiled program's tree (Program holds it; declared in cubekit/cubepl.hpp).
struct Ast {
  detail::NodePtr root;
  size_t locals = 0;             // number of local variable slots
  bool read_environment = true;  // CompileContext::read_environment
  bool rows = false;             // evaluated by the row evaluator (row_program.hpp)
};

}  // namespace cubekit::cubepl
