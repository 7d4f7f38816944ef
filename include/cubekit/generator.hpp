// Deterministic synthetic profiles of any size, shaped like what Score-P writes
// (cube-format.md §9.2): a recursion-free call tree of user functions, loops, OpenMP constructs
// and MPI leaves; machines → nodes → MPI ranks → threads (and GPU streams); visits, time,
// min/max time, bytes sent/received, optionally PAPI counters and one metric of every other
// type. Values are consistent (inclusive time = exclusive + children, visits wherever time,
// min ≤ max, bytes only on communicating MPI leaves) and a pure function of the options, so
// the same seed gives the same file byte for byte.
//
// The report is streamed through ReportWriter: memory grows with the number of call paths and
// locations, never with their product (the size of the output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cubekit/model.hpp"

namespace cubekit {

struct GeneratorOptions {
  uint64_t seed = 1;
  size_t call_paths = 5000;  // target; the tree hits it exactly unless depth × fanout forbid it
  size_t depth = 12;         // most cnodes on a path from the root (root included)
  size_t fanout = 8;         // most children of one cnode
  size_t machines = 1;
  size_t nodes_per_machine = 2;
  size_t processes_per_node = 4;       // MPI ranks
  size_t threads_per_process = 4;      // OpenMP threads (the first is the master thread)
  size_t gpu_streams_per_process = 0;  // locations of type "gpu"
  bool all_types = false;  // one more metric of every remaining dtype (INT8 … NDOUBLES(4))
  bool papi = false;       // PAPI_TOT_INS and PAPI_FP_OPS (INCLUSIVE UINT64)
  bool compress = false;   // ZCUBEX data members
  // Fraction of the communicating MPI call paths (sends, receives, collectives) that carry no
  // bytes_sent / bytes_received (e.g. zero-byte messages); other call paths never carry bytes.
  double sparsity = 0.25;
  // No rows at all (every metric's index lists no call path): a report that is all anchor, to
  // time and size opening huge trees without writing terabytes of values.
  bool definitions_only = false;
};

// What generate_report wrote.
struct GeneratedReport {
  size_t call_paths = 0;
  size_t locations = 0;
  size_t metrics = 0;
  uint64_t file_bytes = 0;
};

// Writes the report to `path` (atomically, like every ReportWriter). Throws cubekit::Error for
// options out of range (message names the option) and IoError when writing fails.
GeneratedReport generate_report(const std::string& path, const GeneratorOptions& options);

// The definitions alone (metrics, regions, call tree, system tree), as generate_report writes
// them. Throws cubekit::Error for options out of range.
std::shared_ptr<const Model> generated_model(const GeneratorOptions& options);

// Locations the options ask for: machines × nodes × processes × (threads + GPU streams).
size_t generated_locations(const GeneratorOptions& options);

// About how many bytes of metric data (uncompressed) the options produce.
uint64_t estimated_data_bytes(const GeneratorOptions& options);

// The options with call paths (between 1,000 and 1,000,000) and, when that is not enough,
// processes per node chosen so that about `bytes` of metric data come out. With
// `keep_call_paths` only processes per node change.
GeneratorOptions fit_to_size(GeneratorOptions options, uint64_t bytes, bool keep_call_paths);

}  // namespace cubekit
