// cubekit_mmap_sum [--map | --read] FILE: a plain pass over a file, the baseline of the ratio
// scripts in bench/. Touches every byte once with no parsing, summing it as 64-bit words, in one
// of two ways: --map (the default) maps the file, the floor for a reader that maps the report;
// --read read()s it into one reused 256 KiB buffer, the floor for a reader that copies (cat(1)
// does the same). Which is faster depends on the machine: on a virtual machine that makes page
// table entries slowly, mapping 400 MB can take 2-4 times as long as reading it
// (docs/benchmarks.md), so the scripts divide by the faster (plain_pass in timing.sh).
// Prints "<seconds> <GB/s> <sum> <data bytes>": the sum keeps the loop from being elided;
// <data bytes> is the total size of the archive members named *.data (metric data), found by a
// walk over the tar headers after the timed pass, so that e2e.sh can report MB/s of metric data
// without tar(1) (which stops at CubeW's lone zero blocks, §2.6).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Sum of the sizes of members named *.data. Standard padding, then any run of zero blocks is
// skipped (cube-format.md §2.7); octal sizes only (base-256 and pax appear only past 8 GiB).
uint64_t data_member_bytes(const unsigned char* p, size_t size) {
  uint64_t total = 0;
  size_t off = 0;
  while (off + 512 <= size) {
    const unsigned char* h = p + off;
    bool zero = true;
    for (int i = 0; i < 512 && zero; ++i) zero = h[i] == 0;
    if (zero) {
      off += 512;
      continue;
    }
    uint64_t n = 0;
    for (int i = 124; i < 136 && h[i] >= '0' && h[i] <= '7'; ++i) n = n * 8 + (h[i] - '0');
    size_t len = 0;
    while (len < 100 && h[len] != 0) ++len;
    if (len >= 5 && std::memcmp(h + len - 5, ".data", 5) == 0) total += n;
    off += 512 + (n + 511) / 512 * 512;
  }
  return total;
}

// Sums `size` bytes as 64-bit words, four accumulators so the adds are not one serial
// dependency chain; called chunk after chunk, each a multiple of 8 bytes but the last.
void add_words(const unsigned char* bytes, size_t size, uint64_t (&s)[4]) {
  const size_t words = size / 8;
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    uint64_t w[4];
    std::memcpy(w, bytes + 8 * i, sizeof w);
    for (int k = 0; k < 4; ++k) s[k] += w[k];
  }
  for (; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, bytes + 8 * i, 8);
    s[0] += w;
  }
  for (size_t b = 8 * words; b < size; ++b) s[0] += bytes[b];
}

// One timed pass over the file open as `fd` (`size` bytes): seconds, and the sum into `s`.
double timed_pass(int fd, size_t size, bool read_mode, uint64_t (&s)[4]) {
  const auto start = std::chrono::steady_clock::now();
  if (read_mode) {
    std::vector<unsigned char> buffer(size_t{256} << 10);  // a multiple of 8
    ssize_t got = 0;
    for (off_t at = 0; (got = pread(fd, buffer.data(), buffer.size(), at)) > 0; at += got)
      add_words(buffer.data(), static_cast<size_t>(got), s);
    if (got < 0) throw std::runtime_error(std::string("read: ") + std::strerror(errno));
  } else if (size > 0) {
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
    // Same access pattern as the reader (sequential); tells the kernel to read ahead.
    madvise(map, size, MADV_SEQUENTIAL);
    add_words(static_cast<const unsigned char*>(map), size, s);
    munmap(map, size);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "--map";
  if ((argc != 2 && argc != 3) || (mode != "--map" && mode != "--read")) {
    std::fprintf(stderr, "usage: %s [--map | --read] FILE\n", argv[0]);
    return 2;
  }
  const char* path = argv[argc - 1];
  const int fd = open(path, O_RDONLY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::fprintf(stderr, "%s: %s\n", path, std::strerror(errno));
    return 1;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  uint64_t s[4] = {0, 0, 0, 0};
  double seconds = 0;
  try {
    seconds = timed_pass(fd, size, mode == "--read", s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", path, e.what());
    return 1;
  }
  // After the timed pass; a walk over the tar headers only.
  uint64_t data_bytes = 0;
  if (size > 0) {
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      data_bytes = data_member_bytes(static_cast<const unsigned char*>(map), size);
      munmap(map, size);
    }
  }
  close(fd);
  const uint64_t sum = s[0] + s[1] + s[2] + s[3];
  std::printf("%.6f %.3f %llu %llu\n", seconds, seconds > 0 ? size / seconds / 1e9 : 0.0,
              static_cast<unsigned long long>(sum), static_cast<unsigned long long>(data_bytes));
  return 0;
}
