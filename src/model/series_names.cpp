#include "model/series_names.hpp"

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "cubekit/error.hpp"

namespace cubekit::model_detail {

NamedPoint parse_folder_name(const std::string& folder) {
  const size_t start = folder.find('.') + 1;  // npos + 1 == 0: from the start
  const size_t end = std::min(folder.find(".r"), folder.size());
  // "mm.r1": the ".r" is the first '.', and the repetition no parameter.
  const std::string text = end < start ? "" : folder.substr(start, end - start);
  static const std::regex kNumber("[0-9.,]+");
  NamedPoint point;
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kNumber);
       it != std::sregex_iterator(); ++it) {
    // A value needs a name, and a name one value (Extra-P fails on the first, and the second
    // would make two parameters of one).
    std::string name = text.substr(last, size_t(it->position()) - last);
    if (name.empty())
      throw Error(folder + ": the value '" + it->str() + "' has no parameter name before it");
    if (std::find(point.names.begin(), point.names.end(), name) != point.names.end())
      throw Error(folder + ": the parameter '" + name + "' is named twice");
    point.names.push_back(std::move(name));
    std::string number = it->str();
    std::replace(number.begin(), number.end(), ',', '.');
    while (!number.empty() && number.back() == '.') number.pop_back();
    try {
      size_t used = 0;
      point.values.push_back(std::stod(number, &used));
      if (used != number.size()) throw std::invalid_argument(number);
    } catch (const std::exception&) {
      throw Error(folder + ": '" + it->str() + "' is not a parameter value");
    }
    last = size_t(it->position() + it->length());
  }
  if (point.values.empty()) throw Error(folder + ": the folder name names no parameter");
  return point;
}

}  // namespace cubekit::model_detail
