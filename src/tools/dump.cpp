// cube_dump: a report's structure (-w) and values (-m), option-compatible with CubeLib 4.6's
// tool (tools guide §1.5.16). Layouts follow the original byte for byte; see docs/cube_dump.md.
#include <algorithm>
#include <charconv>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/atomic_file.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/flat_profile.hpp"
#include "cubekit/parallel.hpp"
#include "cubekit/report.hpp"
#include "cubekit/selection.hpp"
#include "cubekit/structure.hpp"
#include "cubekit/value_text.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "Usage: cube_dump [-m <metrics>|all] [-c <cnode ids>|all|leafs|roots|level<X|level=X|level>X|"
    "name=/regexp/|<file>]\n"
    "                 [-x incl|excl] [-z incl|excl|stored] [-t <thread ids>|aggr] [-r]\n"
    "                 [-f <name>] [-w [<section>]] [-g] [-d] [-y] [-s "
    "human|gnuplot|gnuplot2|csv|csv2]\n"
    "                 [-o <file>|-] [-h|-?] <cube report>...\n"
    "  -m  metrics to print, by unique name, comma separated (printed last to first), or all;\n"
    "      new metrics: a CubePL expression, name:expression, or a file holding one\n"
    "  -c  call paths: ids and ranges (0,3,5-10), all, leafs, roots, level<X, level=X, level>X,\n"
    "      name=/regexp/ (region name matches), or a file with a CubePL expression: the call\n"
    "      paths where it is > 0 (evaluated as a postderived metric, inclusive, whole system)\n"
    "  -x  along the metric tree: incl (default) or excl\n"
    "  -z  along the call tree: incl, excl (default) or stored (values as stored, per thread)\n"
    "  -t  locations by id and range, or aggr (summed over the system tree); default: every one\n"
    "  -r  flat profile: values per region\n"
    "  -w  print the structure (or only: attributes mirrors metrics calltree systemtree\n"
    "      topologies files)\n"
    "  -g  with -w: also ghost metrics;  -d  with -w: topology coordinates\n"
    "  -f  with -w: print the content of this archive member\n"
    "  -y  show the stored call tree (no cluster expansion; cubekit never expands clusters)\n"
    "  -s  output format;  -o  output file (- for stdout)\n";

enum class Format { kHuman, kGnuplot, kGnuplot2, kCsv, kCsv2 };

struct Options {
  std::string metrics;
  bool metrics_given = false;
  std::string cnodes = "all";
  Flavour metric_flavour = Flavour::kInclusive;
  Flavour call_flavour = Flavour::kExclusive;
  bool stored = false;
  bool aggregate = false;
  std::string threads;
  bool flat = false;
  bool structure = false;
  StructureOptions structure_options;
  Format format = Format::kHuman;
  std::string output = "-";
  std::vector<std::string> files;
};

EarlyExit wrong_arguments() {
  return failure(std::string(kUsage) + "\nError: Wrong arguments.\n");
}

bool is_section_word(const std::string& word) {
  return is_structure_section(word);
}

// CubeLib's cube_dump: -h, -? and unknown options print the usage on stderr and exit 0; -w
// takes the next word only when it names a section (else the word is a report).
OptionTable dump_options() {
  const EarlyExit usage = help(kUsage, Stream::kStderr);
  const auto value = Argument::kRequired;
  OptionTable table{{{'s', value},
                     {'o', value},
                     {'f', value},
                     {'z', value},
                     {'x', value},
                     {'m', value},
                     {'c', value},
                     {'t', value},
                     {'r'},
                     {'d'},
                     {'w', Argument::kWordIf, std::nullopt, is_section_word},
                     {'g'},
                     {'h', Argument::kNone, usage},
                     {'y'},
                     {'?', Argument::kNone, usage}}};
  table.unknown = usage;
  table.operands = OperandCount{1, SIZE_MAX, wrong_arguments()};
  return table;
}

void take_option(Options& o, char c, const std::string& arg) {
  switch (c) {
    case 's':
      if (arg == "human") o.format = Format::kHuman;
      if (arg == "gnuplot") o.format = Format::kGnuplot;
      if (arg == "gnuplot2") o.format = Format::kGnuplot2;
      if (arg == "csv") o.format = Format::kCsv;
      if (arg == "csv2") o.format = Format::kCsv2;
      break;
    case 'o':
      o.output = arg;
      break;
    case 'f':
      o.structure_options.show_file = arg;
      break;
    case 'z':
      if (arg == "incl")
        o.call_flavour = Flavour::kInclusive;
      else if (arg == "excl")
        o.call_flavour = Flavour::kExclusive;
      else if (arg == "stored")
        o.stored = true;
      else
        throw wrong_arguments();
      break;
    case 'x':
      if (arg == "incl")
        o.metric_flavour = Flavour::kInclusive;
      else if (arg == "excl")
        o.metric_flavour = Flavour::kExclusive;
      else
        throw wrong_arguments();
      break;
    case 'm':
      o.metrics = arg;
      o.metrics_given = true;
      break;
    case 'c':
      o.cnodes = arg;
      break;
    case 't':
      if (arg == "aggr")
        o.aggregate = true;
      else
        o.threads = arg;
      break;
    case 'r':
      o.flat = true;
      break;
    case 'd':
      o.structure_options.coordinates = true;
      break;
    case 'g':
      o.structure_options.ghosts = true;
      break;
    case 'w':
      o.structure = true;
      if (!arg.empty()) {
        if (!is_structure_section(arg)) throw wrong_arguments();  // attached: -wxyz
        o.structure_options.sections.push_back(arg);
      }
      break;
  }
}

Options parse(int argc, char** argv) {
  Options o;
  o.files = parse_command_line(dump_options(), argc, argv, [&](char c, const char* arg) {
              take_option(o, c, arg ? arg : "");
            }).operands;
  return o;
}

// A call path's label as cube_dump prints it: its region's name, then "(id=<its id>)".
struct CnodeLabel {
  CnodeLabel(const Model& model, Index c) : name(model.regions[model.cnodes[c].region].name) {
    id_size = static_cast<size_t>(std::to_chars(id, id + sizeof id, model.cnodes[c].id).ptr - id);
  }
  size_t size() const { return name.size() + id_size + 5; }
  // Writes the size() bytes of the label at `out`.
  void write(char* out) const {
    out = std::copy(name.begin(), name.end(), out);
    out = std::copy_n("(id=", 4, out);
    out = std::copy_n(id, id_size, out);
    *out = ')';
  }
  std::string_view name;
  char id[10];  // the digits of a 32-bit id
  size_t id_size;
};

std::string cnode_label(const Model& model, Index c) {
  const CnodeLabel label(model, c);
  std::string text(label.size(), ' ');
  label.write(text.data());
  return text;
}

struct Selection {
  std::vector<Index> metrics, cnodes, locations;
};

// The text of value i of v as CubeLib computes a value of one chosen location (-t N, csv2): from
// an empty value, to which it is added, so a SCALE_FUNC value loses the measurements that only
// a whole row keeps (docs/models.md).
std::string single_value_text(const Values& v, size_t i) {
  if (v.type().kind() != TypeKind::kScaleFunc) return value_text(v.type(), v.at(i));
  Values one(v.type(), 1);
  plus_rows(v.type(), one.data(), v.at(i), 1);
  return value_text(v.type(), one.at(0));
}

// What this process computes of the values shown per location: alone all of them, from the
// whole report; in an MPI job that splits one report by its locations (docs/mpi.md), those of
// its run of the chosen locations, from the report's columns that hold them.
struct LocationShare {
  MetricEngine* engine = nullptr;  // of the report, or of its columns
  size_t first_column = 0;         // the report's column that is the engine's column 0
  size_t from = 0, to = 0;         // positions into Selection::locations
  bool split = false;
  RowFolds folds;  // split: -t aggr's sums over the locations, continued from rank to rank
};

// A metric's values aggregated over all locations: alone the engine's; split, from the ranks'
// row folds (collective: every rank asks for the same metrics in the same order).
Values aggregated_of(const LocationShare& share, Index metric, Flavour metric_flavour,
                     Flavour call_flavour) {
  if (!share.split) return share.engine->aggregated_values(metric, metric_flavour, call_flavour);
  return aggregated_values(share.engine->report(), metric, metric_flavour, call_flavour,
                           share.folds);
}

Values aggregated_of(const LocationShare& share, const Options& o, Index metric) {
  return aggregated_of(share, metric, o.metric_flavour, o.call_flavour);
}

// The values one metric shows, per cnode (aggregated) or per cnode and location.
class MetricValues {
 public:
  MetricValues(const LocationShare& share, const Model& model, const Options& o, Index metric,
               std::optional<Values> aggregated = std::nullopt)
      : engine_(*share.engine),
        share_(share),
        model_(model),
        first_column_(share.first_column),
        options_(o),
        metric_(metric),
        aggregated_(std::move(aggregated)) {
    if (o.aggregate && !aggregated_) aggregated_.emplace(aggregated_of(share_, o, metric));
  }
  std::string aggregated(Index c) const {
    return value_text(aggregated_->type(), aggregated_->at(c));
  }
  // Values of cnode c for every location (by column). Derived metrics store nothing: -z
  // stored shows their computed values.
  const Values& row(Index c) {
    if (!row_ || row_cnode_ != c) {
      const bool stored = options_.stored && !is_derived(engine_.metric(metric_).kind);
      row_.emplace(stored ? engine_.stored_values(metric_, c)
                          : engine_.location_values(metric_, c, options_.metric_flavour,
                                                    options_.call_flavour));
      row_cnode_ = c;
    }
    return *row_;
  }
  std::string at(Index c, Index location) {
    const Values& r = row(c);
    const size_t i = model_.locations[location].id - first_column_;
    if (!options_.threads.empty() || options_.format == Format::kCsv2)
      return single_value_text(r, i);
    return value_text(r.type(), r.at(i));
  }

 private:
  MetricEngine& engine_;
  const LocationShare& share_;
  const Model& model_;  // the whole report's: location ids are columns of it
  size_t first_column_;
  const Options& options_;
  Index metric_;
  std::optional<Values> aggregated_;
  std::optional<Values> row_;
  Index row_cnode_ = kNoIndex;
};

// Forgets a stored metric's decoded values once it is printed.
void drop(const MetricEngine& engine, Index metric) {
  if (metric < engine.report().model().metrics.size()) engine.report().drop(metric);
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// The per-location part of the line of each chosen call path (k: its position in
// Selection::cnodes), as part(k) makes it of this process's locations: alone the whole part;
// split, every rank's part joined on rank 0 (`value_bytes`: about the text of one value).
std::function<std::string(size_t)> location_parts(const LocationShare& share, const Selection& s,
                                                  uint64_t value_bytes,
                                                  std::function<std::string(size_t k)> part) {
  return rows_in_job(share.split, s.cnodes.size(), s.locations.size() * value_bytes,
                     std::move(part));
}

// With -t aggr every metric's table is C values: compute them on all cores first (metrics are
// independent and each streams its rows), then print in order.
std::vector<std::optional<Values>> aggregate_all(const LocationShare& share, const Options& o,
                                                 const Selection& s) {
  std::vector<std::optional<Values>> out(s.metrics.size());
  if (!o.aggregate) return out;
  if (share.split) {  // collective steps, one metric after the other
    for (size_t i = 0; i < s.metrics.size(); ++i)
      out[i].emplace(aggregated_of(share, o, s.metrics[i]));
    return out;
  }
  parallel_for(s.metrics.size(),
               [&](size_t i) { out[i].emplace(aggregated_of(share, o, s.metrics[i])); });
  return out;
}

// Bytes of a table's text gathered before they go to the stream: one reserved buffer, small
// enough for the allocator to keep it among its own pages (not a fresh mapping per table).
constexpr size_t kTablePiece = size_t{64} << 10;

// The header of metric m's table in the human layout, up to its first line of values.
void print_table_header(std::ostream& out, const MetricEngine& engine, const Options& o,
                        const Selection& s, Index m, size_t width) {
  const Model& model = engine.report().model();
  out << "Print out the data of the metric " << engine.metric(m).uniq_name << "\n\n";
  out << std::string(width + 1, ' ');
  if (o.aggregate)
    out << "All threads";
  else
    for (Index l : s.locations) out << model.locations[l].name << std::string(13, ' ');
  out << "\n" << std::string(79, '-') << "\n";
}

// Call path labels padded to one width, as every table of the human layout starts its lines:
// label k is text[k * (width + 1), (k + 1) * (width + 1)), the last character a space. One
// block, not a string per call path: 5,000 of them cost more to free than to print.
struct PaddedLabels {
  std::string text;
  size_t width = 0;  // of the longest label
  size_t count = 0;
  std::string_view operator[](size_t k) const {
    return std::string_view(text).substr(k * (width + 1), width + 1);
  }
};

PaddedLabels padded_labels(const Model& model, const Selection& s) {
  // Sizes first, then each label straight into its place: no label is a string of its own.
  size_t width = 0;
  for (Index c : s.cnodes) width = std::max(width, CnodeLabel(model, c).size());
  PaddedLabels labels{std::string(s.cnodes.size() * (width + 1), ' '), width, s.cnodes.size()};
  for (size_t k = 0; k < s.cnodes.size(); ++k)
    CnodeLabel(model, s.cnodes[k]).write(labels.text.data() + k * (width + 1));
  return labels;
}

// The value texts of a -t aggr table, one line per chosen call path, without the labels (which
// every table repeats: they are joined as the table is written, and the texts held are small).
std::string aggregated_value_lines(const Values& values, const Selection& s) {
  std::string text;
  text.reserve(s.cnodes.size() * 16);
  for (Index c : s.cnodes) {
    text += value_text(values.type(), values.at(c));
    text += '\n';
  }
  return text;
}

// Writes a table's lines, each call path's label followed by what `append_rest(k, table)` adds
// (the rest of line k, its newline included), gathered in `table` and written in pieces: three
// stream insertions per line cost more than the line's value text (30,000 lines for a
// 5,000-call-path report).
template <class AppendRest>
void write_labelled_lines(std::ostream& out, const PaddedLabels& labels, AppendRest append_rest,
                          std::string& table) {
  for (size_t k = 0; k < labels.count; ++k) {
    table += labels[k];
    append_rest(k, table);
    if (table.size() >= kTablePiece) {
      out << table;
      table.clear();
    }
  }
  out << table;
  table.clear();
}

// -t aggr of one process: each metric's sums and the text of its values are made in one job
// on all cores, so that the value text (most of a large report's printing) is made beside the
// other metrics' folds instead of after them all; the call paths' labels are one more job, the
// first (last, it left one core idle while it ran: 19 ms of 50,000 labels on a 2-core machine).
// The tables are then written in order. One parallel_for for all metrics, as the sums alone
// were before: a thread that finishes early takes the next metric, whatever the others do
// (batches would wait for the slowest metric of each, and on a busy machine for a thread that
// has no core). The texts held instead of the sums are about as large (a DOUBLE's text has at
// most 13 bytes and a newline, its value 8).
void print_aggregated_tables(std::ostream& out, const MetricEngine& engine,
                             const LocationShare& share, const Options& o, const Selection& s) {
  const size_t n = s.metrics.size();
  PaddedLabels labels;
  std::vector<std::string> values(n);
  parallel_for(n + 1, [&](size_t job) {
    if (job == 0) {
      labels = padded_labels(engine.report().model(), s);
      return;
    }
    values[job - 1] = aggregated_value_lines(aggregated_of(share, o, s.metrics[job - 1]), s);
  });
  out << "\n\n ===================== DATA =================== \n";
  std::string table;
  table.reserve(kTablePiece + 4096);
  for (size_t i = 0; i < n; ++i) {
    print_table_header(out, engine, o, s, s.metrics[i], labels.width);
    std::string_view lines = values[i];
    write_labelled_lines(
        out, labels,
        [&lines](size_t, std::string& text) {
          const size_t line_end = lines.find('\n') + 1;
          text += lines.substr(0, line_end);
          lines.remove_prefix(line_end);
        },
        table);
    std::string().swap(values[i]);
    drop(engine, s.metrics[i]);
  }
}

void print_human(std::ostream& out, MetricEngine& engine, const LocationShare& share,
                 const Options& o, const Selection& s) {
  if (o.aggregate && !share.split) return print_aggregated_tables(out, engine, share, o, s);
  const Model& model = engine.report().model();
  // Labels once for all metrics (a table per metric repeats them).
  const PaddedLabels labels = padded_labels(model, s);
  auto aggregated = aggregate_all(share, o, s);
  out << "\n\n ===================== DATA =================== \n";
  std::string table;
  table.reserve(kTablePiece + 4096);
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    const Index m = s.metrics[i];
    MetricValues values(share, model, o, m, std::move(aggregated[i]));
    print_table_header(out, engine, o, s, m, labels.width);
    const auto parts = location_parts(share, s, 32, [&](size_t k) {
      std::string text;
      for (size_t p = share.from; p < share.to; ++p) {
        const Index l = s.locations[p];
        text += pad(values.at(s.cnodes[k], l), model.locations[l].name.size() + 12);
      }
      return text;
    });
    write_labelled_lines(
        out, labels,
        [&](size_t k, std::string& text) {
          text += o.aggregate ? values.aggregated(s.cnodes[k]) : parts(k);
          text += '\n';
        },
        table);
    drop(*share.engine, m);
  }
}

void print_csv2(std::ostream& out, MetricEngine& engine, const LocationShare& share,
                const Options& o, const Selection& s) {
  const Model& model = engine.report().model();
  auto aggregated = aggregate_all(share, o, s);
  std::vector<std::unique_ptr<MetricValues>> values;
  for (size_t i = 0; i < s.metrics.size(); ++i)
    values.push_back(
        std::make_unique<MetricValues>(share, model, o, s.metrics[i], std::move(aggregated[i])));
  out << (o.aggregate ? "Cnode ID" : "Cnode ID, Thread ID");
  for (Index m : s.metrics) out << "," << engine.metric(m).uniq_name;
  out << "\n";
  const auto parts = location_parts(share, s, 24 * (s.metrics.size() + 1), [&](size_t k) {
    const Index c = s.cnodes[k];
    std::string text;
    for (size_t p = share.from; p < share.to; ++p) {
      const Index l = s.locations[p];
      text += std::to_string(model.cnodes[c].id) + "," + std::to_string(model.locations[l].id);
      for (auto& v : values) text += "," + v->at(c, l);
      text += "\n";
    }
    return text;
  });
  for (size_t k = 0; k < s.cnodes.size(); ++k) {
    const Index c = s.cnodes[k];
    if (!o.aggregate) {
      out << parts(k);
      continue;
    }
    out << model.cnodes[c].id;
    for (auto& v : values) out << "," << v->aggregated(c);
    out << "\n";
  }
}

// The per-location lines of -s csv and gnuplot, which differ in their separator only: for
// each location "<call path id><separator><location id><separator><value>".
std::function<std::string(size_t)> separated_location_lines(const LocationShare& share,
                                                            const Model& model, const Selection& s,
                                                            MetricValues& values, char separator) {
  return location_parts(share, s, 40, [&share, &model, &s, &values, separator](size_t k) {
    const Index c = s.cnodes[k];
    std::string text;
    for (size_t p = share.from; p < share.to; ++p) {
      const Index l = s.locations[p];
      text += std::to_string(model.cnodes[c].id) + separator +
              std::to_string(model.locations[l].id) + separator + values.at(c, l) + "\n";
    }
    return text;
  });
}

void print_csv(std::ostream& out, MetricEngine& engine, const LocationShare& share,
               const Options& o, const Selection& s) {
  const Model& model = engine.report().model();
  for (Index m : s.metrics) {
    MetricValues values(share, model, o, m);
    const auto parts = separated_location_lines(share, model, s, values, ',');
    for (size_t k = 0; k < s.cnodes.size(); ++k) {
      const Index c = s.cnodes[k];
      out << "\n\n";
      if (o.aggregate)
        out << model.cnodes[c].id << "," << values.aggregated(c) << "\n";
      else
        out << parts(k);
    }
    out << "\n";
    drop(*share.engine, m);
  }
}

void print_gnuplot(std::ostream& out, MetricEngine& engine, const LocationShare& share,
                   const Options& o, const Selection& s) {
  const Model& model = engine.report().model();
  out << "\n\n# ===================== DATA =================== \n";
  for (Index m : s.metrics) {
    MetricValues values(share, model, o, m);
    out << "# Print out the data of the metric " << engine.metric(m).uniq_name << "\n\n";
    const auto parts = separated_location_lines(share, model, s, values, '\t');
    for (size_t k = 0; k < s.cnodes.size(); ++k) {
      const Index c = s.cnodes[k];
      out << "\n#" << cnode_label(model, c) << "\n";
      if (o.aggregate)
        out << model.cnodes[c].id << "\t" << values.aggregated(c) << "\n";
      else
        out << parts(k);
    }
    out << "\n";
    drop(*share.engine, m);
  }
}

void print_gnuplot2(std::ostream& out, MetricEngine& engine, const LocationShare& share,
                    const Options& o, const Selection& s) {
  const Model& model = engine.report().model();
  out << "\n\n# ===================== CONFIGURE GNUPLOT =================== \n"
         "set logscal x ; set logscal y ; set grid ; set xrange [16:1000000] ; set terminal png "
         "size \"600,400\"\n\n"
         " set style line 1 lt 1 lc rgb '#0072bd' lw 2 ps 2 # blue\n"
         "set style line 2 lt 1 lc rgb '#d95319' lw 2 ps 2 # orange\n"
         " set style line 3 lt 1 lc rgb '#a2142f' lw 2 ps 2 # red\n"
         " set style line 4 lt 1 lc rgb '#7e2f8e' lw 2 ps 2 # purple\n"
         " set style line 5 lt 1 lc rgb '#77ac30' lw 2 ps 2 # green\n"
         " set key  tmargin\n"
         "\n\n# ===================== DATA =================== \n";
  // Item k of the plot (items run on over the metrics, call paths and locations).
  auto item = [&](size_t k, const std::string& value, Index c, const char* tail) {
    std::string text;
    if (k % 5 == 0)
      text += "\n\n;set output \"" + std::to_string(k / 5) +
              ".png\" ; plot for [IDX=" + std::to_string(k) + ":" + std::to_string(k + 4) +
              "] \"result.dat\" i IDX ls (IDX%5)+1 " + tail;
    return text + " , " + value + " t \"" + cnode_label(model, c) + "\" ls " +
           std::to_string(k % 5 + 1);
  };
  const char* tail = o.threads.empty() ? "" : " ";
  size_t k = 0;  // the first item of the call path at hand
  for (Index m : s.metrics) {
    MetricValues values(share, model, o, m);
    out << "# Print out the data of the metric " << engine.metric(m).uniq_name << "\n\n";
    const size_t first_item = k;  // parts are made ahead of the printing: count from here
    const auto parts = location_parts(share, s, 64, [&, first_item](size_t i) {
      std::string text;
      for (size_t p = share.from; p < share.to; ++p)
        text += item(first_item + i * s.locations.size() + p,
                     values.at(s.cnodes[i], s.locations[p]), s.cnodes[i], tail);
      return text;
    });
    for (size_t i = 0; i < s.cnodes.size(); ++i) {
      if (o.aggregate) {
        out << item(k++, values.aggregated(s.cnodes[i]), s.cnodes[i], "");
      } else {
        out << parts(i);
        k += s.locations.size();
      }
    }
    drop(*share.engine, m);
  }
}

// Whether the values shown are summed over all locations: -t aggr (the flat profile -r too);
// otherwise they are shown per location.
bool sums_over_locations(const Options& o) {
  return o.aggregate;
}

// How CubeLib computes a flat profile per location (SubroutineRule): all locations at once
// without -t, each chosen one on its own with -t, and in its csv2 layout always each on its own.
SubroutineRule flat_rule(const Options& o) {
  return o.threads.empty() && o.format != Format::kCsv2 ? SubroutineRule::kDirectCalleesInclusive
                                                        : SubroutineRule::kEachCallPathOnce;
}

// A location's value (by its column in `v`) in a per-location flat profile: "0." where CubeLib
// has no value at all.
std::string flat_location_text(const std::optional<Values>& v, Index column) {
  return v ? value_text(v->type(), v->at(column)) : kNoValueText;
}

// Flat profile with one column per location, headed by its name. Each location's profile is
// its own: split, each rank makes its locations' columns of every line (its profile is computed
// in the first step, where a failure is agreed) and rank 0 joins them.
void print_flat_per_location(std::ostream& out, const LocationShare& share, const Model& model,
                             const Options& o, const Selection& s, size_t width) {
  auto column = [&](const std::optional<Values>& v, Index l) {
    return pad(flat_location_text(v, model.locations[l].id - share.first_column),
               model.locations[l].name.size() + 12);
  };
  for (Index m : s.metrics) {
    std::optional<LocationFlatProfile> p;
    auto profile = [&]() -> const LocationFlatProfile& {
      if (!p) p.emplace(location_flat_profile(*share.engine, m, o.metric_flavour, flat_rule(o)));
      return *p;
    };
    // Line 2i: region i's exclusive values, line 2i + 1: its subroutines'.
    const size_t lines = 2 * model.regions.size();
    const auto parts = rows_in_job(share.split, lines, s.locations.size() * 24, [&](size_t line) {
      const Index r = profile().regions[line / 2];
      const std::optional<Values>& v = line % 2 ? profile().subroutines[r] : profile().exclusive[r];
      std::string text;
      for (size_t i = share.from; i < share.to; ++i) text += column(v, s.locations[i]);
      return text;
    });
    // The profile before the heading, as alone (split: in the first step).
    std::string text = lines ? parts(0) : (profile(), std::string());
    out << "Print out the data of the metric " << share.engine->metric(m).uniq_name << "\n\n";
    out << std::string(width + 1, ' ');
    for (Index l : s.locations) out << model.locations[l].name << std::string(22, ' ');
    out << "\n" << std::string(79, '-') << "\n";
    for (size_t line = 0; line < lines; ++line) {
      if (line > 0) text = parts(line);
      const Region& region = model.regions[profile().regions[line / 2]];
      const std::string label =
          line % 2 ? "   Subroutines " : region.name + "(id=" + std::to_string(region.id) + ")";
      out << pad(label, width + 1) << text << "\n";
    }
    drop(*share.engine, m);
  }
}

// Flat profile in CubeLib's csv and gnuplot layouts: per metric and region the region's id, with
// locations each location's id, then the value and the "Subroutines", separated by commas (csv:
// each region after two empty lines) or tabs (gnuplot: each region under a comment naming it).
void print_flat_rows(std::ostream& out, MetricEngine& engine, const Options& o,
                     const Selection& s) {
  const Model& model = engine.report().model();
  const bool gnuplot = o.format == Format::kGnuplot;
  const char sep = gnuplot ? '\t' : ',';
  if (gnuplot) out << "\n\n# ===================== FLAT PROFILE  =================== \n";
  for (Index m : s.metrics) {
    if (gnuplot)
      out << "# Print out the data of the metric " << engine.metric(m).uniq_name << "\n\n";
    std::optional<FlatProfile> all;
    std::optional<LocationFlatProfile> each;
    if (o.aggregate)
      all = flat_profile(engine, m, o.metric_flavour);
    else
      each = location_flat_profile(engine, m, o.metric_flavour, flat_rule(o));
    for (Index r : all ? all->regions : each->regions) {
      const std::string id = std::to_string(model.regions[r].id);
      if (gnuplot)
        out << "\n#" << model.regions[r].name << "(id=" << id << ")   Subroutines \n";
      else
        out << "\n\n";
      if (all)
        out << id << sep << exclusive_text(*all, r) << sep << subroutines_text(*all, r) << "\n";
      else
        for (Index l : s.locations) {
          const Index location = model.locations[l].id;
          out << id << sep << location << sep << flat_location_text(each->exclusive[r], location)
              << sep << flat_location_text(each->subroutines[r], location) << "\n";
        }
    }
    out << "\n";
    drop(engine, m);
  }
}

// Flat profile in CubeLib's csv2 layout per location: a row per region and location, the
// metrics side by side.
void print_flat_csv2_per_location(std::ostream& out, MetricEngine& engine, const Options& o,
                                  const Selection& s) {
  const Model& model = engine.report().model();
  std::vector<LocationFlatProfile> profiles;
  out << "Region ID, Thread ID";
  for (Index m : s.metrics) {
    profiles.push_back(location_flat_profile(engine, m, o.metric_flavour, flat_rule(o)));
    out << "," << engine.metric(m).uniq_name << ",Subroutines";
  }
  out << "\n";
  for (Index r : profiles.front().regions) {  // dump_file: s.metrics ≠ ∅
    for (Index l : s.locations) {
      const Index location = model.locations[l].id;
      out << model.regions[r].id << "," << location;
      for (const LocationFlatProfile& p : profiles)
        out << "," << flat_location_text(p.exclusive[r], location) << ","
            << flat_location_text(p.subroutines[r], location);
      out << "\n";
    }
  }
}

// Flat profile (-r): per region, the exclusive value summed over its call paths, and what its
// callees add ("Subroutines", cubekit/flat_profile.hpp), in the layout of each -s format
// (gnuplot2 has the human one, as in CubeLib). Split over the ranks of a job: the human layout
// per location, and the sums (-t aggr) of the human and csv2 layouts (splits_by_locations).
void print_flat(std::ostream& out, MetricEngine& engine, const LocationShare& share,
                const Options& o, const Selection& s) {
  const Model& model = engine.report().model();
  auto label = [&](Index r) {
    return model.regions[r].name + "(id=" + std::to_string(model.regions[r].id) + ")";
  };
  size_t width = 0;
  for (Index r = 0; r < model.regions.size(); ++r) width = std::max(width, label(r).size());
  if (o.format == Format::kCsv || o.format == Format::kGnuplot)
    return print_flat_rows(out, engine, o, s);
  if (o.format == Format::kCsv2 && !o.aggregate)
    return print_flat_csv2_per_location(out, engine, o, s);
  if (!o.aggregate) {
    out << "\n\n =============== FLAT PROFILE ============= \n";
    return print_flat_per_location(out, share, model, o, s, width);
  }
  std::vector<FlatProfile> profiles;  // split: from the ranks' row folds, metric after metric
  for (Index m : s.metrics)
    profiles.push_back(flat_profile(engine, m, o.metric_flavour, [&](Index k) {
      return aggregated_of(share, k, Flavour::kInclusive, Flavour::kExclusive);
    }));
  const std::vector<Index>& regions = profiles.front().regions;  // dump_file: s.metrics ≠ ∅
  if (o.format == Format::kCsv2) {
    out << "Region ID";
    for (Index m : s.metrics) out << "," << engine.metric(m).uniq_name << ",Subroutines";
    out << "\n";
    for (Index r : regions) {
      out << model.regions[r].id;
      for (const FlatProfile& p : profiles)
        out << "," << exclusive_text(p, r) << "," << subroutines_text(p, r);
      out << "\n";
    }
    return;
  }
  out << "\n\n =============== FLAT PROFILE ============= \n";
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    out << "Print out the data of the metric " << engine.metric(s.metrics[i]).uniq_name << "\n\n";
    out << std::string(width + 1, ' ') << "All threads\n" << std::string(79, '-') << "\n";
    for (Index r : regions) {
      out << pad(label(r), width + 1) << exclusive_text(profiles[i], r) << "\n"
          << pad("   Subroutines ", width + 1) << subroutines_text(profiles[i], r) << "\n";
    }
  }
}

// CubeLib compiles a report's derived metrics as it opens it and says then, on standard output,
// which metric::set / metric::get name a metric the report lacks.
void print_compile_notes(const MetricEngine& engine) {
  for (const std::string& line : engine.cubelib_notes()) std::cout << line << "\n";
}

bool has_derived_metrics(const Model& model) {
  return std::any_of(model.metrics.begin(), model.metrics.end(),
                     [](const Metric& m) { return is_derived(m.kind); });
}

// Whether a dump's values are split over the ranks of a job by locations (docs/mpi.md): those
// printed per location (the flat profile -r too, in its human layout) and those summed over them
// (-t aggr, with -r too; HISTOGRAM metrics aside), of metrics stored in a .cubex archive. Derived
// metrics and ad-hoc ones (-m expressions, -c programs) are printed by rank 0 alone.
bool splits_by_locations(const Report& report, const Options& o, const Selection& s,
                         bool ad_hoc_metrics) {
  const Model& model = report.model();
  const bool sums = sums_over_locations(o);
  if (ad_hoc_metrics || !report.reads_by_columns()) return false;
  // CubeLib's csv and gnuplot flat layouts, and csv2's per location, are made by rank 0 alone.
  if (o.flat && (o.format == Format::kCsv || o.format == Format::kGnuplot ||
                 (o.format == Format::kCsv2 && !o.aggregate)))
    return false;
  // -x excl subtracts the sub-metrics: they must be stored too.
  auto computed_here = [&](Index m) {
    return sums ? sums_from_row_folds(model, m)
                : m < model.metrics.size() && !is_derived(model.metrics[m].kind);
  };
  return std::all_of(s.metrics.begin(), s.metrics.end(), [&](Index m) {
    if (!computed_here(m)) return false;
    const auto& subs = model.metrics[m].children;
    return o.metric_flavour == Flavour::kInclusive ||
           std::all_of(subs.begin(), subs.end(), computed_here);
  });
}

// This rank's run of the chosen locations and an engine on the columns that hold them (the
// run's lowest to highest column: one block when columns follow the document order).
// With -t aggr and -r the sums run over every column: the ranks take runs of columns, in order.
LocationShare columns_share(const Report& report, const Options& o, const Selection& s,
                            std::optional<Report>& columns,
                            std::optional<MetricEngine>& column_engine) {
  const bool sums = sums_over_locations(o);
  const ItemRun run = share_in_job(sums ? report.model().locations.size() : s.locations.size());
  size_t first = run.first, end = run.end;
  if (!sums) {
    first = SIZE_MAX, end = 0;
    for (size_t p = run.first; p < run.end; ++p) {
      first = std::min<size_t>(first, report.model().locations[s.locations[p]].id);
      end = std::max<size_t>(end, report.model().locations[s.locations[p]].id + size_t{1});
    }
    if (run.first == run.end) first = end = 0;
  }
  columns.emplace(report.column_window(first, end - first));
  column_engine.emplace(*columns);
  return {&*column_engine, first, run.first, run.end, true, row_folds_in_job()};
}

// Leaves `report` (its model, decoded values and mapped file) for the end of the process to
// free: the kernel takes the memory back at once, where freeing a large model block by block
// takes a while after the output is complete (5,000 call paths and 2,448 locations: about
// 0.3 ms). Only for the last report a process dumps, so no report outlives its turn. The
// holder is never deleted but stays reachable until exit: LeakSanitizer counts no leak.
void free_at_exit(const Report& report) {
  static auto* const kept = new std::vector<Report>;
  kept->push_back(report);
}

// Prints one report. `every_rank`: in an MPI job of several ranks every rank runs this for the
// one report; the values are then split by locations when the form allows, otherwise rank 0
// alone prints (the others return at once). `last`: the process dumps no report after it.
void dump_file(std::ostream& out, const std::string& path, const Options& o, bool every_rank,
               bool last) {
  std::optional<Report> opened;
  const auto open = [&] { opened.emplace(Report::open(path)); };
  every_rank ? agreed_in_job(open) : open();
  if (last) free_at_exit(*opened);
  const Report& report = *opened;
  const Model& model = report.model();
  if (!o.metrics_given) {
    if (every_rank && !job_writes_files()) return;
    if (has_derived_metrics(model)) print_compile_notes(MetricEngine(report));
    if (o.structure) print_structure(out, report, o.structure_options);
    return;
  }
  MetricSelection metrics = select_metrics(model, o.metrics);
  Selection s;
  s.metrics = std::move(metrics.metrics);
  CallPathSelection cnodes = select_call_paths(model, o.cnodes);
  s.cnodes = std::move(cnodes.cnodes);
  s.locations = select_locations(model, o.threads);
  const bool split =
      every_rank &&
      splits_by_locations(report, o, s, !metrics.extra.empty() || !cnodes.program.empty());
  if (every_rank && !split && !job_writes_files()) return;
  // A -c program is one more ad-hoc metric, after those of -m (its name never shows).
  const Index selection_metric = static_cast<Index>(model.metrics.size() + metrics.extra.size());
  if (!cnodes.program.empty()) metrics.extra.push_back({"__cnode_selection", cnodes.program});
  MetricEngine engine(report, std::move(metrics.extra));
  print_compile_notes(engine);
  if (o.structure) print_structure(out, report, o.structure_options);
  if (s.metrics.empty()) return;
  if (!cnodes.program.empty()) s.cnodes = call_paths_where_positive(engine, selection_metric);
  LocationShare share{&engine, 0, 0, s.locations.size(), false, {}};
  std::optional<Report> columns;
  std::optional<MetricEngine> column_engine;
  if (split) share = columns_share(report, o, s, columns, column_engine);
  if (o.flat) return print_flat(out, engine, share, o, s);
  switch (o.format) {
    case Format::kHuman:
      return print_human(out, engine, share, o, s);
    case Format::kCsv:
      return print_csv(out, engine, share, o, s);
    case Format::kCsv2:
      return print_csv2(out, engine, share, o, s);
    case Format::kGnuplot:
      return print_gnuplot(out, engine, share, o, s);
    case Format::kGnuplot2:
      return print_gnuplot2(out, engine, share, o, s);
  }
}

// Makes the dump written to `file` (if any) appear at its name; exit code 1 when that fails.
int commit_output(std::optional<AtomicFile>& file) {
  if (!file) return 0;
  try {
    file->commit();
  } catch (const Error& e) {
    std::cerr << "cube_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

// One report in an MPI job of several ranks: every rank takes part, rank 0 alone writes. The
// output file is opened (agreed) before any work and appears only when the dump succeeds, so
// that a failed job leaves the previous file as it was.
int dump_one_report_in_job(const Options& o) {
  const bool root = job_writes_files(), to_file = o.output != "-";
  std::optional<AtomicFile> file;
  std::ostream nowhere(nullptr);
  std::ostream* out = root ? &std::cout : &nowhere;
  try {
    agreed_in_job([&] {
      if (root && to_file) file.emplace(o.output);
    });
  } catch (const Error& e) {
    std::cerr << "cube_dump: " << e.what() << "\n";
    return 1;
  }
  if (file) out = &file->stream();
  std::ios::sync_with_stdio(false);
  try {
    dump_file(*out, o.files[0], o, true, true);
  } catch (const Error& e) {
    out->flush();
    std::cerr << "cube_dump: " << e.what() << "\n";
    return 1;  // `file` goes uncommitted: its temporary is removed
  }
  out->flush();
  return commit_output(file);
}

}  // namespace

// With -o the dump appears at its name only when every report was dumped (cubekit/
// atomic_file.hpp): a failure leaves the previous file as it was.
int dump_main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  if (options.files.size() == 1 && job_splits_reports()) return dump_one_report_in_job(options);
  std::optional<AtomicFile> file;
  std::ostringstream for_rank_0;  // in an MPI job, rank 0 alone writes the file
  std::ostream* out = &std::cout;
  if (options.output != "-" && !job_writes_files()) {
    out = &for_rank_0;
  } else if (options.output != "-") {
    try {
      file.emplace(options.output);
    } catch (const Error& e) {
      std::cerr << "cube_dump: " << e.what() << "\n";
      return 1;
    }
    out = &file->stream();
  }
  std::ios::sync_with_stdio(false);
  const int rc = for_each_file_in_order(options.files, *out, [&](size_t i) {
    try {
      dump_file(*out, options.files[i], options, false, i + 1 == options.files.size());
    } catch (const Error& e) {
      out->flush();
      std::cerr << "cube_dump: " << e.what() << "\n";
      return 1;
    }
    return 0;
  });
  out->flush();
  return rc != 0 ? rc : commit_output(file);
}

}  // namespace cubekit::tools
