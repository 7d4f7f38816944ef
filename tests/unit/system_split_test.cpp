// The system tree of an anchor read in two parts side by side (format/tree_reader.hpp,
// SystemPart), and its <program> in two parts, the regions and the call forest (ProgramParts):
// the model must be the one a single reader makes, and the error told the first in the
// document, whatever the shape of the trees and wherever the split falls.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/parallel.hpp"
#include "cubekit/report.hpp"
#include "format/anchor.hpp"
#include "format/anchor_writer.hpp"
#include "format/tree_reader.hpp"
#include "test_support.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit::format {
namespace {

// Splits the system tree that far into it while it lives (the reader waits for the split).
class SplitAt {
 public:
  explicit SplitAt(double fraction) { set_system_split_for_tests(fraction); }
  ~SplitAt() { set_system_split_for_tests(-1); }
  SplitAt(const SplitAt&) = delete;
  SplitAt& operator=(const SplitAt&) = delete;
};

// Runs `read` on one thread: inside a job of a parallel_for, readers use no other thread.
void on_one_thread(const std::function<void()>& read) {
  parallel_for(
      2,
      [&](size_t job) {
        if (job == 0) read();
      },
      2);
}

std::string indices(const std::vector<Index>& v) {
  std::ostringstream out;
  for (const Index i : v) out << i << ' ';
  return out.str();
}

std::string attributes(const Attributes& attrs) {
  std::string out;
  for (const auto& [key, value] : attrs) out += key + '=' + value + ' ';
  return out;
}

// "what: x vs y" when x and y differ, "" when they agree.
template <class T>
std::string differ(const T& x, const T& y, const std::string& what) {
  std::ostringstream out;
  if (!(x == y)) out << what << ": " << x << " vs " << y;
  return out.str();
}

// The first pair of items of `a` and `b` (lists of one size) that differ, as `fields(x, y, at)`
// tells it, `at` naming the item ("node 3 "); "" when none do.
template <class Item, class Fields>
std::string first_item_difference(const std::vector<Item>& a, const std::vector<Item>& b,
                                  const std::string& kind, const Fields& fields) {
  std::string d;
  for (size_t i = 0; d.empty() && i < a.size(); ++i)
    d = fields(a[i], b[i], kind + " " + std::to_string(i) + " ");
  return d;
}

// What a location group and a location have alike: Id, name, type, rank and attributes.
template <class Member>
std::string member_difference(const Member& x, const Member& y, const std::string& at) {
  return differ(x.id, y.id, at + "id") + differ(x.name.str(), y.name.str(), at + "name") +
         differ(x.type.str(), y.type.str(), at + "type") + differ(x.rank, y.rank, at + "rank") +
         differ(attributes(x.attrs), attributes(y.attrs), at + "attrs");
}

std::string node_difference(const SystemNode& x, const SystemNode& y, const std::string& at) {
  return differ(x.id, y.id, at + "id") + differ(x.name, y.name, at + "name") +
         differ(x.class_name, y.class_name, at + "class") + differ(x.descr, y.descr, at + "descr") +
         differ(attributes(x.attrs), attributes(y.attrs), at + "attrs") +
         differ(x.parent, y.parent, at + "parent") +
         differ(indices(x.children), indices(y.children), at + "children") +
         differ(indices(x.groups), indices(y.groups), at + "groups");
}

std::string group_difference(const LocationGroup& x, const LocationGroup& y,
                             const std::string& at) {
  return member_difference(x, y, at) + differ(x.node, y.node, at + "node") +
         differ(indices(x.locations), indices(y.locations), at + "locations");
}

std::string location_difference(const Location& x, const Location& y, const std::string& at) {
  return member_difference(x, y, at) + differ(x.group, y.group, at + "group");
}

std::string topology_difference(const Topology& x, const Topology& y) {
  std::string d = differ(x.name, y.name, "topology name") +
                  differ(x.dims.size(), y.dims.size(), "topology dims") +
                  differ(x.coords.size(), y.coords.size(), "topology coords") +
                  differ(indices({x.values.begin(), x.values.end()}),
                         indices({y.values.begin(), y.values.end()}), "topology values");
  for (size_t c = 0; d.empty() && c < x.coords.size(); ++c)
    d = differ(x.coords[c].owner_id, y.coords[c].owner_id, "coord owner") +
        differ(static_cast<int>(x.coords[c].owner), static_cast<int>(y.coords[c].owner),
               "coord owner kind");
  return d;
}

std::string region_difference(const Region& x, const Region& y, const std::string& at) {
  return differ(x.id, y.id, at + "id") + differ(x.name, y.name, at + "name") +
         differ(x.mangled_name, y.mangled_name, at + "mangled name") +
         differ(x.paradigm, y.paradigm, at + "paradigm") + differ(x.role, y.role, at + "role") +
         differ(x.url, y.url, at + "url") + differ(x.descr, y.descr, at + "descr") +
         differ(x.mod, y.mod, at + "mod") + differ(x.begin, y.begin, at + "begin") +
         differ(x.end, y.end, at + "end") +
         differ(attributes(x.attrs), attributes(y.attrs), at + "attrs");
}

std::string parameters(const std::vector<Parameter>& all) {
  std::string out;
  for (const Parameter& p : all) out += p.type + ':' + p.key + '=' + p.value + ' ';
  return out;
}

std::string cnode_difference(const Cnode& x, const Cnode& y, const std::string& at) {
  return differ(x.id, y.id, at + "id") + differ(x.region, y.region, at + "region") +
         differ(x.line, y.line, at + "line") + differ(x.mod, y.mod, at + "mod") +
         differ(parameters(x.parameters), parameters(y.parameters), at + "parameters") +
         differ(attributes(x.attrs), attributes(y.attrs), at + "attrs") +
         differ(x.parent, y.parent, at + "parent") +
         differ(indices(x.children), indices(y.children), at + "children");
}

// The first difference between the trees of two models ("" when none).
std::string first_difference(const Model& a, const Model& b) {
  std::string d = differ(a.regions.size(), b.regions.size(), "regions") +
                  differ(a.program_title, b.program_title, "program title") +
                  differ(a.system_nodes.size(), b.system_nodes.size(), "nodes") +
                  differ(a.groups.size(), b.groups.size(), "groups") +
                  differ(a.locations.size(), b.locations.size(), "locations") +
                  differ(a.topologies.size(), b.topologies.size(), "topologies") +
                  differ(a.cnodes.size(), b.cnodes.size(), "cnodes") +
                  differ(a.system_title, b.system_title, "system title");
  if (d.empty()) d = first_item_difference(a.regions, b.regions, "region", region_difference);
  if (d.empty()) d = first_item_difference(a.cnodes, b.cnodes, "cnode", cnode_difference);
  if (d.empty()) d = first_item_difference(a.system_nodes, b.system_nodes, "node", node_difference);
  if (d.empty()) d = first_item_difference(a.groups, b.groups, "group", group_difference);
  if (d.empty())
    d = first_item_difference(a.locations, b.locations, "location", location_difference);
  for (size_t i = 0; d.empty() && i < a.topologies.size(); ++i)
    d = topology_difference(a.topologies[i], b.topologies[i]);
  return d;
}

// What reading `xml` gives: the model, or the error's message.
struct Outcome {
  Model model;
  std::string error;
};

Outcome read_anchor(const std::string& xml) {
  Outcome out;
  try {
    out.model = parse_anchor(xml, "anchor.xml");
  } catch (const FormatError& e) {
    out.error = e.what();
  }
  return out;
}

Outcome read_one_thread(const std::string& xml) {
  Outcome out;
  on_one_thread([&] { out = read_anchor(xml); });
  return out;
}

// Reads `xml` split at `fraction` and on one thread: the same model or the same error.
// Returns whether the split read took a part.
bool expect_same_as_one_reader(const std::string& xml, double fraction) {
  const Outcome one = read_one_thread(xml);
  const size_t taken = system_parts_taken();
  Outcome split;
  {
    const SplitAt at(fraction);
    split = read_anchor(xml);
  }
  EXPECT_EQ(split.error, one.error) << "split at " << fraction;
  if (one.error.empty()) {
    EXPECT_EQ(first_difference(split.model, one.model), "") << fraction;
  }
  return system_parts_taken() > taken;
}

std::string generated_anchor(const GeneratorOptions& options) {
  return anchor_xml(*generated_model(options));
}

GeneratorOptions shape(size_t machines, size_t nodes, size_t processes, size_t threads) {
  GeneratorOptions o;
  o.definitions_only = true;
  o.call_paths = 200;
  o.machines = machines;
  o.nodes_per_machine = nodes;
  o.processes_per_node = processes;
  o.threads_per_process = threads;
  return o;
}

// Several shapes of generated system trees (with Score-P's topology, a coordinate per
// location), split early, in the middle and late: one node (the split falls between its
// groups), many machines, many threads, GPU streams.
TEST(SystemSplit, GeneratedTreesReadAsOneReaderReadsThem) {
  GeneratorOptions gpu = shape(2, 3, 4, 2);
  gpu.gpu_streams_per_process = 2;
  for (const GeneratorOptions& o :
       {shape(1, 1, 64, 4), shape(16, 2, 4, 2), shape(1, 40, 8, 1), shape(2, 2, 4, 16), gpu}) {
    const std::string xml = generated_anchor(o);
    for (const double fraction : {0.1, 0.5, 0.9}) {
      SCOPED_TRACE(std::to_string(o.machines) + " machines, " +
                   std::to_string(o.nodes_per_machine) + " nodes, fraction " +
                   std::to_string(fraction));
      EXPECT_TRUE(expect_same_as_one_reader(xml, fraction));
    }
  }
}

// One process of many threads: one group, nothing to split at; the tree is read as usual.
TEST(SystemSplit, OneGroupIsNotSplit) {
  const std::string xml = generated_anchor(shape(1, 1, 1, 64));
  EXPECT_FALSE(expect_same_as_one_reader(xml, 0.5));
}

// A chain of nested nodes, a group on each: the part is the rest of one node's children,
// spliced at its depth; a chain deeper than kMaxTreeNesting fails alike, wherever it splits.
TEST(SystemSplit, DeepTrees) {
  auto chain = [](int depth) {
    std::string open, close;
    for (int i = 0; i < depth; ++i) {
      const std::string id = std::to_string(i);
      open += "<systemtreenode Id=\"" + id + "\"><name>n" + id + "</name><class>c</class>" +
              "<locationgroup Id=\"" + id + "\"><name>g</name><rank>" + id +
              "</rank><type>process</type><location Id=\"" + id + "\"><name>t</name><rank>0" +
              "</rank><type>thread</type></location></locationgroup>\n";
      close += "</systemtreenode>\n";
    }
    std::string xml = generated_anchor(shape(1, 1, 1, 1));
    const size_t b = xml.find("<systemtreenode"), e = xml.rfind("</systemtreenode>") + 17;
    return xml.replace(b, e - b, open + close);
  };
  const std::string deep = chain(200);
  for (const double fraction : {0.2, 0.5, 0.8})
    EXPECT_TRUE(expect_same_as_one_reader(deep, fraction));
  const std::string too_deep = chain(kMaxTreeNesting + 2);
  for (const double fraction : {0.3, 0.9}) expect_same_as_one_reader(too_deep, fraction);
  EXPECT_NE(read_one_thread(too_deep).error.find("nested deeper than"), std::string::npos);
}

// Hostile documents: the split read tells what one reader tells.
TEST(SystemSplit, BadInputTellsTheFirstErrorInTheDocument) {
  const std::string xml = generated_anchor(shape(1, 8, 8, 2));
  const size_t system = xml.find("<system"), topologies = xml.find("<topologies");
  const size_t first = xml.find("<rank>", xml.find("<location ", system));
  const size_t last = xml.rfind("<rank>", xml.rfind("<location ", topologies));
  auto with_rank = [&](std::string doc, size_t at, const char* mark) {
    return doc.replace(at, 6, std::string("<rank>") + mark);
  };
  // Truncated in the second half.
  expect_same_as_one_reader(xml.substr(0, system + (topologies - system) * 3 / 4), 0.5);
  // A bad rank in the second half only, and in both halves: the first is told.
  const std::string second = with_rank(xml, last, "second");
  expect_same_as_one_reader(second, 0.5);
  EXPECT_NE(read_one_thread(second).error.find("rank 'second"), std::string::npos);
  const std::string both = with_rank(second, first, "first");
  expect_same_as_one_reader(both, 0.5);
  EXPECT_NE(read_one_thread(both).error.find("rank 'first"), std::string::npos);
  // The same location and group Ids in both halves.
  std::string duplicated = xml;
  const size_t g = duplicated.rfind("<locationgroup Id=\"", topologies);
  duplicated.replace(g, duplicated.find('>', g) - g, "<locationgroup Id=\"0\"");
  const size_t l = duplicated.rfind("<location Id=\"", topologies);
  duplicated.replace(l, duplicated.find('>', l) - l, "<location Id=\"0\"");
  expect_same_as_one_reader(duplicated, 0.5);
  EXPECT_FALSE(read_one_thread(duplicated).error.empty());
}

// A start tag in a comment or in CDATA where the split is looked for: the part read from
// there is not one the system reader meets, so it reads on by itself.
TEST(SystemSplit, SplitInCommentOrCdata) {
  const std::string xml = generated_anchor(shape(1, 8, 8, 2));
  const size_t system = xml.find("<system"), topologies = xml.find("<topologies");
  const size_t middle = xml.find("<locationgroup ", system + (topologies - system) / 2);
  for (const std::string& hidden :
       {std::string("<!-- <systemtreenode Id=\"99\"><locationgroup Id=\"9\"> -->\n"),
        std::string("<descr><![CDATA[<systemtreenode Id=\"99\"></systemtreenode>]]></descr>\n")}) {
    std::string doc = xml;
    doc.insert(middle, hidden);
    const double fraction = static_cast<double>(middle - system) /
                            static_cast<double>(doc.find("<topologies") - system);
    expect_same_as_one_reader(doc, fraction);
    if (hidden[1] == '!') {
      EXPECT_EQ(read_one_thread(doc).error, "");
    }
  }
}

// The topologies read ahead, or by the system reader when it reaches them first (the other
// thread still on the call tree): the system read alone reads them itself, instead of waiting
// for a reader that has not begun, and the reader ahead, coming later, leaves them to it.
// Either way the model is the one a single reader makes.
TEST(SystemSplit, TopologiesAreReadByWhoeverComesFirst) {
  const std::string xml = generated_anchor(shape(2, 2, 4, 2));
  const size_t system = xml.find("<system>");
  Model alone;
  read_system(xml, system, xml.size(), alone, "anchor.xml");
  ASSERT_EQ(alone.topologies.size(), 1u);
  ASSERT_EQ(alone.topologies[0].coords.size(), alone.locations.size());
  {
    TopologiesAhead ahead;
    Model model;
    read_system(xml, system, xml.size(), model, "anchor.xml", {}, &ahead);
    read_topologies_ahead(xml, system, "anchor.xml", {}, ahead);
    EXPECT_EQ(ahead.reader.load(), TopologiesAhead::Reader::kSystem);
    EXPECT_TRUE(ahead.topologies.empty());
    EXPECT_EQ(ahead.ready.wait_for(std::chrono::seconds(0)), std::future_status::ready);
    EXPECT_EQ(first_difference(model, alone), "");
  }
  {
    TopologiesAhead ahead;
    Model model;
    read_topologies_ahead(xml, system, "anchor.xml", {}, ahead);
    EXPECT_EQ(ahead.reader.load(), TopologiesAhead::Reader::kAhead);
    ASSERT_EQ(ahead.topologies.size(), 1u);
    read_system(xml, system, xml.size(), model, "anchor.xml", {}, &ahead);
    EXPECT_EQ(first_difference(model, alone), "");
  }
}

// The real profiles (CubeLib's, Score-P's, Extra-P's test files) read split as one reader reads
// them.
TEST(SystemSplit, RealProfilesReadAsOneReaderReadsThem) {
  CUBEKIT_REQUIRE_SHARED();
  size_t reports = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(test::shared_dir() / "data" / "real")) {
    if (entry.path().extension() != ".cubex") continue;
    const std::string path = entry.path().string();
    std::string one_error, split_error;
    std::unique_ptr<Report> one, split;
    on_one_thread([&] {
      try {
        one = std::make_unique<Report>(Report::open(path));
      } catch (const Error& e) {
        one_error = e.what();
      }
    });
    for (const double fraction : {0.3, 0.6}) {
      const SplitAt at(fraction);
      try {
        split = std::make_unique<Report>(Report::open(path));
      } catch (const Error& e) {
        split_error = e.what();
      }
      EXPECT_EQ(split_error, one_error) << path;
      if (one && split) {
        EXPECT_EQ(first_difference(split->model(), one->model()), "") << path;
      }
    }
    ++reports;
  }
  EXPECT_GT(reports, 10u);
}

// Reads `xml` on two threads and on one (in order): the same model or the same error. Returns
// whether the two threads read the program in its two parts.
bool program_read_as_one_reader(const std::string& xml) {
  const Outcome one = read_one_thread(xml);
  const size_t used = program_parts_taken();
  const Outcome two = read_anchor(xml);
  EXPECT_EQ(two.error, one.error);
  if (one.error.empty()) {
    EXPECT_EQ(first_difference(two.model, one.model), "");
  }
  return program_parts_taken() > used;
}

// Generated call trees of one, 200 and 5,000 call paths (regions first, as every writer puts
// them), read in two parts.
TEST(ProgramParts, GeneratedCallTreesReadAsOneReaderReadsThem) {
  for (const size_t call_paths : {size_t{1}, size_t{200}, size_t{5000}}) {
    GeneratorOptions o = shape(1, 2, 2, 1);
    o.call_paths = call_paths;
    SCOPED_TRACE(std::to_string(call_paths) + " call paths");
    EXPECT_TRUE(program_read_as_one_reader(generated_anchor(o)));
  }
}

// Programs that are not regions followed by call forests: a "<cnode" in a comment before the
// first call path, a region after the call tree, a comment between two call forests, no call
// tree, no regions. The parts are then not used, and the model is still one reader's.
TEST(ProgramParts, UnusualProgramsAreReadInOrder) {
  test::AnchorSpec spec;
  spec.cnodes =
      "<cnode id=\"0\" calleeId=\"0\" line=\"7\" mod=\"a.c\">\n"
      "<parameter partype=\"numeric\" parkey=\"n\" parvalue=\"4\"/>\n"
      "<attr key=\"k\" value=\"v\"/>\n<cnode id=\"1\" calleeId=\"1\"/>\n</cnode>\n"
      "<cnode id=\"2\" calleeId=\"2\"></cnode>\n";
  const std::string usual = test::anchor_xml(spec);
  EXPECT_TRUE(program_read_as_one_reader(usual));
  ASSERT_EQ(read_one_thread(usual).model.cnodes.size(), 3u);
  EXPECT_EQ(parameters(read_one_thread(usual).model.cnodes[0].parameters), "numeric:n=4 ");

  std::string hidden = usual;
  hidden.insert(hidden.find("<region"), "<!-- <cnode id=\"7\" calleeId=\"0\"/> -->\n");
  EXPECT_FALSE(program_read_as_one_reader(hidden));
  EXPECT_EQ(read_one_thread(hidden).model.cnodes.size(), 3u);

  test::AnchorSpec late = spec;
  late.cnodes +=
      "<region id=\"3\" mod=\"late.c\" begin=\"1\" end=\"2\">\n<name>late</name>\n</region>\n";
  EXPECT_FALSE(program_read_as_one_reader(test::anchor_xml(late)));
  EXPECT_EQ(read_one_thread(test::anchor_xml(late)).model.regions.size(), 4u);

  test::AnchorSpec between = spec;
  between.cnodes += "<!-- between -->\n<cnode id=\"3\" calleeId=\"1\"/>\n";
  EXPECT_FALSE(program_read_as_one_reader(test::anchor_xml(between)));

  test::AnchorSpec no_tree = spec;
  no_tree.cnodes.clear();
  program_read_as_one_reader(test::anchor_xml(no_tree));
  test::AnchorSpec no_regions = spec;
  no_regions.regions = 0;
  program_read_as_one_reader(test::anchor_xml(no_regions));
  EXPECT_NE(read_one_thread(test::anchor_xml(no_regions)).error.find("calls region 0"),
            std::string::npos);
}

// Errors in the regions, in the call forest, in both: the first in the document is told.
TEST(ProgramParts, BadInputTellsTheFirstErrorInTheDocument) {
  const std::string xml = generated_anchor(shape(1, 2, 2, 1));
  const size_t first_cnode = xml.find("<cnode ");
  const size_t region_begin = xml.find(" begin=\"");
  const size_t last_callee = xml.rfind("calleeId=\"");
  auto replaced = [](std::string doc, size_t at, size_t n, const std::string& with) {
    return doc.replace(at, n, with);
  };
  const std::string bad_region = replaced(xml, region_begin, 8, " begin=\"x");
  const std::string bad_cnode = replaced(xml, last_callee, 10, "calleeId=\"x");
  const std::string both = replaced(bad_cnode, region_begin, 8, " begin=\"x");
  for (const std::string& doc :
       {bad_region, bad_cnode, both,
        xml.substr(0, first_cnode + (xml.find("</program>") - first_cnode) / 2),
        replaced(xml, xml.find("</program>"), 10, "</programme>"),
        replaced(xml, xml.rfind("</cnode>"), 8, "</node>"),
        replaced(xml, xml.find("<region id=\"1\""), 14, "<region id=\"0\"")}) {
    program_read_as_one_reader(doc);
    EXPECT_NE(read_one_thread(doc).error, "");
  }
  EXPECT_NE(read_one_thread(both).error.find("region begin"), std::string::npos);
  EXPECT_NE(read_one_thread(bad_cnode).error.find("calleeId"), std::string::npos);
}

}  // namespace
}  // namespace cubekit::format
