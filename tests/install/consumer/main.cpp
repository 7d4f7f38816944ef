// Uses the installed cubekit on a report made by the installed `cubekit generate`
// (--call-paths 200 --machines 1 --nodes 2 --processes 4 --threads 4): every layer from
// reading the archive (format, io) to queries (calc, cubepl) and the selection language (query).
// Prints facts that follow from the generator's options and definitions, not from cubekit's
// arithmetic alone.
#include <cmath>
#include <iostream>

#include <cubekit/derived.hpp>
#include <cubekit/error.hpp>
#include <cubekit/report.hpp>
#include <cubekit/selection.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer <report.cubex>\n";
    return 2;
  }
  try {
    const cubekit::Report report = cubekit::Report::open(argv[1]);
    const cubekit::Model& model = report.model();
    std::cout << "call paths " << model.cnodes.size() << "\n";
    std::cout << "locations " << model.locations.size() << "\n";
    const auto every = cubekit::select_call_paths(model, "0-18446744073709551615");
    std::cout << "selected " << every.cnodes.size() << "\n";

    const cubekit::Index visits = *model.metric_by_uniq_name("visits");
    cubekit::MetricEngine engine(report, {{"twice", "metric::visits()*2"}});
    const auto twice = static_cast<cubekit::Index>(model.metrics.size());
    const auto in = cubekit::Flavour::kInclusive, ex = cubekit::Flavour::kExclusive;
    // The root's inclusive visits are the sum of every call path's exclusive visits, and the
    // derived metric doubles each of them.
    const cubekit::Values excl = engine.aggregated_values(visits, in, ex);
    const cubekit::Values incl = engine.aggregated_values(visits, in, in);
    const cubekit::Values derived = engine.aggregated_values(twice, in, ex);
    uint64_t sum = 0;
    bool doubled = true;
    for (size_t c = 0; c < excl.size(); ++c) {
      sum += excl.uint64(c);
      doubled = doubled && derived.number(c) == 2.0 * static_cast<double>(excl.uint64(c));
    }
    const cubekit::Index root = model.cnode_roots().at(0);
    std::cout << "root inclusive visits = sum of exclusive: "
              << (incl.uint64(root) == sum && sum > 0 ? "yes" : "no") << "\n";
    std::cout << "derived twice = 2 x visits: " << (doubled ? "yes" : "no") << "\n";
    engine.location_values(visits, static_cast<cubekit::Index>(model.cnodes.size()), in, in);
    std::cout << "no error for a cnode beyond the tree\n";
  } catch (const cubekit::LookupError& e) {
    std::cout << "lookup error: " << e.what() << "\n";
  } catch (const cubekit::Error& e) {
    std::cerr << "consumer: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
