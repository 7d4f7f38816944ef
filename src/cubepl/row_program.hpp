// Whole-row evaluation of the arithmetic subset of CubePL (issue 30): numbers, metric rows,
// + - * / ^, min, max, signs, |x| and the one-argument functions, without conditions,
// variables, strings or statements. Such a program needs no masks, so each node is one tight
// loop over a row buffer taken from a per-thread pool: no allocation per evaluation and loops
// the compiler vectorizes. Every lane sees exactly the IEEE operations of the general
// evaluator (evaluator.cpp) in the same order, so results are bit-identical; programs outside
// the subset are evaluated by the general evaluator.
#pragma once

#include <span>

#include "cubekit/cubepl.hpp"
#include "cubepl/ast.hpp"

namespace cubekit::cubepl::detail {

// Whether the row evaluator takes this program (every node is in the subset above).
bool rows_evaluable(const Node& root);

// Evaluates `root` (rows_evaluable) with env.width() lanes into `out` (out.size() == width).
void evaluate_rows(const Node& root, Environment& env, std::span<double> out);

}  // namespace cubekit::cubepl::detail
