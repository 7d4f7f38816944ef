#include "test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <atomic>
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

namespace {

// The environment with `env`'s variables set, as "NAME=value" texts.
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> vars;
  for (char** e = ::environ; *e != nullptr; ++e) {
    const std::string_view var(*e);
    const std::string_view name = var.substr(0, var.find('='));
    if (std::none_of(env.begin(), env.end(), [&](const auto& v) { return v.first == name; }))
      vars.emplace_back(var);
  }
  for (const auto& [name, value] : env) vars.push_back(name + "=" + value);
  return vars;
}

std::vector<char*> pointers_to(std::vector<std::string>& texts) {
  std::vector<char*> p;
  for (std::string& t : texts) p.push_back(t.data());
  p.push_back(nullptr);
  return p;
}

// Whether the next tool started runs LeakSanitizer at its exit. CUBEKIT_TEST_LEAK_CHECK_EVERY=N
// (scripts/sanitizers.sh) keeps it for one tool start in N of this process and turns it off
// for the others; unset, for all. At each exit the check reads about 10 MB of the sanitizer
// runtime's untouched globals, 2,600 page faults even for an empty program: 40 % of the time of
// the oracle suites under ASan, one tool start or more per step. The errors ASan and UBSan find
// while a tool runs are checked in every start.
bool next_start_checks_leaks() {
  static const long every = [] {
    const char* text = std::getenv("CUBEKIT_TEST_LEAK_CHECK_EVERY");
    return text == nullptr ? 1L : std::max(1L, std::strtol(text, nullptr, 10));
  }();
  static std::atomic<long> starts{0};
  return starts.fetch_add(1) % every == 0;
}

// posix_spawn, whose child shares the test's memory until it execs: a fork copies the page
// tables of the test process (large under the sanitizers) and makes each page the test writes
// afterwards fault again. -1 when it could not start the tool (no such program or folder), which
// the forked child told with exit code 127.
pid_t spawn_tool(std::vector<std::string> argv, RunLimits limits, const std::string& input,
                 const std::filesystem::path& out_path, const std::filesystem::path& err_path) {
  if (!next_start_checks_leaks()) {
    const char* asan = std::getenv("ASAN_OPTIONS");  // later options win over earlier ones
    limits.env.emplace_back("ASAN_OPTIONS", std::string(asan ? asan : "") + ":detect_leaks=0");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  if (!limits.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, limits.working_dir.c_str());
  std::vector<std::string> env = environment_with(limits.env);
  std::vector<char*> argv_p = pointers_to(argv), env_p = pointers_to(env);
  const std::string exe = limits.executable.empty() ? CUBEKIT_TOOL : limits.executable.string();
  pid_t pid = -1;
  if (::posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv_p.data(), env_p.data()) != 0)
    pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace

RunResult run_tool(const std::string& argv0, const std::vector<std::string>& args,
                   const RunLimits& limits) {
  std::string templ = (std::filesystem::temp_directory_path() / "cubekit-run-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path dir = templ;
  const auto out_path = dir / "out", err_path = dir / "err";
  // Standard input is empty unless given: a tool that asks (cube_topoassist) must not wait on a
  // terminal.
  const std::string input = limits.stdin_file.empty() ? "/dev/null" : limits.stdin_file.string();
  const bool limited = limits.stack_bytes > 0 || limits.file_bytes > 0;
  std::vector<std::string> argv{argv0};
  argv.insert(argv.end(), args.begin(), args.end());
  // Resource limits are set between fork and exec; everything else posix_spawn sets up.
  const pid_t pid = limited ? ::fork() : spawn_tool(argv, limits, input, out_path, err_path);
  if (pid < 0 && limited) throw std::runtime_error("fork failed");
  if (pid == 0) {
    std::vector<char*> argv_p = pointers_to(argv);
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
    ::execv(limits.executable.empty() ? CUBEKIT_TOOL : limits.executable.c_str(), argv_p.data());
    ::_exit(127);
  }
  int status = 127 << 8;  // as the child's _exit(127) when the tool could not be started
  if (pid > 0) ::waitpid(pid, &status, 0);
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
