#include "io/metric_definition.hpp"

#include <utility>

namespace cubekit {

Index add_metric(Model& m, std::string uniq, std::string disp, DataType type, MetricKind kind,
                 std::string uom, std::string descr) {
  Metric x;
  x.id = static_cast<uint32_t>(m.metrics.size());
  x.uniq_name = std::move(uniq);
  x.disp_name = std::move(disp);
  x.dtype = type;
  x.dtype_text = type.dtype_text();
  x.kind = kind;
  x.uom = std::move(uom);
  x.descr = std::move(descr);
  m.metrics.push_back(std::move(x));
  return static_cast<Index>(m.metrics.size() - 1);
}

}  // namespace cubekit
