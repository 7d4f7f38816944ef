// cubekit_zcubex_codecs PLAIN.cubex [RUNS]: the zlib codecs on the rows of a report, for
// bench/zcubex.sh. Takes every stored row of the report's *.data members (plain data, sparse
// index) and, in one run, times on one thread:
//   - writing: cubekit's writer compressor (format::zlib_deflate: ISA-L level 1), libdeflate
//     level 6 (the writer before) and zlib levels 6 (CubeLib's default) and 1 (CubeW's);
//   - reading: libdeflate (cubekit's reader), ISA-L's isal_inflate and zlib's uncompress, each
//     on the rows as zlib level 6 wrote them and as cubekit's writer wrote them.
// Every inflated row is compared with the original. Times are thread CPU time (the machine is
// shared; wall time would count waiting for a core), best of RUNS (default 3). Prints lines
// "key value": GB/s count the uncompressed row bytes.
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <time.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/compression.hpp"
#include "format/mapped_file.hpp"
#include "format/tar.hpp"

namespace {

using Bytes = std::vector<std::byte>;

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double best_seconds(int runs, const std::function<void()>& work) {
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const double t0 = thread_seconds();
    work();
    best = std::min(best, thread_seconds() - t0);
  }
  return best;
}

uint32_t u32_at(const std::byte* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

// The stored rows of every *.data member with a sparse index (what `cubekit generate` writes).
std::vector<std::span<const std::byte>> rows_of(std::span<const std::byte> archive,
                                                const std::string& file) {
  const auto index = cubekit::format::TarIndex::scan(archive, file);
  std::vector<std::span<const std::byte>> rows;
  for (const auto& m : index.members()) {
    if (!m.name.ends_with(".data") || m.size <= 10) continue;
    const auto* idx = index.find(m.name.substr(0, m.name.size() - 5) + ".index");
    const std::byte* data = archive.data() + m.offset;
    if (!idx || idx->size < 22 || std::memcmp(data, "CUBEX.DATA", 10) != 0) continue;
    const std::byte* ix = archive.data() + idx->offset;
    if (static_cast<uint8_t>(ix[17]) != 1) continue;
    const uint32_t stored = u32_at(ix + 18);
    if (stored == 0) continue;
    const size_t row = (m.size - 10) / stored;  // a spare byte may follow the rows
    for (uint32_t k = 0; k < stored; ++k) rows.emplace_back(data + 10 + size_t{k} * row, row);
  }
  return rows;
}

using Compressor = std::function<size_t(std::span<const std::byte>, Bytes&)>;
using Decompressor = std::function<bool(const Bytes&, std::span<std::byte>)>;

size_t zlib_level(int level, std::span<const std::byte> in, Bytes& out) {
  uLongf size = compressBound(in.size());
  out.resize(size);
  compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(in.data()),
            in.size(), level);
  return size;
}

bool isal_inflate_row(const Bytes& in, std::span<std::byte> out) {
  inflate_state s;
  isal_inflate_init(&s);
  s.crc_flag = ISAL_ZLIB;
  s.next_in = reinterpret_cast<uint8_t*>(const_cast<std::byte*>(in.data()));
  s.avail_in = static_cast<uint32_t>(in.size());
  s.next_out = reinterpret_cast<uint8_t*>(out.data());
  s.avail_out = static_cast<uint32_t>(out.size());
  return isal_inflate_stateless(&s) == ISAL_DECOMP_OK && s.total_out == out.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cubekit_zcubex_codecs PLAIN.cubex [RUNS]\n");
    return 2;
  }
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const cubekit::format::MappedFile file(argv[1]);
  const auto rows = rows_of(file.bytes(), argv[1]);
  double bytes = 0;
  size_t widest = 0;
  for (const auto& r : rows)
    bytes += static_cast<double>(r.size()), widest = std::max(widest, r.size());
  std::printf("rows %zu\nrow_bytes %.0f\n", rows.size(), bytes);
  if (rows.empty()) return 1;

  std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> ld6(
      libdeflate_alloc_compressor(6), libdeflate_free_compressor);
  const std::vector<std::pair<std::string, Compressor>> writers = {
      {"cubekit",
       [](std::span<const std::byte> in, Bytes& out) {
         out.resize(cubekit::format::zlib_deflate_bound(in.size()));
         return cubekit::format::zlib_deflate(in, out, "bench");
       }},
      {"libdeflate6",
       [&](std::span<const std::byte> in, Bytes& out) {
         out.resize(libdeflate_zlib_compress_bound(ld6.get(), in.size()));
         return libdeflate_zlib_compress(ld6.get(), in.data(), in.size(), out.data(), out.size());
       }},
      {"zlib6", [](std::span<const std::byte> in, Bytes& out) { return zlib_level(6, in, out); }},
      {"zlib1", [](std::span<const std::byte> in, Bytes& out) { return zlib_level(1, in, out); }}};
  std::vector<std::vector<Bytes>> packed(writers.size(), std::vector<Bytes>(rows.size()));
  for (size_t w = 0; w < writers.size(); ++w) {
    Bytes out;
    double total = 0;
    const double s = best_seconds(runs, [&] {
      total = 0;
      for (size_t i = 0; i < rows.size(); ++i)
        total += static_cast<double>(writers[w].second(rows[i], out));
    });
    for (size_t i = 0; i < rows.size(); ++i) {
      const size_t n = writers[w].second(rows[i], packed[w][i]);
      packed[w][i].resize(n);
    }
    std::printf("write_%s_gbs %.3f\nratio_%s %.4f\n", writers[w].first.c_str(), bytes / s / 1e9,
                writers[w].first.c_str(), bytes / total);
  }

  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> ld(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  const std::vector<std::pair<std::string, Decompressor>> readers = {
      {"libdeflate",
       [&](const Bytes& in, std::span<std::byte> out) {
         size_t n = 0;
         return libdeflate_zlib_decompress(ld.get(), in.data(), in.size(), out.data(), out.size(),
                                           &n) == LIBDEFLATE_SUCCESS &&
                n == out.size();
       }},
      {"isal", isal_inflate_row},
      {"zlib", [](const Bytes& in, std::span<std::byte> out) {
         uLongf n = out.size();
         return uncompress(reinterpret_cast<Bytef*>(out.data()), &n,
                           reinterpret_cast<const Bytef*>(in.data()), in.size()) == Z_OK &&
                n == out.size();
       }}};
  Bytes scratch(widest);
  for (const size_t w : {size_t{2}, size_t{0}}) {  // rows as zlib-6 and as cubekit wrote them
    for (const auto& [name, inflate_row] : readers) {
      bool ok = true;
      const double s = best_seconds(runs, [&] {
        for (size_t i = 0; i < rows.size(); ++i)
          ok &= inflate_row(packed[w][i], {scratch.data(), rows[i].size()});
      });
      for (size_t i = 0; i < rows.size() && ok; ++i)
        ok = inflate_row(packed[w][i], {scratch.data(), rows[i].size()}) &&
             std::memcmp(scratch.data(), rows[i].data(), rows[i].size()) == 0;
      if (!ok) {
        std::fprintf(stderr, "%s: rows written by %s do not inflate back\n", name.c_str(),
                     writers[w].first.c_str());
        return 1;
      }
      std::printf("read_%s_of_%s_gbs %.3f\n", name.c_str(), writers[w].first.c_str(),
                  bytes / s / 1e9);
    }
  }
  return 0;
}
