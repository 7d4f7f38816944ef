// Python objects for the entities of the three trees. Each view is (session, index): cheap to
// make, reads the model on access, and keeps the report alive.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "session.hpp"

namespace cubekit::python {

namespace py = pybind11;

struct MetricView {
  std::shared_ptr<Session> session;
  Index index;
  const Metric& get() const { return session->metric(index); }
};
struct RegionView {
  std::shared_ptr<Session> session;
  Index index;
  const Region& get() const { return session->model().regions.at(index); }
};
struct CnodeView {
  std::shared_ptr<Session> session;
  Index index;
  const Cnode& get() const { return session->model().cnodes.at(index); }
};
struct SystemNodeView {
  std::shared_ptr<Session> session;
  Index index;
  const SystemNode& get() const { return session->model().system_nodes.at(index); }
};
struct GroupView {
  std::shared_ptr<Session> session;
  Index index;
  const LocationGroup& get() const { return session->model().groups.at(index); }
};
struct LocationView {
  std::shared_ptr<Session> session;
  Index index;
  const Location& get() const { return session->model().locations.at(index); }
};

void bind_views(py::module_& m);

}  // namespace cubekit::python
