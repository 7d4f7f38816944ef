// Values of combined reports (report_algebra.hpp: write_combination): per stored metric of the
// unified definitions, one accumulator matrix (cnodes × locations of that metric), into which
// the rows of every input are streamed through its mapping; then the rows go to the writer in
// storage order. Memory: one metric of the result plus one input row.
#include <cmath>
#include <cstring>
#include <filesystem>

#include "cubekit/algebra.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

bool stored_inclusive(MetricKind k) {
  return k == MetricKind::kInclusive || k == MetricKind::kSimple;
}

// The rows of input metric `metric` with call-tree flavour `flavour` (per location,
// metric-inclusive as stored), in the input's type. Stored rows are streamed as they lie;
// another flavour, and a derived metric stored in the result, is computed per call path.
void visit_flavoured(const Report& input, Index metric, Flavour flavour, const RowVisitor& visit) {
  const Metric& m = input.model().metrics[metric];
  const bool derived = is_derived(m.kind);
  if (!derived && !input.has_data(metric)) return;
  if (!derived && stored_inclusive(m.kind) == (flavour == Flavour::kInclusive))
    return input.visit_rows(metric, visit);
  MetricEngine engine(input);
  const size_t n = input.model().locations.size();
  std::vector<uint64_t> buffer((m.dtype.memory_size() * n + 7) / 8);
  std::byte* row = reinterpret_cast<std::byte*>(buffer.data());
  for (Index c = 0; c < input.model().cnodes.size(); ++c) {
    const Values v = engine.location_values(metric, c, Flavour::kInclusive, flavour);
    // The engine answers derived metrics in DOUBLE or their integer type.
    convert_values(v.type(), v.data(), m.dtype, row, n,
                   input.path() + ": metric '" + m.uniq_name + "'");
    visit(c, row);
  }
  if (!derived) input.drop(metric);
}

// One metric's values for every unified cnode and location, identity-initialised.
class Accumulator {
 public:
  Accumulator(DataType type, size_t cnodes, size_t locations)
      : type_(type),
        locations_(locations),
        row_words_((type.memory_size() * locations + 7) / 8),
        words_(row_words_ * cnodes) {
    for (size_t c = 0; c < cnodes; ++c) set_identity(type, row(c), locations);
  }
  std::byte* row(size_t cnode) {
    return reinterpret_cast<std::byte*>(words_.data() + cnode * row_words_);
  }
  std::byte* value(size_t cnode, size_t location) {
    return row(cnode) + location * type_.memory_size();
  }
  DataType type() const { return type_; }
  size_t locations() const { return locations_; }

 private:
  DataType type_;
  size_t locations_;
  size_t row_words_;
  std::vector<uint64_t> words_;
};

// x[i] = cast(x[i] × factor): integers truncate toward zero, as CubeLib's Value::operator*=.
void scale_row(DataType type, std::byte* x, size_t n, double factor, const std::string& what) {
  if (scale_lanes(type, x, n, factor)) return;
  std::vector<double> d(n);
  convert_values(type, x, DataType(TypeKind::kDouble), reinterpret_cast<std::byte*>(d.data()), n,
                 what);
  for (double& v : d) v *= factor;
  convert_values(DataType(TypeKind::kDouble), reinterpret_cast<const std::byte*>(d.data()), type, x,
                 n, what);
}

// x[i] = −x[i]: integers modulo their width, a scale function term by term (identity ⊖ x),
// numbers of MIN/MAXDOUBLE and the lanes of the other types negated as doubles.
void negate_row(DataType type, std::byte* x, size_t n, const std::string& what) {
  if (!type.is_integer() && type.kind() != TypeKind::kDouble &&
      type.kind() != TypeKind::kScaleFunc)
    return scale_row(type, x, n, -1, what);
  std::vector<uint64_t> zero((type.memory_size() * n + 7) / 8);
  std::byte* z = reinterpret_cast<std::byte*>(zero.data());
  set_identity(type, z, n);
  minus_rows(type, z, x, n);
  std::memcpy(x, z, type.memory_size() * n);
}

bool identity_mapping(const std::vector<Index>& location, size_t unified) {
  if (location.size() != unified) return false;
  for (Index l = 0; l < location.size(); ++l)
    if (location[l] != l) return false;
  return true;
}

struct Term {
  const Report* input;
  const InputMapping* map;
  Index metric;  // in the input
  double factor = 1;
  bool negate = false;
  bool only_unfolded = false;  // rows of call paths mapped onto their caller's target skipped
};

// Streams one input's rows into the accumulator: converted to the result's type, scaled or
// negated, then set (merge) or ⊕-ed in at the mapped cnode and locations.
void accumulate(Accumulator& acc, const Term& t, Flavour flavour, bool set,
                const std::string& what) {
  const Metric& in = t.input->model().metrics[t.metric];
  const size_t n = t.input->model().locations.size();
  const DataType type = acc.type();
  const size_t size = type.memory_size();
  const bool same_columns = identity_mapping(t.map->location, acc.locations());
  std::vector<uint64_t> buffer((size * n + 7) / 8);
  std::byte* tmp = reinterpret_cast<std::byte*>(buffer.data());
  const Model& model = t.input->model();
  visit_flavoured(*t.input, t.metric, flavour, [&](Index c, const std::byte* row) {
    const Index to = t.map->cnode[c];
    if (to == kNoIndex) return;
    // An inclusive value already holds those of the call paths folded into it.
    const Index parent = model.cnodes[c].parent;
    if (t.only_unfolded && parent != kNoIndex && t.map->cnode[parent] == to) return;
    convert_values(in.dtype, row, type, tmp, n, what);
    if (t.factor != 1) scale_row(type, tmp, n, t.factor, what);
    if (t.negate) negate_row(type, tmp, n, what);
    if (same_columns) {
      if (set)
        std::memcpy(acc.row(to), tmp, size * n);
      else
        plus_rows(type, acc.row(to), tmp, n);
      return;
    }
    for (size_t l = 0; l < n; ++l) {
      const Index col = t.map->location[l];
      if (col == kNoIndex) continue;
      if (set)
        std::memcpy(acc.value(to, col), tmp + l * size, size);
      else
        plus_rows(type, acc.value(to, col), tmp + l * size, 1);
    }
  });
}

// Exclusive values into inclusive ones: every row ⊕= its descendants (children before parents).
void make_inclusive(Accumulator& acc, const Model& model) {
  const std::vector<Index> order = pre_order(model);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Index parent = model.cnodes[*it].parent;
    if (parent != kNoIndex) plus_rows(acc.type(), acc.row(parent), acc.row(*it), acc.locations());
  }
}

std::vector<Term> terms_of(const std::vector<const Report*>& inputs,
                           const std::vector<InputMapping>& maps, Index metric,
                           MetricKind metric_kind, Combination how) {
  std::vector<Term> terms;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Index from = kNoIndex;
    for (Index m = 0; m < maps[i].metric.size(); ++m)
      if (maps[i].metric[m] == metric) from = m;
    if (from == kNoIndex) continue;
    Term t{inputs[i], &maps[i], from};
    if (how == Combination::kMean) t.factor = 1.0 / static_cast<double>(inputs.size());
    if (how == Combination::kDiff && i == 1) t.negate = true;
    if (how == Combination::kFold) t.only_unfolded = stored_inclusive(metric_kind);
    terms.push_back(t);
  }
  return terms;
}

}  // namespace

void write_combination(const std::vector<const Report*>& inputs,
                       const std::vector<InputMapping>& maps,
                       std::shared_ptr<const Model> definitions, Combination how,
                       const std::string& path, const WriteOptions& options) {
  if (inputs.size() != maps.size()) throw Error(path + ": one mapping per input is needed");
  for (const Report* in : inputs) {
    std::error_code ec;  // an output that does not exist yet is no input
    if (std::filesystem::equivalent(in->path(), path, ec))
      throw Error(path + ": the output would overwrite the input " + in->path());
  }
  const Model& out = *definitions;
  ReportWriter writer(path, definitions, options);
  for (Index m = 0; m < out.metrics.size(); ++m) {
    const Metric& metric = out.metrics[m];
    if (is_derived(metric.kind) || metric.is_void) continue;
    const std::string what = path + ": metric '" + metric.uniq_name + "'";
    // Mean and sum add call-exclusive values (mean truncates each term for integers); merge and
    // diff take the flavour the metric stores.
    const bool inclusive = stored_inclusive(metric.kind);
    const bool exclusive_terms = how == Combination::kMean || how == Combination::kSum;
    const Flavour flavour =
        inclusive && !exclusive_terms ? Flavour::kInclusive : Flavour::kExclusive;
    const bool set = how == Combination::kMerge || (how == Combination::kFold && inclusive);
    Accumulator acc(metric.dtype, out.cnodes.size(), out.locations.size());
    for (const Term& t : terms_of(inputs, maps, m, metric.kind, how))
      accumulate(acc, t, flavour, set, what);
    if (inclusive && flavour == Flavour::kExclusive) make_inclusive(acc, out);
    writer.begin_metric(m);
    for (Index c : storage_order(out, metric.kind)) writer.write_row(c, acc.row(c));
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace cubekit
