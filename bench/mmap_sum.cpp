// cubekit_mmap_sum FILE: the plain-pass baseline for bench/e2e.sh. Maps the file and sums it as
// 64-bit words, i.e. touches every byte once with no parsing: the floor for any reader that
// maps the report. Prints "<seconds> <GB/s> <sum> <data bytes>": the sum keeps the loop from
// being elided; <data bytes> is the total size of the archive members named *.data (metric
// data), found by a walk over the tar headers after the timed pass, so that e2e.sh can report
// MB/s of metric data without tar(1) (which stops at CubeW's lone zero blocks, §2.6).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const int fd = open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::fprintf(stderr, "%s: %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  double seconds = 0;
  uint64_t sum = 0;
  uint64_t data_bytes = 0;
  if (size > 0) {
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      std::fprintf(stderr, "%s: mmap: %s\n", argv[1], std::strerror(errno));
      return 1;
    }
    // Same access pattern as the reader (sequential); tells the kernel to read ahead.
    madvise(map, size, MADV_SEQUENTIAL);
    const auto* bytes = static_cast<const unsigned char*>(map);
    const size_t words = size / 8;
    // Four accumulators so the adds are not one serial dependency chain.
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
      uint64_t w[4];
      std::memcpy(w, bytes + 8 * i, sizeof w);
      s0 += w[0];
      s1 += w[1];
      s2 += w[2];
      s3 += w[3];
    }
    for (; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, bytes + 8 * i, 8);
      s0 += w;
    }
    for (size_t b = 8 * words; b < size; ++b) s0 += bytes[b];
    sum = s0 + s1 + s2 + s3;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    data_bytes = data_member_bytes(bytes, size);
    munmap(map, size);
  }
  close(fd);
  std::printf("%.6f %.3f %llu %llu\n", seconds, seconds > 0 ? size / seconds / 1e9 : 0.0,
              static_cast<unsigned long long>(sum), static_cast<unsigned long long>(data_bytes));
  return 0;
}
