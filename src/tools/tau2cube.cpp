// tau2cube: a TAU profile directory (profile.N.C.T files, MULTI__<metric> sub-directories)
// written as a .cubex report (tools guide §1.5), with options as CubeLib 4.6's tool takes them:
// tau2cube [<tau-profile-dir>] [-o <cube-file>] (default ".", tau_profile.cubex).
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/tau_profile.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: tau2cube [<tau-profile-dir>] [-o <cube-file>]\n"
    "  reads the TAU profile files profile.<node>.<context>.<thread> of the directory (default\n"
    "  .) and of its MULTI__<metric> sub-directories and writes them as a report (default\n"
    "  tau_profile.cubex; .cubex is added when the name lacks it)\n";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

int tau2cube_main(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string output = "tau_profile";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "-o") {
      if (i + 1 == argc) {
        std::cerr << kUsage << "tau2cube: -o needs a file name\n";
        return 1;
      }
      output = argv[++i];
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.size() > 1) {
    std::cerr << kUsage << "tau2cube: one TAU profile directory expected\n";
    return 1;
  }
  const std::string dir = inputs.empty() ? "." : inputs[0];
  if (!ends_with(output, ".cubex")) output += ".cubex";
  const TauConversion c = convert_tau_profile(dir, output);
  std::cerr << "tau2cube: " << dir << ": " << c.files << " files, " << c.metrics << " metrics, "
            << c.user_events << " user events, " << c.call_paths << " call paths, " << c.locations
            << " threads written to " << output << '\n';
  return 0;
}

}  // namespace cubekit::tools
