#include "cubekit/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <streambuf>
#include <string_view>

#include "cubekit/error.hpp"

namespace cubekit {
namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// The file that writing to `path` replaces: the one a symbolic link points to (the link stays,
// as when writing through it), else `path` itself.
std::string replaced_file(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;  // no such file yet
  std::string file = real;
  std::free(real);
  return file;
}

// The descriptor a path names when it is one of this process's open descriptors (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1. Such a path resolves to whatever the
// descriptor has open: a shell's `> out.txt` makes it a regular file, which renaming over would
// replace behind the shell's back (its later output lost, an appending `>>` overwritten).
int descriptor_named(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    int fd = 0;
    for (size_t i = prefix.size(); i < path.size(); ++i) {
      if (path[i] < '0' || path[i] > '9' || fd > 100000000) return -1;
      fd = fd * 10 + (path[i] - '0');
    }
    return fd;
  }
  return -1;
}

// "<path>.tmp.<pid>.<n>", n counting the temporaries this process named.
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

// Writes all `n` bytes; 0, or the errno of the write that failed.
int write_all(int fd, const char* bytes, size_t n) {
  while (n > 0) {
    const ssize_t done = ::write(fd, bytes, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return done < 0 ? errno : EIO;
    bytes += done;
    n -= static_cast<size_t>(done);
  }
  return 0;
}

// The buffer behind AtomicFile::stream(): 64 KiB pieces straight to the descriptor. The first
// failed write is kept (error) and fails every later one.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

  // Writes out the buffer; false on failure (error() says why).
  bool drain() {
    if (error_ == 0) error_ = write_all(fd_, pbase(), static_cast<size_t>(pptr() - pbase()));
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto size = static_cast<size_t>(n);
    if (size <= static_cast<size_t>(epptr() - pptr())) {
      std::memcpy(pptr(), s, size);
      pbump(static_cast<int>(n));
      return n;
    }
    if (!drain()) return 0;
    if (size < sizeof buffer_) return xsputn(s, n);
    error_ = write_all(fd_, s, size);  // large pieces skip the copy
    return error_ == 0 ? n : 0;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

}  // namespace

struct AtomicFile::State {
  State(std::string given, std::string replaced, int descriptor, std::string named, bool in_place_)
      : path(std::move(given)),
        file(std::move(replaced)),
        temporary(std::move(named)),
        fd(descriptor),
        in_place(in_place_),
        buffer(fd) {}
  ~State() {
    if (fd >= 0) ::close(fd);
    if (!temporary.empty()) ::unlink(temporary.c_str());
  }

  [[noreturn]] void fail(const char* what, int error) const {
    throw IoError(path + ": " + what + ": " + std::strerror(error));
  }

  // Gives the unnamed temporary a name beside the target, for rename().
  void name_temporary() {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    for (;;) {
      std::string name = temporary_name(file);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        temporary = std::move(name);
        return;
      }
      if (errno != EEXIST) fail("cannot name the finished file", errno);
    }
  }

  std::string path;       // as given, for messages
  std::string file;       // what commit() replaces (replaced_file)
  std::string temporary;  // empty while unnamed (O_TMPFILE) and once renamed
  int fd;
  bool in_place;  // the target is a device or a pipe, written directly
  DescriptorBuffer buffer;
  std::ostream stream{&buffer};
};

AtomicFile::AtomicFile(std::string path) {
  // An open descriptor of this process (`-o /dev/stdout`) is written through a copy of it, at
  // its offset, like the process's own output to it.
  if (const int named_fd = descriptor_named(path); named_fd >= 0) {
    const int fd = ::fcntl(named_fd, F_DUPFD_CLOEXEC, 0);
    if (const int error = errno; fd < 0)
      throw IoError(path + ": cannot write to it: " + std::strerror(error));
    state_ = std::make_unique<State>(path, path, fd, std::string(), true);
    return;
  }
  // A device or a pipe (/dev/null) has no content to replace, and renaming over it would
  // replace the device itself: it is written in place.
  if (struct stat target; ::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (const int error = errno; fd < 0)
      throw IoError(path + ": cannot open it: " + std::strerror(error));
    state_ = std::make_unique<State>(path, path, fd, std::string(), true);
    return;
  }
  std::string file = replaced_file(path);
  // 0666: the kernel takes the umask off, as for any file a program creates.
  int fd = ::open(directory_of(file).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
  std::string named;
  while (fd < 0) {
    named = temporary_name(file);
    fd = ::open(named.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
    if (const int error = errno; fd < 0 && error != EEXIST)
      throw IoError(path + ": cannot create a temporary file beside it: " + std::strerror(error));
  }
  state_ = std::make_unique<State>(std::move(path), std::move(file), fd, std::move(named), false);
}

AtomicFile::~AtomicFile() = default;
AtomicFile::AtomicFile(AtomicFile&&) noexcept = default;
AtomicFile& AtomicFile::operator=(AtomicFile&&) noexcept = default;

const std::string& AtomicFile::path() const {
  return state_->path;
}

std::ostream& AtomicFile::stream() {
  return state_->stream;
}

void AtomicFile::write(std::string_view bytes) {
  state_->stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (state_->buffer.error() != 0) state_->fail("write failed", state_->buffer.error());
}

void AtomicFile::flush() {
  if (!state_->buffer.drain()) state_->fail("write failed", state_->buffer.error());
}

int AtomicFile::descriptor() const {
  return state_->fd;
}

void AtomicFile::commit() {
  State& s = *state_;
  flush();
  if (s.in_place) return;  // nothing to sync or rename (the descriptor closes with the state)
  if (::fsync(s.fd) != 0) s.fail("fsync failed", errno);
  if (s.temporary.empty()) s.name_temporary();
  const int fd = s.fd;
  s.fd = -1;
  if (::close(fd) != 0) s.fail("close failed", errno);
  if (::rename(s.temporary.c_str(), s.file.c_str()) != 0)
    s.fail("cannot rename the finished file", errno);
  s.temporary.clear();
  const int directory = ::open(directory_of(s.file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory >= 0) {
    ::fsync(directory);  // makes the rename itself durable
    ::close(directory);
  }
}

}  // namespace cubekit
