// The parameters an experiment folder's name gives in Extra-P's folder layout of a series
// (docs/models.md): "mm.x10y1z1.r1" is the point x=10, y=1, z=1.
#pragma once

#include <string>
#include <vector>

namespace cubekit::model_detail {

// The parameters of one folder name: names[i] has values[i].
struct NamedPoint {
  std::vector<std::string> names;
  std::vector<double> values;
};

// The text between the name's first '.' (its start without one) and its first ".r" (its end
// without one; nothing when that ".r" is the first '.'), as Extra-P slices it, split into runs
// of digits, '.' and ',' (the values: ',' stands for the decimal point, a trailing '.' is
// dropped) and the names before them. Throws Error naming the folder when the text holds no
// value, a run that is no number ("1.2.3"), a value without a name before it ("mm.8.r1") or
// a name twice ("mm.x1x2.r1").
NamedPoint parse_folder_name(const std::string& folder);

}  // namespace cubekit::model_detail
