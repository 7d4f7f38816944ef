// Values of combined reports (report_algebra.hpp: write_combination): per stored metric of the
// unified definitions, one accumulator matrix (cnodes × locations of that metric), into which
// the rows of every input are streamed through its mapping; then the rows go to the writer in
// storage order. Memory: one metric of the result plus one input row.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>

#include "calc/kernels.hpp"
#include "core/huge_pages.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

// Memory a term's rows are prepared in, kept from input to input and metric to metric: once
// faulted in, its pages are not zeroed again by the kernel for the next input.
struct TermScratch {
  core::ReusedWords inclusive;  // an input metric's stored rows, row c for cnode c
  std::vector<bool> stored;     // whether cnode c has a stored row
  std::vector<uint64_t> row, prepared, negated;
};

std::byte* scratch_row(std::vector<uint64_t>& words, size_t bytes) {
  words.resize((bytes + 7) / 8);
  return reinterpret_cast<std::byte*>(words.data());
}

// The stored rows of input metric `metric`, copied into `scratch.inclusive` by cnode: one pass
// over the file, into memory reused from input to input (decoding the metric allocated it anew,
// and the kernel zeroed 100 MB of fresh pages per input and metric: 13% of cube_mean's time).
const uint64_t* gather_stored_rows(const Report& input, Index metric, TermScratch& scratch) {
  const DataType type = input.model().metrics[metric].dtype;
  const size_t bytes = type.memory_size() * input.model().locations.size();
  const size_t row_words = (bytes + 7) / 8, cnodes = input.model().cnodes.size();
  uint64_t* rows = scratch.inclusive.get(row_words * cnodes);
  scratch.stored.assign(cnodes, false);
  input.visit_rows(
      metric,
      [&](Index c, const std::byte* row) {
        std::memcpy(rows + c * row_words, row, bytes);
        scratch.stored[c] = true;
      },
      RowPlacement::kAnyAddress);
  return rows;
}

// The rows of input metric `metric` with call-tree flavour `flavour` (per location,
// metric-inclusive as stored), in the input's type. Stored rows are streamed as they lie (at any
// address with kAnyAddress); another flavour, and a derived metric stored in the result, is
// computed per call path.
void visit_flavoured(const Report& input, Index metric, Flavour flavour, RowPlacement placement,
                     TermScratch& scratch, const RowVisitor& visit) {
  const Metric& m = input.model().metrics[metric];
  const bool derived = is_derived(m.kind);
  if (!derived && !input.has_data(metric)) return;
  if (!derived && stores_inclusive(m.kind) == (flavour == Flavour::kInclusive))
    return input.visit_rows(metric, visit, placement);
  const size_t n = input.model().locations.size();
  const size_t row_words = (m.dtype.memory_size() * n + 7) / 8;
  std::byte* row = scratch_row(scratch.row, m.dtype.memory_size() * n);
  if (!derived && flavour == Flavour::kExclusive) {
    // Stored inclusive: the call path's own row ⊖ each child's, the engine's arithmetic
    // (location_values) done here into one reused row, without a row allocated and copied
    // per call path.
    const uint64_t* rows = gather_stored_rows(input, metric, scratch);
    const auto stored_row = [&](Index c) {
      return reinterpret_cast<const std::byte*>(rows + c * row_words);
    };
    for (Index c = 0; c < input.model().cnodes.size(); ++c) {
      set_identity(m.dtype, row, n);
      if (scratch.stored[c]) plus_rows(m.dtype, row, stored_row(c), n);
      for (Index k : input.model().cnodes[c].children)
        if (scratch.stored[k]) minus_rows(m.dtype, row, stored_row(k), n);
      visit(c, row);
    }
    input.drop(metric);
    return;
  }
  if (!derived) {  // stored exclusive, asked inclusive
    visit_inclusive_rows(input, metric, visit);
    input.drop(metric);
    return;
  }
  MetricEngine engine(input);
  for (Index c = 0; c < input.model().cnodes.size(); ++c) {
    const Values v = engine.location_values(metric, c, Flavour::kInclusive, flavour);
    // The engine answers derived metrics in DOUBLE or their integer type.
    convert_values(v.type(), v.data(), m.dtype, row, n,
                   input.path() + ": metric '" + m.uniq_name + "'");
    visit(c, row);
  }
}

// One metric's values for every unified cnode and location, identity-initialised, in memory
// that the next metric's accumulator takes over (`words`): pages once faulted in stay, instead
// of a fresh allocation's faults and zeroing for every metric.
class Accumulator {
 public:
  Accumulator(DataType type, size_t cnodes, size_t locations, core::ReusedWords& words)
      : type_(type),
        locations_(locations),
        row_words_((type.memory_size() * locations + 7) / 8),
        words_(words.get(row_words_ * cnodes)) {
    for (size_t c = 0; c < cnodes; ++c) set_identity(type, row(c), locations);
  }
  std::byte* row(size_t cnode) { return reinterpret_cast<std::byte*>(words_ + cnode * row_words_); }
  std::byte* value(size_t cnode, size_t location) {
    return row(cnode) + location * type_.memory_size();
  }
  DataType type() const { return type_; }
  size_t locations() const { return locations_; }

 private:
  DataType type_;
  size_t locations_;
  size_t row_words_;
  uint64_t* words_;
};

// x[i] = −x[i]: integers modulo their width, a scale function term by term (identity ⊖ x),
// numbers of MIN/MAXDOUBLE and the lanes of the other types negated as doubles. `scratch` is
// reused from row to row (no allocation and zeroing per row).
void negate_row(DataType type, std::byte* x, size_t n, const std::string& what,
                std::vector<uint64_t>& scratch) {
  if (!type.is_integer() && type.kind() != TypeKind::kDouble && type.kind() != TypeKind::kScaleFunc)
    return scale_values(type, x, n, -1, what);
  scratch.resize((type.memory_size() * n + 7) / 8);
  std::byte* z = reinterpret_cast<std::byte*>(scratch.data());
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

// Sets or ⊕-es one converted input row into row `to` of the accumulator, column by column
// through the location mapping unless the columns are the same.
void put_row(Accumulator& acc, Index to, const std::byte* x, const InputMapping& map,
             bool same_columns, bool set) {
  const DataType type = acc.type();
  const size_t size = type.memory_size();
  const size_t n = map.location.size();
  if (same_columns) {
    if (set)
      std::memcpy(acc.row(to), x, size * n);
    else
      plus_rows(type, acc.row(to), x, n);
    return;
  }
  for (size_t l = 0; l < n; ++l) {
    const Index col = map.location[l];
    if (col == kNoIndex) continue;
    if (set)
      std::memcpy(acc.value(to, col), x + l * size, size);
    else
      plus_rows(type, acc.value(to, col), x + l * size, 1);
  }
}

// Hands one input's rows to `visit` prepared as they are added: converted to the result's type,
// scaled or negated, the rows of call paths mapped nowhere (or folded) left out. Rows that are
// prepared are read at any address and scaled straight into the prepared row (no copy first).
void prepare_rows(const Term& t, DataType type, Flavour flavour, const std::string& what,
                  TermScratch& scratch, const CombinationRowVisitor& visit) {
  const Metric& in = t.input->model().metrics[t.metric];
  const size_t n = t.input->model().locations.size();
  std::byte* tmp = scratch_row(scratch.prepared, type.memory_size() * n);
  const Model& model = t.input->model();
  const bool as_it_lies = in.dtype == type && t.factor == 1 && !t.negate;
  const RowPlacement placement = as_it_lies ? RowPlacement::kAligned : RowPlacement::kAnyAddress;
  visit_flavoured(*t.input, t.metric, flavour, placement, scratch,
                  [&](Index c, const std::byte* row) {
                    const Index to = t.map->cnode[c];
                    if (to == kNoIndex) return;
                    // An inclusive value already holds those of the call paths folded into it.
                    const Index parent = model.cnodes[c].parent;
                    if (t.only_unfolded && parent != kNoIndex && t.map->cnode[parent] == to) return;
                    if (as_it_lies) return visit(to, row);
                    if (in.dtype == type && !t.negate) {
                      scale_values(type, row, tmp, n, t.factor, what);
                      return visit(to, tmp);
                    }
                    convert_values(in.dtype, row, type, tmp, n, what);
                    if (t.factor != 1) scale_values(type, tmp, n, t.factor, what);
                    if (t.negate) negate_row(type, tmp, n, what, scratch.negated);
                    visit(to, tmp);
                  });
}

// Sets or ⊕-es one prepared row in at its call path. With `callers_of` (the result's call tree)
// the row is also ⊕-ed into each caller of that call path in turn, up to the root: exclusive
// terms of a metric stored inclusive, added as CubeLib does (see `affordable`).
void fold_row(Accumulator& acc, Index to, const std::byte* row, const InputMapping& map,
              bool same_columns, bool set, const Model* callers_of) {
  put_row(acc, to, row, map, same_columns, set);
  if (!callers_of) return;
  for (Index at = callers_of->cnodes[to].parent; at != kNoIndex; at = callers_of->cnodes[at].parent)
    put_row(acc, at, row, map, same_columns, set);
}

// Exclusive values into inclusive ones: every row ⊕= its descendants (children before parents).
void make_inclusive(Accumulator& acc, const Model& model) {
  const std::vector<Index> order = pre_order(model);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Index parent = model.cnodes[*it].parent;
    if (parent != kNoIndex) plus_rows(acc.type(), acc.row(parent), acc.row(*it), acc.locations());
  }
}

// Input i's term of result metric `metric`; nothing when the input lacks it.
std::optional<Term> term_of(const std::vector<const Report*>& inputs,
                            const std::vector<InputMapping>& maps, size_t i, Index metric,
                            MetricKind metric_kind, Combination how) {
  Index from = kNoIndex;
  for (Index m = 0; m < maps[i].metric.size(); ++m)
    if (maps[i].metric[m] == metric) from = m;
  if (from == kNoIndex) return std::nullopt;
  Term t{inputs[i], &maps[i], from};
  if (how == Combination::kMean) t.factor = 1.0 / static_cast<double>(inputs.size());
  if (how == Combination::kDiff && i == 1) t.negate = true;
  if (how == Combination::kFold) t.only_unfolded = stores_inclusive(metric_kind);
  return t;
}

// Mean and sum add call-exclusive values (mean truncates each term for integers); merge and
// diff take the flavour the metric stores.
Flavour term_flavour(MetricKind kind, Combination how) {
  const bool exclusive_terms = how == Combination::kMean || how == Combination::kSum;
  return stores_inclusive(kind) && !exclusive_terms ? Flavour::kInclusive : Flavour::kExclusive;
}

std::string metric_what(const std::string& path, const Metric& metric) {
  return path + ": metric '" + metric.uniq_name + "'";
}

// The rows input `input` adds to `metric` (visit_combination_rows), prepared in `scratch`.
void visit_term_rows(const std::vector<const Report*>& inputs,
                     const std::vector<InputMapping>& maps, const Model& definitions,
                     Combination how, Index metric, size_t input, const std::string& path,
                     TermScratch& scratch, const CombinationRowVisitor& visit) {
  const Metric& m = definitions.metrics.at(metric);
  const std::optional<Term> t = term_of(inputs, maps, input, metric, m.kind, how);
  if (t) prepare_rows(*t, m.dtype, term_flavour(m.kind, how), metric_what(path, m), scratch, visit);
}

// The rows read in this process.
class LocalRows : public CombinationRows {
 public:
  LocalRows(const std::vector<const Report*>& inputs, const std::vector<InputMapping>& maps,
            const Model& out, Combination how, const std::string& path)
      : inputs_(inputs), maps_(maps), out_(out), how_(how), path_(path) {}
  void visit(Index metric, size_t input, const CombinationRowVisitor& visit) override {
    visit_term_rows(inputs_, maps_, out_, how_, metric, input, path_, scratch_, visit);
  }

 private:
  const std::vector<const Report*>& inputs_;
  const std::vector<InputMapping>& maps_;
  const Model& out_;
  Combination how_;
  const std::string& path_;
  TermScratch scratch_;
};

}  // namespace

bool combination_stores(const Metric& m) {
  return !is_derived(m.kind) && !m.is_void;
}

void visit_combination_rows(const std::vector<const Report*>& inputs,
                            const std::vector<InputMapping>& maps, const Model& definitions,
                            Combination how, Index metric, size_t input, const std::string& path,
                            const CombinationRowVisitor& visit) {
  TermScratch scratch;
  visit_term_rows(inputs, maps, definitions, how, metric, input, path, scratch, visit);
}

void write_combination(const std::vector<const Report*>& inputs,
                       const std::vector<InputMapping>& maps,
                       std::shared_ptr<const Model> definitions, Combination how,
                       const std::string& path, const WriteOptions& options,
                       CombinationRows* rows) {
  if (inputs.size() != maps.size()) throw Error(path + ": one mapping per input is needed");
  for (const Report* in : inputs) {
    std::error_code ec;  // an output that does not exist yet is no input
    if (std::filesystem::equivalent(in->path(), path, ec))
      throw Error(path + ": the output would overwrite the input " + in->path());
  }
  const Model& out = *definitions;
  LocalRows local(inputs, maps, out, how, path);
  if (!rows) rows = &local;
  ReportWriter writer(path, definitions, options);
  // Exclusive terms are added into an inclusive result as CubeLib adds them: each term at its
  // call path and then at every caller, one term after another (input by input, call paths in
  // the input's order), so that a call path's value is one running sum over the terms of its
  // subtree. Grouping the children's subtotals instead rounds differently, and the
  // metric-exclusive residues of zeros show it (cube_cut and cube_mean of summary.cubex). For
  // trees too deep for running sums the subtotals are grouped (make_inclusive), as the engine
  // does (docs/compatibility.md, "The order of CubeLib's arithmetic").
  const bool affordable = inclusive_sums_run(out);
  std::vector<bool> same_columns;
  for (const InputMapping& map : maps)
    same_columns.push_back(identity_mapping(map.location, out.locations.size()));
  core::ReusedWords words;  // the accumulators' memory, metric after metric
  for (Index m = 0; m < out.metrics.size(); ++m) {
    const Metric& metric = out.metrics[m];
    if (!combination_stores(metric)) continue;
    const bool inclusive = stores_inclusive(metric.kind);
    const Flavour flavour = term_flavour(metric.kind, how);
    const bool set = how == Combination::kMerge || (how == Combination::kFold && inclusive);
    Accumulator acc(metric.dtype, out.cnodes.size(), out.locations.size(), words);
    const bool to_inclusive = inclusive && flavour == Flavour::kExclusive;
    const bool along_callers = to_inclusive && affordable;
    rows->begin_metric(m);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!term_of(inputs, maps, i, m, metric.kind, how)) continue;
      rows->visit(m, i, [&](Index to, const std::byte* row) {
        fold_row(acc, to, row, maps[i], same_columns[i], set, along_callers ? &out : nullptr);
      });
    }
    rows->end_metric(m);
    if (to_inclusive && !along_callers) make_inclusive(acc, out);
    writer.begin_metric(m);
    for (Index c : storage_order(out, metric.kind)) writer.write_row(c, acc.row(c));
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace cubekit
