// Statistics over the locations of a call path, as `cube_stat -%` prints them: count, sum,
// mean, variance, minimum and maximum exactly, the quartiles and the median estimated with the
// P² algorithm (Jain & Chlamtac, "The P² algorithm for dynamic calculation of quantiles and
// histograms without storing observations", CACM 28(10), 1985) for p = 0.5, whose five
// markers sit at the minimum, the quartiles, the median and the maximum. With fewer than five
// values the median is exact and the quartiles are unknown. CubeLib 4.6's cube_stat uses the
// same estimator, so its numbers are reproduced.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

class LocationStatistics {
 public:
  void add(double value);

  int64_t count() const { return count_; }
  double sum() const { return sum_; }
  double mean() const { return sum_ / count_; }
  // The sample variance; needs two values.
  double variance() const { return (squares_ - sum_ * sum_ / count_) / (count_ - 1); }
  double minimum() const { return height_[0]; }
  double maximum() const { return count_ < 5 ? height_[count_ - 1] : height_[4]; }
  double median() const;
  // Estimates; need five values.
  double quartile25() const { return height_[1]; }
  double quartile75() const { return height_[3]; }

 private:
  void adjust_markers();

  int64_t count_ = 0;
  double sum_ = 0, squares_ = 0;
  std::array<double, 5> height_{};                  // marker heights (the first 5 values, sorted)
  std::array<int64_t, 5> position_{1, 2, 3, 4, 5};  // marker positions
  std::array<double, 5> desired_{1, 2, 3, 4, 5};    // desired marker positions
};

// For each of `names`, the call paths whose region has that name or that mangled name, in model
// order. One pass over the call paths for all names: cube_stat asks for every root's region by
// default, and a pass per name made 100,000 roots take minutes.
std::vector<std::vector<Index>> cnodes_of_regions(const Model& model,
                                                  const std::vector<std::string>& names);

// The values of (metric, cnode) per location in model order (metric-inclusive, `call_flavour`).
std::vector<double> per_location(MetricEngine& engine, Index metric, Index cnode,
                                 Flavour call_flavour);

// The first (metric, call path, location) whose value — metric-inclusive, call-exclusive, as
// per_location gives it — has a magnitude of at least `threshold`, going through the metrics
// (ghost metrics left out, model order), call paths (by id) and locations (model order); none
// for an empty report
// (cube_is_empty).
struct FoundValue {
  Index metric = kNoIndex, cnode = kNoIndex, location = kNoIndex;  // location: model position
  double value = 0;
};
std::optional<FoundValue> first_value_at_least(MetricEngine& engine, double threshold);

}  // namespace cubekit
