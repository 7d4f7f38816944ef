// Row-wise evaluation of a compiled program (cubepl.md §5–§8). Every node is evaluated for all
// lanes at once under a mask of active lanes; if/elseif/while split the mask per lane, and the
// short cuts of *, /, and, or evaluate their right operand only in the lanes that need it, so
// side effects (assignments inside lambdas) happen exactly where point-wise evaluation would
// make them.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "cubekit/cubepl.hpp"
#include "cubepl/ast.hpp"
#include "cubepl/values.hpp"

namespace cubekit::cubepl {

// The global variables behind Globals (declared in cubekit/cubepl.hpp).
struct Store {
  std::unordered_map<std::string, detail::Array> globals;
};

}  // namespace cubekit::cubepl

namespace cubekit::cubepl::detail {

class Evaluator {
 public:
  Evaluator(const Ast& ast, Environment& env, Store& globals);
  Column run();

 private:
  Column num(const Node& n, const Column& mask);
  StrColumn str(const Node& n, const Column& mask);
  Element value(const Node& n, const Column& mask);
  Column cond(const Node& n, const Column& mask);
  void exec(const Node& n, const Column& mask);

  Column chain(const Node& n, const Column& mask);
  Column arithmetic(Op op, Column a, Column b);
  Column short_cut(Op op, Column a, const Node& right, const Column& mask);
  Column function(const Node& n, const Column& mask);
  Column logic_chain(const Node& n, const Column& mask);
  Column logical(Op op, Column a, const Node& right, const Column& mask);
  Column compare(const Node& n, const Column& mask);
  Column compare_strings(const Node& n, const Column& mask);
  Column match(const Node& n, const Column& mask);
  Column metric(const Node& n);
  Column call(const Node& n, const Column& mask);
  Column lambda(const Node& n, const Column& mask);
  Column size_of(const VarRef& var);
  Column argument(int which);
  StrColumn text_of(const Node& n, const Column& mask);

  Element read(const Node& var, const Column& mask);
  Element fetch(const VarRef& var, int64_t index);
  Array& storage(const VarRef& var);
  void write(const Node& n, const Column& mask);
  bool writable(int64_t index, const std::string& name);
  void if_chain(const Node& n, const Column& mask);
  void while_loop(const Node& n, const Column& mask);

  const Ast& ast_;
  Environment& env_;
  Store& globals_;
  size_t w_;
  std::vector<Array> locals_;
};

}  // namespace cubekit::cubepl::detail
