// Unifying the definitions of several reports (report_algebra.hpp: UnifiedDefinitions), with
// CubeLib 4.6's identities: metrics by unique name; regions by name, module and lines; call
// paths by region, call-site module and line and parameters along the whole path, merged only
// where CubeLib's cnode_merge merges them (not alike siblings of one tree); system tree
// nodes by name and class, process groups by name and rank, locations by rank. New entities
// get ids in the order they are defined.
#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algebra/region_lookup.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

DataType signed_type(DataType t) {
  switch (t.kind()) {
    case TypeKind::kUInt8:
      return DataType(TypeKind::kInt8);
    case TypeKind::kUInt16:
      return DataType(TypeKind::kInt16);
    case TypeKind::kUInt32:
      return DataType(TypeKind::kInt32);
    case TypeKind::kUInt64:
      return DataType(TypeKind::kInt64);
    default:
      return t;
  }
}

// Appends a copy of `from` to `into`, numbered by its position there and owned by `owner`;
// returns its index.
template <class Entity>
Index append_copy(std::vector<Entity>& into, const Entity& from, Index Entity::*owner_field,
                  Index owner) {
  Entity copy = from;
  copy.id = static_cast<uint32_t>(into.size());
  copy.*owner_field = owner;
  into.push_back(std::move(copy));
  return static_cast<Index>(into.size() - 1);
}

// ---- metrics -------------------------------------------------------------------------------

Index new_metric(Model& out, const Metric& from, Index parent, MetricTypes types, uint32_t id) {
  Metric m = from;
  m.id = id;
  m.dtype = types == MetricTypes::kSigned ? signed_type(from.dtype) : from.dtype;
  m.dtype_text = types == MetricTypes::kAsWritten ? from.dtype_text : m.dtype.dtype_text();
  // CubeLib defines the metric anew: its storage flags are the defaults, and what finalize()
  // and the merge work out again starts empty.
  m.convertible = m.cacheable = true;
  m.is_void = m.user_expressions = false;
  m.parent = parent;
  m.children.clear();
  const Index self = static_cast<Index>(out.metrics.size());
  out.metrics.push_back(std::move(m));
  if (parent != kNoIndex) out.metrics[parent].children.push_back(self);
  return self;
}

size_t subtree_size(const Model& in, Index metric) {
  size_t n = 1;
  for (Index child : in.metrics[metric].children) n += subtree_size(in, child);
  return n;
}

void merge_metric_tree(Model& out, const Model& in, Index in_metric, Index out_parent,
                       InputMapping& map, MetricTypes types, uint32_t& next_id,
                       std::set<std::string>& void_seen) {
  const Metric& m = in.metrics[in_metric];
  const std::vector<Index> siblings =
      out_parent == kNoIndex ? out.metric_roots() : out.metrics[out_parent].children;
  Index target = kNoIndex;
  for (Index s : siblings)
    if (out.metrics[s].uniq_name == m.uniq_name) target = s;
  if (m.val == "VOID") {
    // A metric read as VOID is inactive in CubeLib: its writer leaves it out with all below it
    // (their ids stay used, their data members stay: Model::empty_member_metric_ids).
    // CubeLib keeps it in its cube, so a later input's VOID metric of that name is the same
    // one: its ids are used once.
    if (target != kNoIndex || !void_seen.insert(m.uniq_name).second) return;
    for (size_t k = subtree_size(in, in_metric); k > 0; --k)
      out.empty_member_metric_ids.push_back(next_id++);
    return;
  }
  if (target == kNoIndex && out_parent != kNoIndex && m.kind == MetricKind::kInclusive &&
      out.metrics[out_parent].kind == MetricKind::kPrederivedExclusive) {
    // CubeLib refuses an INCLUSIVE metric below a PREDERIVED_EXCLUSIVE one (an inclusive value
    // cannot be part of an exclusive sum): the subtree is left out but uses up its ids.
    next_id += static_cast<uint32_t>(subtree_size(in, in_metric));
    return;
  }
  if (target == kNoIndex)
    target = new_metric(out, m, out_parent, types, next_id++);
  else
    set_attributes(out.metrics[target].attrs, m.attrs);
  map.metric[in_metric] = target;
  for (Index child : m.children)
    merge_metric_tree(out, in, child, target, map, types, next_id, void_seen);
}

// ---- call tree -----------------------------------------------------------------------------

bool same_parameters(const std::vector<Parameter>& a, const std::vector<Parameter>& b) {
  if (a.size() != b.size()) return false;
  for (const Parameter& p : a)
    if (std::find_if(b.begin(), b.end(), [&](const Parameter& q) {
          return q.type == p.type && q.key == p.key && q.value == p.value;
        }) == b.end())
      return false;
  return true;
}

// Where each region of one input goes in `out`: the first region there alike it, else a copy
// of it added. Asked once per input region, however many call paths call it.
class InputRegions {
 public:
  InputRegions(Model& out, const Model& in)
      : out_(out), in_(in), alike_(out), target_(in.regions.size(), kNoIndex) {}
  Index operator()(Index region) {
    Index& target = target_[region];
    if (target != kNoIndex) return target;
    const Region& r = in_.regions[region];
    target = alike_.find(r);
    if (target != kNoIndex) return target;
    Region copy = r;
    copy.id = static_cast<uint32_t>(out_.regions.size());
    out_.regions.push_back(std::move(copy));
    return target = static_cast<Index>(out_.regions.size() - 1);
  }

 private:
  Model& out_;
  const Model& in_;
  RegionLookup alike_;
  std::vector<Index> target_;  // by input region; kNoIndex: not asked yet
};

// A new cnode below `out_parent` (kNoIndex: a root) with the identity of `in_cnode`.
Index copy_cnode(Model& out, InputRegions& regions, const Model& in, Index in_cnode,
                 Index out_parent) {
  const Cnode& c = in.cnodes[in_cnode];
  const Index self = append_copy(out.cnodes, c, &Cnode::parent, out_parent);
  out.cnodes[self].region = regions(c.region);
  out.cnodes[self].children.clear();  // filled as the trees are merged
  if (out_parent != kNoIndex) out.cnodes[out_parent].children.push_back(self);
  return self;
}

// CubeLib's equality of two call paths whose callers are equal (Cnode::operator== then holds
// when the call paths themselves agree).
bool same_call(const Model& out, Index o, const Model& in, Index c) {
  const Cnode& a = out.cnodes[o];
  const Cnode& b = in.cnodes[c];
  return a.mod == b.mod && a.line == b.line &&
         same_region(out.regions[a.region], in.regions[b.region]) &&
         same_parameters(a.parameters, b.parameters);
}

// CubeLib's copy_tree: the callees of `in_cnode` copied below `out_cnode`, none merged, even
// where two of them look alike (repeated region names of Cube 3 reports). Depth first, in the
// order of CubeLib's recursion, with a stack of its own: a recursive program's call tree can be
// deeper than the thread's stack (100,000 levels crashed it).
void copy_callees(Model& out, InputRegions& regions, const Model& in, Index in_cnode,
                  Index out_cnode, InputMapping& map) {
  struct Pending {
    Index in_cnode, out_parent;
  };
  std::vector<Pending> pending;
  auto push_callees = [&](Index in_parent, Index out_parent) {
    const std::vector<Index>& callees = in.cnodes[in_parent].children;
    for (auto it = callees.rbegin(); it != callees.rend(); ++it)
      pending.push_back({*it, out_parent});
  };
  push_callees(in_cnode, out_cnode);
  while (!pending.empty()) {
    const Pending next = pending.back();
    pending.pop_back();
    const Index target = copy_cnode(out, regions, in, next.in_cnode, next.out_parent);
    map.cnode[next.in_cnode] = target;
    push_callees(next.in_cnode, target);
  }
}

// Of the fields same_call compares, all but the parameters (compared when the rest agrees).
size_t call_hash(const Model& model, Index cnode) {
  const Cnode& c = model.cnodes[cnode];
  return hash_combine(
      hash_combine(region_hash(model.regions[c.region]), std::hash<std::string>()(c.mod)),
      std::hash<int64_t>()(c.line));
}

// Sibling call paths of `out` (one call path's callees, or the roots) by call_hash: their
// positions among the siblings, ascending, kept up to date as siblings are copied in. Comparing
// each input callee with all of them made merging a routine's 20,000 callees (a parameter's
// values, a dispatcher) quadratic: cube_diff took 3.8 s.
class SiblingIndex {
 public:
  static constexpr size_t kWorthIt = 64;  // fewer callees are compared one by one
  SiblingIndex(const Model& out, const std::vector<Index>& siblings) {
    for (size_t j = 0; j < siblings.size(); ++j) add(out, siblings[j], j);
  }
  void add(const Model& out, Index callee, size_t position) {
    by_call_[call_hash(out, callee)].push_back(position);
  }
  // The first position from `from` on of a callee that may be alike `cnode` of `in` (the same
  // hash); SIZE_MAX when none is.
  size_t next(const Model& in, Index cnode, size_t from) const {
    const auto it = by_call_.find(call_hash(in, cnode));
    if (it == by_call_.end()) return SIZE_MAX;
    const auto at = std::lower_bound(it->second.begin(), it->second.end(), from);
    return at == it->second.end() ? SIZE_MAX : *at;
  }

 private:
  std::unordered_map<size_t, std::vector<size_t>> by_call_;
};

// One level of CubeLib's compare_tree: the callees of `in_cnode` laid onto those of `out_cnode`,
// the next callee at `callee`, the next call path there to compare with at `candidate`.
struct CompareLevel {
  CompareLevel(const Model& out, Index out_cnode, Index in_cnode)
      : out_cnode(out_cnode), in_cnode(in_cnode) {
    if (out.cnodes[out_cnode].children.size() >= SiblingIndex::kWorthIt)
      callees = std::make_unique<SiblingIndex>(out, out.cnodes[out_cnode].children);
  }
  Index out_cnode, in_cnode;
  size_t callee = 0, candidate = 0;
  bool found = false;                     // the callee has an equal there
  bool nothing_added = true;              // what the level returns
  std::unique_ptr<SiblingIndex> callees;  // of out_cnode, when it has many
};

// The level's callee is done: one without an equal is copied whole.
void finish_callee(Model& out, InputRegions& regions, const Model& in, CompareLevel& level,
                   InputMapping& map) {
  if (!level.found) {
    const Index child = in.cnodes[level.in_cnode].children[level.callee];
    map.cnode[child] = copy_cnode(out, regions, in, child, level.out_cnode);
    if (level.callees)
      level.callees->add(out, map.cnode[child], out.cnodes[level.out_cnode].children.size() - 1);
    copy_callees(out, regions, in, child, map.cnode[child], map);
    level.nothing_added = false;
  }
  ++level.callee;
  level.candidate = 0;
  level.found = false;
}

// CubeLib's compare_tree: each callee of `in_cnode` goes onto every equal callee of `out_cnode`
// there is by then (the last one keeps it), and on into their callees; one without an equal is
// copied whole. Returns whether nothing was added (CubeLib stops looking along a level below
// which something was). CubeLib recurses; the levels are a stack here (see copy_callees).
bool merge_callees(Model& out, InputRegions& regions, const Model& in, Index out_cnode,
                   Index in_cnode, InputMapping& map) {
  std::vector<CompareLevel> levels;
  levels.emplace_back(out, out_cnode, in_cnode);
  bool returned = true;  // what the level popped last returned
  while (true) {
    CompareLevel& level = levels.back();
    const std::vector<Index>& callees = in.cnodes[level.in_cnode].children;
    if (level.callee == callees.size()) {
      returned = level.nothing_added;
      levels.pop_back();
      if (levels.empty()) return returned;
      CompareLevel& caller = levels.back();
      if (returned) {
        ++caller.candidate;
      } else {  // something was added below: the caller's callee is done
        caller.nothing_added = false;
        finish_callee(out, regions, in, caller, map);
      }
      continue;
    }
    const Index child = callees[level.callee];
    bool descend = false;
    for (; level.candidate < out.cnodes[level.out_cnode].children.size(); ++level.candidate) {
      if (level.callees) {  // straight to the next callee that may be alike
        level.candidate = std::min(level.callees->next(in, child, level.candidate),
                                   out.cnodes[level.out_cnode].children.size());
        if (level.candidate == out.cnodes[level.out_cnode].children.size()) break;
      }
      const Index o = out.cnodes[level.out_cnode].children[level.candidate];
      if (!same_call(out, o, in, child)) continue;
      map.cnode[child] = o;
      level.found = true;
      if (!in.cnodes[child].children.empty()) {
        descend = true;
        break;
      }
    }
    if (descend) {
      const Index o = out.cnodes[level.out_cnode].children[level.candidate];
      levels.emplace_back(out, o, child);  // `level` is not used after this
      continue;
    }
    finish_callee(out, regions, in, level, map);
  }
}

// CubeLib's cnode_merge: an input root equal to a root already there (of an earlier input, or
// an earlier root of this one) is merged into it; any other is copied with its whole tree. The
// roots there are found by their hash: compared one by one, 100,000 roots (a root per thread
// or per task, as some measurement systems write) took 10^10 comparisons.
void merge_call_tree(Model& out, const Model& in, InputMapping& map) {
  InputRegions regions(out, in);
  std::vector<Index> roots = out.cnode_roots();
  SiblingIndex alike(out, roots);
  for (Index root : in.cnode_roots()) {
    bool found = false;
    for (size_t j = alike.next(in, root, 0); j != SIZE_MAX; j = alike.next(in, root, j + 1)) {
      if (!same_call(out, roots[j], in, root)) continue;
      map.cnode[root] = roots[j];
      found = true;
      if (!merge_callees(out, regions, in, roots[j], root, map)) break;
    }
    if (found) continue;
    map.cnode[root] = copy_cnode(out, regions, in, root, kNoIndex);
    roots.push_back(map.cnode[root]);
    alike.add(out, roots.back(), roots.size() - 1);
    copy_callees(out, regions, in, root, map.cnode[root], map);
  }
}

bool is_pruned(const std::vector<std::string>& prunes, const std::string& region) {
  return std::find(prunes.begin(), prunes.end(), region) != prunes.end();
}

// The children of `in_cnode` (copied as `out_cnode`) below `out_cnode`, except that a child
// whose region is pruned, and everything below it, is inlined: mapped onto its caller. Depth
// first with a stack of its own (see copy_callees).
void copy_pruned_tree(Model& out, InputRegions& regions, const Model& in, Index in_cnode,
                      Index out_cnode, const std::vector<std::string>& prunes, InputMapping& map) {
  struct Pending {
    Index in_cnode, in_parent, out_parent;
  };
  std::vector<Pending> pending;
  auto push_callees = [&](Index in_parent, Index out_parent) {
    const std::vector<Index>& callees = in.cnodes[in_parent].children;
    for (auto it = callees.rbegin(); it != callees.rend(); ++it)
      pending.push_back({*it, in_parent, out_parent});
  };
  push_callees(in_cnode, out_cnode);
  while (!pending.empty()) {
    const Pending next = pending.back();
    pending.pop_back();
    // out_parent stands for an inlined in_parent when their regions differ.
    const bool inlined = out.regions[out.cnodes[next.out_parent].region].name !=
                         in.regions[in.cnodes[next.in_parent].region].name;
    const bool prune =
        inlined || is_pruned(prunes, in.regions[in.cnodes[next.in_cnode].region].name);
    const Index target =
        prune ? next.out_parent : copy_cnode(out, regions, in, next.in_cnode, next.out_parent);
    map.cnode[next.in_cnode] = target;
    push_callees(next.in_cnode, target);
  }
}

// ---- system tree ---------------------------------------------------------------------------

bool same_node(const SystemNode& a, const SystemNode& b) {
  return a.name == b.name && a.class_name == b.class_name;
}
bool same_group(const LocationGroup& a, const LocationGroup& b) {
  return a.name == b.name && a.rank == b.rank;
}

// Whether the subtree `small_node` of `small` fits into `big_node` of `big`: every child node,
// process group and location of the small one has its own partner in the big one.
bool node_fits(const Model& big, Index big_node, const Model& small, Index small_node) {
  if (!same_node(big.system_nodes[big_node], small.system_nodes[small_node])) return false;
  std::vector<Index> free_nodes = big.system_nodes[big_node].children;
  for (Index child : small.system_nodes[small_node].children) {
    auto it = std::find_if(free_nodes.begin(), free_nodes.end(),
                           [&](Index b) { return node_fits(big, b, small, child); });
    if (it == free_nodes.end()) return false;
    free_nodes.erase(it);
  }
  std::vector<Index> free_groups = big.system_nodes[big_node].groups;
  for (Index g : small.system_nodes[small_node].groups) {
    auto it = std::find_if(free_groups.begin(), free_groups.end(), [&](Index b) {
      if (!same_group(big.groups[b], small.groups[g])) return false;
      std::vector<Index> free_locs = big.groups[b].locations;
      for (Index l : small.groups[g].locations) {
        auto at = std::find_if(free_locs.begin(), free_locs.end(), [&](Index bl) {
          return big.locations[bl].rank == small.locations[l].rank;
        });
        if (at == free_locs.end()) return false;
        free_locs.erase(at);
      }
      return true;
    });
    if (it == free_groups.end()) return false;
    free_groups.erase(it);
  }
  return true;
}

// Roots are compared pairwise, in order.
bool tree_fits(const Model& big, const Model& small) {
  const auto big_roots = big.system_roots();
  const auto small_roots = small.system_roots();
  if (small_roots.size() > big_roots.size()) return false;
  for (size_t i = 0; i < small_roots.size(); ++i)
    if (!node_fits(big, big_roots[i], small, small_roots[i])) return false;
  return true;
}

Index add_node(Model& out, const SystemNode& from, Index parent) {
  const Index self = append_copy(out.system_nodes, from, &SystemNode::parent, parent);
  out.system_nodes[self].children.clear();  // filled as the trees are merged
  out.system_nodes[self].groups.clear();
  if (parent != kNoIndex) out.system_nodes[parent].children.push_back(self);
  return self;
}

// Process group `g` of `in` into `out` below system node `node`: the matching group there (or
// among `candidates` when given), else a new one; its locations by rank.
void merge_group(Model& out, const Model& in, Index g, Index node, InputMapping& map,
                 const std::vector<Index>& candidates) {
  const LocationGroup& group = in.groups[g];
  Index target = kNoIndex;
  for (Index c : candidates)
    if (same_group(out.groups[c], group)) target = c;
  if (target == kNoIndex) {
    target = append_copy(out.groups, group, &LocationGroup::node, node);
    out.groups[target].locations.clear();  // filled below, by rank
    out.system_nodes[node].groups.push_back(target);
  }
  for (Index l : group.locations) {
    const Location& loc = in.locations[l];
    Index found = kNoIndex;
    for (Index o : out.groups[target].locations)
      if (out.locations[o].rank == loc.rank) found = o;
    if (found == kNoIndex) {
      found = append_copy(out.locations, loc, &Location::group, target);
      out.groups[target].locations.push_back(found);
    }
    map.location[l] = found;
  }
}

void merge_node_tree(Model& out, const Model& in, Index in_node, Index out_parent,
                     InputMapping& map) {
  const SystemNode& n = in.system_nodes[in_node];
  const std::vector<Index> siblings =
      out_parent == kNoIndex ? out.system_roots() : out.system_nodes[out_parent].children;
  Index target = kNoIndex;
  for (Index s : siblings)
    if (same_node(out.system_nodes[s], n)) {
      target = s;
      break;
    }
  if (target == kNoIndex) target = add_node(out, n, out_parent);
  for (Index child : n.children) merge_node_tree(out, in, child, target, map);
  for (Index g : n.groups) merge_group(out, in, g, target, map, out.system_nodes[target].groups);
}

bool is_machine(const SystemNode& n) {
  return n.class_name == "machine";
}
bool is_node(const SystemNode& n) {
  return n.class_name == "node" || n.class_name == "nodecard";
}

// -c: only machine and node levels are kept; the process groups of every other level move to
// the closest node above them (none: they are dropped, as in CubeLib).
void merge_reduced(Model& out, const Model& in, Index in_node, Index out_parent, Index out_node,
                   InputMapping& map) {
  const SystemNode& n = in.system_nodes[in_node];
  Index here = out_parent;
  if (is_machine(n) || is_node(n)) {
    const std::vector<Index> siblings =
        out_parent == kNoIndex ? out.system_roots() : out.system_nodes[out_parent].children;
    here = kNoIndex;
    for (Index s : siblings)
      if (same_node(out.system_nodes[s], n)) here = s;
    if (here == kNoIndex) {
      here = add_node(out, n, out_parent);
      out.system_nodes[here].attrs.clear();  // CubeLib defines the kept levels anew, bare
    }
    if (is_node(n)) out_node = here;
  }
  for (Index child : n.children) merge_reduced(out, in, child, here, out_node, map);
  if (out_node != kNoIndex)
    for (Index g : n.groups)
      merge_group(out, in, g, out_node, map, out.system_nodes[out_node].groups);
}

// -C: one virtual machine and node hold every process group.
void merge_collapsed(Model& out, const Model& in, InputMapping& map) {
  Index machine = kNoIndex, node = kNoIndex;
  for (Index i = 0; i < out.system_nodes.size(); ++i) {
    if (machine == kNoIndex && is_machine(out.system_nodes[i])) machine = i;
    if (node == kNoIndex && is_node(out.system_nodes[i])) node = i;
  }
  auto virtual_node = [&](const char* name, const char* descr, const char* class_name,
                          Index parent) {
    SystemNode n;
    n.name = name;
    n.descr = descr;
    n.class_name = class_name;
    return add_node(out, n, parent);
  };
  if (machine == kNoIndex)
    machine = virtual_node("Virtual machine", "MACHINE", "machine", kNoIndex);
  if (node == kNoIndex) node = virtual_node("Virtual node", "NODE", "node", machine);
  std::vector<Index> unmatched(out.groups.size());
  for (Index g = 0; g < unmatched.size(); ++g) unmatched[g] = g;
  for (Index g = 0; g < in.groups.size(); ++g) {
    auto it = std::find_if(unmatched.begin(), unmatched.end(),
                           [&](Index o) { return same_group(out.groups[o], in.groups[g]); });
    std::vector<Index> candidates;
    if (it != unmatched.end()) {
      candidates.push_back(*it);
      unmatched.erase(it);
    }
    merge_group(out, in, g, node, map, candidates);
  }
}

}  // namespace

bool same_region(const Region& a, const Region& b) {
  return a.name == b.name && a.mod == b.mod && a.begin == b.begin && a.end == b.end;
}

UnifiedDefinitions::UnifiedDefinitions() : model_(std::make_shared<Model>()) {}

void UnifiedDefinitions::add_metrics(const Model& input, InputMapping& map, MetricTypes types) {
  map.metric.assign(input.metrics.size(), kNoIndex);
  if (model_->metrics_title.empty()) model_->metrics_title = input.metrics_title;
  for (Index root : input.metric_roots())
    merge_metric_tree(*model_, input, root, kNoIndex, map, types, next_metric_id_, void_seen_);
}

void UnifiedDefinitions::add_call_tree(const Model& input, InputMapping& map) {
  map.cnode.assign(input.cnodes.size(), kNoIndex);
  if (model_->program_title.empty()) model_->program_title = input.program_title;
  merge_call_tree(*model_, input, map);
}

bool UnifiedDefinitions::add_cut_call_tree(const Model& input, InputMapping& map,
                                           const std::string& root,
                                           const std::vector<std::string>& prunes) {
  map.cnode.assign(input.cnodes.size(), kNoIndex);
  if (model_->program_title.empty()) model_->program_title = input.program_title;
  std::vector<Index> roots = input.cnode_roots();
  if (!root.empty()) {
    roots.clear();
    for (Index c = 0; c < input.cnodes.size(); ++c)
      if (input.regions[input.cnodes[c].region].name == root) roots.push_back(c);
  }
  InputRegions regions(*model_, input);
  for (Index c : roots) {
    map.cnode[c] = copy_cnode(*model_, regions, input, c, kNoIndex);
    copy_pruned_tree(*model_, regions, input, c, map.cnode[c], prunes, map);
  }
  return !roots.empty();
}

void UnifiedDefinitions::add_call_tree_subset(const Model& input, InputMapping& map,
                                              const std::vector<bool>& kept) {
  if (kept.size() != input.cnodes.size())
    throw Error("add_call_tree_subset: one flag per call path is needed");
  map.cnode.assign(input.cnodes.size(), kNoIndex);
  if (model_->program_title.empty()) model_->program_title = input.program_title;
  // CubeLib defines the regions and call paths anew, bare (without attributes).
  InputRegions regions(*model_, input);
  for (Index r = 0; r < input.regions.size(); ++r) model_->regions[regions(r)].attrs.clear();
  std::vector<Index> kept_in;  // the input's kept call paths, in pre-order
  // In pre-order (a model's own order) a caller's target is known before its callees'.
  for (Index c : pre_order(input)) {
    const Index parent = input.cnodes[c].parent;
    const Index out_parent = parent == kNoIndex ? kNoIndex : map.cnode[parent];
    map.cnode[c] = kept[c] ? copy_cnode(*model_, regions, input, c, out_parent) : out_parent;
    if (kept[c]) {
      model_->cnodes[map.cnode[c]].attrs.clear();
      kept_in.push_back(c);
    }
  }
  // CubeLib numbers them in the order of the input's ids, which need not be pre-order.
  std::vector<Index> by_id = kept_in;
  std::sort(by_id.begin(), by_id.end(),
            [&](Index a, Index b) { return input.cnodes[a].id < input.cnodes[b].id; });
  for (size_t k = 0; k < by_id.size(); ++k)
    model_->cnodes[map.cnode[by_id[k]]].id = static_cast<uint32_t>(k);
  order_children_by_id(*model_);  // and defines them in that order
}

void UnifiedDefinitions::add_mirror(const std::string& url) {
  if (std::find(model_->mirrors.begin(), model_->mirrors.end(), url) == model_->mirrors.end())
    model_->mirrors.push_back(url);
}

void UnifiedDefinitions::set_attribute(const std::string& key, const std::string& value) {
  set_attributes(model_->attrs, {{key, value}});
}

bool UnifiedDefinitions::add_system_tree(const Model& input, InputMapping& map,
                                         SystemUnification mode) {
  map.location.assign(input.locations.size(), kNoIndex);
  Model& out = *model_;
  if (out.system_title.empty()) out.system_title = input.system_title;
  switch (mode) {
    case SystemUnification::kCollapse:
      merge_collapsed(out, input, map);
      return true;
    case SystemUnification::kReduce:
      for (Index root : input.system_roots())
        merge_reduced(out, input, root, kNoIndex, kNoIndex, map);
      return true;
    case SystemUnification::kStrict:
      if (!tree_fits(input, out) && !tree_fits(out, input)) return false;
      for (Index root : input.system_roots()) merge_node_tree(out, input, root, kNoIndex, map);
      return true;
  }
  return false;
}

void UnifiedDefinitions::add_topologies(const Model& input, const InputMapping& map) {
  if (input.topologies.empty()) return;
  // The input's locations by id (ties in index order): a coordinate finds its locations by a
  // search, not by a scan of every location (coordinates × locations was seconds for large
  // systems).
  std::vector<std::pair<uint32_t, Index>> by_id(input.locations.size());
  for (Index l = 0; l < input.locations.size(); ++l) by_id[l] = {input.locations[l].id, l};
  std::sort(by_id.begin(), by_id.end());
  for (const Topology& t : input.topologies) {
    Topology copy;
    copy.name = t.name;
    copy.dims = t.dims;
    for (const Topology::Coord& c : t.coords) {
      if (c.owner != Topology::Owner::kLocation) continue;
      auto it = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(c.owner_id, Index{0}));
      for (; it != by_id.end() && it->first == c.owner_id; ++it)
        if (map.location[it->second] != kNoIndex)
          copy.add_coord(c.owner, model_->locations[map.location[it->second]].id, t.values_of(c));
    }
    const bool present =
        std::any_of(model_->topologies.begin(), model_->topologies.end(), [&](const Topology& o) {
          return o.name == copy.name && o.dims.size() == copy.dims.size() &&
                 o.coords.size() == copy.coords.size();
        });
    if (!present) model_->topologies.push_back(std::move(copy));
  }
}

void UnifiedDefinitions::add_mirrors(const Model& input) {
  for (const std::string& m : input.mirrors) add_mirror(m);
}

std::shared_ptr<const Model> UnifiedDefinitions::finish() {
  stamp_cubelib_versions(*model_);
  model_->finalize("unified definitions");
  std::shared_ptr<const Model> done = model_;
  model_ = std::make_shared<Model>();
  next_metric_id_ = 0;
  return done;
}

}  // namespace cubekit
