#include "cubekit/model.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "cubekit/error.hpp"

namespace cubekit {

namespace {

// The type= texts of metrics, both ways; "DERIVED" is CubeLib's older name for POSTDERIVED.
constexpr std::pair<std::string_view, MetricKind> kKindNames[] = {
    {"EXCLUSIVE", MetricKind::kExclusive},
    {"INCLUSIVE", MetricKind::kInclusive},
    {"SIMPLE", MetricKind::kSimple},
    {"POSTDERIVED", MetricKind::kPostDerived},
    {"PREDERIVED_INCLUSIVE", MetricKind::kPrederivedInclusive},
    {"PREDERIVED_EXCLUSIVE", MetricKind::kPrederivedExclusive},
    {"DERIVED", MetricKind::kPostDerived},
};

}  // namespace

const char* metric_kind_name(MetricKind kind) {
  for (const auto& [name, k] : kKindNames)
    if (k == kind) return name.data();
  return "EXCLUSIVE";
}

std::optional<MetricKind> metric_kind_from_name(std::string_view name) {
  for (const auto& [text, kind] : kKindNames)
    if (text == name) return kind;
  return std::nullopt;
}

bool is_derived(MetricKind kind) {
  return kind == MetricKind::kPostDerived || kind == MetricKind::kPrederivedInclusive ||
         kind == MetricKind::kPrederivedExclusive;
}

bool stores_inclusive(MetricKind kind) {
  return kind == MetricKind::kInclusive || kind == MetricKind::kSimple;
}

namespace {

template <class T>
std::vector<Index> roots_of(const std::vector<T>& items) {
  std::vector<Index> roots;
  for (Index i = 0; i < items.size(); ++i)
    if (items[i].parent == kNoIndex) roots.push_back(i);
  return roots;
}

}  // namespace

std::vector<Index> Model::metric_roots() const {
  return roots_of(metrics);
}
void sort_by_cnode_id(const Model& model, std::vector<Index>& cnodes) {
  std::stable_sort(cnodes.begin(), cnodes.end(),
                   [&](Index a, Index b) { return model.cnodes[a].id < model.cnodes[b].id; });
}

bool order_children_by_id(Model& model) {
  bool changed = false;
  auto by_id = [&](Index a, Index b) { return model.cnodes[a].id < model.cnodes[b].id; };
  for (Cnode& c : model.cnodes) {
    if (std::is_sorted(c.children.begin(), c.children.end(), by_id)) continue;
    sort_by_cnode_id(model, c.children);
    changed = true;
  }
  return changed;
}

std::vector<Index> Model::cnode_roots() const {
  return roots_of(cnodes);
}
std::vector<Index> Model::system_roots() const {
  return roots_of(system_nodes);
}

namespace {

template <class Entity>
const Entity& checked(const std::vector<Entity>& all, Index i, const char* what) {
  if (i >= all.size())
    throw LookupError(std::string("no ") + what + " at index " + std::to_string(i) +
                      ": the report has " + std::to_string(all.size()));
  return all[i];
}

}  // namespace

const Metric& Model::metric(Index i) const {
  return checked(metrics, i, "metric");
}
const Region& Model::region(Index i) const {
  return checked(regions, i, "region");
}
const Cnode& Model::cnode(Index i) const {
  return checked(cnodes, i, "call path");
}
const Location& Model::location(Index i) const {
  return checked(locations, i, "location");
}

std::optional<Index> Model::metric_by_uniq_name(std::string_view name) const {
  auto it = metric_by_name_.find(std::string(name));
  if (it == metric_by_name_.end()) return std::nullopt;
  return it->second;
}

Index Model::find_metric(std::string_view uniq_name) const {
  if (auto found = metric_by_uniq_name(uniq_name)) return *found;
  throw LookupError("no metric named '" + std::string(uniq_name) + "' in the report");
}

namespace {

// The first of `candidates` (in order) whose region name starts `path` and whose subtree holds
// the rest of it after the '/'.
std::optional<Index> call_path_below(const Model& model, const std::vector<Index>& candidates,
                                     std::string_view path) {
  for (Index c : candidates) {
    const std::string& name = model.regions[model.cnodes[c].region].name;
    if (!path.starts_with(name)) continue;
    if (path.size() == name.size()) return c;
    if (path[name.size()] != '/') continue;
    auto below = call_path_below(model, model.cnodes[c].children, path.substr(name.size() + 1));
    if (below) return below;
  }
  return std::nullopt;
}

}  // namespace

Index Model::find_call_path(std::string_view path) const {
  if (auto found = call_path_below(*this, cnode_roots(), path)) return *found;
  throw LookupError("no call path '" + std::string(path) +
                    "' in the report (region names from a root, joined by '/')");
}

std::optional<Index> Model::cnode_by_id(uint32_t id) const {
  if (!cnode_by_dense_id_.empty()) {
    if (id >= cnode_by_dense_id_.size() || cnode_by_dense_id_[id] == kNoIndex) return std::nullopt;
    return cnode_by_dense_id_[id];
  }
  auto it = cnode_by_id_.find(id);
  if (it == cnode_by_id_.end()) return std::nullopt;
  return it->second;
}

struct SharedText::Block {
  std::atomic<uint32_t> refs;
  const std::string text;
};

SharedText::SharedText(std::string text) {
  if (!text.empty()) block_ = new Block{{1}, std::move(text)};
}

SharedText::SharedText(const SharedText& other) noexcept : block_(other.block_) {
  if (block_) block_->refs.fetch_add(1, std::memory_order_relaxed);
}

SharedText& SharedText::operator=(const SharedText& other) noexcept {
  SharedText copy(other);
  std::swap(block_, copy.block_);
  return *this;
}

SharedText& SharedText::operator=(SharedText&& other) noexcept {
  std::swap(block_, other.block_);
  return *this;
}

SharedText::~SharedText() {
  if (block_ && block_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete block_;
}

const std::string& SharedText::str() const noexcept {
  static const std::string empty;
  return block_ ? block_->text : empty;
}

const SharedText& SharedText::thread() {
  static const SharedText text("thread");
  return text;
}

const SharedText& SharedText::process() {
  static const SharedText text("process");
  return text;
}

std::ostream& operator<<(std::ostream& out, const SharedText& text) {
  return out << text.view();
}

void Topology::add_coord(Owner owner, uint32_t owner_id, std::span<const int64_t> numbers) {
  if (values.size() + numbers.size() > UINT32_MAX)
    throw std::length_error("topology '" + name + "': 2^32 coordinate numbers or more");
  coords.push_back({owner, owner_id, static_cast<uint32_t>(values.size()),
                    static_cast<uint32_t>(numbers.size())});
  values.insert(values.end(), numbers.begin(), numbers.end());
}

Attributes::Attributes(std::initializer_list<value_type> items) {
  if (items.size() != 0) list_ = std::make_unique<std::vector<value_type>>(items);
}

Attributes::Attributes(const Attributes& other) {
  if (!other.empty()) list_ = std::make_unique<std::vector<value_type>>(*other.list_);
}

Attributes& Attributes::operator=(const Attributes& other) {
  if (this != &other) *this = Attributes(other);
  return *this;
}

std::vector<Attributes::value_type>& Attributes::list() {
  if (!list_) list_ = std::make_unique<std::vector<value_type>>();
  return *list_;
}

bool operator==(const Attributes& a, const Attributes& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void set_attributes(Attributes& into, const Attributes& from) {
  for (const auto& attr : from) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const auto& kv) { return kv.first == attr.first; });
    if (it != into.end())
      it->second = attr.second;
    else
      into.push_back(attr);
  }
}

const std::string* Model::attr(std::string_view key) const {
  for (const auto& [k, v] : attrs)
    if (k == key) return &v;
  return nullptr;
}

namespace {

// Whether ids below `most` (the largest plus one) are few enough, for `count` of them, to be
// looked up in a table indexed by id: Score-P and CubeLib number them 0 to count-1.
bool dense_ids(uint64_t most, size_t count) {
  return most <= 2 * uint64_t{count} + 64;
}

template <class Entity>
uint64_t ids_below(const std::vector<Entity>& entities) {
  uint64_t most = 0;
  for (const Entity& e : entities) most = std::max<uint64_t>(most, uint64_t{e.id} + 1);
  return most;
}

}  // namespace

void Model::check_region_ids(const std::string& where) const {
  const auto twice = [&](uint32_t id) {
    return FormatError(where + ": region id " + std::to_string(id) + " declared twice");
  };
  if (const uint64_t most = ids_below(regions); dense_ids(most, regions.size())) {
    std::vector<bool> seen(most, false);
    for (const Region& r : regions) {
      if (seen[r.id]) throw twice(r.id);
      seen[r.id] = true;
    }
    return;
  }
  // Sized at once: grown by rehashing, the tables took a fifth of finalize's time for 50,000
  // call paths.
  std::unordered_set<uint32_t> ids;
  ids.reserve(regions.size());
  for (const Region& r : regions)
    if (!ids.insert(r.id).second) throw twice(r.id);
}

void Model::index_cnode_ids(const std::string& where) {
  const auto twice = [&](uint32_t id) {
    return FormatError(where + ": cnode id " + std::to_string(id) + " declared twice");
  };
  cnode_by_dense_id_.clear();
  if (const uint64_t most = ids_below(cnodes); dense_ids(most, cnodes.size()) && most > 0) {
    cnode_by_dense_id_.assign(most, kNoIndex);
    for (Index i = 0; i < cnodes.size(); ++i) {
      Index& slot = cnode_by_dense_id_[cnodes[i].id];
      if (slot != kNoIndex) throw twice(cnodes[i].id);
      slot = i;
    }
    return;
  }
  cnode_by_id_.reserve(cnodes.size());
  for (Index i = 0; i < cnodes.size(); ++i)
    if (!cnode_by_id_.try_emplace(cnodes[i].id, i).second) throw twice(cnodes[i].id);
}

void Model::finalize(const std::string& where) {
  metric_by_name_.clear();
  cnode_by_id_.clear();
  std::unordered_set<uint32_t> ids;
  for (Index i = 0; i < metrics.size(); ++i) {
    if (!ids.insert(metrics[i].id).second)
      throw FormatError(where + ": metric id " + std::to_string(metrics[i].id) + " declared twice");
    metric_by_name_.try_emplace(metrics[i].uniq_name, i);
    // VOID is inherited by sub-metrics (cube-format.md §3.6.2).
    if (metrics[i].val == "VOID" ||
        (metrics[i].parent != kNoIndex && metrics[metrics[i].parent].is_void))
      metrics[i].is_void = true;
  }
  check_region_ids(where);
  index_cnode_ids(where);
  std::vector<bool> seen(locations.size(), false);
  for (const Location& l : locations) {
    if (l.id >= locations.size())
      throw FormatError(where + ": location id " + std::to_string(l.id) + " out of range: the " +
                        std::to_string(locations.size()) + " locations must have ids 0.." +
                        std::to_string(locations.size() - 1));
    if (seen[l.id])
      throw FormatError(where + ": location id " + std::to_string(l.id) + " declared twice");
    seen[l.id] = true;
  }
}

std::vector<Index> pre_order(const Model& model) {
  std::vector<Index> order;
  order.reserve(model.cnodes.size());
  std::vector<Index> stack;
  const auto roots = model.cnode_roots();
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back(*it);
  while (!stack.empty()) {
    const Index c = stack.back();
    stack.pop_back();
    order.push_back(c);
    const auto& kids = model.cnodes[c].children;
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return order;
}

std::vector<Index> children_first_order(const Model& model) {
  // A node's children get consecutive positions when the node is visited; then the traversal
  // descends into the children one after the other (CubeLib's "wide search").
  std::vector<Index> order;
  order.reserve(model.cnodes.size());
  std::vector<Index> stack;  // nodes whose children still need numbering, in visit order
  for (Index root : model.cnode_roots()) {
    order.push_back(root);
    stack.push_back(root);
    while (!stack.empty()) {
      const Index c = stack.back();
      stack.pop_back();
      const auto& kids = model.cnodes[c].children;
      for (Index k : kids) order.push_back(k);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
    }
  }
  return order;
}

std::vector<Index> storage_order(const Model& model, MetricKind kind) {
  return kind == MetricKind::kExclusive ? pre_order(model) : children_first_order(model);
}

Model column_window(const Model& model, size_t first, size_t count) {
  Model window = model;
  window.locations.clear();
  window.topologies.clear();
  std::vector<Index> renumbered(model.locations.size(), kNoIndex);
  for (Index l = 0; l < model.locations.size(); ++l) {
    const Location& location = model.locations[l];
    if (location.id < first || location.id - first >= count) continue;
    renumbered[l] = static_cast<Index>(window.locations.size());
    window.locations.push_back(location);
    window.locations.back().id = static_cast<uint32_t>(location.id - first);
  }
  for (LocationGroup& group : window.groups) {
    std::vector<Index> kept;
    for (Index l : group.locations)
      if (renumbered[l] != kNoIndex) kept.push_back(renumbered[l]);
    group.locations = std::move(kept);
  }
  return window;
}

}  // namespace cubekit
