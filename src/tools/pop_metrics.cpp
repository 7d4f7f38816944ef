// cube_pop_metrics: the POP efficiency hierarchy of one report or a scaling series (tools
// guide §1.3; the library is cubekit/pop.hpp, the formulas are in docs/pop_metrics.md).

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/pop.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "Usage: cube_pop_metrics [-a mpi|hybrid-add|hybrid-mult|bsc] [-c <FOI(s)>] [-i] "
    "[-s table|csv|json] [-h] [-? <pop analysis>] <cube1> <cube2> ...\n"
    "  -a   Name of the POP analysis. Options: mpi, hybrid-add, hybrid-mult, bsc. Default: mpi\n"
    "  -c   Name(s) or ID(s) of FOI(s). Default: calltree root(s). Comma separated\n"
    "  -i   Performs the calculation individually for every listed FOI. Default: accumulated\n"
    "  -s   Output: table (default), csv or json\n"
    "  -h   Help; Output a brief help message.\n"
    "  -?   Help; Output a long detailed help message on one POP analysis.\n"
    "  Several reports are a scaling series: scaling metrics compare each with the first.\n";

constexpr const char* kLongHelp[] = {
    // mpi
    "Only-MPI POP metrics (tools guide 1.3.2), per location:\n"
    "  Global Efficiency = Parallel Efficiency x Computation Efficiency\n"
    "  Parallel Efficiency = avg(computation) / max(runtime)\n"
    "    = Load Balance (avg(comp)/max(comp)) x Communication (max(comp)/max(runtime))\n"
    "  Communication Efficiency = Serialisation (max(comp)/max(ideal runtime))\n"
    "    x Transfer (max(ideal runtime)/max(runtime)); ideal runtime = runtime - Scalasca\n"
    "    wait states - MPI I/O\n"
    "  Computation Efficiency = total computation of the first report / of this one\n",
    // hybrid-add
    "Hybrid additive POP metrics (tools guide 1.3.3):\n"
    "  Parallel Efficiency = Process Efficiency + Thread Efficiency - 1\n"
    "  Process Efficiency = Computation Load Balance + MPI Communication Efficiency - 1\n"
    "  Thread Efficiency = Amdahl's Efficiency + OpenMP Region Efficiency - 1\n"
    "  See docs/pop_metrics.md for every formula.\n",
    // hybrid-mult
    "Hybrid multiplicative POP metrics (tools guide 1.3.4):\n"
    "  Parallel Efficiency = Process Efficiency x Thread Efficiency\n"
    "  Process Efficiency = Computation Load Balance x MPI Communication Efficiency\n"
    "  Thread Efficiency = Amdahl's Efficiency x OpenMP Region Efficiency\n"
    "  See docs/pop_metrics.md for every formula.\n",
    // bsc
    "Hybrid BSC POP metrics (tools guide 1.3.5):\n"
    "  Hybrid Parallel Efficiency = Hybrid Load Balance x Hybrid Communication\n"
    "  MPI Parallel Efficiency = MPI Load Balance x MPI Communication\n"
    "  OpenMP Parallel Efficiency = Hybrid Parallel Efficiency / MPI Parallel Efficiency\n"
    "  See docs/pop_metrics.md for every formula.\n"};

struct Options {
  PopOptions pop;
  std::string format = "table";
  std::vector<std::string> reports;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// -a and -? <analysis> (its long help on stdout, exit 0) name a POP analysis.
PopModel pop_model(const char* name) {
  const auto model = parse_pop_model(name);
  if (!model)
    throw failure(std::string(kUsage) + "\nError: unknown POP analysis \"" + name +
                  "\" (mpi, hybrid-add, hybrid-mult, bsc)\n");
  return *model;
}

void take_option(Options& o, char c, const char* arg) {
  if (c == '?') throw help(kLongHelp[static_cast<int>(pop_model(arg))], Stream::kStdout);
  if (c == 'a') o.pop.model = pop_model(arg);
  if (c == 'c') o.pop.focus = split_commas(arg);
  if (c == 'i') o.pop.individually = true;
  if (c == 's') {
    o.format = arg;
    if (o.format != "table" && o.format != "csv" && o.format != "json")
      throw failure(std::string(kUsage) + "\nError: -s takes table, csv or json\n");
  }
  // -r: in the guide's usage line, without a meaning; accepted
}

// -h prints the usage on stdout and exits 0; unknown options and missing arguments print it
// on stderr and exit 1 (glibc says nothing).
Options parse(int argc, char** argv) {
  const auto value = Argument::kRequired;
  OptionTable table{{{'a', value},
                     {'c', value},
                     {'i'},
                     {'s', value},
                     {'h', Argument::kNone, help(kUsage, Stream::kStdout)},
                     {'?', value},
                     {'r'}}};
  table.diagnostics = false;
  table.unknown = failure(kUsage);
  table.operands =
      OperandCount{1, SIZE_MAX, failure(std::string(kUsage) + "\nError: no report given\n")};
  Options o;
  o.reports = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
                take_option(o, c, arg);
              }).operands;
  return o;
}

std::string number(const PopValue& v, const char* efficiency_format) {
  char buf[64];
  const bool seconds_or_rate = v.key == "ipc" || v.key.ends_with("_runtime");
  std::snprintf(buf, sizeof buf, seconds_or_rate ? "%.6g" : efficiency_format, *v.value);
  return buf;
}

std::string call_path_list(const PopResult& r, const char* separator) {
  std::string out;
  for (uint32_t id : r.call_paths) out += (out.empty() ? "" : separator) + std::to_string(id);
  return out;
}

void print_table(const std::vector<PopResult>& results, const Options& o) {
  for (const PopResult& r : results) {
    std::printf("Report: %s\nFocus of interest: %s (call path %s)\n", o.reports[r.report].c_str(),
                r.focus.c_str(), call_path_list(r, ", ").c_str());
    for (const PopValue& v : r.values) {
      const std::string label = std::string(2 * v.depth, ' ') + v.label;
      std::printf("  %-48s %s\n", label.c_str(),
                  v.value ? number(v, "%.4f").c_str() : ("-   (" + v.missing + ")").c_str());
    }
    std::printf("\n");
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void print_csv(const std::vector<PopResult>& results, const Options& o) {
  std::string header = "report,focus,call_paths";
  for (const PopValue& v : results.front().values) header += "," + v.key;
  std::printf("%s\n", header.c_str());
  for (const PopResult& r : results) {
    std::string line =
        csv_field(o.reports[r.report]) + "," + csv_field(r.focus) + "," + call_path_list(r, ";");
    for (const PopValue& v : r.values) line += "," + (v.value ? number(v, "%.17g") : "");
    std::printf("%s\n", line.c_str());
  }
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void print_json(const std::vector<PopResult>& results, const Options& o) {
  std::printf("[");
  for (size_t i = 0; i < results.size(); ++i) {
    const PopResult& r = results[i];
    std::string obj = std::string(i ? "," : "") +
                      "\n  {\"report\": " + json_string(o.reports[r.report]) +
                      ", \"focus\": " + json_string(r.focus) + ", \"call_paths\": [" +
                      call_path_list(r, ", ") + "]";
    std::string missing;
    for (const PopValue& v : r.values) {
      obj += ", " + json_string(v.key) + ": " + (v.value ? number(v, "%.17g") : "null");
      if (!v.value)
        missing += std::string(missing.empty() ? "" : ", ") + json_string(v.key) + ": " +
                   json_string(v.missing);
    }
    std::printf("%s, \"missing\": {%s}}", obj.c_str(), missing.c_str());
  }
  std::printf("\n]\n");
}

}  // namespace

int pop_metrics_main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<std::unique_ptr<Report>> reports;
  std::vector<const Report*> series;
  for (const std::string& path : o.reports) {
    reports.push_back(std::make_unique<Report>(Report::open(path)));
    series.push_back(reports.back().get());
  }
  const std::vector<PopResult> results = pop_metrics_in_job(series, o.pop);
  if (o.format == "csv")
    print_csv(results, o);
  else if (o.format == "json")
    print_json(results, o);
  else
    print_table(results, o);
  return 0;
}

}  // namespace cubekit::tools
