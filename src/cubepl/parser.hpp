// Recursive-descent parser for CubePL 1.x (cubepl.md §3) producing the tree of ast.hpp.
//
// CubeLib's grammar keeps conditions (comparisons, and/or/not) and values apart. We parse
// values with the usual precedence functions and let the leftmost operand of a comparison be a
// parenthesised condition; a condition that then meets an arithmetic operator, or a value that
// stands where a condition is needed, is reported at the token where that becomes clear.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cubepl/ast.hpp"
#include "cubepl/lexer.hpp"

namespace cubekit::cubepl::detail {

class Parser {
 public:
  Parser(std::string_view source, size_t begin, size_t end, const CompileContext& context,
         VariableNames& names);
  Ast parse_program();
  const std::vector<Index>& metrics() const { return metrics_; }

 private:
  // tokens
  void advance();
  bool at(Tok kind) const { return cur_.kind == kind; }
  void expect(Tok kind, const char* what);
  void expect_glued(Tok kind, const char* what);
  [[noreturn]] void fail_expected(const std::string& what) const;
  // values
  NodePtr expr();
  NodePtr sum(bool* cond);
  NodePtr signed_term(bool* cond);
  NodePtr product(bool* cond);
  NodePtr power(bool* cond);
  NodePtr operand();
  NodePtr primary(bool* cond);
  NodePtr paren(bool* cond);
  NodePtr function();
  NodePtr variable();
  NodePtr metric_ref();
  Modifier modifier(bool star_allowed);
  NodePtr metric_call();
  NodePtr metric_get();
  // `<metric name>("<property>"` of cube::metric::get / set, up to the property string: the
  // name token, the property and the metric the context knows by that name.
  struct MetricProperty {
    Token name;
    std::string property;
    std::optional<Index> metric;
  };
  MetricProperty metric_property();
  NodePtr lambda();
  // conditions
  NodePtr condition_head();
  NodePtr logic(bool* cond);
  NodePtr relation(bool* cond);
  // statements
  NodePtr statement();
  NodePtr block();
  NodePtr for_loop();
  NodePtr assignment();
  NodePtr if_chain();
  NodePtr declaration();
  NodePtr metric_set();
  NodePtr definition();
  // names
  VarRef bind(const std::string& name);
  std::optional<Index> find_metric(const std::string& name, size_t offset);
  void warn(const std::string& message) const;
  // nodes
  NodePtr make(Op op, std::vector<NodePtr> kids = {});
  void adopt(Node& n, NodePtr kid);
  void append(Node& chain, Op step, NodePtr kid);
  void check_height(const Node& n) const;
  struct Nest {
    explicit Nest(Parser& p);
    ~Nest() { --p.depth_; }
    Parser& p;
  };

  std::string_view src_;
  const CompileContext& ctx_;
  VariableNames& names_;
  Lexer lex_;
  Token cur_;
  size_t prev_end_ = 0;
  int depth_ = 0;            // nesting of sum / signed / logic calls, bounded to protect the stack
  bool env_warned_ = false;  // one warning per program for a refused env()
  int call_ids_ = 0;         // > 0 while parsing metric::call id expressions (compatibility mode)
  std::unordered_map<std::string, size_t> locals_;
  std::vector<Node*> defined_;
  std::vector<Index> metrics_;
};

}  // namespace cubekit::cubepl::detail
