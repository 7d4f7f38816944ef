// tau2cube: a TAU profile (a directory of profile.N.C.T files and MULTI__<metric>
// sub-directories, or one such file) written as a .cubex report in CubeLib 4.6's layout (tools
// guide §1.5), with options as CubeLib's tool takes them:
// tau2cube [<tau-profile>] [-o <cube-file>] (default ".", tau_profile.cubex).
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/tau_profile.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: tau2cube [<tau-profile>] [-o <cube-file>] [--user-events]\n"
    "  reads the TAU profile files profile.<node>.<context>.<thread> of a directory (default .)\n"
    "  and of its MULTI__<metric> sub-directories, or the one profile file given, and writes\n"
    "  them as a report (default tau_profile.cubex; .cubex is added when the name lacks it):\n"
    "  an INTEGER metric per TAU metric and CALLS, as CubeLib's tau2cube does.\n"
    "  --user-events  also one TAU_ATOMIC metric per TAU user event\n";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

int tau2cube_main(int argc, char** argv) {
  std::string output = "tau_profile";
  TauConversionOptions options;
  // Word by word, as the original reads them: -h and --help print the usage on stdout and exit
  // 0; -o takes the next word; every other word is the profile.
  OptionTable table{{{'h', Argument::kNone, help(kUsage, Stream::kStdout), nullptr, "help"},
                     {'u', Argument::kNone, std::nullopt, nullptr, "user-events", true},
                     {'o', Argument::kRequired}}};
  table.whole_words = true;
  table.missing_argument = failure(std::string(kUsage) + "tau2cube: -o needs a file name\n");
  table.operands = OperandCount{
      0, 1,
      failure(std::string(kUsage) + "tau2cube: one TAU profile (directory or file) expected\n")};
  const std::vector<std::string> inputs =
      parse_command_line(table, argc, argv, [&](char c, const char* arg) {
        if (c == 'u') options.user_events = true;
        if (c == 'o') output = arg;
      }).operands;
  const std::string profile = inputs.empty() ? "." : inputs[0];
  if (!ends_with(output, ".cubex")) output += ".cubex";
  const TauConversion c = convert_tau_profile(profile, output, options);
  std::cerr << "tau2cube: " << profile << ": " << c.files << " files, " << c.metrics << " metrics, "
            << c.user_events << " user events, " << c.call_paths << " call paths, " << c.locations
            << " threads written to " << output << '\n';
  return 0;
}

}  // namespace cubekit::tools
