// Ranking of (call path, location) pairs by one metric, as CubeLib 4.6's cube_rank computes
// it (tools guide §1.5): the non-zero call-exclusive values sorted largest first, the gaps
// between neighbours standardised, and each pair scored by the standard normal probability
// mass just below its standardised gap. The statistics printed before the list come with it.
#pragma once

#include <cstdint>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

struct RankedPair {
  double score = 0;
  uint32_t cnode_id = 0;  // Cnode::id
  Index location = 0;     // position in Model::locations
};

struct CallPathRanking {
  size_t gaps = 0;                 // ranked values minus one
  double highest = 0, lowest = 0;  // the largest and smallest ranked value
  double step = 0;                 // (highest - lowest) / gaps
  double mean_gap = 0;             // mean of the gaps
  double gap_variance = 0;         // their sample variance (the original prints it as its
                                   // "Standard deviation" and standardises with it)
  std::vector<RankedPair> pairs;   // one per gap, by score (ascending)
};

// With fewer than two non-zero values there is no gap to rank: gaps == 0, no pairs.
CallPathRanking rank_call_paths(MetricEngine& engine, Index metric);

// The standard normal probability mass over [a, a + w], w = (b - a) rounded down to a
// multiple of 0.001 but at least 0.001: the interval the original's Simpson rule (step 0.001)
// covers. Up to `max_simpson_steps` steps summed as the original sums them, bit for bit
// (scores that print alike then sort alike); wider intervals in closed form, which costs
// nothing. rank_call_paths passes 1000, or 0 when its pairs would need more than 2e7 steps.
double normal_mass(double a, double b, double max_simpson_steps = 1000);

}  // namespace cubekit
