// Writes example3.cubex, the report CubeLib's tool tests 8, 12-15, 17-20, 23-27 and 29 read (9
// reads test 8's conversion of it). CubeLib's `make check` writes it by running
// test2/cube_self_test2_ext.cpp, a C++ program against CubeLib, so the snapshot holds no copy;
// this program builds the same report with cubekit's ReportWriter, reading the
// definitions and values off that program:
//   - header: two mirrors, attributes "description", "experiment time", "statisticfile" (what
//     its set_statistic_name sets) and the three tree titles;
//   - metrics visits (INTEGER, EXCLUSIVE), time (FLOAT, INCLUSIVE), bytes_sent and bytes_rcvd
//     (INTEGER, EXCLUSIVE), all roots;
//   - 180 regions (name = mangled name, lines -1) and one call path per region, call path c
//     calling region c, under kParent[c];
//   - machine "MSC", node "Athena", 64 processes "Proc  p" of 16 threads "Thread  t" each;
//   - the values the program's fill_* helpers give each row (see the row functions below).
// cube4to3 of the result is test8/template.cube (CubeLib's conversion of its example3.cubex)
// byte for byte, but for one attribute of the template, "Cube syntax version", which the
// program does not define. Usage: make_example3 OUTPUT.cubex
#include <cstdint>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cubekit/data_type.hpp"
#include "cubekit/model.hpp"
#include "cubekit/writer.hpp"

namespace {

using cubekit::Index;
using cubekit::Model;

constexpr uint32_t kCallPaths = 180;
constexpr uint32_t kProcesses = 64;
constexpr uint32_t kThreadsPerProcess = 16;
constexpr uint32_t kLocations = kProcesses * kThreadsPerProcess;

// Region (and call path) names, by id.
const char* const kName[kCallPaths] = {"main",
                                       "MAIN__",
                                       "mpi_setup_",
                                       "MPI_Init_thread",
                                       "MPI_Comm_size",
                                       "MPI_Comm_rank",
                                       "MPI_Comm_split",
                                       "MPI_Bcast",
                                       "env_setup_",
                                       "MPI_Bcast",
                                       "zone_setup_",
                                       "map_zones_",
                                       "get_comm_index_",
                                       "zone_starts_",
                                       "set_constants_",
                                       "initialize_",
                                       "!$omp parallel @initialize.f:28",
                                       "!$omp do @initialize.f:31",
                                       "!$omp do @initialize.f:50",
                                       "exact_solution_",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp do @initialize.f:100",
                                       "exact_solution_",
                                       "!$omp do @initialize.f:119",
                                       "exact_solution_",
                                       "!$omp do @initialize.f:137",
                                       "exact_solution_",
                                       "!$omp do @initialize.f:156",
                                       "exact_solution_",
                                       "!$omp implicit barrier @initialize.f:167",
                                       "!$omp do @initialize.f:174",
                                       "exact_solution_",
                                       "!$omp do @initialize.f:192",
                                       "exact_solution_",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp implicit barrier @initialize.f:204",
                                       "exact_rhs_",
                                       "!$omp parallel @exact_rhs.f:21",
                                       "!$omp do @exact_rhs.f:31",
                                       "!$omp implicit barrier @exact_rhs.f:41",
                                       "!$omp do @exact_rhs.f:46",
                                       "exact_solution_",
                                       "!$omp do @exact_rhs.f:147",
                                       "exact_solution_",
                                       "!$omp implicit barrier @exact_rhs.f:242",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp do @exact_rhs.f:247",
                                       "exact_solution_",
                                       "!$omp implicit barrier @exact_rhs.f:341",
                                       "!$omp do @exact_rhs.f:346",
                                       "!$omp implicit barrier @exact_rhs.f:357",
                                       "timer_clear_",
                                       "exch_qbc_",
                                       "copy_x_face_",
                                       "!$omp parallel @exch_qbc.f:255",
                                       "!$omp do @exch_qbc.f:255",
                                       "!$omp implicit barrier @exch_qbc.f:264",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp parallel @exch_qbc.f:244",
                                       "!$omp do @exch_qbc.f:244",
                                       "!$omp implicit barrier @exch_qbc.f:253",
                                       "TRACE BUFFER FLUSH",
                                       "copy_y_face_",
                                       "!$omp parallel @exch_qbc.f:215",
                                       "!$omp do @exch_qbc.f:215",
                                       "!$omp implicit barrier @exch_qbc.f:224",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp parallel @exch_qbc.f:204",
                                       "!$omp do @exch_qbc.f:204",
                                       "!$omp implicit barrier @exch_qbc.f:213",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "MPI_Isend",
                                       "MPI_Irecv",
                                       "MPI_Waitall",
                                       "TRACE BUFFER FLUSH",
                                       "adi_",
                                       "compute_rhs_",
                                       "!$omp parallel @rhs.f:28",
                                       "!$omp do @rhs.f:37",
                                       "!$omp do @rhs.f:62",
                                       "!$omp implicit barrier @rhs.f:72",
                                       "!$omp master @rhs.f:74",
                                       "!$omp do @rhs.f:80",
                                       "!$omp master @rhs.f:183",
                                       "!$omp do @rhs.f:191",
                                       "!$omp master @rhs.f:293",
                                       "!$omp do @rhs.f:301",
                                       "!$omp implicit barrier @rhs.f:353",
                                       "!$omp do @rhs.f:359",
                                       "!$omp do @rhs.f:372",
                                       "!$omp do @rhs.f:384",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp do @rhs.f:400",
                                       "!$omp do @rhs.f:413",
                                       "!$omp implicit barrier @rhs.f:423",
                                       "!$omp master @rhs.f:424",
                                       "!$omp do @rhs.f:428",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp implicit barrier @rhs.f:439",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "x_solve_",
                                       "!$omp parallel @x_solve.f:46",
                                       "!$omp do @x_solve.f:54",
                                       "lhsinit_",
                                       "TRACE BUFFER FLUSH",
                                       "binvrhs_",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp implicit barrier @x_solve.f:407",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "y_solve_",
                                       "!$omp parallel @y_solve.f:43",
                                       "!$omp do @y_solve.f:52",
                                       "lhsinit_",
                                       "TRACE BUFFER FLUSH",
                                       "binvrhs_",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp implicit barrier @y_solve.f:406",
                                       "TRACE BUFFER FLUSH",
                                       "z_solve_",
                                       "!$omp parallel @z_solve.f:43",
                                       "!$omp do @z_solve.f:52",
                                       "lhsinit_",
                                       "TRACE BUFFER FLUSH",
                                       "binvrhs_",
                                       "TRACE BUFFER FLUSH",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp implicit barrier @z_solve.f:428",
                                       "add_",
                                       "!$omp parallel @add.f:22",
                                       "!$omp do @add.f:22",
                                       "!$omp implicit barrier @add.f:33",
                                       "MPI_Barrier",
                                       "timer_start_",
                                       "timer_stop_",
                                       "timer_read_",
                                       "verify_",
                                       "error_norm_",
                                       "!$omp parallel @error.f:27",
                                       "!$omp do @error.f:33",
                                       "exact_solution_",
                                       "TRACE BUFFER FLUSH",
                                       "!$omp atomic @error.f:51",
                                       "!$omp implicit barrier @error.f:54",
                                       "compute_rhs_",
                                       "!$omp parallel @rhs.f:28",
                                       "!$omp do @rhs.f:37",
                                       "!$omp do @rhs.f:62",
                                       "!$omp implicit barrier @rhs.f:72",
                                       "!$omp master @rhs.f:74",
                                       "!$omp do @rhs.f:80",
                                       "!$omp master @rhs.f:183",
                                       "!$omp do @rhs.f:191",
                                       "!$omp master @rhs.f:293",
                                       "!$omp do @rhs.f:301",
                                       "!$omp implicit barrier @rhs.f:353",
                                       "!$omp do @rhs.f:359",
                                       "!$omp do @rhs.f:372",
                                       "!$omp do @rhs.f:384",
                                       "!$omp do @rhs.f:400",
                                       "!$omp do @rhs.f:413",
                                       "!$omp implicit barrier @rhs.f:423",
                                       "!$omp master @rhs.f:424",
                                       "!$omp do @rhs.f:428",
                                       "!$omp implicit barrier @rhs.f:439",
                                       "rhs_norm_",
                                       "!$omp parallel @error.f:86",
                                       "!$omp do @error.f:91",
                                       "!$omp atomic @error.f:104",
                                       "!$omp implicit barrier @error.f:107",
                                       "MPI_Reduce",
                                       "MPI_Reduce",
                                       "print_results_",
                                       "MPI_Finalize"};

// The caller of each call path (-1: the root).
const int kParent[kCallPaths] = {
    -1,  0,   1,   2,   2,   2,   2,   1,   1,   8,   1,   1,   11,  1,   1,   1,   15,  16,
    16,  18,  19,  18,  16,  22,  16,  24,  16,  26,  16,  28,  28,  16,  31,  16,  33,  34,
    33,  16,  1,   38,  39,  40,  39,  42,  39,  44,  44,  44,  39,  48,  48,  39,  39,  1,
    1,   54,  55,  56,  57,  57,  55,  60,  61,  55,  54,  64,  65,  66,  65,  64,  69,  70,
    71,  64,  54,  54,  54,  54,  1,   78,  79,  80,  80,  82,  80,  80,  80,  80,  80,  80,
    89,  80,  80,  80,  93,  80,  80,  96,  80,  80,  99,  80,  80,  79,  78,  104, 105, 106,
    107, 106, 109, 106, 105, 105, 104, 78,  115, 116, 117, 118, 117, 120, 117, 116, 123, 78,
    125, 126, 127, 128, 127, 130, 127, 126, 78,  134, 135, 136, 1,   1,   1,   1,   1,   142,
    143, 144, 145, 146, 144, 144, 142, 150, 151, 151, 153, 151, 151, 151, 151, 151, 151, 160,
    151, 151, 151, 151, 151, 166, 151, 151, 151, 142, 171, 172, 172, 172, 142, 1,   1,   1};

// Inclusive time of each call path on every thread (the program stores these as the rows of its
// INCLUSIVE metric; they need not add up, so some exclusive times come out negative).
const double kInclusiveTime[kCallPaths] = {
    18.1, 18.0, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 35.3, 2.2, 0.1,
    0.4,  0.2,  0.1, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.3, 0.1, 0.1, 0.2, 0.1, 0.4,  0.2, 0.1,
    0.1,  0.1,  1.5, 1.4, 0.2, 0.1, 0.2, 0.1, 0.4, 0.1, 0.1, 0.1, 0.3, 0.1, 0.1, 0.1,  0.1, 0.1,
    2.4,  0.9,  0.4, 0.3, 0.1, 0.1, 0.3, 0.2, 0.1, 0.1, 1.0, 0.4, 0.2, 0.1, 0.1, 0.4,  0.3, 0.2,
    0.1,  0.1,  0.1, 0.1, 0.1, 0.1, 6.1, 2.5, 2.3, 0.1, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1,  0.1, 0.2,
    0.1,  0.1,  0.1, 0.2, 0.1, 0.1, 0.2, 0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.1, 1.1, 0.9,  0.6, 0.2,
    0.1,  0.2,  0.1, 0.1, 0.1, 0.1, 0.1, 1.1, 1.0, 0.7, 0.2, 0.1, 0.2, 0.1, 0.2, 0.2,  0.1, 0.9,
    0.8,  0.6,  0.2, 0.1, 0.2, 0.1, 0.1, 0.1, 0.4, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1,  3.5, 0.7,
    0.6,  0.3,  0.2, 0.1, 0.1, 0.1, 2.1, 2.0, 0.1, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,  0.2, 0.1,
    0.1,  0.1,  0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.1, 0.5, 0.4, 0.1, 0.1, 0.1, 0.1, 0.1,  0.1, 0.1};

// Call paths whose visits only the master threads (thread 0 of each process) have.
const std::set<uint32_t> kMasterOnlyVisits = {
    0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,  14,  15,  38,
    53,  54,  55,  64,  74,  75,  76,  77,  78,  79,  84,  86,  88,  98,  104, 115, 125,
    134, 138, 139, 140, 141, 142, 143, 150, 155, 157, 159, 168, 171, 176, 177, 179};

const char* const kSourceFile = "/home/geimer/Examples/NPB3.3-MZ-MPI/BT-MZ/mpi_setup.prep.opari.F";

// Module, paradigm and role of a region, as the program assigns them: the first group listing
// the region wins; regions in none are OpenMP loops of the source file.
struct RegionKind {
  std::set<uint32_t> regions;
  const char* mod;
  const char* paradigm;
  const char* role;
};

std::set<uint32_t> span(uint32_t first, uint32_t last, std::set<uint32_t> more = {}) {
  for (uint32_t i = first; i <= last; ++i) more.insert(i);
  return more;
}

const std::vector<RegionKind>& region_kinds() {
  static const std::vector<RegionKind> kinds = {
      {span(0, 2, {8,   10,  11,  12,  13,  14,  15,  19,  21,  23,  25,  27,  30, 32, 34,
                   39,  41,  44,  48,  49,  50,  57,  67,  68,  89,  92,  93,  96, 99, 100,
                   102, 105, 106, 109, 114, 115, 116, 117, 118, 121, 124, 145, 152}),
       kSourceFile, "compiler", "function"},
      {span(154, 179, {94, 107}), "", "measurement_system", "artificial"},
      {span(3, 6, {153}), "MPI", "mpi", "function"},
      {{7, 9}, "MPI", "mpi", "one2all"},
      {{113}, "MPI", "mpi", "barrier"},
      {span(64, 66), "MPI", "mpi", "point2point"},
      {{150, 151}, "MPI", "mpi", "all2one"},
      {{16, 35, 51, 54, 58, 61, 69, 90, 97, 103, 110, 119, 125, 146},
       kSourceFile,
       "openmp",
       "parallel"},
      {{28, 33, 37, 42,  45,  47,  53,  56,  60,  63,  72,  79,
        85, 88, 95, 101, 108, 112, 123, 128, 135, 141, 144, 149},
       kSourceFile,
       "openmp",
       "implicit barrier"},
      {{73, 75, 77, 86, 129, 131, 133, 142}, kSourceFile, "openmp", "master"},
      {{122, 148}, kSourceFile, "openmp", "atomic"},
  };
  return kinds;
}

void add_region(Model& model, uint32_t id) {
  cubekit::Region r;
  r.id = id;
  r.name = r.mangled_name = kName[id];
  r.mod = kSourceFile;
  r.paradigm = "openmp";
  r.role = "loop";
  for (const RegionKind& kind : region_kinds()) {
    if (kind.regions.count(id) == 0) continue;
    r.mod = kind.mod;
    r.paradigm = kind.paradigm;
    r.role = kind.role;
    break;
  }
  model.regions.push_back(r);
}

void add_metric(Model& model, const char* disp, const char* uniq, const char* dtype,
                const char* uom, const char* url, const char* descr, cubekit::MetricKind kind) {
  cubekit::Metric m;
  m.id = static_cast<uint32_t>(model.metrics.size());
  m.disp_name = disp;
  m.uniq_name = uniq;
  m.dtype_text = dtype;
  m.dtype = cubekit::DataType::parse(dtype);
  m.uom = uom;
  m.url = url;
  m.descr = descr;
  m.kind = kind;
  model.metrics.push_back(m);
}

void add_system_tree(Model& model) {
  cubekit::SystemNode machine, node;
  machine.id = 0;
  machine.name = "MSC";
  machine.class_name = "machine";
  machine.children = {1};
  node.id = 1;
  node.name = "Athena";
  node.class_name = "node";
  node.parent = 0;
  for (uint32_t p = 0; p < kProcesses; ++p) {
    cubekit::LocationGroup group;
    group.id = p;
    group.name = "Proc  " + std::to_string(p);
    group.rank = p;
    group.node = 1;
    for (uint32_t t = 0; t < kThreadsPerProcess; ++t) {
      cubekit::Location thread;
      thread.id = p * kThreadsPerProcess + t;
      thread.name = "Thread  " + std::to_string(t);
      thread.rank = t;
      thread.group = p;
      group.locations.push_back(thread.id);
      model.locations.push_back(thread);
    }
    node.groups.push_back(p);
    model.groups.push_back(group);
  }
  model.system_nodes = {machine, node};
}

std::shared_ptr<Model> example3_model() {
  auto model = std::make_shared<Model>();
  model->mirrors = {"http://icl.cs.utk.edu/software/kojak/", "http://www.fz-juelich.de/jsc/kojak/"};
  model->attrs = {{"description", "a simple example"},
                  {"experiment time", "November 1st, 2004"},
                  {"statisticfile", "mystat"}};
  model->metrics_title = "Metric tree (QMCD App <ver.34>)";
  model->program_title = "Calltree (serial run, #2345)";
  model->system_title = "System  ( Linux cluster < 43 & 23 >)";
  using cubekit::MetricKind;
  add_metric(*model, "Visits", "visits", "INTEGER", "occ", "http://www.cs.utk.edu/usr.html",
             "Number of visits", MetricKind::kExclusive);
  add_metric(*model, "Time", "time", "FLOAT", "sec", "@mirror@patterns-2.1.html#execution",
             "Total CPU allocation time", MetricKind::kInclusive);
  add_metric(*model, "P2P bytes sent", "bytes_sent", "INTEGER", "bytes",
             "http://www.cs.utk.edu/sys.html", "Number of bytes sent in point-to-point operations",
             MetricKind::kExclusive);
  add_metric(*model, "P2P bytes received", "bytes_rcvd", "INTEGER", "bytes",
             "http://www.cs.utk.edu/sys.html",
             "Number of bytes received in point-to-point operations", MetricKind::kExclusive);
  for (uint32_t c = 0; c < kCallPaths; ++c) {
    add_region(*model, c);
    cubekit::Cnode cnode;
    cnode.id = c;
    cnode.region = c;
    cnode.parent = kParent[c] < 0 ? cubekit::kNoIndex : static_cast<Index>(kParent[c]);
    model->cnodes.push_back(cnode);
    if (kParent[c] >= 0) model->cnodes[kParent[c]].children.push_back(c);
  }
  add_system_tree(*model);
  model->finalize("example3");
  return model;
}

// The rows, per metric position (0 visits, 1 time, 2 bytes_sent, 3 bytes_rcvd) and call path.
// Integer rows count up from a base by the thread's column; "masters only" rows keep every
// 16th column (thread 0 of each process) and zero the rest.
std::vector<int64_t> integer_row(uint32_t metric, uint32_t c) {
  std::vector<int64_t> row(kLocations, 0);
  const auto masters_only = [&](int64_t base) {
    for (uint32_t l = 0; l < kLocations; l += kThreadsPerProcess) row[l] = base + l;
  };
  if (metric == 2) {
    if (c == 74) masters_only(c + metric);  // MPI_Isend
  } else if (metric == 3) {
    if (c == 76) masters_only(c + metric);  // MPI_Waitall
  } else if (c == 178) {
    row[0] = c;  // visits on the very first thread only
  } else if (kMasterOnlyVisits.count(c) != 0) {
    masters_only(c + 1);
  } else {
    for (uint32_t l = 0; l < kLocations; ++l) row[l] = c + l;
  }
  return row;
}

void write_example3(const std::string& path) {
  const std::shared_ptr<Model> model = example3_model();
  cubekit::WriteOptions options;
  options.skip_identity_rows = false;  // the program sets every row, zeros included
  cubekit::ReportWriter writer(path, model, options);
  for (uint32_t metric = 0; metric < model->metrics.size(); ++metric) {
    writer.begin_metric(metric);
    for (Index c : cubekit::storage_order(*model, model->metrics[metric].kind)) {
      const uint32_t id = model->cnodes[c].id;
      if (metric == 1) {
        const std::vector<double> row(kLocations, kInclusiveTime[id]);
        writer.write_row(c, reinterpret_cast<const std::byte*>(row.data()));
      } else {
        const std::vector<int64_t> row = integer_row(metric, id);
        writer.write_row(c, reinterpret_cast<const std::byte*>(row.data()));
      }
    }
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT.cubex\n";
    return 1;
  }
  try {
    write_example3(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << '\n';
    return 1;
  }
  return 0;
}
