// A tool's run as one rank of an MPI job (mpi.hpp): MPI started and ended, the other ranks'
// output kept from the terminal, and the agreement on failure that every collective step opens.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cubekit/error.hpp"
#include "cubekit/mpi.hpp"
#include "mpi/collectives.hpp"
#include "mpi/mpi_calls.hpp"

namespace cubekit::mpi {
namespace {

Job* current_job = nullptr;

// Leads a failure message that a rank printed as its tool ended (finish), as opposed to an
// exception's text in a step (agree), which rank 0's tool prints in its own words.
constexpr char kPrinted = '\x01';

bool set(const char* variable) {
  const char* value = std::getenv(variable);
  return value && *value;
}

// The standard error of a rank other than 0: an unlinked temporary file, read back only when the
// rank fails (what it wrote then reaches the user through rank 0, once).
int keep_stderr_aside() {
  const char* dir = std::getenv("TMPDIR");
  std::string name = std::string(dir && *dir ? dir : "/tmp") + "/cubekit-rank-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) return -1;
  unlink(name.c_str());
  dup2(fd, STDERR_FILENO);
  return fd;
}

void discard_stdout() {
  const int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) return;
  dup2(fd, STDOUT_FILENO);
  close(fd);
}

}  // namespace

bool launched_by_launcher() {
  return set("OMPI_COMM_WORLD_SIZE") || set("PMIX_RANK") || set("PMI_RANK");
}

Job::Job(int* argc, char*** argv) {
  mpi_calls().init(argc, argv, &rank_, &size_);
  current_job = this;
  if (root()) {
    const char* asked = std::getenv("CUBEKIT_PROGRESS");
    progress_ = asked ? std::string(asked) == "1" : isatty(STDERR_FILENO) != 0;
    return;
  }
  discard_stdout();
  kept_stderr_ = keep_stderr_aside();
}

Job::~Job() {
  end_progress();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  current_job = nullptr;
  mpi_calls().finalize();
}

Job* Job::current() {
  return current_job;
}

void Job::agree(const std::string* failure, size_t item) {
  const int key = failure ? static_cast<int>(std::min<size_t>(item, INT_MAX - 1)) : INT_MAX;
  const FirstRank first = first_by_key(key);
  if (first.key == INT_MAX) return;
  const int lowest = first.rank;
  std::string message = rank_ == lowest ? *failure : std::string();
  broadcast(message, lowest);
  ended_ = true;
  if (!root()) throw JobFailed{};
  // The failing rank ended its tool (finish): what it printed, as it printed it.
  if (message.starts_with(kPrinted)) {
    end_progress();
    std::fputs(message.c_str() + 1, stderr);
    throw JobFailed{};
  }
  throw Error(message);
}

std::string Job::kept_error_text() {
  std::cerr.flush();
  std::fflush(stderr);
  std::string text;
  if (kept_stderr_ < 0 || lseek(kept_stderr_, 0, SEEK_SET) < 0) return text;
  char buffer[4096];
  for (ssize_t got; (got = read(kept_stderr_, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<size_t>(got));
  return text;
}

int Job::finish(int rc) {
  if (ended_) return rc != 0 ? rc : 1;
  ended_ = true;
  const FirstRank first = first_by_key(rc != 0 ? 0 : INT_MAX);
  if (first.key == INT_MAX) return 0;
  const int lowest = first.rank;
  std::string text = rank_ == lowest && !root() ? kPrinted + kept_error_text() : std::string();
  broadcast(text, lowest);
  if (root() && lowest != 0) {
    end_progress();
    std::fputs(text.c_str() + 1, stderr);
  }
  return rc != 0 ? rc : 1;
}

void Job::show_progress(const std::string& line) {
  if (!progress_) return;
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
  progress_shown_ = true;
}

void Job::end_progress() {
  if (!progress_shown_) return;
  std::fputc('\n', stderr);
  progress_shown_ = false;
}

std::vector<uint64_t> file_sizes(const std::vector<std::string>& paths) {
  std::vector<uint64_t> sizes(paths.size());
  Job* job = Job::current();
  // Every rank arrives here healthy, or one that failed on the way (e.g. could not open a
  // report that the others could) ends the job now, through its finish.
  if (job) job->agree(nullptr);
  if (!job || job->root()) {
    for (size_t i = 0; i < paths.size(); ++i) {
      std::error_code ec;
      const uintmax_t size = std::filesystem::file_size(paths[i], ec);
      sizes[i] = ec ? 0 : size;
    }
  }
  if (job) broadcast(sizes, 0);
  return sizes;
}

}  // namespace cubekit::mpi
