// zlib / gzip decompression (libdeflate for whole buffers of known size, zlib for gzip
// streams of unknown size).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace cubekit::format {

bool is_gzip(std::span<const std::byte> bytes);
// Inflates a gzip stream (RFC 1952). Throws FormatError naming `where`.
std::string gunzip(std::span<const std::byte> bytes, const std::string& where);
// Inflates one zlib stream (RFC 1950) into exactly out.size() bytes. Throws FormatError.
void zlib_inflate_exact(std::span<const std::byte> in, std::span<std::byte> out,
                        const std::string& where);

}  // namespace cubekit::format
