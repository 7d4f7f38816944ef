// ReportBuilder: definitions added one by one, values as numpy arrays (call paths × locations,
// in the metric's numpy dtype), written with cubekit's ReportWriter.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cubekit/error.hpp"
#include "cubekit/writer.hpp"
#include "session.hpp"

namespace cubekit::python {

namespace {

std::string text(const py::dtype& dtype) {
  return py::str(py::handle(dtype)).cast<std::string>();
}

Index optional_index(const std::optional<Index>& i, size_t count, const char* what) {
  if (!i) return kNoIndex;
  if (*i >= count)
    throw LookupError(std::string(what) + " index " + std::to_string(*i) + " out of range (" +
                      std::to_string(count) + " defined)");
  return *i;
}

class Builder {
 public:
  Builder() : model_(std::make_shared<Model>()) {}

  static Builder from_report(const std::shared_ptr<Session>& source) {
    Builder b;
    *b.model_ = source->model();
    b.source_ = source;
    return b;
  }

  Index add_metric(const std::string& name, const std::string& dtype, const std::string& kind,
                   const std::optional<std::string>& display_name, const std::string& unit,
                   const std::string& description, const std::string& url,
                   std::optional<Index> parent, const std::string& expression) {
    for (const Metric& m : model_->metrics)
      if (m.uniq_name == name) throw LookupError("a metric named \"" + name + "\" exists already");
    Metric m;
    m.id = next_id(model_->metrics);
    m.uniq_name = name;
    m.disp_name = display_name.value_or(name);
    try {
      m.dtype = DataType::parse(dtype);
    } catch (const FormatError& e) {
      throw FormatError("metric \"" + name + "\": " + e.what());
    }
    m.dtype_text = m.dtype.dtype_text();
    auto k = metric_kind_from_name(kind);
    if (!k) throw FormatError("metric \"" + name + "\": unknown kind \"" + kind + "\"");
    m.kind = *k;
    m.uom = unit;
    m.descr = description;
    m.url = url;
    m.expression = expression;
    m.parent = optional_index(parent, model_->metrics.size(), "parent metric");
    return append(model_->metrics, std::move(m));
  }

  Index add_region(const std::string& name, const std::string& mangled_name,
                   const std::string& paradigm, const std::string& role, const std::string& module,
                   int64_t begin, int64_t end) {
    Region r;
    r.id = next_id(model_->regions);
    r.name = name;
    r.mangled_name = mangled_name.empty() ? name : mangled_name;
    r.paradigm = paradigm;
    r.role = role;
    r.mod = module;
    r.begin = begin;
    r.end = end;
    model_->regions.push_back(std::move(r));
    return static_cast<Index>(model_->regions.size() - 1);
  }

  Index add_cnode(Index region, std::optional<Index> parent, int64_t line) {
    Cnode c;
    c.id = next_id(model_->cnodes);
    c.region = optional_index(region, model_->regions.size(), "region");
    c.line = line;
    c.parent = optional_index(parent, model_->cnodes.size(), "parent call path");
    return append(model_->cnodes, std::move(c));
  }

  Index add_system_node(const std::string& name, const std::string& class_name,
                        std::optional<Index> parent) {
    SystemNode n;
    n.id = next_id(model_->system_nodes);
    n.name = name;
    n.class_name = class_name;
    n.parent = optional_index(parent, model_->system_nodes.size(), "parent system node");
    return append(model_->system_nodes, std::move(n));
  }

  Index add_location_group(const std::string& name, Index node, int64_t rank,
                           const std::string& type) {
    LocationGroup g;
    g.id = next_id(model_->groups);
    g.name = name;
    g.rank = rank;
    g.type = type;
    g.node = optional_index(node, model_->system_nodes.size(), "system node");
    return append_member(model_->groups, model_->system_nodes[g.node].groups, std::move(g));
  }

  Index add_location(const std::string& name, Index group, int64_t rank, const std::string& type) {
    Location l;
    l.id = static_cast<uint32_t>(model_->locations.size());  // ids are the columns 0..L-1
    l.name = name;
    l.rank = rank;
    l.type = type;
    l.group = optional_index(group, model_->groups.size(), "location group");
    return append_member(model_->locations, model_->groups[l.group].locations, std::move(l));
  }

  void set_values(Index metric, py::array values) {
    optional_index(metric, model_->metrics.size(), "metric");
    arrays_[metric] = std::move(values);
  }

  void save(const std::string& path, bool compress) {
    auto model = std::make_shared<Model>(*model_);
    model->finalize(path);
    WriteOptions options;
    options.compress = compress;
    ReportWriter writer(path, model, options);
    for (Index m = 0; m < model->metrics.size(); ++m) write_metric(writer, *model, m);
    writer.finish();
  }

 private:
  template <class T>
  static uint32_t next_id(const std::vector<T>& v) {
    return static_cast<uint32_t>(v.size());
  }

  // Appends an entity with a parent link and registers it as the parent's child.
  template <class T>
  static Index append(std::vector<T>& v, T&& entity) {
    const auto i = static_cast<Index>(v.size());
    const Index parent = entity.parent;
    v.push_back(std::move(entity));
    if (parent != kNoIndex) v[parent].children.push_back(i);
    return i;
  }

  // Appends an entity and lists it with its owner (a group with its node, a location with its
  // group).
  template <class T>
  static Index append_member(std::vector<T>& v, std::vector<Index>& owner_list, T&& entity) {
    const auto i = static_cast<Index>(v.size());
    owner_list.push_back(i);
    v.push_back(std::move(entity));
    return i;
  }

  const std::byte* checked_rows(const Model& model, Index m, const py::array& a) const {
    const Metric& metric = model.metrics[m];
    const py::dtype want = numpy_dtype(metric.dtype);
    const size_t cnodes = model.cnodes.size(), locations = model.locations.size();
    const std::string what = "values of metric \"" + metric.uniq_name + "\"";
    if (!a.dtype().equal(want))
      throw FormatError(what + ": dtype " + text(a.dtype()) + ", expected " + text(want));
    if (a.ndim() != 2 || static_cast<size_t>(a.shape(0)) != cnodes ||
        static_cast<size_t>(a.shape(1)) != locations)
      throw FormatError(what + ": expected shape (" + std::to_string(cnodes) + ", " +
                        std::to_string(locations) + ") (call paths × locations)");
    if (!(a.flags() & py::array::c_style))
      throw FormatError(what + ": the array must be C-contiguous");
    return static_cast<const std::byte*>(a.data());
  }

  void write_metric(ReportWriter& writer, const Model& model, Index m) const {
    const Metric& metric = model.metrics[m];
    const size_t row_bytes = model.locations.size() * metric.dtype.memory_size();
    if (auto it = arrays_.find(m); it != arrays_.end()) {
      if (is_derived(metric.kind) || metric.is_void)
        throw FormatError("metric \"" + metric.uniq_name +
                          "\" is derived or VOID: it has no values to store");
      const std::byte* rows = checked_rows(model, m, it->second);
      writer.begin_metric(m);
      for (Index c : storage_order(model, metric.kind)) writer.write_row(c, rows + c * row_bytes);
      writer.end_metric();
      return;
    }
    if (!source_ || is_derived(metric.kind) || metric.is_void) return;
    const Model& old = source_->model();
    if (m >= old.metrics.size() || !source_->report().has_data(m)) return;
    if (old.cnodes.size() != model.cnodes.size() || old.locations.size() != model.locations.size())
      throw FormatError("metric \"" + metric.uniq_name +
                        "\": call paths or locations were added since from_report; give its "
                        "values with set_values");
    auto matrix = source_->report().severities(m);
    if (!matrix) return;
    writer.begin_metric(m);
    for (Index c : storage_order(model, metric.kind))
      if (const std::byte* row = matrix->row(c)) writer.write_row(c, row);
    writer.end_metric();
  }

  std::shared_ptr<Model> model_;
  std::map<Index, py::array> arrays_;
  std::shared_ptr<Session> source_;
};

}  // namespace

void bind_builder(py::module_& m) {
  py::class_<Builder>(m, "NativeBuilder")
      .def(py::init<>())
      .def_static("from_report", &Builder::from_report, py::arg("report"))
      .def("add_metric", &Builder::add_metric, py::arg("name"), py::arg("dtype") = "DOUBLE",
           py::arg("kind") = "EXCLUSIVE", py::arg("display_name") = std::nullopt,
           py::arg("unit") = "sec", py::arg("description") = "", py::arg("url") = "",
           py::arg("parent") = std::nullopt, py::arg("expression") = "")
      .def("add_region", &Builder::add_region, py::arg("name"), py::arg("mangled_name") = "",
           py::arg("paradigm") = "user", py::arg("role") = "function", py::arg("module") = "",
           py::arg("begin") = -1, py::arg("end") = -1)
      .def("add_cnode", &Builder::add_cnode, py::arg("region"), py::arg("parent") = std::nullopt,
           py::arg("line") = -1)
      .def("add_system_node", &Builder::add_system_node, py::arg("name"),
           py::arg("class_name") = "machine", py::arg("parent") = std::nullopt)
      .def("add_location_group", &Builder::add_location_group, py::arg("name"), py::arg("node"),
           py::arg("rank") = 0, py::arg("type") = "process")
      .def("add_location", &Builder::add_location, py::arg("name"), py::arg("group"),
           py::arg("rank") = 0, py::arg("type") = "thread")
      .def("set_values", &Builder::set_values, py::arg("metric"), py::arg("values"))
      .def("save", &Builder::save, py::arg("path"), py::arg("compress") = false);
}

}  // namespace cubekit::python
