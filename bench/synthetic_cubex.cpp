#include "synthetic_cubex.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/byte_order.hpp"

namespace cubekit::bench {
namespace {

using format::ByteOrder;
constexpr size_t kBlock = 512;

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

void write_all(FILE* f, const void* data, size_t n, const std::string& path) {
  if (n != 0 && std::fwrite(data, 1, n, f) != n)
    throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

// Heap-shaped tree: the children of cnode i are fan_out*i+1 … fan_out*i+fan_out (below C), so
// parents need no storage and ids ascend in document order within each sibling list.
struct Tree {
  size_t c, f;
  size_t first_child(size_t i) const { return f * i + 1; }
  size_t end_child(size_t i) const { return std::min(c, f * i + f + 1); }
};

// Document order as the reader sees it (cube-format.md §4.1): the pre-order of the nesting.
void pre_order(const Tree& t, size_t i, std::vector<uint32_t>& out) {
  out.push_back(static_cast<uint32_t>(i));
  for (size_t k = t.first_child(i); k < t.end_child(i); ++k) pre_order(t, k, out);
}

// CubeLib's "wide search" (§4.2): a node's children get consecutive positions, then descend.
void children_first(const Tree& t, size_t i, std::vector<uint32_t>& out) {
  for (size_t k = t.first_child(i); k < t.end_child(i); ++k)
    out.push_back(static_cast<uint32_t>(k));
  for (size_t k = t.first_child(i); k < t.end_child(i); ++k) children_first(t, k, out);
}

void append_cnode(const Tree& t, size_t i, size_t regions, std::string& xml) {
  xml += "<cnode id=\"" + std::to_string(i) + "\" line=\"" + std::to_string(i % 1000) +
         "\" mod=\"synthetic.c\" calleeId=\"" + std::to_string(i % regions) + "\">\n";
  for (size_t k = t.first_child(i); k < t.end_child(i); ++k) append_cnode(t, k, regions, xml);
  xml += "</cnode>\n";
}

std::string anchor_xml(const SyntheticShape& s) {
  const Tree tree{s.cnodes, s.fan_out};
  // Fewer regions than cnodes, so the flat profile has work to do.
  const size_t regions = std::max<size_t>(1, std::min<size_t>(s.cnodes, 1000));
  std::string x;
  x.reserve(200 * s.cnodes + 150 * s.locations + 4096);
  x += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n";
  x += "<attr key=\"CubePL Version\" value=\"1.1\"/>\n";
  x += "<attr key=\"Creator\" value=\"cubekit_make_synthetic (bench only)\"/>\n";
  x += "<doc>\n<mirrors>\n</mirrors>\n</doc>\n<metrics>\n";
  for (size_t m = 0; m < s.metrics; ++m) {
    const bool visits = m % 2 == 0;
    const std::string name = (visits ? "visits" : "time") + std::to_string(m / 2);
    x += "<metric id=\"" + std::to_string(m) + "\" type=\"" + (visits ? "EXCLUSIVE" : "INCLUSIVE") +
         "\">\n<disp_name>" + name + "</disp_name>\n<uniq_name>" + name + "</uniq_name>\n<dtype>" +
         (visits ? "UINT64" : "DOUBLE") + "</dtype>\n<uom>" + (visits ? "occ" : "sec") +
         "</uom>\n<url></url>\n<descr>synthetic</descr>\n</metric>\n";
  }
  x += "</metrics>\n<program>\n";
  for (size_t r = 0; r < regions; ++r) {
    const std::string name = r == 0 ? "main" : "region_" + std::to_string(r);
    x += "<region id=\"" + std::to_string(r) + "\" mod=\"synthetic.c\" begin=\"" +
         std::to_string(10 * r + 1) + "\" end=\"" + std::to_string(10 * r + 9) + "\">\n<name>" +
         name + "</name>\n<mangled_name>" + name +
         "</mangled_name>\n<paradigm>user</paradigm>\n<role>function</role>\n<url></url>\n"
         "<descr></descr>\n</region>\n";
  }
  if (s.cnodes > 0) append_cnode(tree, 0, regions, x);
  x += "</program>\n<system>\n<systemtreenode Id=\"0\">\n<name>machine</name>\n"
       "<class>machine</class>\n<systemtreenode Id=\"1\">\n<name>node0</name>\n"
       "<class>node</class>\n";
  for (size_t l = 0; l < s.locations; ++l) {
    const std::string id = std::to_string(l);
    x += "<locationgroup Id=\"" + id + "\">\n<name>rank " + id + "</name>\n<rank>" + id +
         "</rank>\n<type>process</type>\n<location Id=\"" + id +
         "\">\n<name>master thread</name>\n<rank>0</rank>\n<type>thread</type>\n</location>\n"
         "</locationgroup>\n";
  }
  x += "</systemtreenode>\n</systemtreenode>\n<topologies>\n</topologies>\n</system>\n</cube>\n";
  // CubeLib pads a member whose size is a multiple of 512 with a full extra block
  // (cube-format.md §2.6); avoiding such sizes keeps both conventions readable.
  if (x.size() % kBlock == 0) x += '\n';
  return x;
}

// POSIX ustar header with a correct checksum (six octal digits, NUL, blank, as CubeW writes).
void write_header(FILE* f, const std::string& name, uint64_t size, const std::string& path) {
  if (name.size() >= 100) throw std::runtime_error("member name too long: " + name);
  // 11 octal digits; larger members would need a pax header (§2.3), which this writer omits.
  if (size > 077777777777ULL) throw std::runtime_error(name + ": member larger than 8 GiB");
  char h[kBlock] = {};
  std::memcpy(h, name.data(), name.size());
  std::memcpy(h + 100, "0000600", 8);
  std::memcpy(h + 108, "0000000", 8);
  std::memcpy(h + 116, "0000000", 8);
  std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(size));
  std::memcpy(h + 136, "00000000000", 12);
  h[156] = '0';
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memcpy(h + 265, "nouser", 6);
  std::memcpy(h + 297, "users", 5);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < kBlock; ++i) sum += static_cast<unsigned char>(h[i]);
  std::snprintf(h + 148, 7, "%06o", sum);
  h[154] = '\0';
  h[155] = ' ';
  write_all(f, h, kBlock, path);
}

void write_padding(FILE* f, uint64_t size, const std::string& path) {
  static const char zeros[kBlock] = {};
  write_all(f, zeros, (kBlock - size % kBlock) % kBlock, path);
}

void write_member(FILE* f, const std::string& name, const std::string& content,
                  const std::string& path) {
  write_header(f, name, content.size(), path);
  write_all(f, content.data(), content.size(), path);
  write_padding(f, content.size(), path);
}

}  // namespace

uint64_t write_synthetic_cubex(const std::string& path, const SyntheticShape& s) {
  if (s.cnodes == 0 || s.locations == 0 || s.fan_out == 0)
    throw std::runtime_error("cnodes, locations and fan-out must be positive");
  // Declared before the file so that it outlives fclose(), which flushes through it.
  std::vector<char> io_buffer(1 << 20);
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error(path + ": " + std::strerror(errno));
  FILE* f = file.get();
  std::setvbuf(f, io_buffer.data(), _IOFBF, io_buffer.size());

  write_member(f, "anchor.xml", anchor_xml(s), path);

  const Tree tree{s.cnodes, s.fan_out};
  std::vector<uint32_t> pre, wide;
  pre.reserve(s.cnodes);
  wide.reserve(s.cnodes);
  pre_order(tree, 0, pre);
  wide.push_back(0);
  children_first(tree, 0, wide);
  // Subtree sums of own time: children have larger ids than their parent.
  std::vector<double> subtree(s.cnodes);
  for (size_t c = 0; c < s.cnodes; ++c) subtree[c] = synthetic_own_time(c);
  for (size_t c = s.cnodes - 1; c > 0; --c) subtree[(c - 1) / s.fan_out] += subtree[c];

  std::string index("CUBEX.INDEX", 11);
  index.resize(18, '\0');
  format::store<uint32_t>(reinterpret_cast<std::byte*>(index.data() + 11), 1, ByteOrder::kLittle);
  index[17] = 3;  // dense: one row per cnode, in the metric's storage order

  std::vector<std::byte> row(s.locations * 8);
  uint64_t data_bytes = 0;
  for (size_t m = 0; m < s.metrics; ++m) {
    const bool visits = m % 2 == 0;
    const std::vector<uint32_t>& order = visits ? pre : wide;
    const uint64_t size = 10 + uint64_t{s.cnodes} * row.size();
    write_header(f, std::to_string(m) + ".data", size, path);
    write_all(f, "CUBEX.DATA", 10, path);
    for (uint32_t c : order) {
      for (size_t l = 0; l < s.locations; ++l) {
        if (visits)
          format::store<uint64_t>(&row[8 * l], synthetic_visits(c, l), ByteOrder::kLittle);
        else
          format::store<double>(&row[8 * l], subtree[c] * synthetic_location_weight(l),
                                ByteOrder::kLittle);
      }
      write_all(f, row.data(), row.size(), path);
    }
    write_padding(f, size, path);
    write_member(f, std::to_string(m) + ".index", index, path);
    data_bytes += size;
  }
  static const char zeros[2 * kBlock] = {};
  write_all(f, zeros, sizeof zeros, path);
  if (std::fflush(f) != 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  return data_bytes;
}

}  // namespace cubekit::bench
