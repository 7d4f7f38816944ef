// The dimensions of a PERI-XML document (metrics, code, states, space), parsed with pugixml into
// a Model, and the document's ids of what they define, which the values' <d> elements name
// (peri_values.hpp).
#pragma once

#include <functional>
#include <memory>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit::io::peri {

// Ids looked up by the views XmlStream gives, without making strings.
struct IdHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using IdMap = std::unordered_map<std::string, Index, IdHash, std::equal_to<>>;

// The document's ids of the items of the model, by kind.
struct Ids {
  IdMap metric, twin_excl, region, cnode, node, group, location;
  // twin_excl: write_peri_xml's inclusive twin of a metric ("m.incl") to its exclusive one.
  std::vector<std::string> location_keys;    // the ids of `location`, by location
  std::vector<Index> first_cnode_of_region;  // what a <d code=REGION> stands for
};

struct Dimensions {
  std::shared_ptr<Model> model;
  Ids ids;
};

// Where a node of the dimensions stands in the document ("file:line:column"), for messages.
using Where = std::function<std::string(const pugi::xml_node&)>;

// Reads the dimensions below the document element `root`; the model is finalized, named `path`
// in messages. Throws FormatError.
Dimensions read_dimensions(const pugi::xml_node& root, const std::string& path, const Where& where);

bool ends_with(std::string_view s, std::string_view tail);

}  // namespace cubekit::io::peri
