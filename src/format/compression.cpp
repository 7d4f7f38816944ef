#include "format/compression.hpp"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "cubekit/error.hpp"

namespace cubekit::format {

bool is_gzip(std::span<const std::byte> bytes) {
  return bytes.size() >= 2 && bytes[0] == std::byte{0x1f} && bytes[1] == std::byte{0x8b};
}

std::string gunzip(std::span<const std::byte> bytes, const std::string& where, size_t max_piece) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw FormatError(where + ": cannot start gzip decoder");
  std::string out;
  max_piece = std::clamp<size_t>(max_piece, 1, std::numeric_limits<uInt>::max());
  size_t handed = 0;  // bytes given to zlib so far
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && handed < bytes.size()) {
      const size_t piece = std::min(max_piece, bytes.size() - handed);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(bytes.data() + handed));
      z.avail_in = static_cast<uInt>(piece);
      handed += piece;
    }
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string msg = z.msg ? z.msg : "corrupt data";
      inflateEnd(&z);
      throw FormatError(where + ": gzip data at byte " + std::to_string(z.total_in) + ": " + msg);
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && handed == bytes.size() && z.avail_out != 0) {
      inflateEnd(&z);
      throw FormatError(where + ": gzip stream truncated after " + std::to_string(z.total_in) +
                        " bytes");
    }
  }
  inflateEnd(&z);
  return out;
}

void zlib_inflate_exact(std::span<const std::byte> in, std::span<std::byte> out,
                        const std::string& where) {
  thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  size_t actual = 0;
  const libdeflate_result r =
      libdeflate_zlib_decompress(d.get(), in.data(), in.size(), out.data(), out.size(), &actual);
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
    throw FormatError(where + ": compressed row inflates to more than the expected " +
                      std::to_string(out.size()) + " bytes");
  if (r != LIBDEFLATE_SUCCESS)
    throw FormatError(where + ": corrupt zlib stream (" + std::to_string(in.size()) + " bytes)");
  if (actual != out.size())
    throw FormatError(where + ": compressed row inflates to " + std::to_string(actual) +
                      " bytes, expected " + std::to_string(out.size()));
}

size_t zlib_deflate_bound(size_t size) {
  // Stored blocks cost 5 bytes per 65,535; zlib adds 2 bytes of header and 4 of Adler-32.
  return size + size / 1024 + 64;
}

namespace {

size_t libdeflate_zlib(std::span<const std::byte> in, std::span<std::byte> out,
                       const std::string& where) {
  thread_local std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> c(
      libdeflate_alloc_compressor(6), libdeflate_free_compressor);
  if (!c) throw Error(where + ": cannot start the libdeflate compressor");
  const size_t n = libdeflate_zlib_compress(c.get(), in.data(), in.size(), out.data(), out.size());
  if (n == 0)
    throw Error(where + ": libdeflate could not deflate " + std::to_string(in.size()) +
                " bytes into " + std::to_string(out.size()));
  return n;
}

// ISA-L 2.30's level-1 deflate (igzip_icf_body_h1_gr_bt.asm, `.write_first_byte`, unchanged
// upstream) hashes the input's third position from a register that still holds the address of
// the isal_zstream, bits 16-47, and files position 2 under that hash. The stream stays valid, but
// which matches it finds, and so its bytes, depend on where the isal_zstream lies; ASLR moves
// that from run to run. So each thread's isal_zstream lies at an address whose bits 16-47 give
// one and the same hash (CRC-32C, as ISA-L computes it, 0 in the low 13 bits: 0 under every hash
// mask up to level 1's 8K slots): the same row then gives the same bytes in every run.
uint32_t crc32c_of_word(uint32_t word) {
  uint32_t crc = 0;  // ISA-L's compute_hash: the crc32 instruction on 0, no final inversion
  for (int byte = 0; byte < 4; ++byte) {
    crc ^= (word >> (8 * byte)) & 0xff;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
  }
  return crc;
}

struct StreamMapping {
  void operator()(isal_zstream* s) const { munmap(s, sizeof(isal_zstream)); }
};
using MappedStream = std::unique_ptr<isal_zstream, StreamMapping>;

// The calling thread's isal_zstream at such an address, or null if none could be mapped there.
// About 128 candidates between 64 and 128 GiB, far from where Linux places mappings and the heap
// (ThreadSanitizer's application memory too), then as many from 80 TiB (where AddressSanitizer
// allows mappings). One that another thread (or anything else) holds is skipped.
MappedStream map_stream_at_fixed_hash() {
  constexpr uint64_t kBlocks = uint64_t{1} << 20;  // of 64 KiB: 64 GiB
  for (const uint64_t first : {kBlocks, uint64_t{0x5000'0000}})
    for (uint64_t block = first; block < first + kBlocks; ++block) {
      if ((crc32c_of_word(static_cast<uint32_t>(block)) & 0x1fff) != 0) continue;
      void* want = reinterpret_cast<void*>(block << 16);
      void* got = mmap(want, sizeof(isal_zstream), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (got == want) return MappedStream(static_cast<isal_zstream*>(got));
      if (got != MAP_FAILED) munmap(got, sizeof(isal_zstream));  // a kernel that took a hint
    }
  return MappedStream(nullptr);
}

size_t isal_zlib(std::span<const std::byte> in, std::span<std::byte> out, const std::string& where,
                 isal_zstream& s) {
  // Level 1's buffer is optional: with it, rows of 14 KB deflate as fast as without, rows of 64 KB
  // 10% faster (measured on value-like doubles).
  thread_local std::vector<uint8_t> level_buffer(ISAL_DEF_LVL1_DEFAULT);
  isal_deflate_stateless_init(&s);
  s.level = 1;
  s.level_buf = level_buffer.data();
  s.level_buf_size = static_cast<uint32_t>(level_buffer.size());
  s.gzip_flag = IGZIP_ZLIB;
  s.end_of_stream = 1;
  s.flush = NO_FLUSH;
  s.next_in = reinterpret_cast<uint8_t*>(const_cast<std::byte*>(in.data()));
  s.avail_in = static_cast<uint32_t>(in.size());
  s.next_out = reinterpret_cast<uint8_t*>(out.data());
  s.avail_out = static_cast<uint32_t>(std::min<size_t>(out.size(), UINT32_MAX));
  const int rc = isal_deflate_stateless(&s);
  if (rc != COMP_OK)
    throw Error(where + ": ISA-L could not deflate " + std::to_string(in.size()) + " bytes (code " +
                std::to_string(rc) + ")");
  return s.total_out;
}

}  // namespace

size_t zlib_deflate(std::span<const std::byte> in, std::span<std::byte> out,
                    const std::string& where, size_t isal_limit) {
  if (out.size() < zlib_deflate_bound(in.size()))
    throw Error(where + ": " + std::to_string(out.size()) + " bytes of room for deflating " +
                std::to_string(in.size()) + ", need " +
                std::to_string(zlib_deflate_bound(in.size())));
  thread_local const MappedStream stream = map_stream_at_fixed_hash();
  // Without such an address (all taken) libdeflate writes the rows: slower and other bytes, but
  // the same ones in every run that also finds none.
  if (in.size() > std::min(isal_limit, kIsalDeflateLimit) || !stream)
    return libdeflate_zlib(in, out, where);
  return isal_zlib(in, out, where, *stream);
}

}  // namespace cubekit::format
