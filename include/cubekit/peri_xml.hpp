// PERI-XML (the profiling data exchange format proposed by Mohr, Schulz, Gunter, Huck/Spear and
// Wu; docs/peri-xml.md): a report written as its five dimensions and a data section.
//
// Export: <metrics> (each metric of the report twice, as "<id>.incl" and "<id>.excl": the call
// tree's inclusive and exclusive values, the answer to the proposal's open issue; derived
// metrics carry their CubePL definition), <code> (sources from the regions' files, one program
// with its regions and the call tree as nested cnodes, call-path parameters as <states>),
// <space> (the system tree as machines, units and nodes; the process groups and locations as
// an application's processes and threads; their mapping onto nodes; Cartesian topologies) and
// <data> (nested <d> per metric, call path and thread; zero values are left out). Written as
// it is computed: memory for one metric's values at one call path.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"
#include "cubekit/peri_import.hpp"  // the other direction

namespace cubekit {

// Writes the report behind `engine` to `out` and returns the metrics it left out, as
// "uniq_name (DTYPE)": PERI-XML holds one number per value, so metrics of SCALE_FUNC, COMPLEX,
// TAU_ATOMIC, HISTOGRAM and NDOUBLES values are not written (their sub-metrics are, one level
// up). Throws cubekit::Error (e.g. a derived metric that does not compile).
std::vector<std::string> write_peri_xml(MetricEngine& engine, std::ostream& out);

}  // namespace cubekit
