// zlib / gzip decompression (libdeflate for whole buffers of known size, zlib for gzip
// streams of unknown size) and zlib compression of whole buffers (ISA-L).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace cubekit::format {

bool is_gzip(std::span<const std::byte> bytes);
// Inflates a gzip stream (RFC 1952). Throws FormatError naming `where`. zlib counts input in
// 32 bits, so the input is handed over in pieces of at most `max_piece` bytes (a parameter only
// so that a test can exercise the piecing on a small stream).
std::string gunzip(std::span<const std::byte> bytes, const std::string& where,
                   size_t max_piece = std::numeric_limits<unsigned>::max());
// Inflates one zlib stream (RFC 1950) into exactly out.size() bytes. Throws FormatError.
void zlib_inflate_exact(std::span<const std::byte> in, std::span<std::byte> out,
                        const std::string& where);

// ISA-L counts bytes in 32 bits; larger buffers are deflated by libdeflate.
constexpr size_t kIsalDeflateLimit = std::numeric_limits<uint32_t>::max() / 2;
// Room zlib_deflate needs for `size` input bytes (at worst the bytes in stored blocks).
size_t zlib_deflate_bound(size_t size);
// Deflates `in` into one zlib stream (RFC 1950) in `out`, which holds at least
// zlib_deflate_bound(in.size()) bytes, and returns the stream's length. ISA-L's level 1: on
// rows of measured values it compresses 3x faster than libdeflate's level 6 and 6x faster than
// zlib's at 99.9% of zlib-6's ratio (docs/benchmarks.md, bench/zcubex.sh). Inputs beyond
// `isal_limit` bytes go to libdeflate's level 6 (a parameter only so that a test can exercise that
// path). The same input gives the same bytes on every thread and in every run. Throws Error naming
// `where` if the compressor fails.
size_t zlib_deflate(std::span<const std::byte> in, std::span<std::byte> out,
                    const std::string& where, size_t isal_limit = kIsalDeflateLimit);

}  // namespace cubekit::format
