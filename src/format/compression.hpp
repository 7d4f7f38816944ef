// zlib / gzip decompression (libdeflate for whole buffers of known size, zlib for gzip
// streams of unknown size).
#pragma once

#include <cstddef>
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

}  // namespace cubekit::format
