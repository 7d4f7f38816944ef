// Reads the <program> and <system> elements of an anchor without a DOM (tree_reader.cpp): they
// hold one element per call path and per location, millions in large reports.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit::format {

// Finds the first <name ...>...</name> element of `xml` (not <nameXYZ>): [begin, end) covers it
// whole, or begin == end == npos when there is none. A plain text search suffices: '<' never
// appears unescaped in attribute values or text, only in CDATA and comments, which anchors do
// not put around these elements.
void find_element(std::string_view xml, std::string_view name, size_t& begin, size_t& end);
// Where find_element's element begins (npos: nowhere), without searching for its end.
size_t find_start_tag(std::string_view xml, std::string_view name);

// Called with ranges [from, to) of the document already read (about every 16 MiB), whose pages
// may leave the resident set.
using ReleaseRange = std::function<void(size_t from, size_t to)>;

// Parses the <program> element beginning at xml[begin] (and ending before `end`) into the
// regions, the call forest and the program title of `model`; returns the offset just past its
// end tag. Throws FormatError with line:column.
size_t read_program(std::string_view xml, size_t begin, size_t end, Model& model,
                    const std::string& where, const ReleaseRange& release = {});

// The <program> element read in two parts side by side (a call tree of 50,000 call paths is
// most of a 4 MB anchor, and one thread read it alone): the regions, from the start tag up to
// the first <cnode> child, and the call forest, from the first "<cnode" in the text (`split`)
// to the end tag. The split is a guess: it counts when the regions' reader met its first
// <cnode> child exactly at `split` (not, say, in a comment) and the call forest's reader met
// only call forests and white space up to </program>. Otherwise the program is read again by one
// reader, so that the model and the first error are always those of one reader.
struct ProgramParts {
  // The regions' part.
  size_t first_cnode = std::string_view::npos;  // where its first <cnode> child starts
  size_t regions_end = std::string_view::npos;  // past </program> when there is none
  std::unordered_map<uint32_t, Index> region_by_id;
  std::exception_ptr regions_error;
  // The call forest's part.
  size_t split = std::string_view::npos;
  bool unusual = false;                 // more than call forests and white space: read in order
  size_t end = std::string_view::npos;  // past </program>
  std::vector<std::pair<Index, uint32_t>> callees;  // cnode, callee region id
  std::exception_ptr cnodes_error;
};

// The two parts of the <program> element beginning at xml[begin], each on its own thread: the
// regions and program title, and the call forest, of `model`. They throw nothing: what they
// found, and their errors, are in `parts`.
void read_program_regions(std::string_view xml, size_t begin, size_t end, Model& model,
                          const std::string& where, const ReleaseRange& release,
                          ProgramParts& parts);
void read_program_cnodes(std::string_view xml, size_t begin, size_t end, Model& model,
                         const std::string& where, const ReleaseRange& release,
                         ProgramParts& parts);
// Once both parts are read: the call paths' regions resolved, or the program read again in
// order (see ProgramParts). Returns what read_program returns, or throws its error.
size_t finish_program(std::string_view xml, size_t begin, size_t end, Model& model,
                      const std::string& where, const ReleaseRange& release, ProgramParts& parts);
// How many programs were read in two parts since the program started (for tests).
size_t program_parts_taken();

// An anchor's <topologies>, read by another thread while read_system reads the system tree
// before them (Score-P writes a coordinate per location: a fifth of a large anchor). Whoever
// comes first reads them: that thread, or read_system itself when it reaches them before the
// other thread began (it was busy with a longer job, the call tree), instead of waiting for it.
struct TopologiesAhead {
  enum class Reader { kNone, kAhead, kSystem };
  size_t begin = std::string_view::npos;  // of the <topologies> start tag; npos: none found
  size_t end = 0;                         // just past its end tag
  std::vector<Topology> topologies;
  std::exception_ptr error;  // told if read_system reaches `begin`
  std::atomic<Reader> reader{Reader::kNone};
  std::promise<void> done;
  std::shared_future<void> ready = done.get_future().share();
  // Whether `who` is the one to read the topologies (the first to ask).
  bool claim(Reader who) {
    Reader none = Reader::kNone;
    return reader.compare_exchange_strong(none, who) || reader.load() == who;
  }
};

// Finds the <topologies> element of the <system> that begins at xml[system_begin], searching
// back from the document's end (where they stand, after the system tree), and reads it into
// `ahead` unless read_system claimed them first; sets ahead.done in any case.
void read_topologies_ahead(std::string_view xml, size_t system_begin, const std::string& where,
                           const ReleaseRange& release, TopologiesAhead& ahead);

// The second part of a system tree, read by another thread beside the system reader (the
// system tree is the longest part of a huge anchor). It begins at a <systemtreenode> or
// <locationgroup> start tag (`split`) and holds it and the siblings after it up to the next
// other token (`end`: the end tag of their parent, <topologies>, ...). The system reader takes
// the part when it meets a start tag at `split` in a system node or the system, and reads on
// at `end`; otherwise (the split in a comment, an error in the part, the reader already past
// it) it reads the tree itself, so the model and the first error are those of one reader.
struct SystemPart {
  static constexpr size_t kNone = std::string_view::npos;
  size_t limit = kNone;               // where the system tree ends at the latest
  std::atomic<size_t> progress{0};    // where the system reader is (its last group's start)
  std::atomic<size_t> split{kNone};   // set by read_system_part before it reads the part
  std::atomic<bool> finished{false};  // the system reader is done: no part is read
  size_t end = 0;
  // Node 0 stands for the parent: its children and groups are the part's first elements.
  Model model;
  int depth = 0;  // of the deepest node, the part's first nodes being at 0
  std::exception_ptr error;
  std::promise<void> done;
  std::shared_future<void> ready = done.get_future().share();
};

// Chooses where to split the system tree (the first <systemtreenode> or <locationgroup> start
// tag after the middle of what the system reader has left before part.limit) and reads the
// part from there; sets part.done in any case.
void read_system_part(std::string_view xml, const std::string& where, const ReleaseRange& release,
                      SystemPart& part);
// Test hook: with `fraction` in [0, 1), read_system_part looks for the split that far into the
// system tree (before part.limit), and read_system waits (a few seconds at most) until it has
// chosen, so that tests split documents whatever the timing; a negative fraction: off.
void set_system_split_for_tests(double fraction);
// How many parts the system readers have taken since the program started (for tests).
size_t system_parts_taken();

// Parses the <system> element beginning at xml[begin] (and ending before `end`) into the system
// tree, topologies and the system title of `model`; returns the offset just past its end tag,
// or npos when the system is written the Cube 3 way (a <machine> child: the caller reads it
// with the DOM, and the model's system tree is left empty). Throws FormatError with
// line:column.
// `ahead`, when given: the topologies read ahead, taken when the system's <topologies> begins
// where they were read (waiting for them), else ignored. `part`, when given: the tree's second
// part, read by another thread with read_system_part.
size_t read_system(std::string_view xml, size_t begin, size_t end, Model& model,
                   const std::string& where, const ReleaseRange& release = {},
                   TopologiesAhead* ahead = nullptr, SystemPart* part = nullptr);

}  // namespace cubekit::format
