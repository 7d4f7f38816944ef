// cube_topoassist: add, generate, rename or remove Cartesian topologies of a report (tools guide
// §1.5) in CubeLib's question-and-answer dialogue. The answers come from -a options first,
// then from standard input, so a script or test can give them; lines starting with # and
// empty lines are skipped, as in the original. When the answers run out the tool stops with
// exit 1 (the original asks again forever). The result goes to topo.cubex in the current
// folder, as the original writes it (CubeLib's test 25 reads that file); -o names another.

#include <deque>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/topology.hpp"
#include "cubekit/writer.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "Usage: cube_topoassist [opts] <cube experiment>\n"
    "Command-line switches:\n"
    "  -c : create a new topology in the existing CUBE file.\n"
    "  -g : generate topologies from the system tree.\n"
    "  -n : [re]name an existing topology\n"
    "  -r : remove an existing topology\n"
    "  -d : name dimensions of a topology\n"
    "  -o <file> : output CUBE file (default: topo.cubex in the current directory)\n"
    "  -a <answer> : the next answer to the dialogue (repeatable; then standard input)\n";

// Stops the dialogue: a message, exit 1.
struct Stop {
  std::string message;
};

class Dialogue {
 public:
  explicit Dialogue(std::deque<std::string> answers) : answers_(std::move(answers)) {}

  std::string text(const std::string& question) {
    std::cout << question << std::endl;
    std::string line;
    while (true) {
      if (!answers_.empty()) {
        line = answers_.front();
        answers_.pop_front();
      } else if (!std::getline(std::cin, line)) {
        throw Stop{"no answer to \"" + question + "\" (standard input ended)"};
      }
      if (!line.empty() && line[0] != '#') return line;
    }
  }
  long number(const std::string& question, long minimum) {
    while (true) {
      std::istringstream in(text(question));
      long n;
      if (in >> n && n >= minimum) return n;
    }
  }
  bool yes(const std::string& question) {
    while (true) {
      const std::string a = text(question);
      if (a[0] == 'y' || a[0] == 'Y') return true;
      if (a[0] == 'n' || a[0] == 'N') return false;
    }
  }

 private:
  std::deque<std::string> answers_;
};

void show_topologies(const Model& model) {
  std::cout << "This CUBE has " << model.topologies.size() << " topologie(s).\n";
  for (size_t i = 0; i < model.topologies.size(); ++i) {
    const Topology& t = model.topologies[i];
    const bool named = !t.dims.empty() && !t.dims[0].name.empty();
    std::cout << i << ". " << (t.name.empty() ? "Unnamed topology" : t.name) << ", "
              << t.dims.size() << " dimensions: ";
    int64_t total = 1;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      if (named) std::cout << t.dims[d].name << ": ";
      std::cout << t.dims[d].size << (d + 1 < t.dims.size() ? " x " : ",");
      total *= t.dims[d].size;
    }
    std::cout << " total = " << total << " threads. " << (named ? "" : "Dimensions are not named.")
              << '\n';
  }
}

size_t choose_topology(Dialogue& ask, const Model& model, const std::string& question) {
  show_topologies(model);
  if (model.topologies.empty()) throw Stop{"the report has no topology"};
  const long i = ask.number(question, 0);
  if (i >= static_cast<long>(model.topologies.size()))
    throw Stop{"there is no topology " + std::to_string(i)};
  return static_cast<size_t>(i);
}

void rename_topology(Dialogue& ask, Model& model) {
  const size_t i = choose_topology(ask, model, "\nTopology to [re]name?");
  model.topologies[i].name = ask.text("New name: ");
  std::cout << "Topology successfully [re]named.\n\n";
}

void rename_dimensions(Dialogue& ask, Model& model) {
  const size_t i =
      choose_topology(ask, model, "\nIn which topology do you want to [re]name dimensions?");
  for (size_t d = 0; d < model.topologies[i].dims.size(); ++d)
    model.topologies[i].dims[d].name =
        ask.text("New name for dimension " + std::to_string(d) + " : ");
  std::cout << "Dimensions successfully [re]named\n\n";
}

void remove_topology(Dialogue& ask, Model& model) {
  const size_t i = choose_topology(ask, model, "\nTopology to remove?");
  model.topologies.erase(model.topologies.begin() + static_cast<long>(i));
  std::cout << "Topology successfully removed.\n\n";
}

void ask_coordinates(Dialogue& ask, const Model& model, Topology& t) {
  for (Index l : locations_in_rank_order(model)) {
    const Location& loc = model.locations[l];
    const std::string answer = ask.text(
        loc.name.str() + "'s (rank " + std::to_string(model.groups[loc.group].rank) +
        ") coordinates in " + std::to_string(t.dims.size()) + " dimensions, separated by spaces");
    std::istringstream in(answer);
    std::vector<int64_t> numbers;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      long v = -1;
      if (!(in >> v) || v < 0 || v >= t.dims[d].size)
        throw Stop{"invalid coordinate in \"" + answer + "\": dimension " + std::to_string(d) +
                   " has the coordinates 0 to " + std::to_string(t.dims[d].size - 1)};
      numbers.push_back(v);
    }
    t.add_coord(Topology::Owner::kLocation, loc.id, numbers);
  }
}

void create_topology(Dialogue& ask, Model& model) {
  std::cout << "So far, only cartesian topologies are accepted." << std::endl;
  Topology t;
  t.name = ask.text("Name for new topology?");
  const long dims = ask.number("Number of Dimensions?", 1);
  const bool named = ask.yes("Do you want to name the dimensions (axis) of this topology? (Y/N)");
  int64_t positions = 1;
  for (long d = 0; d < dims; ++d) {
    const std::string i = std::to_string(d);
    Topology::Dim dim;
    if (named) dim.name = ask.text("Name for dimension " + i);
    dim.size = ask.number("Number of elements for dimension " + i, 1);
    dim.periodic = ask.yes("Is dimension " + i + " periodic?");
    positions *= dim.size;
    t.dims.push_back(std::move(dim));
  }
  const auto threads = static_cast<int64_t>(model.locations.size());
  if (positions < threads)
    throw Stop{"the number of possible coordinates (" + std::to_string(positions) +
               ") is smaller than the number of threads (" + std::to_string(threads) + ")"};
  if (positions > threads)
    std::cout << "Alert: The number of possible coordinates (" << positions
              << ") is bigger than the number of threads on the specified cube file (" << threads
              << "). Some positions will stay empty.\n";
  std::cout << "Topology on THREAD level.\n";
  ask_coordinates(ask, model, t);
  check_topology(model, t);
  model.topologies.push_back(std::move(t));
}

void generate(Dialogue& ask, Model& model) {
  TopologyGeneration options;
  if (!ask.yes("Use default parameters? (Y/N)")) {
    options.keep_singular = ask.yes("Include dimensions of size 1? (Y/N)");
    options.split_roots = ask.yes("Generate separate topologies per machine? (Y/N)");
  }
  for (Topology& t : generate_topologies(model, options)) {
    std::cout << "Generated topology " << t.name << '\n';
    model.topologies.push_back(std::move(t));
  }
}

}  // namespace

int topoassist_main(int argc, char** argv) {
  bool create = false, gen = false, rename = false, remove = false, dims = false;
  std::string output = "topo.cubex";
  std::deque<std::string> answers;
  // -h prints the usage on stderr and exits 0; unknown options exit 1.
  OptionTable table{{{'c'},
                     {'g'},
                     {'n'},
                     {'r'},
                     {'d'},
                     {'o', Argument::kRequired},
                     {'a', Argument::kRequired},
                     {'h', Argument::kNone, help(kUsage, Stream::kStderr)}}};
  table.unknown = failure(kUsage);
  const std::vector<std::string> operands =
      parse_command_line(table, argc, argv, [&](char c, const char* arg) {
        if (c == 'c') create = true;
        if (c == 'g') gen = true;
        if (c == 'n') rename = true;
        if (c == 'r') remove = true;
        if (c == 'd') dims = true;
        if (c == 'o') output = arg;
        if (c == 'a') answers.push_back(arg);
      }).operands;
  if (operands.size() != 1 || !(create || gen || rename || remove || dims))
    throw failure(std::string(kUsage) +
                  "cube_topoassist: one report and at least one of -c -g -n -r -d\n");
  const std::string file = operands[0];
  if (output.size() < 6 || output.compare(output.size() - 6, 6, ".cubex") != 0) output += ".cubex";
  try {
    std::cout << "Reading " << file << " . Please wait... " << std::flush;
    const Report report = Report::open(file);
    std::cout << "Done.\nProcesses are ordered by rank. For more information about this file, "
                 "use cube_info -S <cube experiment>\n\n";
    auto model = std::make_shared<Model>(report.model());
    // CubeLib writes a copy of the cube made by its Cube copy, which leaves the three tree
    // titles behind (the Cube 3 templates of its test 25 have none), as cube_canonize does.
    model->metrics_title.clear();
    model->program_title.clear();
    model->system_title.clear();
    Dialogue ask(std::move(answers));
    if (rename) rename_topology(ask, *model);
    if (dims) rename_dimensions(ask, *model);
    if (create) create_topology(ask, *model);
    if (gen) generate(ask, *model);
    if (remove) remove_topology(ask, *model);
    std::cout << "\nWrite " << output << "......" << std::flush;
    write_report(report, model, output);
    std::cout << "done." << std::endl;
    return 0;
  } catch (const Stop& s) {
    std::cout << std::endl;
    std::cerr << "cube_topoassist: " << file << ": " << s.message << '\n';
  } catch (const Error& e) {
    std::cout << std::endl;
    std::cerr << "cube_topoassist: " << e.what() << '\n';
  }
  return 1;
}

}  // namespace cubekit::tools
