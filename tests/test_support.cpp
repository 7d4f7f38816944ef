#include "test_support.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace cubekit::test {

TempDir::TempDir(const std::string& tag) {
  std::string templ = std::filesystem::temp_directory_path() / ("cubekit-" + tag + "-XXXXXX");
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + templ);
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path_, ec))
    if (e.is_directory(ec))
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ec);
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, std::string_view bytes) const {
  const std::filesystem::path p = path_ / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
  return p.string();
}

std::filesystem::path oracle_input(const std::string& folder) {
  const std::filesystem::path real = shared_dir() / "data" / "real";
  auto rest_after = [&](const std::string& prefix) { return folder.substr(prefix.size()); };
  auto slashes = [](std::string s) {
    for (size_t p; (p = s.find("__")) != std::string::npos;) s.replace(p, 2, "/");
    return s;
  };
  if (folder.rfind("pycubexr__", 0) == 0)
    return real / "pycubexr" / slashes(rest_after("pycubexr__"));
  if (folder == "cubelib__examples__cube__summary.cubex")
    return real / "cubelib" / "examples" / "summary.cubex";
  if (folder == "cubelib__test__test33_CubeProxy__proxy.cubex")
    return real / "cubelib" / "test33" / "proxy.cubex";
  if (folder.rfind("cubelib__test__", 0) == 0)
    return real / "cubelib" / slashes(rest_after("cubelib__test__"));
  if (folder.rfind("extrap__single_parameter__", 0) == 0) {
    std::string d = rest_after("extrap__single_parameter__");
    d = d.substr(0, d.find("__profile.cubex"));
    return real / "extrap" / "single_parameter" / (d + ".cubex");
  }
  if (folder.rfind("extrap__simple_threaded__", 0) == 0)
    return real / "extrap" / "simple_threaded" / folder.substr(folder.rfind("__") + 2);
  return {};
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool shared_required() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

RunResult run_tool(const std::string& argv0, const std::vector<std::string>& args,
                   const RunLimits& limits) {
  std::string templ = (std::filesystem::temp_directory_path() / "cubekit-run-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path dir = templ;
  const auto out_path = dir / "out", err_path = dir / "err";
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(argv0.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // Standard input is empty unless given: a tool that asks (cube_topoassist) must not wait
    // on a terminal.
    const std::string input = limits.stdin_file.empty() ? "/dev/null" : limits.stdin_file.string();
    if (!std::freopen(input.c_str(), "r", stdin) || !std::freopen(out_path.c_str(), "w", stdout) ||
        !std::freopen(err_path.c_str(), "w", stderr))
      ::_exit(127);
    if (!limits.working_dir.empty() && ::chdir(limits.working_dir.c_str()) != 0) ::_exit(127);
    if (limits.stack_bytes > 0) {
      const rlimit stack{limits.stack_bytes, limits.stack_bytes};
      if (::setrlimit(RLIMIT_STACK, &stack) != 0) ::_exit(127);
    }
    if (limits.file_bytes > 0) {
      const rlimit file{limits.file_bytes, limits.file_bytes};
      if (::signal(SIGXFSZ, SIG_IGN) == SIG_ERR || ::setrlimit(RLIMIT_FSIZE, &file) != 0)
        ::_exit(127);
    }
    for (const auto& [name, value] : limits.env) ::setenv(name.c_str(), value.c_str(), 1);
    ::execv(limits.executable.empty() ? CUBEKIT_TOOL : limits.executable.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return r;
}

std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string first_difference(const std::string& ours, const std::string& original) {
  std::istringstream a(ours), b(original);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = static_cast<bool>(std::getline(a, la));
    const bool gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) return ours == original ? "" : "the texts differ in their final line end";
    if (la != lb || ga != gb)
      return "line " + std::to_string(line) + "\n  cubekit:  " + (ga ? la : "(end)") +
             "\n  original: " + (gb ? lb : "(end)");
  }
}

}  // namespace cubekit::test
