// cube_rank: (call path, location) pairs of a report ranked by one metric (default visits),
// printed as CubeLib 4.6's tool prints them (tools guide §1.5): the spread of the ranked
// values, then one line per pair with its call path id, score and region. Unlike the original
// it does not abort on a missing metric and finishes quickly on large reports
// (docs/inspection_tools.md).

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "cubekit/error.hpp"
#include "cubekit/rank.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: cube_rank [-m metric] [-p] <report>\n"
    "  -m  rank by this metric (unique name; default visits)\n"
    "  -p  accepted and ignored, as in the original\n";

void print(const Model& model, const CallPathRanking& r, std::ostream& out) {
  out << " sz " << r.gaps << '\n'
      << "Ranking extends over " << r.highest - r.lowest << " units.\n"
      << std::fixed << std::setprecision(4) << "...from: " << r.lowest << '\n'
      << ".....to: " << r.highest << '\n'
      << "Going through interval with stepsize of " << r.step << '\n'
      << "Expected value    : " << r.mean_gap << '\n'
      << "Standard deviation: " << r.gap_variance
      << '\n'
      // The original checks its integration over [-10, 10] of the standard normal density.
      << "Following value should be close to one: " << normal_mass(-10.0, 10.0) << '\n';
  std::vector<Index> by_id(model.cnodes.size() + 1, kNoIndex);
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    if (model.cnodes[c].id >= by_id.size()) by_id.resize(model.cnodes[c].id + 1, kNoIndex);
    by_id[model.cnodes[c].id] = c;
  }
  for (const RankedPair& p : r.pairs)
    out << std::right << std::setw(6) << p.cnode_id << std::setw(12) << p.score << ' '
        << model.regions[model.cnodes[by_id[p.cnode_id]].region].name << '\n';
}

}  // namespace

int rank_main(int argc, char** argv) {
  std::string metric = "visits";
  // -h prints the usage on stderr and exits 0, unknown options exit 1 (without glibc's line).
  OptionTable table{
      {{'m', Argument::kRequired}, {'p'}, {'h', Argument::kNone, help(kUsage, Stream::kStderr)}}};
  table.diagnostics = false;
  table.unknown = failure(kUsage);
  table.operands =
      OperandCount{1, 1, failure(std::string(kUsage) + "cube_rank: exactly one report expected\n")};
  const std::string file = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
                             if (c == 'm') metric = arg;
                           }).operands[0];
  std::cerr << "Reading " << file << "...";
  try {
    const Report report = Report::open(file);
    std::cerr << " done.\n";
    const auto m = report.model().metric_by_uniq_name(metric);
    if (!m) {
      std::cerr << "cube_rank: " << file << ": no metric '" << metric << "'\n";
      return 1;
    }
    MetricEngine engine(report);
    const CallPathRanking ranking = rank_call_paths(engine, *m);
    if (ranking.gaps == 0) {  // the original aborts or prints NaN scores here
      std::cerr << "cube_rank: " << file << ": fewer than two non-zero values of '" << metric
                << "': nothing to rank\n";
      return 0;
    }
    std::ostringstream out;
    print(report.model(), ranking, out);
    std::cout << out.str();
    return 0;
  } catch (const Error& e) {
    std::cerr << "\ncube_rank: " << file << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace cubekit::tools
