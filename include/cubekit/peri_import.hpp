// Reading PERI-XML (docs/peri-xml.md) into a Cube 4 report: the import half of peri_xml.hpp,
// in the io layer because it needs no more than the report writer.
#pragma once

#include <string>

namespace cubekit {

// Reads a PERI-XML document and writes it as the report `cubex_path`: metrics (a pair
// "<x>.incl" / "<x>.excl", as write_peri_xml writes them, becomes one metric stored exclusive;
// any other metric one of its own), regions with their source files and lines, the call tree,
// call-path parameters from <states>, machines / units / nodes, processes and threads (placed
// on the node their <runson> names), Cartesian topologies and the <d> values, nested in any
// order of the dimensions. Unknown elements are ignored. Malformed XML, a <d> naming an id
// that is not defined, or a value without metric, call path and thread: FormatError naming
// the file, line and column; nothing is written then.
void import_peri_xml(const std::string& xml_path, const std::string& cubex_path);

}  // namespace cubekit
