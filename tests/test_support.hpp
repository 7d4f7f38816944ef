// Shared helpers for tests: where ../shared is, running the cubekit executable.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cubekit::test {

// ../shared beside the clone (real profiles and the original tools' outputs), or empty.
inline std::filesystem::path shared_dir() {
  const std::filesystem::path p = CUBEKIT_SHARED_DIR;
  return std::filesystem::is_directory(p / "data" / "real") ? p : std::filesystem::path();
}

// The real input behind an oracle folder name (oracle/README.md, "Layout"), e.g.
// "pycubexr__blast.p64.r1__profile.cubex" → data/real/pycubexr/blast.p64.r1/profile.cubex.
std::filesystem::path oracle_input(const std::string& folder);

// True when tests that need ../shared must fail rather than skip without it (CI=true).
bool shared_required();

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs the cubekit executable as `argv0` (e.g. "cube_dump") with `args`; captures output.
RunResult run_tool(const std::string& argv0, const std::vector<std::string>& args);

std::string read_file(const std::filesystem::path& p);

// "" when the texts are equal, otherwise the first line where they differ, ready for a
// failure message (two whole dumps would bury it).
std::string first_difference(const std::string& ours, const std::string& original);

}  // namespace cubekit::test
