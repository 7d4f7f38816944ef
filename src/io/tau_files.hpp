// The text files of a TAU profile, as read (internal to the io layer: tau_profile.cpp turns
// them into a report).
#pragma once

#include <string>
#include <tuple>
#include <vector>

namespace cubekit {

using CallPath = std::vector<std::string>;   // region names, caller first
using Place = std::tuple<long, long, long>;  // TAU node, context, thread

struct FunctionLine {
  CallPath path;
  double calls = 0, exclusive = 0, inclusive = 0;
  size_t line = 0;
};

struct EventLine {
  std::string name;  // without its context
  CallPath context;  // empty: no context
  double count = 0, maximum = 0, minimum = 0, mean = 0, squares = 0;
  size_t line = 0;
};

// One profile.N.C.T file: one metric on one thread.
struct TauFile {
  std::string path, metric;
  Place place;
  std::vector<FunctionLine> functions;
  std::vector<EventLine> events;
};

// profile.N.C.T files of `profile` and of its MULTI__<metric> sub-directories (metric: the
// sub-directory's name after MULTI__), ordered by folder, then node, context, thread; not yet
// parsed. `profile` may also be one such file (CubeLib's tool runs `find PATH -name
// 'profile.*'`, which lists a file given as PATH). IoError when there are none, FormatError for
// a badly named one.
std::vector<TauFile> find_tau_files(const std::string& profile);

// Reads the file's lines into it (its metric from the first line when it names one). Throws
// FormatError naming file and line.
void parse_tau_file(TauFile& file);

}  // namespace cubekit
