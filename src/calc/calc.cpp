#include "calc/kernels.hpp"

#include <algorithm>
#include <cstring>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/parallel.hpp"
#include "cubekit/row_folds.hpp"

namespace cubekit {

Values::Values(DataType type, size_t n)
    : type_(type), n_(n), stride_(type.memory_size()), words_((n * type.memory_size() + 7) / 8) {
  set_identity(type, data(), n);
}

double Values::scalar(size_t i) const {
  return cubekit::scalar(type_, at(i));
}

namespace {

// Value i of `values`, after checking that it exists and that its type is one of `accepted`.
const std::byte* checked_value(const Values& values, size_t i, bool accepted, const char* wanted) {
  if (i >= values.size())
    throw LookupError("no value at index " + std::to_string(i) + ": there are " +
                      std::to_string(values.size()));
  if (!accepted)
    throw Error("a value of type " + std::string(values.type().base_name()) + " is not " + wanted);
  return values.at(i);
}

bool is_signed_integer(LaneType lane) {
  return lane == LaneType::kInt8 || lane == LaneType::kInt16 || lane == LaneType::kInt32 ||
         lane == LaneType::kInt64;
}

}  // namespace

// Integers widen exactly through the conversion table (cubekit/algebra.hpp).
int64_t Values::int64(size_t i) const {
  const std::byte* p =
      checked_value(*this, i, is_signed_integer(type_.lane_type()), "a signed integer");
  int64_t out = 0;
  convert_values(type_, p, DataType(TypeKind::kInt64), reinterpret_cast<std::byte*>(&out), 1, "");
  return out;
}

uint64_t Values::uint64(size_t i) const {
  const std::byte* p = checked_value(
      *this, i, type_.is_integer() && !is_signed_integer(type_.lane_type()), "an unsigned integer");
  uint64_t out = 0;
  convert_values(type_, p, DataType(TypeKind::kUInt64), reinterpret_cast<std::byte*>(&out), 1, "");
  return out;
}

double Values::number(size_t i) const {
  return cubekit::scalar(type_,
                         checked_value(*this, i, type_.is_single_number(), "a single number"));
}

std::span<const double> Values::lanes(size_t i) const {
  const std::byte* p =
      checked_value(*this, i, type_.lane_type() == LaneType::kDouble, "a value kept as doubles");
  return {reinterpret_cast<const double*>(p), type_.lanes()};
}

namespace {

void require_stored(const Report& report, Index metric) {
  const Metric& m = report.model().metric(metric);
  if (is_derived(m.kind))
    throw CubePLError(report.path() + ": metric '" + m.uniq_name + "' is " +
                      metric_kind_name(m.kind) +
                      "; derived values come from cubekit::MetricEngine (derived.hpp)");
}

// Sub-metrics that store data along the metric tree (derived ones do not take part).
std::vector<Index> stored_children(const Model& model, Index metric) {
  std::vector<Index> out;
  for (Index k : model.metrics[metric].children)
    if (!is_derived(model.metrics[k].kind)) out.push_back(k);
  return out;
}

void add_row(const SeverityMatrix* matrix, Index cnode, Values& acc) {
  if (matrix == nullptr) return;
  if (const std::byte* row = matrix->row(cnode)) plus_rows(acc.type(), acc.data(), row, acc.size());
}

// acc (the identity) ⊕= a call path's own stored row. A SCALE_FUNC row is taken whole, as
// CubeLib takes a call path's row: its values keep the measurements they carry, which adding
// onto an empty value would drop (docs/models.md).
void start_with_own_row(const std::byte* row, Values& acc) {
  if (acc.type().kind() == TypeKind::kScaleFunc)
    std::memcpy(acc.data(), row, acc.size() * kScaleFuncSize);
  else
    plus_rows(acc.type(), acc.data(), row, acc.size());
}

// The stored rows of a few call paths (`wanted`; an empty row: none stored, the identity), from
// one pass over the metric's rows: those of the decoded matrix if the report holds it, else
// streamed from the file, where they lie when the layout allows. No call paths × locations
// matrix is decoded for the rows of one call path and its children (the viewer's system pane
// asks for those, and decoding a 250 MB metric took 0.3 s).
std::vector<std::vector<std::byte>> stored_rows(const Report& report, Index metric,
                                                const std::vector<Index>& wanted) {
  const Model& model = report.model();
  const size_t row_bytes = model.metrics[metric].dtype.memory_size() * model.locations.size();
  std::vector<int> slot(model.cnodes.size(), -1);
  for (size_t i = 0; i < wanted.size(); ++i) slot[wanted[i]] = static_cast<int>(i);
  std::vector<std::vector<std::byte>> rows(wanted.size());
  report.visit_rows(
      metric,
      [&](Index c, const std::byte* row) {
        if (slot[c] >= 0) rows[static_cast<size_t>(slot[c])].assign(row, row + row_bytes);
      },
      RowPlacement::kAnyAddress);
  return rows;
}

// v (the identity) ⊕= the stored rows of `order` (call paths, the first one's own row first), in
// that order, streamed: true when the metric's rows come in an order that keeps it (then v
// holds the sum), false otherwise (v is spoilt).
bool sum_rows_in_order(const Report& report, Index metric, const std::vector<Index>& order,
                       Values& v) {
  std::vector<size_t> position(report.model().cnodes.size(), SIZE_MAX);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  size_t next = 0;
  bool in_order = true;
  report.visit_rows(
      metric,
      [&](Index c, const std::byte* row) {
        const size_t at = position[c];
        if (at == SIZE_MAX || !in_order) return;
        in_order = at >= next;
        next = at + 1;
        if (in_order && at == 0) start_with_own_row(row, v);
        if (in_order && at != 0) plus_rows(v.type(), v.data(), row, v.size());
      },
      RowPlacement::kAligned);
  return in_order;
}

// One past the last position of each cnode's subtree in `order`, its pre-order (where a
// subtree is the run from the cnode's own position).
std::vector<size_t> subtree_ends(const Model& model, const std::vector<Index>& order) {
  std::vector<size_t> end(model.cnodes.size());
  for (size_t i = order.size(); i-- > 0;) {
    const auto& kids = model.cnodes[order[i]].children;
    end[order[i]] = kids.empty() ? i + 1 : end[kids.back()];
  }
  return end;
}

Values call_values(const Report& report, Index metric, Index cnode, Flavour call) {
  require_stored(report, metric);
  const Model& model = report.model();
  const Metric& m = model.metrics[metric];
  const auto& children = model.cnodes[cnode].children;
  // The rows it takes, in the order they are combined: a call path's own row, minus its
  // children's for the exclusive value of inclusive storage; plus its subtree's in pre-order
  // for the inclusive value of exclusive storage.
  std::vector<Index> rows{cnode};
  const bool subtree = !stores_inclusive(m.kind) && call == Flavour::kInclusive;
  if (stores_inclusive(m.kind) && call == Flavour::kExclusive)
    rows.insert(rows.end(), children.begin(), children.end());
  for (std::vector<Index> stack(children.rbegin(), children.rend()); subtree && !stack.empty();) {
    const Index c = stack.back();
    stack.pop_back();
    rows.push_back(c);
    const auto& kids = model.cnodes[c].children;
    stack.insert(stack.end(), kids.rbegin(), kids.rend());
  }
  Values v(m.dtype, model.locations.size());
  if (const auto matrix = report.severities_for_rows(metric)) {
    if (const std::byte* own = matrix->row(cnode)) start_with_own_row(own, v);
    for (size_t i = 1; i < rows.size(); ++i)
      if (const std::byte* row = matrix->row(rows[i]))
        (subtree ? plus_rows : minus_rows)(m.dtype, v.data(), row, v.size());
    return v;
  }
  if (subtree) {
    if (sum_rows_in_order(report, metric, rows, v)) return v;
    v = Values(m.dtype, model.locations.size());
    const auto matrix = report.severities(metric);
    if (const std::byte* own = matrix ? matrix->row(cnode) : nullptr) start_with_own_row(own, v);
    for (size_t i = 1; i < rows.size(); ++i) add_row(matrix.get(), rows[i], v);
    return v;
  }
  const auto stored = stored_rows(report, metric, rows);
  if (!stored[0].empty()) start_with_own_row(stored[0].data(), v);
  for (size_t i = 1; i < stored.size(); ++i)
    if (!stored[i].empty()) minus_rows(m.dtype, v.data(), stored[i].data(), v.size());
  return v;
}

// Each stored row folded over its locations: one value per cnode.
Values row_sums(const Report& report, Index metric) {
  const Model& model = report.model();
  const Metric& m = model.metrics[metric];
  Values sums(m.dtype, model.cnodes.size());
  if (is_derived(m.kind)) return sums;
  // Streamed: no C×L matrix is built just to sum its rows, and plain rows are folded where
  // they lie in the mapped file when the kernel allows it (zero copy).
  const size_t locations = model.locations.size();
  const RowPlacement placement =
      fold_reads_unaligned(m.dtype) ? RowPlacement::kAnyAddress : RowPlacement::kAligned;
  // Large metrics are streamed by all cores, each a contiguous share of the rows: a row belongs
  // to one cnode, so each sum is written by one thread, and every row is folded as alone.
  constexpr uint64_t kShareBytes = 64u << 20;
  const uint64_t bytes = uint64_t{m.dtype.memory_size()} * locations * model.cnodes.size();
  const size_t parts = bytes >= kShareBytes ? available_threads() : 1;
  // Rows that lie together are folded several at once (fold_rows: the same bits, faster).
  parallel_for(parts, [&](size_t part) {
    report.visit_row_runs(
        metric,
        [&](const Index* cnodes, size_t count, const std::byte* rows, size_t stride) {
          constexpr size_t kAtOnce = 8;
          std::byte* accs[kAtOnce];
          for (size_t j = 0; j < count; j += kAtOnce) {
            const size_t n = std::min(kAtOnce, count - j);
            for (size_t i = 0; i < n; ++i) accs[i] = sums.at(cnodes[j + i]);
            fold_rows(m.dtype, accs, rows + j * stride, stride, n, locations);
          }
        },
        placement, RowShare{part, parts});
  });
  return sums;
}

// Histogram ⊕ is not associative, so the grouping must be CubeLib's: one accumulator per cnode
// that takes every stored value of its subtree, cnode by cnode in pre-order and location by
// location within a cnode (checked against cube_dump 4.6). Per-cnode sums combined along the
// tree give different bins. The rows stream in storage order, which for exclusive storage is
// the pre-order: each row is folded into the accumulators of its call path and every ancestor,
// so each accumulator takes its subtree's rows in pre-order, and no matrix is held (a fresh
// copy of a large metric cost more than the folds of its rows). Each core streams the rows and
// folds into the accumulators of its share of the call paths.
Values histogram_inclusive(const Report& report, Index metric) {
  const Model& model = report.model();
  const Metric& m = model.metrics[metric];
  Values out(m.dtype, model.cnodes.size());
  const size_t locations = model.locations.size();
  const RowPlacement placement =
      fold_reads_unaligned(m.dtype) ? RowPlacement::kAnyAddress : RowPlacement::kAligned;
  const size_t threads = std::min<size_t>(available_threads(), model.cnodes.size());
  parallel_for(threads, [&](size_t share) {
    report.visit_rows(
        metric,
        [&](Index c, const std::byte* row) {
          for (Index a = c; a != kNoIndex; a = model.cnodes[a].parent)
            if (a % threads == share) fold_row(m.dtype, out.at(a), row, locations);
        },
        placement);
  });
  return out;
}

Values call_aggregated(const Report& report, Index metric, Flavour call,
                       const RowFolds& folds = {}) {
  require_stored(report, metric);
  const Model& model = report.model();
  const Metric& m = model.metrics[metric];
  if (folds && m.dtype.kind() == TypeKind::kHistogram)
    throw Error(report.path() + ": metric '" + m.uniq_name +
                "' is a HISTOGRAM: its values over all locations cannot come from row folds");
  if (m.dtype.kind() == TypeKind::kHistogram && !stores_inclusive(m.kind) &&
      call == Flavour::kInclusive)
    return histogram_inclusive(report, metric);
  Values sums = folds ? folds(report, metric) : row_sums(report, metric);
  if (stores_inclusive(m.kind) == (call == Flavour::kInclusive)) return sums;
  Values out(m.dtype, model.cnodes.size());
  if (stores_inclusive(m.kind)) {  // exclusive = own ⊖ each child's
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      plus_rows(m.dtype, out.at(c), sums.at(c), 1);
      for (Index k : model.cnodes[c].children) minus_rows(m.dtype, out.at(c), sums.at(k), 1);
    }
    return out;
  }
  // Inclusive of exclusive storage, as CubeLib adds it: each call path's value is one running
  // sum over its subtree in pre-order, call path first (its locations summed first). Grouping
  // the children's subtotals instead rounds differently, and metric-exclusive residues show
  // it (Cube 3 documents' `cube_dump -x excl`). A subtree is a contiguous range of the
  // pre-order; the cost is call paths × depth, so for trees deeper than that allows (unrolled
  // recursion) the subtotals are grouped: the same sums, up to rounding.
  const std::vector<Index> order = pre_order(model);
  const std::vector<size_t> end = subtree_ends(model, order);
  if (inclusive_sums_run(model)) {
    // The sums laid out in pre-order once: a subtree is then one run of values, folded by
    // fold_row (the same ⊕ steps in the same order, inlined for the single-number types)
    // instead of one plus_rows call per term.
    Values in_order(m.dtype, order.size());
    const size_t size = m.dtype.memory_size();
    for (size_t i = 0; i < order.size(); ++i) std::memcpy(in_order.at(i), sums.at(order[i]), size);
    for (size_t i = 0; i < order.size(); ++i)
      fold_row(m.dtype, out.at(order[i]), in_order.at(i), end[order[i]] - i);
    return out;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Index c = *it;
    plus_rows(m.dtype, out.at(c), sums.at(c), 1);
    for (Index k : model.cnodes[c].children) plus_rows(m.dtype, out.at(c), out.at(k), 1);
  }
  return out;
}

}  // namespace

bool inclusive_sums_run(const Model& model) {
  size_t work = 0;  // call paths × their depth
  std::vector<size_t> depth(model.cnodes.size());
  for (Index c : pre_order(model)) {
    const Index parent = model.cnodes[c].parent;
    depth[c] = parent == kNoIndex ? 1 : depth[parent] + 1;
    work += depth[c];
  }
  constexpr size_t kMaxWorkPerCallPath = 256;
  return work <= kMaxWorkPerCallPath * model.cnodes.size() + (size_t{1} << 20);
}

void visit_inclusive_rows(const Report& report, Index metric, const RowVisitor& visit) {
  require_stored(report, metric);
  const Model& model = report.model();
  const DataType type = model.metrics[metric].dtype;
  const size_t n = model.locations.size(), row_bytes = type.memory_size() * n;
  const size_t row_words = (row_bytes + 7) / 8;
  std::vector<uint64_t> words(row_words * (model.cnodes.size() + 1));  // the last: a sum
  std::vector<bool> stored(model.cnodes.size(), false);
  const auto row_of = [&](size_t c) { return reinterpret_cast<std::byte*>(&words[c * row_words]); };
  report.visit_rows(
      metric,
      [&](Index c, const std::byte* row) {
        std::memcpy(row_of(c), row, row_bytes);
        stored[c] = true;
      },
      RowPlacement::kAnyAddress);
  // call_values' first step: the identity ⊕ the call path's own row (a SCALE_FUNC row whole).
  const auto own_row = [&](Index c, std::byte* into) {
    set_identity(type, into, n);
    if (stored[c] && type.kind() == TypeKind::kScaleFunc) std::memcpy(into, row_of(c), row_bytes);
    if (stored[c] && type.kind() != TypeKind::kScaleFunc) plus_rows(type, into, row_of(c), n);
  };
  std::byte* sum = row_of(model.cnodes.size());
  if (stores_inclusive(model.metrics[metric].kind)) {
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      own_row(c, sum);
      visit(c, sum);
    }
    return;
  }
  const std::vector<Index> order = pre_order(model);
  if (!inclusive_sums_run(model)) {  // grouped: each row ⊕= its children's sums, in place
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      own_row(c, sum);
      std::memcpy(row_of(c), sum, row_bytes);
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (const Index parent = model.cnodes[*it].parent; parent != kNoIndex)
        plus_rows(type, row_of(parent), row_of(*it), n);
    for (Index c = 0; c < model.cnodes.size(); ++c) visit(c, row_of(c));
    return;
  }
  std::vector<size_t> position(order.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  const std::vector<size_t> end = subtree_ends(model, order);
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    own_row(c, sum);
    for (size_t i = position[c] + 1; i < end[c]; ++i)
      if (stored[order[i]]) plus_rows(type, sum, row_of(order[i]), n);
    visit(c, sum);
  }
}

Values stored_values(const Report& report, Index metric, Index cnode) {
  const Model& model = report.model();
  (void)model.cnode(cnode);  // LookupError when out of range
  Values v(model.metric(metric).dtype, model.locations.size());
  if (!is_derived(model.metrics[metric].kind)) add_row(report.severities(metric).get(), cnode, v);
  return v;
}

void subtract_sub_metric(const Report& report, Index parent, Index child, Values& values,
                         const Values& child_values) {
  const DataType to = values.type(), from = child_values.type();
  if (from == to)
    return minus_rows_unsnapped(to, values.data(), child_values.data(), values.size());
  auto plain = [](DataType t) { return t.is_integer() || t.kind() == TypeKind::kDouble; };
  const Model& model = report.model();
  if (!plain(from) || !plain(to))
    throw FormatError(report.path() + ": metric '" + model.metrics[parent].uniq_name + "' (dtype " +
                      to.dtype_text() + ") has the sub-metric '" + model.metrics[child].uniq_name +
                      "' of dtype " + from.dtype_text() +
                      ": its exclusive values would subtract values of another kind");
  Values converted(to, values.size());
  convert_values(from, child_values.data(), to, converted.data(), values.size(), "sub-metric");
  minus_rows_unsnapped(to, values.data(), converted.data(), values.size());
}

bool location_scalars(const Report& report, Index metric, Index cnode, Flavour call_flavour,
                      std::span<double> out) {
  const Model& model = report.model();
  const Metric& m = model.metric(metric);
  (void)model.cnode(cnode);  // LookupError when out of range
  const bool own_only = stores_inclusive(m.kind) == (call_flavour == Flavour::kInclusive);
  const bool is_double = m.dtype.kind() == TypeKind::kDouble;
  const bool minus_children = stores_inclusive(m.kind) && call_flavour == Flavour::kExclusive;
  if (is_derived(m.kind) || !m.dtype.is_single_number()) return false;
  if (!own_only && !(minus_children && is_double)) return false;  // a subtree's sum, or integers'

  const auto matrix = report.severities_for_rows(metric);
  if (matrix == nullptr) return false;
  const std::byte* own = matrix->row(cnode);
  if (!is_double) {  // an integer call path's own row: the identity (0) ⊕ it is itself
    if (own == nullptr) std::fill(out.begin(), out.end(), 0.0);
    if (own != nullptr) scalars(m.dtype, own, out.size(), out.data());
    return true;
  }
  // DOUBLE: call_values' steps on the doubles of `out` (0.0 + own turns a -0 into +0).
  auto* acc = reinterpret_cast<std::byte*>(out.data());
  set_identity(m.dtype, acc, out.size());
  if (own != nullptr) plus_rows(m.dtype, acc, own, out.size());
  if (minus_children)
    for (Index k : model.cnodes[cnode].children)
      if (const std::byte* row = matrix->row(k)) minus_rows(m.dtype, acc, row, out.size());
  return true;
}

Values location_values(const Report& report, Index metric, Index cnode, Flavour metric_flavour,
                       Flavour call_flavour) {
  (void)report.model().cnode(cnode);  // LookupError when out of range
  Values v = call_values(report, metric, cnode, call_flavour);
  if (metric_flavour == Flavour::kExclusive)
    for (Index k : stored_children(report.model(), metric)) {
      subtract_sub_metric(report, metric, k, v, call_values(report, k, cnode, call_flavour));
    }
  return v;
}

Values aggregated_values(const Report& report, Index metric, Flavour metric_flavour,
                         Flavour call_flavour) {
  return aggregated_values(report, metric, metric_flavour, call_flavour, RowFolds{});
}

Values aggregated_values(const Report& report, Index metric, Flavour metric_flavour,
                         Flavour call_flavour, const RowFolds& folds) {
  Values v = call_aggregated(report, metric, call_flavour, folds);
  if (metric_flavour == Flavour::kExclusive)
    for (Index k : stored_children(report.model(), metric)) {
      subtract_sub_metric(report, metric, k, v, call_aggregated(report, k, call_flavour, folds));
    }
  return v;
}

SystemValues system_values(const Report& report, const Values& per_location) {
  const Model& model = report.model();
  if (per_location.size() != model.locations.size())
    throw LookupError("system_values: " + std::to_string(per_location.size()) +
                      " values given, the report has " + std::to_string(model.locations.size()) +
                      " locations");
  SystemValues out{Values(per_location.type(), model.system_nodes.size()),
                   Values(per_location.type(), model.groups.size())};
  const DataType t = per_location.type();
  for (Index g = 0; g < model.groups.size(); ++g)
    for (Index l : model.groups[g].locations)
      plus_rows(t, out.groups.at(g), per_location.at(model.locations[l].id), 1);
  // Nodes are in pre-order: children come after parents, so walk backwards.
  for (Index n = static_cast<Index>(model.system_nodes.size()); n-- > 0;) {
    for (Index g : model.system_nodes[n].groups) plus_rows(t, out.nodes.at(n), out.groups.at(g), 1);
    for (Index k : model.system_nodes[n].children)
      plus_rows(t, out.nodes.at(n), out.nodes.at(k), 1);
  }
  return out;
}

Values region_values(const Report& report, Index metric, Flavour metric_flavour,
                     Flavour call_flavour) {
  return region_sums(report.model(),
                     aggregated_values(report, metric, metric_flavour, call_flavour));
}

Values region_sums(const Model& model, const Values& per_cnode) {
  if (per_cnode.size() != model.cnodes.size())
    throw LookupError("region_sums: " + std::to_string(per_cnode.size()) +
                      " values given, the report has " + std::to_string(model.cnodes.size()) +
                      " call paths");
  Values out(per_cnode.type(), model.regions.size());
  for (Index c = 0; c < model.cnodes.size(); ++c)
    plus_rows(out.type(), out.at(model.cnodes[c].region), per_cnode.at(c), 1);
  return out;
}

}  // namespace cubekit
