// cube_stat: per-call-path and per-region summaries of a report, option-compatible with
// CubeLib 4.6's tool (tools guide §1.5): values of a routine and its callees (-m, -r), with
// statistics over the locations (-%), or the top N regions by exclusive time (-t); CSV or,
// with -p, aligned columns. Numbers are formatted as the original's stream state leaves them.
// Several reports (cubekit's extension): each one's output in turn, after a "==> FILE <==" line;
// in an MPI job the reports are spread over the ranks, one report split by its locations
// (docs/mpi.md).

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/error.hpp"
#include "cubekit/statistics.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: cube_stat [-h] [-p] [-m <metric>[,<metric>...]] [-%] [-r <routine>[,<routine>...]]\n"
    "                 <report>...\n"
    "       cube_stat [-h] [-p] [-m <metric>[,...]] -t <N>|inf|unlimited|infinite <report>...\n"
    "  -p  aligned columns instead of CSV\n"
    "  -m  metrics by unique name (default: time, else the metric with id 0)\n"
    "  -r  routines by region name or mangled name (default: every call-tree root); each is\n"
    "      shown inclusive, exclusive and with its callees; commas inside (), [] and {}\n"
    "      belong to the name\n"
    "  -%  statistics over the locations (count, sum, mean, variance, minimum, quartiles,\n"
    "      median, maximum)\n"
    "  -t  flat profile of the N regions with the most exclusive time (visits, exclusive and\n"
    "      inclusive time, then the -m metrics)\n"
    "  several reports: each one's output after a line \"==> <report> <==\"; any report that\n"
    "  cannot be summarised ends the run (exit 1) before anything is printed\n";

struct Options {
  bool pretty = false, statistics = false;
  int top = 0;
  std::vector<std::string> metrics, routines;
  std::vector<std::string> files;
  std::string file;  // the one being summarised
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  for (size_t from = 0; from < s.size();) {
    const size_t comma = s.find(',', from);
    out.push_back(s.substr(from, comma - from));
    from = comma == std::string::npos ? s.size() : comma + 1;
  }
  return out;
}

// Routine names split at the commas outside brackets, braces and parentheses: TAU names its
// regions "BC_FLUX [{bc_flux.pp.f90} {21,1}-{390,22}]", and such a name is one routine.
std::vector<std::string> split_routines(const std::string& s) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == ',' && depth == 0)
      out.emplace_back();
    else
      out.back() += c;
  }
  if (out.back().empty()) out.pop_back();  // "a," names a; "" names nothing
  return out;
}

constexpr const char* kExclusive = "cube_stat: -t cannot be combined with -% or -r\n";

// -t excludes -% and -r, in either order.
void take_option(Options& o, char c, const std::string& arg) {
  if ((c == '%' || c == 'r') && o.top) throw failure(kExclusive);
  switch (c) {
    case 'p':
      o.pretty = true;
      break;
    case '%':
      o.statistics = true;
      break;
    case 'm': {
      const auto names = split_commas(arg);
      o.metrics.insert(o.metrics.end(), names.begin(), names.end());
      break;
    }
    case 'r': {
      const auto names = split_routines(arg);
      o.routines.insert(o.routines.end(), names.begin(), names.end());
      break;
    }
    case 't':
      if (!o.routines.empty() || o.statistics) throw failure(kExclusive);
      o.top = arg == "inf" || arg == "unlimited" || arg == "infinite" ? INT_MAX
                                                                      : std::atoi(arg.c_str());
      break;
  }
}

// -h prints the usage on stderr and exits 0; -? and unknown options exit 1.
Options parse(int argc, char** argv) {
  OptionTable table{{{'h', Argument::kNone, help(kUsage, Stream::kStderr)},
                     {'?', Argument::kNone, failure(kUsage)},
                     {'m', Argument::kRequired},
                     {'p'},
                     {'r', Argument::kRequired},
                     {'t', Argument::kRequired},
                     {'%'}}};
  table.unknown = failure(kUsage);
  table.operands =
      OperandCount{1, SIZE_MAX, failure(std::string(kUsage) + "cube_stat: no report given\n")};
  Options o;
  o.files = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
              take_option(o, c, arg ? arg : "");
            }).operands;
  return o;
}

bool integer_metric(const Metric& m) {
  return m.dtype_text == "INTEGER" || m.dtype_text == "UINT64" || m.dtype_text == "INT64";
}

// The original prints to one stream whose state carries from value to value: the first value
// is default-formatted, every later one with showpoint; integer metrics as %.0f.
void csv_value(std::ostream& out, double v, bool integer) {
  if (integer) out << std::fixed << std::noshowpoint << std::setprecision(0);
  out << v;
  out.unsetf(std::ios_base::floatfield);
  out << std::showpoint << std::setprecision(6);
}

// Aligned columns: fixed with 6 decimals (set after the legend), integers as %.0f.
void pretty_value(std::ostream& out, double v, bool integer, int width) {
  out << std::setw(width) << std::right;
  if (integer)
    out << std::noshowpoint << std::setprecision(0);
  else
    out << std::fixed;
  out << v;
  out << std::showpoint << std::setprecision(6);
}

// The values of (metric, cnode) per location (statistics.hpp's per_location): alone computed
// here; in a job that splits the report by locations, gathered on rank 0 from the ranks.
using PerLocation = std::function<std::vector<double>(Index metric, Index cnode, Flavour call)>;
// A metric's flat profile of -t (one value per region, summed over all locations): alone the
// engine's; in a job that splits the report, from the ranks' row folds (on every rank).
using PerRegion = std::function<Values(Index metric, Flavour call)>;

struct Run {
  MetricEngine& engine;
  const Model& model;
  const Options& o;
  std::vector<Index> metrics;  // resolved -m list
  std::vector<Index> cnodes;   // resolved -r list
  std::ostringstream out;
  PerLocation per_location_of = [this](Index metric, Index cnode, Flavour call) {
    return per_location(engine, metric, cnode, call);
  };
  PerRegion per_region_of = [this](Index metric, Flavour call) {
    return engine.region_values(metric, Flavour::kInclusive, call);
  };

  double sum_over_locations(Index metric, Index cnode, Flavour call) {
    double s = 0;
    for (double v : per_location_of(metric, cnode, call)) s += v;
    return s;
  }
  const std::string& region_name(Index c) const {
    return model.regions[model.cnodes[c].region].name;
  }

  void plain();
  void plain_values(Index cnode, Flavour call, const std::vector<size_t>& widths);
  void statistics();
  void statistics_line(Index metric, Index cnode, Flavour call, bool indented,
                       const std::string& label, size_t metric_width, size_t name_width);
  void top_n(Index visits, Index time);
};

void Run::plain_values(Index cnode, Flavour call, const std::vector<size_t>& widths) {
  for (size_t i = 0; i < metrics.size(); ++i) {
    const double v = sum_over_locations(metrics[i], cnode, call);
    const bool integer = integer_metric(model.metrics[metrics[i]]);
    if (o.pretty) {
      pretty_value(out, v, integer, static_cast<int>(widths[i]));
    } else {
      out << ',';
      csv_value(out, v, integer);
    }
  }
  out << '\n';
}

void Run::plain() {
  size_t name_width = 7;  // "Routine"
  std::vector<size_t> widths;
  for (Index c : cnodes) {
    name_width = std::max(name_width, region_name(c).size() + 6);
    for (Index child : model.cnodes[c].children)
      name_width = std::max(name_width, region_name(child).size() + 2);
  }
  ++name_width;
  for (const std::string& m : o.metrics) widths.push_back(std::max<size_t>(m.size() + 1, 13));
  auto label = [&](const std::string& text) {
    if (o.pretty)
      out << std::setw(static_cast<int>(name_width)) << std::left << text;
    else
      out << text;
  };
  label("Routine");
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (o.pretty)
      out << std::setw(static_cast<int>(widths[i])) << std::right;
    else
      out << ',';
    out << model.metrics[metrics[i]].uniq_name;
  }
  out << '\n';
  if (o.pretty) out << std::fixed << std::showpoint << std::setprecision(6);
  const std::string indent = o.pretty ? "  " : "";
  for (Index c : cnodes) {
    label("INCL(" + region_name(c) + ")");
    plain_values(c, Flavour::kInclusive, widths);
    label(indent + "EXCL(" + region_name(c) + ")");
    plain_values(c, Flavour::kExclusive, widths);
    for (Index child : model.cnodes[c].children) {
      label(indent + region_name(child));
      plain_values(child, Flavour::kInclusive, widths);
    }
    out << '\n';
  }
}

constexpr const char* kCaptions[] = {"Sum",         "Mean",   "Variance",    "Minimum",
                                     "Quartile 25", "Median", "Quartile 75", "Maximum"};
constexpr int kCaptionWidths[] = {15, 13, 14, 13, 15, 13, 15, 13};

void Run::statistics_line(Index metric, Index cnode, Flavour call, bool indented,
                          const std::string& label, size_t metric_width, size_t name_width) {
  LocationStatistics s;
  for (double v : per_location_of(metric, cnode, call)) s.add(v);
  const Metric& m = model.metrics[metric];
  if (o.pretty) {
    out << std::setw(static_cast<int>(metric_width)) << std::left << m.uniq_name;
    if (indented) out << "  ";
    out << std::setw(static_cast<int>(name_width + (indented ? 2 : 4))) << std::left << label;
    out << std::setw(11) << std::right << s.count();
  } else {
    out << m.uniq_name << ',' << label << ',' << s.count();
  }
  // Sum, minimum and maximum are whole numbers for integer metrics; the variance needs two
  // values, the quartiles five (else the field stays empty).
  const double values[] = {s.sum(),        s.mean(),       s.count() >= 2 ? s.variance() : 0,
                           s.minimum(),    s.quartile25(), s.median(),
                           s.quartile75(), s.maximum()};
  const bool integer_field[] = {true, false, false, true, false, false, false, true};
  const int64_t needs[] = {0, 0, 2, 0, 5, 0, 5, 0};
  for (size_t i = 0; i < 8; ++i) {
    if (o.pretty) out << std::setw(kCaptionWidths[i]) << std::right << std::fixed;
    if (!o.pretty) out << ',';
    if (s.count() < needs[i]) {
      if (o.pretty) out << "";
      continue;
    }
    const bool integer = integer_field[i] && integer_metric(m);
    if (o.pretty) {
      if (integer) out << std::noshowpoint << std::setprecision(0);
      out << values[i] << std::showpoint << std::setprecision(6);
    } else {
      csv_value(out, values[i], integer);
    }
  }
  out << '\n';
}

void Run::statistics() {
  size_t name_width = 7, metric_width = std::max<size_t>(o.metrics.front().size(), 14);
  for (Index c : cnodes) {
    name_width = std::max(name_width, region_name(c).size() + 4);
    for (Index child : model.cnodes[c].children)
      name_width = std::max(name_width, region_name(child).size() + 6);
  }
  ++name_width;
  for (const std::string& m : o.metrics) metric_width = std::max(metric_width, m.size());
  ++metric_width;
  if (o.pretty) {
    out << std::setw(static_cast<int>(metric_width)) << std::left << "cube::Metric"
        << std::setw(static_cast<int>(name_width + 4)) << std::left << "Routine" << std::setw(11)
        << std::right << "Count";
    for (size_t i = 0; i < 8; ++i)
      out << std::setw(kCaptionWidths[i]) << std::right << kCaptions[i];
  } else {
    out << "cube::Metric,Routine,Count";
    for (const char* c : kCaptions) out << ',' << c;
  }
  out << '\n';
  auto line = [&](Index m, Index c, Flavour f, bool indented, const std::string& label) {
    statistics_line(m, c, f, indented, label, metric_width, name_width);
  };
  for (Index m : metrics) {
    for (Index c : cnodes) {
      const auto& children = model.cnodes[c].children;
      if (children.empty()) {
        line(m, c, Flavour::kInclusive, false, "LEAF(" + region_name(c) + ")");
        continue;
      }
      line(m, c, Flavour::kInclusive, false, "INCL(" + region_name(c) + ")");
      line(m, c, Flavour::kExclusive, true, "EXCL(" + region_name(c) + ")");
      for (Index child : children) {
        const char* kind = model.cnodes[child].children.empty() ? "LEAF(" : "INCL(";
        line(m, child, Flavour::kInclusive, true, kind + region_name(child) + ")");
      }
      out << '\n';
    }
  }
}

// Flat profile: per region visits, exclusive time, inclusive time and the -m metrics, the
// regions sorted by exclusive time (largest first; the original's std::sort, so ties come out
// in the same order), stopping at N or at the first region never visited.
void Run::top_n(Index visits, Index time) {
  std::vector<Index> columns{visits, time, time};
  columns.insert(columns.end(), metrics.begin(), metrics.end());
  std::vector<Values> values;
  for (size_t m = 0; m < columns.size(); ++m)
    values.push_back(per_region_of(columns[m], m == 2 ? Flavour::kInclusive : Flavour::kExclusive));
  std::vector<int> order(model.regions.size());
  for (size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int>(r);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return values[1].scalar(a) > values[1].scalar(b); });
  std::vector<int> shown;
  for (size_t i = 0; i < order.size() && static_cast<long long>(i) < o.top; ++i) {
    if (values[0].scalar(order[i]) == 0) break;
    shown.push_back(order[i]);
  }
  size_t name_width = 12;  // "cube::Region"
  for (int r : shown) name_width = std::max(name_width, model.regions[r].name.size());
  ++name_width;
  if (o.pretty) {
    out << std::setw(static_cast<int>(name_width)) << std::left << "cube::Region";
    for (const char* h : {"NumberOfCalls", "ExclusiveTime", "InclusiveTime"})
      out << std::setw(14) << std::right << h;
  } else {
    out << "cube::Region,Number of Calls,Exclusive Time,Inclusive Time";
  }
  for (size_t m = 3; m < columns.size(); ++m) {
    const std::string& name = model.metrics[columns[m]].uniq_name;
    if (o.pretty)
      out << std::setw(static_cast<int>(std::max<size_t>(name.size() + 1, 14))) << std::right;
    else
      out << ',';
    out << name;
  }
  out << '\n';
  if (o.pretty) out << std::fixed << std::showpoint << std::setprecision(6);
  for (int r : shown) {
    if (o.pretty)
      out << std::setw(static_cast<int>(name_width)) << std::left << model.regions[r].name;
    else
      out << '"' << model.regions[r].name << '"';
    for (size_t m = 0; m < columns.size(); ++m) {
      const Metric& metric = model.metrics[columns[m]];
      if (o.pretty) {
        const int width = static_cast<int>(std::max<size_t>(metric.uniq_name.size() + 1, 14));
        pretty_value(out, values[m].scalar(r), integer_metric(metric), width);
      } else {
        out << ',';
        csv_value(out, values[m].scalar(r), integer_metric(metric));
      }
    }
    out << '\n';
  }
}

// A metric by exact unique name, else the first whose unique name ends with `suffix`.
std::optional<Index> metric_named(const Model& model, const std::string& exact,
                                  const std::string& suffix) {
  if (auto m = model.metric_by_uniq_name(exact)) return m;
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const std::string& u = model.metrics[m].uniq_name;
    if (u.size() >= suffix.size() &&
        u.compare(u.size() - suffix.size(), suffix.size(), suffix) == 0)
      return m;
  }
  return std::nullopt;
}

// Without -m: time, else the metric with id 0. Without -r: the mangled name of every
// call-tree root, as the original does (so roots without one show every such root).
void apply_defaults(const Model& model, Options& o) {
  if (o.metrics.empty() && !o.top) {
    if (model.metric_by_uniq_name("time")) {
      o.metrics.push_back("time");
    } else {
      for (const Metric& m : model.metrics)
        if (m.id == 0) o.metrics.push_back(m.uniq_name);
      if (o.metrics.empty() && !model.metrics.empty())
        o.metrics.push_back(model.metrics[0].uniq_name);
    }
  }
  if (o.routines.empty())
    for (Index root : model.cnode_roots())  // an empty mangled name matches every such region
      o.routines.push_back(model.regions[model.cnodes[root].region].mangled_name);
}

// The summary of one report; Error naming the file for a metric or routine it lacks.
std::string summary(const Report& report, Options& o, const PerLocation& split = {},
                    const PerRegion& split_regions = {}) {
  const Model& model = report.model();
  MetricEngine engine(report);
  apply_defaults(model, o);
  Run run{engine, model, o, {}, {}, {}};
  if (split) run.per_location_of = split;
  if (split_regions) run.per_region_of = split_regions;
  for (const std::string& name : o.metrics) {
    const auto m = model.metric_by_uniq_name(name);
    if (!m) throw Error(o.file + ": no metric '" + name + "'");
    run.metrics.push_back(*m);
  }
  if (o.top) {
    const auto visits = metric_named(model, "visits", "Visits");
    const auto time = metric_named(model, "time", "Time");
    if (!time || !visits)
      throw Error(o.file + ": no metric '" + (time ? "visits" : "time") +
                  "' (nor one whose unique name ends in '" + (time ? "Visits" : "Time") +
                  "'), which -t needs");
    run.top_n(*visits, *time);
    return run.out.str();
  }
  const std::vector<std::vector<Index>> found = cnodes_of_regions(model, o.routines);
  for (size_t i = 0; i < o.routines.size(); ++i) {
    if (found[i].empty())
      throw Error(o.file + ": no call path of a region named '" + o.routines[i] + "'");
    run.cnodes.insert(run.cnodes.end(), found[i].begin(), found[i].end());
  }
  if (run.metrics.empty()) throw Error(o.file + ": the report has no metrics");
  o.statistics ? run.statistics() : run.plain();
  return run.out.str();
}

// The options are copied for each report: the defaults (-m, -r) depend on the report.
std::string summary_of(const std::string& file, Options o) {
  o.file = file;
  const Report report = Report::open(file);
  return summary(report, o);
}

// One report split over the ranks of a job by its locations (docs/mpi.md): each rank computes
// the values of its run of locations (model order) from the report's columns that hold them;
// rank 0 gets every row of values whole and sums and orders them as alone.
class LocationsOfRanks {
 public:
  explicit LocationsOfRanks(const Report& report) : whole_(report) {
    const Model& model = report.model();
    locations_ = model.locations.size();
    const ItemRun run = share_in_job(locations_);
    size_t first = SIZE_MAX, end = 0;
    for (size_t p = run.first; p < run.end; ++p) {
      first = std::min<size_t>(first, model.locations[p].id);
      end = std::max<size_t>(end, model.locations[p].id + size_t{1});
    }
    if (run.first == run.end) first = end = 0;
    // The column window keeps the model order of its locations: this run's are among them.
    for (size_t p = 0, w = 0; p < locations_; ++p) {
      const size_t id = model.locations[p].id;
      if (id < first || id >= end) continue;
      if (p >= run.first && p < run.end) mine_.push_back(w);
      ++w;
    }
    engine_.emplace(report.column_window(first, end - first));
  }
  std::vector<double> operator()(Index metric, Index cnode, Flavour call) {
    // A derived metric may look beyond its own location (CubePL): rank 0 alone computes it.
    const Model& model = whole_.report().model();
    if (metric >= model.metrics.size() || is_derived(model.metrics[metric].kind))
      return job_writes_files() ? per_location(whole_, metric, cnode, call)
                                : std::vector<double>(locations_);
    const auto joined = rows_in_job(true, 1, locations_ * sizeof(double), [&](size_t) {
      const std::vector<double> window = per_location(*engine_, metric, cnode, call);
      std::string part(mine_.size() * sizeof(double), '\0');
      for (size_t i = 0; i < mine_.size(); ++i)
        std::memcpy(part.data() + i * sizeof(double), &window[mine_[i]], sizeof(double));
      return part;
    })(0);
    std::vector<double> values(locations_);  // zeros on the ranks that only take part
    if (!joined.empty()) std::memcpy(values.data(), joined.data(), joined.size());
    return values;
  }

 private:
  MetricEngine whole_;
  size_t locations_ = 0;
  std::vector<size_t> mine_;  // this run's locations among the window's
  std::optional<MetricEngine> engine_;
};

// -t split over the ranks of a job (docs/mpi.md): the ranks take runs of columns in column
// order and continue each row's sum over the locations from rank to rank (row_folds.hpp), so
// that every region's sum is the one process's, bit for bit. A metric that is not summed from
// its rows (derived, HISTOGRAM) rank 0 alone computes from the whole report.
class RegionSumsOfRanks {
 public:
  explicit RegionSumsOfRanks(const Report& report) : whole_(report) {
    const ItemRun run = share_in_job(report.model().locations.size());
    columns_.emplace(report.column_window(run.first, run.end - run.first));
  }
  Values operator()(Index metric, Flavour call) {
    const Model& model = whole_.report().model();
    if (!sums_from_row_folds(model, metric))
      return job_writes_files() ? whole_.region_values(metric, Flavour::kInclusive, call)
                                : Values(whole_.metric(metric).dtype, model.regions.size());
    return region_sums(
        model, aggregated_values(*columns_, metric, Flavour::kInclusive, call, row_folds_in_job()));
  }

 private:
  MetricEngine whole_;
  std::optional<Report> columns_;
};

// One report in an MPI job of several ranks: split by locations (-t: by runs of columns) unless
// the report is no .cubex archive; then rank 0 alone summarises it.
int stat_one_report_in_job(Options o) {
  o.file = o.files[0];
  std::optional<Report> report;
  agreed_in_job([&] { report.emplace(Report::open(o.file)); });
  const bool split = report->reads_by_columns();
  if (!split && !job_writes_files()) return 0;
  std::string text;
  if (split && o.top) {
    RegionSumsOfRanks ranks(*report);
    text = summary(*report, o, {}, std::ref(ranks));
  } else if (split) {
    LocationsOfRanks ranks(*report);
    text = summary(*report, o, std::ref(ranks));
  } else {
    text = summary(*report, o);
  }
  if (job_writes_files()) std::cout << text;
  return 0;
}

}  // namespace

int stat_main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.files.size() == 1 && job_splits_reports()) return stat_one_report_in_job(o);
  // Kept until every report is summarised, so that a failure (an Error naming its report, the
  // first in report order; in a job on any rank) prints no part of the output.
  std::ostringstream text;
  for_each_file_in_order(o.files, text, [&](size_t i) {
    if (o.files.size() > 1) text << "==> " << o.files[i] << " <==\n";
    text << summary_of(o.files[i], o);
    return 0;
  });
  std::cout << text.str();
  return 0;
}

}  // namespace cubekit::tools
