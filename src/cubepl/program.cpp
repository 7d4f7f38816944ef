// The public face of the CubePL layer: compile() and Program::evaluate().
#include <algorithm>

#include "cubekit/cubepl.hpp"
#include "cubepl/evaluator.hpp"
#include "cubepl/parser.hpp"
#include "cubepl/row_program.hpp"

namespace cubekit::cubepl {

Globals::Globals() : store_(std::make_unique<Store>()) {}
Globals::~Globals() = default;
Globals::Globals(Globals&&) noexcept = default;
Globals& Globals::operator=(Globals&&) noexcept = default;

Program::Program() = default;

Program compile(std::string_view source, const CompileContext& context) {
  Program program;
  program.source_ = std::string(source);
  VariableNames own;
  VariableNames& names = context.names ? *context.names : own;
  // Parse from the stored copy: tokens and error positions refer to program.source_.
  const std::string_view text = program.source_;
  detail::Parser parser(text, 0, text.size(), context, names);
  Ast ast = parser.parse_program();
  ast.rows = ast.root && detail::rows_evaluable(*ast.root);
  if (ast.root) program.ast_ = std::make_shared<const Ast>(std::move(ast));
  program.metrics_ = parser.metrics();
  std::sort(program.metrics_.begin(), program.metrics_.end());
  program.metrics_.erase(std::unique(program.metrics_.begin(), program.metrics_.end()),
                         program.metrics_.end());
  return program;
}

uint32_t Program::height() const {
  return ast_ ? ast_->root->height : 0;
}

void Program::evaluate(Environment& env, Globals& globals, std::span<double> out) const {
  const size_t width = env.width();
  if (out.size() != width) {
    throw CubePLError("CubePL evaluation: output has " + std::to_string(out.size()) +
                      " values for " + std::to_string(width) + " lanes");
  }
  if (!ast_) {
    std::fill(out.begin(), out.end(), 0.0);
    return;
  }
  if (ast_->rows) {
    detail::evaluate_rows(*ast_->root, env, out);
    return;
  }
  detail::Evaluator evaluator(*ast_, env, globals.store());
  const detail::Column result = evaluator.run();
  for (size_t i = 0; i < width; ++i) out[i] = result[i];
}

double Program::evaluate(Environment& env, Globals& globals) const {
  if (env.width() != 1)
    throw CubePLError("CubePL evaluation: a scalar needs a width-1 environment");
  double value = 0;
  evaluate(env, globals, std::span<double>(&value, 1));
  return value;
}

}  // namespace cubekit::cubepl
