// What the single- and the multi-parameter modelers share (not public).
#pragma once

#include <span>
#include <string>

#include "cubekit/perf_model.hpp"

namespace cubekit::model_detail {

// A term contributing less than this share of every measured value does not count.
inline constexpr double kMinTermContribution = 0.0005;

// 2 · |predicted − actual| / (|predicted| + |actual|), 0 where both are 0.
double smape_share(double predicted, double actual);

// Whether c · t matters somewhere: at some point it is at least kMinTermContribution of the
// measured value y (a point where both are 0 says nothing).
bool term_matters(double coefficient, std::span<const double> t, std::span<const double> y);

// The mean of y with its RSS and SMAPE, adjusted R² 1.
PerformanceModel constant_model(std::span<const double> y);

// fit_single_parameter without its minimum number of points: the multi-parameter modeler fits
// a parameter's line of 2 points (or 1: a constant) as Extra-P does. The adjusted R² of 2
// points divides by zero degrees of freedom (-inf); the multi-parameter modeler ignores it.
// With `space`, over its hypotheses instead of Extra-P's.
PerformanceModel fit_any_single_parameter(std::span<const MeasuredPoint> points,
                                          const std::string& parameter,
                                          const HypothesisSpace* space = nullptr);

}  // namespace cubekit::model_detail
