// anchor.xml (cube-format.md §3) into a Model. The building blocks are shared with the Cube 3
// reader, whose metric and program parts are the same.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "cubekit/model.hpp"
#include "format/tree_reader.hpp"

namespace cubekit::format {

// Parses an anchor document (plain text; gunzip first). `where` names the file and member in
// errors, e.g. "run.cubex:anchor.xml". `release`, when set, is told the ranges of `xml` read
// (format/tree_reader.hpp), so that a mapped anchor's pages need not all stay resident. Throws
// FormatError.
Model parse_anchor(std::string_view xml, const std::string& where,
                   const ReleaseRange& release = {});

// A part of a document left out of the DOM (read by the pull readers of tree_reader.hpp
// instead): xml[begin, end) is replaced by `replacement`, e.g. "<system/>".
struct XmlCut {
  size_t begin = 0, end = 0;
  std::string_view replacement;
};

// Loads `xml` into `doc`, accepting CubeLib's dialect (unquoted rowwise= / cubeplaggrtype=
// attribute values). Throws FormatError with line and column on malformed XML. `cuts` must be
// in document order and must not overlap.
void load_xml(pugi::xml_document& doc, std::string_view xml, const std::string& where,
              const std::vector<XmlCut>& cuts = {});

// "line:column" of a byte offset in `text`.
std::string line_column(std::string_view text, ptrdiff_t offset);

// Shared parts: <attr> lists, <doc><mirrors>, <metrics>.
void parse_attrs(const pugi::xml_node& parent, Attributes& out);
void parse_header(const pugi::xml_node& cube, Model& model);
void parse_metrics(const pugi::xml_node& metrics, Model& model, const std::string& where);

void parse_topologies(const pugi::xml_node& topologies, Model& model, const std::string& where);
// Pieces of <topologies> shared with the pull reader of the system tree: the rank of an
// attribute naming a <coord>'s owner (lower ranks win when several are given; -1: not an
// owner attribute), setting the owner, the coordinate text, one <dim>.
int coord_owner_rank(std::string_view attribute);
void set_coord_owner(Topology::Coord& coord, int rank, std::string_view id,
                     const std::string& where);
// Appends the numbers of a <coord> text to topology.values and points `coord` at them.
void parse_coord_values(std::string_view text, Topology& topology, Topology::Coord& coord,
                        const std::string& where);
void parse_topology_dim(std::string_view name, std::string_view size, std::string_view periodic,
                        Topology& topology, const std::string& where);

// Parses a decimal integer attribute or text; throws FormatError naming `what` when malformed.
int64_t parse_int(std::string_view text, const std::string& where, const std::string& what);
// Attribute `id`, or its synonym `Id`.
const char* id_attr(const pugi::xml_node& node);

}  // namespace cubekit::format
