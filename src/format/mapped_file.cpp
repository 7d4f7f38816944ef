#include "format/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cubekit/error.hpp"

namespace cubekit::format {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw IoError(path + ": cannot stat: " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw IoError(path + ": is a directory, expected a Cube report file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw IoError(path + ": cannot map: " + std::strerror(err));
    }
    data_ = static_cast<const std::byte*>(p);
  }
  if (short_of_descriptors(fd))
    ::close(fd);
  else
    fd_ = fd;
}

bool MappedFile::short_of_descriptors(int fd) {
  // Descriptors are handed out lowest first, so a descriptor's number is about how many are
  // open. Past half the limit (a tool given a thousand reports under the usual 1,024), a file
  // keeps only its map and read() copies from there.
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) limit.rlim_cur = 1024;
  return limit.rlim_cur != RLIM_INFINITY && static_cast<rlim_t>(fd) >= limit.rlim_cur / 2;
}

size_t MappedFile::read(uint64_t offset, std::span<std::byte> into) const {
  if (fd_ < 0) {  // no descriptor kept: from the map
    const size_t n = offset < size_ ? std::min<uint64_t>(into.size(), size_ - offset) : 0;
    if (n > 0) std::memcpy(into.data(), data_ + offset, n);
    return n;
  }
  size_t done = 0;
  while (done < into.size()) {
    const ssize_t got =
        ::pread(fd_, into.data() + done, into.size() - done, static_cast<off_t>(offset + done));
    if (got == 0) break;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw IoError(path_ + ": cannot read " + std::to_string(into.size()) + " bytes at offset " +
                    std::to_string(offset) + ": " + std::strerror(errno));
    done += static_cast<size_t>(got);
  }
  return done;
}

void MappedFile::release(uint64_t offset, uint64_t size) const {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t begin = (offset + page - 1) / page * page;  // only whole pages inside
  const uint64_t end = std::min<uint64_t>(offset + size, size_) / page * page;
  if (data_ == nullptr || end <= begin) return;
  ::madvise(const_cast<std::byte*>(data_) + begin, end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

void refuse_overwriting(const std::string& input, const std::string& output) {
  struct stat in {
  }, out{};
  if (::stat(input.c_str(), &in) == 0 && ::stat(output.c_str(), &out) == 0 &&
      in.st_dev == out.st_dev && in.st_ino == out.st_ino)
    throw IoError(output + ": refusing to overwrite the report being read");
}

}  // namespace cubekit::format
