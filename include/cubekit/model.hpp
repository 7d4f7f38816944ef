// The report's definitions: the metric forest, regions and the call forest, the system forest,
// topologies and global attributes, as read from anchor.xml (or a Cube 3 file).
//
// Every entity lives in a vector in document pre-order; tree links are indices into those
// vectors (cache-friendly, no pointer graph). `id` is always the id written in the file.
#pragma once

#include <compare>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cubekit/data_type.hpp"

namespace cubekit {

using Index = uint32_t;  // position of an entity in its vector
inline constexpr Index kNoIndex = UINT32_MAX;

// Metric trees and system trees nest at most this deep: every reader (anchor, Cube 3, remap
// .spec) refuses deeper documents, so code walking these two trees may recurse. Real reports
// nest a handful of levels. Call trees have no such bound (unrolled recursion makes them
// deep, tree_reader.cpp): code walks them with an explicit stack.
inline constexpr int kMaxTreeNesting = 1000;

// An immutable text whose copies share one heap block (8 bytes each): a report of a million
// locations names them with a handful of texts ("Master thread", "thread"), which the readers
// share (issue 30: opening such an anchor in at most its size in memory). Reads as a const
// std::string; empty by default.
class SharedText {
 public:
  SharedText() noexcept = default;
  explicit SharedText(std::string text);
  SharedText(const SharedText& other) noexcept;
  SharedText(SharedText&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  SharedText& operator=(const SharedText& other) noexcept;
  SharedText& operator=(SharedText&& other) noexcept;
  SharedText& operator=(std::string text) { return *this = SharedText(std::move(text)); }
  SharedText& operator=(const char* text) { return *this = SharedText(text); }
  ~SharedText();
  // The default types of a location and a location group, shared by all.
  static const SharedText& thread();
  static const SharedText& process();

  const std::string& str() const noexcept;
  operator const std::string&() const noexcept { return str(); }
  operator std::string_view() const noexcept { return str(); }
  std::string_view view() const noexcept { return str(); }
  const char* c_str() const noexcept { return str().c_str(); }
  size_t size() const noexcept { return str().size(); }
  bool empty() const noexcept { return str().empty(); }

  friend bool operator==(const SharedText& a, const SharedText& b) noexcept {
    return a.block_ == b.block_ || a.str() == b.str();
  }
  friend bool operator==(const SharedText& a, std::string_view b) noexcept { return a.str() == b; }
  friend std::strong_ordering operator<=>(const SharedText& a, std::string_view b) noexcept {
    return a.view() <=> b;
  }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& text);

 private:
  struct Block;
  Block* block_ = nullptr;  // nullptr: empty
};

// Key-value attributes (<attr key="" value=""/>) in file order, used like a std::vector of
// pairs. Most entities have none (Score-P writes none for its million locations): 8 bytes
// then, the list on the heap only when there is one (issue 30: a huge anchor opened in at
// most its size in memory).
class Attributes {
 public:
  using value_type = std::pair<std::string, std::string>;
  using iterator = value_type*;
  using const_iterator = const value_type*;
  using size_type = size_t;

  Attributes() noexcept = default;
  Attributes(std::initializer_list<value_type> items);
  Attributes(const Attributes& other);
  Attributes(Attributes&& other) noexcept = default;
  Attributes& operator=(const Attributes& other);
  Attributes& operator=(Attributes&& other) noexcept = default;
  ~Attributes() = default;

  size_t size() const noexcept { return list_ ? list_->size() : 0; }
  bool empty() const noexcept { return size() == 0; }
  iterator begin() noexcept { return list_ ? list_->data() : nullptr; }
  iterator end() noexcept { return begin() + size(); }
  const_iterator begin() const noexcept { return list_ ? list_->data() : nullptr; }
  const_iterator end() const noexcept { return begin() + size(); }
  value_type& operator[](size_t i) { return (*list_)[i]; }
  const value_type& operator[](size_t i) const { return (*list_)[i]; }
  value_type& back() { return list_->back(); }
  const value_type& back() const { return list_->back(); }
  void clear() noexcept { list_.reset(); }
  template <class... Args>
  value_type& emplace_back(Args&&... args) {
    return list().emplace_back(std::forward<Args>(args)...);
  }
  void push_back(const value_type& item) { list().push_back(item); }
  void push_back(value_type&& item) { list().push_back(std::move(item)); }

  friend bool operator==(const Attributes& a, const Attributes& b);

 private:
  std::vector<value_type>& list();
  std::unique_ptr<std::vector<value_type>> list_;  // null: none
};
// Sets each attribute of `from` in `into`: a key already there takes the new value in place,
// new keys are appended in order.
void set_attributes(Attributes& into, const Attributes& from);

enum class MetricKind : uint8_t {
  kExclusive,
  kInclusive,
  kSimple,
  kPostDerived,
  kPrederivedInclusive,
  kPrederivedExclusive,
};

// Text as written in the anchor ("EXCLUSIVE", "POSTDERIVED", ...).
const char* metric_kind_name(MetricKind kind);
// The kind a type= text names (upper case, as written; "DERIVED" too); nullopt if none.
std::optional<MetricKind> metric_kind_from_name(std::string_view name);
bool is_derived(MetricKind kind);
// Whether a stored metric's rows hold call-path inclusive values (INCLUSIVE, SIMPLE), so that
// exclusive ones are computed by subtracting the children's.
bool stores_inclusive(MetricKind kind);

struct Metric {
  uint32_t id = 0;  // XML id; names the <id>.index / <id>.data members
  std::string disp_name, uniq_name, dtype_text, uom, val, url, descr;
  DataType dtype;
  MetricKind kind = MetricKind::kExclusive;
  bool ghost = false;
  bool convertible = true;
  bool cacheable = true;
  bool is_void = false;  // own or inherited <val>VOID</val>
  // CubePL texts of derived metrics (empty when absent).
  std::string expression, init_expression, aggr_plus, aggr_minus, aggr_aggr;
  bool rowwise = true;  // false when written rowwise=false / locationwise=false
  // The CubePL texts were given by the user (cube_dump -m, a .spec named with cube_remap2 -r),
  // not read from a report: their env("NAME") reads the environment (docs/cubepl.md, env()).
  // Never read or written; readers leave it false.
  bool user_expressions = false;
  Attributes attrs;
  Index parent = kNoIndex;
  std::vector<Index> children;
};

struct Region {
  uint32_t id = 0;
  std::string name, mangled_name, paradigm = "unknown", role = "unknown", url, descr, mod;
  int64_t begin = -1, end = -1;
  Attributes attrs;
};

struct Parameter {
  std::string type, key, value;  // type: "numeric" or "string"
};

struct Cnode {
  uint32_t id = 0;
  Index region = kNoIndex;  // callee region (index into regions)
  int64_t line = -1;
  std::string mod;
  std::vector<Parameter> parameters;
  Attributes attrs;
  Index parent = kNoIndex;
  std::vector<Index> children;
};

struct SystemNode {
  uint32_t id = 0;  // as written; CubeLib renumbers in document order, we keep both
  std::string name, class_name, descr;
  Attributes attrs;
  Index parent = kNoIndex;
  std::vector<Index> children;  // child system nodes
  std::vector<Index> groups;    // location groups
};

// Locations and their groups are a report's most numerous entities (a million in Score-P's
// largest runs): their texts are SharedText (a few distinct ones, shared), their fields packed.
struct LocationGroup {
  uint32_t id = 0;
  Index node = kNoIndex;
  SharedText name, type = SharedText::process();
  int64_t rank = 0;
  Attributes attrs;
  std::vector<Index> locations;
};

struct Location {
  uint32_t id = 0;  // the column of this location in every data row
  Index group = kNoIndex;
  SharedText name, type = SharedText::thread();
  int64_t rank = 0;
  Attributes attrs;
};

struct Topology {
  struct Dim {
    std::string name;
    int64_t size = 0;
    bool periodic = false;
  };
  enum class Owner : uint8_t { kLocation, kGroup, kNode };
  // A coordinate's owner and where its numbers are in `values` (Score-P writes a coordinate
  // per location: one flat array, not a million small ones).
  struct Coord {
    Owner owner = Owner::kLocation;
    uint32_t owner_id = 0;
    uint32_t first = 0, count = 0;
  };
  std::string name;
  std::vector<Dim> dims;
  std::vector<Coord> coords;
  std::vector<int64_t> values;  // the numbers of every coordinate, in order
  // The numbers of `coord` (one per dimension when valid).
  std::span<const int64_t> values_of(const Coord& coord) const {
    return {values.data() + coord.first, coord.count};
  }
  // Appends a coordinate of these numbers.
  void add_coord(Owner owner, uint32_t owner_id, std::span<const int64_t> numbers);
};

// The definitions of one report. Built by the readers, immutable afterwards.
class Model {
 public:
  std::string version;  // <cube version="...">
  Attributes attrs;     // global <attr>, in file order, later duplicates replaced
  std::vector<std::string> mirrors;
  std::string metrics_title, program_title, system_title;
  std::vector<Metric> metrics;
  std::vector<Region> regions;
  std::vector<Cnode> cnodes;
  std::vector<SystemNode> system_nodes;
  std::vector<LocationGroup> groups;
  std::vector<Location> locations;  // document order; column = locations[i].id
  std::vector<Topology> topologies;
  // Metrics read as VOID are inactive in CubeLib: its writer leaves them, and all below them, out
  // of the anchor. Copies made through a unification (merge, exclusify, ...) drop them from the
  // definitions but CubeLib still writes their data members, which ReportWriter writes empty for
  // these ids; canonize keeps them in the definitions and the anchor writer leaves out these.
  std::vector<uint32_t> empty_member_metric_ids;
  std::vector<uint32_t> anchor_omitted_metric_ids;

  std::vector<Index> metric_roots() const;
  std::vector<Index> cnode_roots() const;
  std::vector<Index> system_roots() const;

  // Checked access by index (position in the vectors above): LookupError naming the index and
  // how many there are, for callers holding indices from elsewhere (a server request, a script).
  const Metric& metric(Index i) const;
  const Region& region(Index i) const;
  const Cnode& cnode(Index i) const;
  const Location& location(Index i) const;

  // Lookups by the id written in the file; nullopt when absent.
  std::optional<Index> metric_by_uniq_name(std::string_view name) const;
  std::optional<Index> cnode_by_id(uint32_t id) const;

  // Checked lookups by name (LookupError naming what was not found): a metric by unique name;
  // a call path by the region names from a root to it, joined by '/' ("main/solve/MPI_Send").
  // A region name that itself holds '/' matches too; among several matches at a level the first
  // in document order whose subtree holds the rest of the path is taken.
  Index find_metric(std::string_view uniq_name) const;
  Index find_call_path(std::string_view path) const;

  const std::string* attr(std::string_view key) const;

  // Validates cross references and id rules (cube-format.md §11) and builds lookup tables.
  // Throws FormatError naming `where` (usually "file:anchor.xml").
  void finalize(const std::string& where);

 private:
  void check_region_ids(const std::string& where) const;  // each once
  void index_cnode_ids(const std::string& where);         // each once; fills the lookup
  std::unordered_map<std::string, Index> metric_by_name_;
  // Call path by id: a table indexed by id when the ids are few enough (Score-P numbers them
  // 0 to n-1), else a hash map. kNoIndex in the table: no such id.
  std::vector<Index> cnode_by_dense_id_;
  std::unordered_map<uint32_t, Index> cnode_by_id_;
};

// The definitions of the columns [first, first + count) of a report: the locations whose id
// (column) lies there, renumbered from 0 in the same order, the groups listing only those, no
// topologies; metrics, call and system trees as they are. What a Report::column_window has.
Model column_window(const Model& model, size_t first, size_t count);

// Row orders of the call forest (cube-format.md §4). Position p of the order holds the index
// of the cnode stored in row p.
// Sorts each call path's children by id; true when an order changed. CubeLib's copies of a
// cube (cube_part, cube_canonize, cube_derive) define the call paths in id order, so their
// children come out so, whatever the input's document order (the same for Score-P's reports).
bool order_children_by_id(Model& model);
// Call paths (indices into Model::cnodes) sorted by their ids, stably.
void sort_by_cnode_id(const Model& model, std::vector<Index>& cnodes);
std::vector<Index> pre_order(const Model& model);
std::vector<Index> children_first_order(const Model& model);
// The order rows of a metric of this kind are stored in (EXCLUSIVE: pre-order; INCLUSIVE and
// SIMPLE: children-first).
std::vector<Index> storage_order(const Model& model, MetricKind kind);

}  // namespace cubekit
