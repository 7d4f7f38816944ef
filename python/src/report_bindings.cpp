// The Report class of the native module: definitions as views, values as numpy arrays.
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cubekit/error.hpp"
#include "cubekit/flat_profile.hpp"
#include "cubekit/pop.hpp"
#include "cubekit/writer.hpp"
#include "views.hpp"

namespace cubekit::python {

namespace {

using SessionPtr = std::shared_ptr<Session>;

Flavour flavour(const std::string& text, const char* what) {
  if (text == "incl" || text == "inclusive") return Flavour::kInclusive;
  if (text == "excl" || text == "exclusive") return Flavour::kExclusive;
  throw std::invalid_argument(std::string(what) + " must be \"incl\" or \"excl\", not \"" + text +
                              "\"");
}

Index checked_cnode(Session& s, Index cnode) {
  if (cnode >= s.model().cnodes.size())
    throw LookupError("call path index " + std::to_string(cnode) + " out of range (" +
                      std::to_string(s.model().cnodes.size()) + " call paths)");
  return cnode;
}

// The flavour a metric's rows are stored in along the call tree.
Flavour stored_flavour(MetricKind kind) {
  return kind == MetricKind::kExclusive ? Flavour::kExclusive : Flavour::kInclusive;
}

// (cnode index of each stored row, rows × locations array), both without copies, or None.
py::object stored(const SessionPtr& s, Index metric) {
  const Report& report = s->report();
  if (metric >= s->model().metrics.size() || !report.has_data(metric)) return py::none();
  std::shared_ptr<const SeverityMatrix> matrix;
  {
    py::gil_scoped_release unlocked;
    matrix = report.severities(metric);
  }
  if (!matrix) return py::none();
  auto holder = std::make_unique<std::shared_ptr<const SeverityMatrix>>(matrix);
  py::capsule owner(holder.release(),
                    [](void* p) { delete static_cast<std::shared_ptr<const SeverityMatrix>*>(p); });
  const auto rows = static_cast<py::ssize_t>(matrix->stored_rows());
  const auto cols = static_cast<py::ssize_t>(matrix->locations());
  py::array_t<uint32_t> cnodes(rows);
  auto out = cnodes.mutable_unchecked<1>();
  for (Index c = 0; c < matrix->cnodes(); ++c)
    if (const size_t r = matrix->row_number(c); r != SIZE_MAX) out(static_cast<py::ssize_t>(r)) = c;
  const auto size = static_cast<py::ssize_t>(matrix->type().memory_size());
  py::array values = borrowed_array(matrix->type(), {rows, cols},
                                    {static_cast<py::ssize_t>(matrix->row_bytes()), size},
                                    rows ? matrix->row_at(0) : nullptr, owner);
  return py::make_tuple(cnodes, values);
}

// The stored matrix itself, when it already is the C × L answer in cnode order.
py::object dense_view(const SessionPtr& s, Index metric, Flavour mf, Flavour cf) {
  if (metric >= s->model().metrics.size()) return py::none();
  const Metric& m = s->model().metrics[metric];
  if (is_derived(m.kind) || cf != stored_flavour(m.kind)) return py::none();
  if (mf == Flavour::kExclusive && !m.children.empty()) return py::none();
  py::object rows = stored(s, metric);
  if (rows.is_none()) return py::none();
  auto cnodes = rows.cast<py::tuple>()[0].cast<py::array_t<uint32_t>>();
  if (static_cast<size_t>(cnodes.size()) != s->model().cnodes.size()) return py::none();
  auto c = cnodes.unchecked<1>();
  for (py::ssize_t r = 0; r < c.shape(0); ++r)
    if (c(r) != r) return py::none();
  return rows.cast<py::tuple>()[1];
}

// C × L values in cnode order; a view of the stored rows when they already are the answer.
py::array values(const SessionPtr& s, Index metric, const std::string& metric_tree,
                 const std::string& call_tree) {
  const Flavour mf = flavour(metric_tree, "metric_tree"), cf = flavour(call_tree, "call_tree");
  s->metric(metric);  // range check
  if (py::object view = dense_view(s, metric, mf, cf); !view.is_none()) return view;
  MetricEngine& engine = s->engine();
  const size_t cnodes = s->model().cnodes.size();
  std::optional<DataType> type;
  std::vector<Values> rows;
  rows.reserve(cnodes);
  {
    py::gil_scoped_release unlocked;
    for (Index c = 0; c < cnodes; ++c) rows.push_back(engine.location_values(metric, c, mf, cf));
  }
  const DataType t = rows.empty() ? s->metric(metric).dtype : rows[0].type();
  const size_t locations = s->model().locations.size();
  py::array out(numpy_dtype(t),
                {static_cast<py::ssize_t>(cnodes), static_cast<py::ssize_t>(locations)});
  auto* dst = static_cast<std::byte*>(out.mutable_data());
  for (const Values& row : rows) {
    std::memcpy(dst, row.data(), row.size() * row.stride());
    dst += locations * t.memory_size();
  }
  return out;
}

py::array location_values(const SessionPtr& s, Index metric, Index cnode,
                          const std::string& metric_tree, const std::string& call_tree) {
  const Flavour mf = flavour(metric_tree, "metric_tree"), cf = flavour(call_tree, "call_tree");
  s->metric(metric);
  checked_cnode(*s, cnode);
  MetricEngine& engine = s->engine();
  return values_array(engine.location_values(metric, cnode, mf, cf));
}

py::array aggregated(const SessionPtr& s, Index metric, const std::string& metric_tree,
                     const std::string& call_tree) {
  const Flavour mf = flavour(metric_tree, "metric_tree"), cf = flavour(call_tree, "call_tree");
  s->metric(metric);
  MetricEngine& engine = s->engine();
  std::optional<Values> v;
  {
    py::gil_scoped_release unlocked;
    v.emplace(engine.aggregated_values(metric, mf, cf));
  }
  return values_array(std::move(*v));
}

py::tuple system_values(const SessionPtr& s, Index metric, Index cnode,
                        const std::string& metric_tree, const std::string& call_tree) {
  const Flavour mf = flavour(metric_tree, "metric_tree"), cf = flavour(call_tree, "call_tree");
  s->metric(metric);
  checked_cnode(*s, cnode);
  SystemValues v = s->engine().system_values(metric, cnode, mf, cf);
  return py::make_tuple(values_array(std::move(v.nodes)), values_array(std::move(v.groups)));
}

// NaN in every lane of the values `none` marks, for the types kept as doubles (not integers,
// which always have a value, nor SCALE_FUNC's slots).
void mark_no_value(Values& values, const std::vector<bool>& none) {
  if (values.type().lane_type() != LaneType::kDouble) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i < none.size() && i < values.size(); ++i)
    if (none[i])
      for (size_t lane = 0; lane < values.type().lanes(); ++lane)
        std::memcpy(values.at(i) + lane * sizeof(double), &nan, sizeof nan);
}

// Flat profile (the library's, as cube_dump -r): per region the exclusive ⊕ over its call
// paths, and what its callees add; NaN where a region has no such value (nothing adds to it,
// of a type such as MIN/MAXDOUBLE: the empty ⊕, ±DBL_MAX, is no measurement; cube_dump -r
// prints "0." there).
py::tuple flat_profile(const SessionPtr& s, Index metric, const std::string& metric_tree) {
  const Flavour mf = flavour(metric_tree, "metric_tree");
  s->metric(metric);
  FlatProfile flat = cubekit::flat_profile(s->engine(), metric, mf);
  mark_no_value(flat.exclusive, flat.no_exclusive);
  mark_no_value(flat.subroutines, flat.no_subroutines);
  return py::make_tuple(values_array(std::move(flat.exclusive)),
                        values_array(std::move(flat.subroutines)));
}

// POP metrics (cubekit/pop.hpp) of one report or a scaling series: one dict per result with
// "report" (index into `series`), "focus", "call_paths" and "values": [(key, label, depth,
// value or None, why missing)] in the order of the hierarchy.
py::list pop_metrics(const std::vector<SessionPtr>& series, const std::string& model,
                     const std::vector<std::string>& focus, bool individually) {
  PopOptions options;
  const auto m = parse_pop_model(model);
  if (!m)
    throw std::invalid_argument("model must be mpi, hybrid-add, hybrid-mult or bsc, not \"" +
                                model + "\"");
  options.model = *m;
  options.focus = focus;
  options.individually = individually;
  std::vector<const Report*> reports;
  for (const SessionPtr& s : series) reports.push_back(&s->report());
  std::vector<PopResult> results;
  {
    py::gil_scoped_release unlocked;
    results = cubekit::pop_metrics(reports, options);
  }
  py::list out;
  for (const PopResult& r : results) {
    py::list values;
    for (const PopValue& v : r.values)
      values.append(py::make_tuple(v.key, v.label, v.depth,
                                   v.value ? py::object(py::float_(*v.value)) : py::none(),
                                   v.missing));
    py::dict d;
    d["report"] = r.report;
    d["focus"] = r.focus;
    d["call_paths"] = r.call_paths;
    d["values"] = values;
    out.append(d);
  }
  return out;
}

std::optional<Index> metric_by_name(const SessionPtr& s, const std::string& name) {
  if (auto i = s->model().metric_by_uniq_name(name)) return *i;
  for (Index i = s->model().metrics.size(); i < s->engine().metric_count(); ++i)
    if (s->metric(i).uniq_name == name) return i;
  return std::nullopt;
}

// The call tree in bulk, for callers that build their own objects for every call path (the
// pyCubexR layer): per cnode its id, region index and parent index (-1 for roots), as arrays.
py::tuple cnode_table(const SessionPtr& s) {
  const auto& cnodes = s->model().cnodes;
  const auto n = static_cast<py::ssize_t>(cnodes.size());
  py::array_t<uint32_t> ids(n), regions(n);
  py::array_t<int64_t> parents(n);
  auto id = ids.mutable_unchecked<1>();
  auto region = regions.mutable_unchecked<1>();
  auto parent = parents.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const Cnode& c = cnodes[static_cast<size_t>(i)];
    id(i) = c.id;
    region(i) = c.region;
    parent(i) = c.parent == kNoIndex ? -1 : int64_t{c.parent};
  }
  return py::make_tuple(ids, regions, parents);
}

// Every region's fields as a tuple: (id, begin, end, name, mangled name, paradigm, role, url,
// description, module).
py::list region_table(const SessionPtr& s) {
  py::list out;
  for (const Region& r : s->model().regions)
    out.append(py::make_tuple(r.id, r.begin, r.end, text(r.name), text(r.mangled_name),
                              text(r.paradigm), text(r.role), text(r.url), text(r.descr),
                              text(r.mod)));
  return out;
}

template <class View>
std::vector<View> all(const SessionPtr& s, size_t n) {
  std::vector<View> out;
  out.reserve(n);
  for (Index i = 0; i < n; ++i) out.push_back(View{s, i});
  return out;
}

template <class View>
std::vector<View> some(const SessionPtr& s, const std::vector<Index>& indices) {
  std::vector<View> out;
  for (Index i : indices) out.push_back(View{s, i});
  return out;
}

}  // namespace

void bind_report(py::module_& m) {
  m.def("pop_metrics", &pop_metrics, py::arg("series"), py::arg("model"), py::arg("focus"),
        py::arg("individually"));
  py::class_<Session, SessionPtr>(m, "NativeReport")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def_property_readonly("path", [](const SessionPtr& s) { return text(s->report().path()); })
      .def_property_readonly("version",
                             [](const SessionPtr& s) { return text(s->model().version); })
      .def_property_readonly("closed", &Session::closed)
      .def("close", &Session::close)
      .def_property_readonly("attributes",
                             [](const SessionPtr& s) {
                               py::dict d;
                               for (const auto& [k, v] : s->model().attrs) d[text(k)] = text(v);
                               return d;
                             })
      .def_property_readonly("members",
                             [](const SessionPtr& s) {
                               py::list out;
                               for (const MemberInfo& mi : s->report().members())
                                 out.append(py::make_tuple(text(mi.name), mi.size));
                               return out;
                             })
      .def("member_content",
           [](const SessionPtr& s, const std::string& name) -> py::object {
             auto bytes = s->report().member_content(name);
             if (!bytes) return py::none();
             return py::bytes(*bytes);
           })
      .def_property_readonly(
          "metrics", [](const SessionPtr& s) { return all<MetricView>(s, s->metric_count()); })
      .def_property_readonly(
          "metric_roots",
          [](const SessionPtr& s) { return some<MetricView>(s, s->model().metric_roots()); })
      .def_property_readonly(
          "regions",
          [](const SessionPtr& s) { return all<RegionView>(s, s->model().regions.size()); })
      .def_property_readonly(
          "cnodes", [](const SessionPtr& s) { return all<CnodeView>(s, s->model().cnodes.size()); })
      .def_property_readonly(
          "cnode_roots",
          [](const SessionPtr& s) { return some<CnodeView>(s, s->model().cnode_roots()); })
      .def_property_readonly("system_nodes",
                             [](const SessionPtr& s) {
                               return all<SystemNodeView>(s, s->model().system_nodes.size());
                             })
      .def_property_readonly(
          "system_roots",
          [](const SessionPtr& s) { return some<SystemNodeView>(s, s->model().system_roots()); })
      .def_property_readonly(
          "location_groups",
          [](const SessionPtr& s) { return all<GroupView>(s, s->model().groups.size()); })
      .def_property_readonly(
          "locations",
          [](const SessionPtr& s) { return all<LocationView>(s, s->model().locations.size()); })
      .def("cnode_table", &cnode_table)
      .def("region_table", &region_table)
      .def("cnodes_with_parameters",
           [](const SessionPtr& s) {
             std::vector<Index> out;
             for (Index i = 0; i < s->model().cnodes.size(); ++i)
               if (!s->model().cnodes[i].parameters.empty()) out.push_back(i);
             return out;
           })
      .def("metric_index", &metric_by_name, py::arg("name"))
      .def("cnode_index",
           [](const SessionPtr& s, uint32_t id) { return s->model().cnode_by_id(id); })
      .def("metric_view",
           [](const SessionPtr& s, Index i) {
             s->metric(i);
             return MetricView{s, i};
           })
      .def(
          "storage_order",
          [](const SessionPtr& s, const std::string& kind) {
            auto k = metric_kind_from_name(kind);
            if (!k) throw std::invalid_argument("unknown metric kind \"" + kind + "\"");
            return storage_order(s->model(), *k);
          },
          py::arg("kind"), "cnode indices in the order rows of a metric of this kind are stored")
      .def("has_data",
           [](const SessionPtr& s, Index metric) {
             return metric < s->model().metrics.size() && s->report().has_data(metric);
           })
      .def("stored", &stored, py::arg("metric"))
      .def("values", &values, py::arg("metric"), py::arg("metric_tree"), py::arg("call_tree"))
      .def("location_values", &location_values, py::arg("metric"), py::arg("cnode"),
           py::arg("metric_tree"), py::arg("call_tree"))
      .def("aggregated", &aggregated, py::arg("metric"), py::arg("metric_tree"),
           py::arg("call_tree"))
      .def("system_values", &system_values, py::arg("metric"), py::arg("cnode"),
           py::arg("metric_tree"), py::arg("call_tree"))
      .def("flat_profile", &flat_profile, py::arg("metric"), py::arg("metric_tree"))
      .def("define", &Session::define, py::arg("name"), py::arg("expression"))
      .def("drop", [](const SessionPtr& s) { s->engine().forget_values(); })
      .def(
          "save",
          [](const SessionPtr& s, const std::string& path, bool compress) {
            WriteOptions o;
            o.compress = compress;
            py::gil_scoped_release unlocked;
            write_report(s->report(), path, o);
          },
          py::arg("path"), py::arg("compress") = false);
}

}  // namespace cubekit::python
