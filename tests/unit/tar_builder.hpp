// Test helpers that assemble .cubex archives byte by byte (cube-format.md §2, §3.10, §5, §6),
// so that tests can build both valid reports and precisely broken ones without a writer.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"

namespace cubekit::test {

// ---------------------------------------------------------------------------------------
// Tar

// One 512-byte ustar header. `size_field` is written as 11 octal digits unless empty, in which
// case `size` is used; tests pass a wrong text on purpose (pax members, truncation).
inline std::string tar_header(std::string_view name, uint64_t size, char typeflag = '0',
                              bool gnu_magic = false) {
  std::string h(512, '\0');
  std::memcpy(h.data(), name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(h.data() + 100, 8, "%07o", 0600);
  std::snprintf(h.data() + 108, 8, "%07o", 0);
  std::snprintf(h.data() + 116, 8, "%07o", 0);
  // 11 octal digits hold up to 8 GiB - 1; larger sizes need a pax record (truncated here).
  std::snprintf(h.data() + 124, 12, "%011llo",
                static_cast<unsigned long long>(size & 077777777777ULL));
  std::snprintf(h.data() + 136, 12, "%011o", 0);
  h[156] = typeflag;
  if (gnu_magic) {
    std::memcpy(h.data() + 257, "ustar  ", 8);  // "ustar" + two blanks + NUL
  } else {
    std::memcpy(h.data() + 257, "ustar", 6);  // with its NUL
    std::memcpy(h.data() + 263, "00", 2);
  }
  std::memcpy(h.data() + 265, "nouser", 6);
  std::memcpy(h.data() + 297, "users", 5);
  // Standard checksum: the checksum field counts as eight blanks.
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h.data() + 148, 8, "%06o", sum);  // six digits, NUL, then the blank stays
  h[155] = ' ';
  return h;
}

inline std::string zero_pad(uint64_t size) {
  return std::string((512 - size % 512) % 512, '\0');
}

// Builds an archive member by member. The default is standard ustar; the other add_* calls
// produce the variants cube-format.md §2.3 lists.
class TarBuilder {
 public:
  // A regular member with standard padding.
  TarBuilder& add(std::string_view name, std::string_view bytes) {
    out_ += tar_header(name, bytes.size());
    out_.append(bytes);
    out_ += zero_pad(bytes.size());
    return *this;
  }
  // CubeW/CubeLib padding: always 512 - size % 512 bytes, a whole zero block when the size is a
  // multiple of 512 (§2.6).
  TarBuilder& add_cubew(std::string_view name, std::string_view bytes) {
    out_ += tar_header(name, bytes.size());
    out_.append(bytes);
    out_ += std::string(512 - bytes.size() % 512, '\0');
    return *this;
  }
  // A pax 'x' header carrying "size=", followed by an ordinary header whose size field says
  // `wrong_size` (it must be ignored, §2.3).
  TarBuilder& add_pax_size(std::string_view name, std::string_view bytes, uint64_t wrong_size) {
    const std::string body = "size=" + std::to_string(bytes.size()) + "\n";
    // The record length counts itself: find the fixed point.
    size_t len = body.size() + 2;
    while (std::to_string(len).size() + 1 + body.size() != len) ++len;
    const std::string record = std::to_string(len) + " " + body;
    out_ += tar_header("PaxHeader/" + std::string(name), record.size(), 'x');
    out_ += record + zero_pad(record.size());
    out_ += tar_header(name, wrong_size);
    out_.append(bytes);
    out_ += zero_pad(bytes.size());
    return *this;
  }
  // A GNU long-name member: a '././@LongLink' 'L' header whose content is the name, followed
  // by the ordinary header with the name cut to 100 bytes.
  TarBuilder& add_long_name(std::string_view name, std::string_view bytes) {
    const std::string content = std::string(name) + '\0';
    out_ += tar_header("././@LongLink", content.size(), 'L', true);
    out_ += content + zero_pad(content.size());
    out_ += tar_header(name.substr(0, 100), bytes.size(), '0', true);
    out_.append(bytes);
    out_ += zero_pad(bytes.size());
    return *this;
  }
  // Raw bytes (a hand-made header, garbage, an extra zero block).
  TarBuilder& raw(std::string_view bytes) {
    out_.append(bytes);
    return *this;
  }
  // The archive with its two end-of-archive zero blocks.
  std::string finish() const { return out_ + std::string(1024, '\0'); }
  // Without the end blocks (for truncation tests).
  const std::string& unfinished() const { return out_; }

 private:
  std::string out_;
};

// ---------------------------------------------------------------------------------------
// Numbers in a chosen byte order

template <class T>
void append_value(std::string& out, T v, bool big_endian) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  const bool host_big = std::endian::native == std::endian::big;
  if (big_endian != host_big)
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  out.append(reinterpret_cast<const char*>(b), sizeof(T));
}

template <class T>
std::string encode_values(const std::vector<T>& values, bool big_endian = false) {
  std::string out;
  for (const T& v : values) append_value(out, v, big_endian);
  return out;
}

// ---------------------------------------------------------------------------------------
// Index and data members (§5, §6)

// A sparse index listing `positions` (format 1).
inline std::string sparse_index(const std::vector<uint32_t>& positions, bool big_endian = false) {
  std::string out = "CUBEX.INDEX";
  append_value<uint32_t>(out, 1, big_endian);
  append_value<uint16_t>(out, 0, big_endian);
  out.push_back('\1');
  append_value<uint32_t>(out, static_cast<uint32_t>(positions.size()), big_endian);
  for (uint32_t p : positions) append_value(out, p, big_endian);
  return out;
}

// A dense index (format 3): one row per call path.
inline std::string dense_index(bool big_endian = false) {
  std::string out = "CUBEX.INDEX";
  append_value<uint32_t>(out, 1, big_endian);
  append_value<uint16_t>(out, 0, big_endian);
  out.push_back('\3');
  return out;
}

// An uncompressed data member: the marker, then the rows as given (already encoded).
inline std::string plain_data(std::string_view rows) {
  return "CUBEX.DATA" + std::string(rows);
}

inline std::string zlib_compress(std::string_view bytes) {
  uLongf size = compressBound(bytes.size());
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                reinterpret_cast<const Bytef*>(bytes.data()), bytes.size(), 6) != Z_OK)
    throw std::runtime_error("compress2 failed");
  out.resize(size);
  return out;
}

// A compressed data member (§6.3): every row of `row_bytes` bytes is its own zlib stream.
inline std::string zcubex_data(std::string_view rows, size_t row_bytes, bool big_endian = false) {
  std::string sub_index, blocks;
  const size_t n = row_bytes == 0 ? 0 : rows.size() / row_bytes;
  for (size_t k = 0; k < n; ++k) {
    const std::string z = zlib_compress(rows.substr(k * row_bytes, row_bytes));
    append_value<uint64_t>(sub_index, k * row_bytes, big_endian);
    append_value<uint64_t>(sub_index, blocks.size(), big_endian);
    append_value<uint64_t>(sub_index, z.size(), big_endian);
    blocks += z;
  }
  std::string out = "ZCUBEX.DATA";
  append_value<uint64_t>(out, n, big_endian);
  return out + sub_index + blocks;
}

// A gzip stream (RFC 1952), for compressed anchors (§2.8).
inline std::string gzip_compress(std::string_view bytes) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::string out(deflateBound(&z, bytes.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

// ---------------------------------------------------------------------------------------
// anchor.xml (§3.10)

struct MetricSpec {
  uint32_t id;
  std::string uniq_name;
  std::string dtype = "DOUBLE";
  std::string type = "EXCLUSIVE";
};

// A small report: by default metrics time (id 0, DOUBLE) and visits (id 1, UINT64), regions
// main/foo/bar, the call tree main(0) → foo(1), bar(2), and two locations with ids 0 and 1.
struct AnchorSpec {
  std::string version = "4.4";
  std::vector<MetricSpec> metrics = {{0, "time", "DOUBLE"}, {1, "visits", "UINT64"}};
  // <region> elements with ids 0..regions-1.
  int regions = 3;
  // The <cnode> forest as XML text (ids and calleeIds as the test wants them).
  std::string cnodes =
      "<cnode id=\"0\" calleeId=\"0\">\n"
      "<cnode id=\"1\" calleeId=\"1\">\n</cnode>\n"
      "<cnode id=\"2\" calleeId=\"2\">\n</cnode>\n"
      "</cnode>\n";
  // Location Ids in document order (one location group per location).
  std::vector<uint32_t> location_ids = {0, 1};
  // The content of <topologies>.
  std::string topologies;
};

inline std::string anchor_xml(const AnchorSpec& s = {}) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"" + s.version +
                  "\">\n<attr key=\"CubePL Version\" value=\"1.1\"/>\n<doc>\n<mirrors>\n"
                  "</mirrors>\n</doc>\n<metrics>\n";
  for (const MetricSpec& m : s.metrics)
    x += "<metric id=\"" + std::to_string(m.id) + "\" type=\"" + m.type + "\">\n<disp_name>" +
         m.uniq_name + "</disp_name>\n<uniq_name>" + m.uniq_name + "</uniq_name>\n<dtype>" +
         m.dtype + "</dtype>\n<uom>sec</uom>\n<url></url>\n<descr></descr>\n</metric>\n";
  x += "</metrics>\n<program>\n";
  static const char* const kNames[] = {"main", "foo", "bar", "baz", "qux"};
  for (int r = 0; r < s.regions; ++r) {
    const std::string name = r < 5 ? kNames[r] : "r" + std::to_string(r);
    x += "<region id=\"" + std::to_string(r) + "\" mod=\"a.c\" begin=\"1\" end=\"9\">\n<name>" +
         name + "</name>\n<mangled_name>" + name +
         "</mangled_name>\n<paradigm>user</paradigm>\n<role>function</role>\n<url></url>\n"
         "<descr></descr>\n</region>\n";
  }
  x += s.cnodes +
       "</program>\n<system>\n<systemtreenode Id=\"0\">\n<name>machine</name>\n"
       "<class>machine</class>\n";
  for (size_t i = 0; i < s.location_ids.size(); ++i) {
    const std::string rank = std::to_string(i);
    x += "<locationgroup Id=\"" + rank + "\">\n<name>rank " + rank + "</name>\n<rank>" + rank +
         "</rank>\n<type>process</type>\n<location Id=\"" + std::to_string(s.location_ids[i]) +
         "\">\n<name>thread 0</name>\n<rank>0</rank>\n<type>thread</type>\n</location>\n"
         "</locationgroup>\n";
  }
  x += "</systemtreenode>\n<topologies>\n" + s.topologies + "</topologies>\n</system>\n</cube>\n";
  return x;
}

// ---------------------------------------------------------------------------------------
// Files

}  // namespace cubekit::test
