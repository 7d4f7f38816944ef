#include "views.hpp"

#include "arrays.hpp"

#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace cubekit::python {

namespace {

py::dict attributes(const Attributes& attrs) {
  py::dict d;
  for (const auto& [key, value] : attrs) d[text(key)] = text(value);
  return d;
}

template <class View>
py::object optional_view(const std::shared_ptr<Session>& s, Index i) {
  if (i == kNoIndex) return py::none();
  return py::cast(View{s, i});
}

template <class View>
std::vector<View> views(const std::shared_ptr<Session>& s, const std::vector<Index>& indices) {
  std::vector<View> out;
  out.reserve(indices.size());
  for (Index i : indices) out.push_back(View{s, i});
  return out;
}

// Equality and hashing by (report, index), so views work as dict keys and in sets.
template <class View, class Cls>
void identity(Cls& cls) {
  cls.def("__eq__",
          [](const View& a, const View& b) { return a.session == b.session && a.index == b.index; })
      .def("__hash__",
           [](const View& v) {
             return std::hash<const void*>()(v.session.get()) ^ (std::hash<Index>()(v.index) << 1);
           })
      .def_property_readonly(
          "index", [](const View& v) { return v.index; },
          "position in the report's list of this kind of entity");
}

void bind_metric(py::module_& m) {
  py::class_<MetricView> c(m, "Metric", "A metric of the metric tree (or a defined one).");
  identity<MetricView>(c);
  c.def_property_readonly("id", [](const MetricView& v) { return v.get().id; })
      .def_property_readonly("name", [](const MetricView& v) { return text(v.get().uniq_name); })
      .def_property_readonly("display_name",
                             [](const MetricView& v) { return text(v.get().disp_name); })
      .def_property_readonly(
          "dtype", [](const MetricView& v) { return text(v.get().dtype_text); },
          "data type as written in the report, e.g. \"HISTOGRAM(5)\"")
      .def_property_readonly("kind",
                             [](const MetricView& v) { return metric_kind_name(v.get().kind); })
      .def_property_readonly("derived",
                             [](const MetricView& v) { return is_derived(v.get().kind); })
      .def_property_readonly("ghost", [](const MetricView& v) { return v.get().ghost; })
      .def_property_readonly("void", [](const MetricView& v) { return v.get().is_void; })
      .def_property_readonly("unit", [](const MetricView& v) { return text(v.get().uom); })
      .def_property_readonly("url", [](const MetricView& v) { return text(v.get().url); })
      .def_property_readonly("description", [](const MetricView& v) { return text(v.get().descr); })
      .def_property_readonly("expression",
                             [](const MetricView& v) { return text(v.get().expression); })
      .def_property_readonly("attributes",
                             [](const MetricView& v) { return attributes(v.get().attrs); })
      .def_property_readonly(
          "parent",
          [](const MetricView& v) { return optional_view<MetricView>(v.session, v.get().parent); })
      .def_property_readonly(
          "children",
          [](const MetricView& v) { return views<MetricView>(v.session, v.get().children); })
      .def("__repr__", [](const MetricView& v) {
        return text("<cubekit.Metric " + v.get().uniq_name + " (" + metric_kind_name(v.get().kind) +
                    ", " + v.get().dtype_text + ")>");
      });
}

void bind_region(py::module_& m) {
  py::class_<RegionView> c(m, "Region", "A region (function, loop, ...) of the program.");
  identity<RegionView>(c);
  c.def_property_readonly("id", [](const RegionView& v) { return v.get().id; })
      .def_property_readonly("name", [](const RegionView& v) { return text(v.get().name); })
      .def_property_readonly("mangled_name",
                             [](const RegionView& v) { return text(v.get().mangled_name); })
      .def_property_readonly("paradigm", [](const RegionView& v) { return text(v.get().paradigm); })
      .def_property_readonly("role", [](const RegionView& v) { return text(v.get().role); })
      .def_property_readonly("url", [](const RegionView& v) { return text(v.get().url); })
      .def_property_readonly("description", [](const RegionView& v) { return text(v.get().descr); })
      .def_property_readonly("module", [](const RegionView& v) { return text(v.get().mod); })
      .def_property_readonly("begin", [](const RegionView& v) { return v.get().begin; })
      .def_property_readonly("end", [](const RegionView& v) { return v.get().end; })
      .def_property_readonly("attributes",
                             [](const RegionView& v) { return attributes(v.get().attrs); })
      .def("__repr__",
           [](const RegionView& v) { return text("<cubekit.Region " + v.get().name + ">"); });
}

void bind_cnode(py::module_& m) {
  py::class_<CnodeView> c(m, "CallPath", "A node of the call tree (a cnode).");
  identity<CnodeView>(c);
  c.def_property_readonly("id", [](const CnodeView& v) { return v.get().id; })
      .def_property_readonly("region",
                             [](const CnodeView& v) {
                               return RegionView{v.session, v.get().region};
                             })
      .def_property_readonly(
          "name",
          [](const CnodeView& v) { return text(v.session->model().regions[v.get().region].name); })
      .def_property_readonly("line", [](const CnodeView& v) { return v.get().line; })
      .def_property_readonly("module", [](const CnodeView& v) { return text(v.get().mod); })
      .def_property_readonly(
          "parameters",
          [](const CnodeView& v) {
            py::list out;
            for (const Parameter& p : v.get().parameters)
              out.append(py::make_tuple(text(p.type), text(p.key), text(p.value)));
            return out;
          },
          "(type, key, value) of each parameter, type \"numeric\" or \"string\"")
      .def_property_readonly("attributes",
                             [](const CnodeView& v) { return attributes(v.get().attrs); })
      .def_property_readonly(
          "parent",
          [](const CnodeView& v) { return optional_view<CnodeView>(v.session, v.get().parent); })
      .def_property_readonly(
          "children",
          [](const CnodeView& v) { return views<CnodeView>(v.session, v.get().children); })
      .def("__repr__", [](const CnodeView& v) {
        return text("<cubekit.CallPath " + std::to_string(v.get().id) + " " +
                    v.session->model().regions[v.get().region].name + ">");
      });
}

void bind_system(py::module_& m) {
  py::class_<SystemNodeView> n(m, "SystemNode", "A node of the system tree (machine, node, ...).");
  identity<SystemNodeView>(n);
  n.def_property_readonly("id", [](const SystemNodeView& v) { return v.get().id; })
      .def_property_readonly("name", [](const SystemNodeView& v) { return text(v.get().name); })
      .def_property_readonly("class_name",
                             [](const SystemNodeView& v) { return text(v.get().class_name); })
      .def_property_readonly("description",
                             [](const SystemNodeView& v) { return text(v.get().descr); })
      .def_property_readonly("attributes",
                             [](const SystemNodeView& v) { return attributes(v.get().attrs); })
      .def_property_readonly("parent",
                             [](const SystemNodeView& v) {
                               return optional_view<SystemNodeView>(v.session, v.get().parent);
                             })
      .def_property_readonly("children",
                             [](const SystemNodeView& v) {
                               return views<SystemNodeView>(v.session, v.get().children);
                             })
      .def_property_readonly(
          "groups",
          [](const SystemNodeView& v) { return views<GroupView>(v.session, v.get().groups); })
      .def("__repr__", [](const SystemNodeView& v) {
        return text("<cubekit.SystemNode " + v.get().name + ">");
      });

  py::class_<GroupView> g(m, "LocationGroup", "A location group (usually a process).");
  identity<GroupView>(g);
  g.def_property_readonly("id", [](const GroupView& v) { return v.get().id; })
      .def_property_readonly("name", [](const GroupView& v) { return text(v.get().name); })
      .def_property_readonly("type", [](const GroupView& v) { return text(v.get().type); })
      .def_property_readonly("rank", [](const GroupView& v) { return v.get().rank; })
      .def_property_readonly("attributes",
                             [](const GroupView& v) { return attributes(v.get().attrs); })
      .def_property_readonly(
          "parent",
          [](const GroupView& v) { return optional_view<SystemNodeView>(v.session, v.get().node); })
      .def_property_readonly(
          "locations",
          [](const GroupView& v) { return views<LocationView>(v.session, v.get().locations); })
      .def("__repr__", [](const GroupView& v) {
        return text("<cubekit.LocationGroup " + v.get().name.str() + ">");
      });

  py::class_<LocationView> l(m, "Location", "A location (usually a thread): one column of values.");
  identity<LocationView>(l);
  l.def_property_readonly(
       "id", [](const LocationView& v) { return v.get().id; },
       "the column of this location in every values array")
      .def_property_readonly("name", [](const LocationView& v) { return text(v.get().name); })
      .def_property_readonly("type", [](const LocationView& v) { return text(v.get().type); })
      .def_property_readonly("rank", [](const LocationView& v) { return v.get().rank; })
      .def_property_readonly("attributes",
                             [](const LocationView& v) { return attributes(v.get().attrs); })
      .def_property_readonly("parent",
                             [](const LocationView& v) {
                               return GroupView{v.session, v.get().group};
                             })
      .def("__repr__", [](const LocationView& v) {
        return text("<cubekit.Location " + v.get().name.str() + ">");
      });
}

}  // namespace

void bind_views(py::module_& m) {
  bind_metric(m);
  bind_region(m);
  bind_cnode(m);
  bind_system(m);
}

}  // namespace cubekit::python
