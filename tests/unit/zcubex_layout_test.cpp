// The byte layout of compressed (ZCUBEX) data members that CubeLib 4.6's cube_dump was seen to
// read with the same values as cubekit (cube-format.md §6.3, docs/compatibility.md): pinned
// here so that CI guards it without the original. CubeLib finds a row through the metric's
// index (cnode → k-th stored row), then looks k · row size up in a map keyed by
// start_uncompressed in which a later entry replaces an earlier one of the same key.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cubekit/generator.hpp"
#include "format/tar.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

uint64_t u64_at(const std::string& bytes, size_t offset) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + offset, 8);  // the writer's (host) order, as its probe says
  return v;
}

uint32_t u32_at(const std::string& bytes, size_t offset) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}

// Members of a .cubex archive by name.
std::map<std::string, std::string> members_of(const fs::path& file) {
  const std::string archive = test::read_file(file);
  const auto* bytes = reinterpret_cast<const std::byte*>(archive.data());
  const auto index = format::TarIndex::scan({bytes, archive.size()}, file.string());
  std::map<std::string, std::string> out;
  for (const format::TarMember& m : index.members()) out[m.name] = archive.substr(m.offset, m.size);
  return out;
}

// The number of rows a sparse index member lists (format byte 1), or -1 for another format.
long sparse_rows(const std::string& index) {
  // "CUBEX.INDEX" (11), probe u32 (4), version u16 (2), format u8 (1), then N u32.
  if (index.size() < 22 || index.compare(0, 11, "CUBEX.INDEX") != 0 || index[17] != 1) return -1;
  return u32_at(index, 18);
}

std::string inflate_block(const std::string& block, size_t expected_size) {
  std::string out(expected_size, '\0');
  uLongf size = expected_size;
  const int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                            reinterpret_cast<const Bytef*>(block.data()), block.size());
  if (rc != Z_OK || size != expected_size) return "(zlib error " + std::to_string(rc) + ")";
  return out;
}

class ZcubexLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cubekit-zcubex-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path generate(const std::string& name, bool compress) {
    GeneratorOptions o;
    o.seed = 11;
    o.call_paths = 300;
    o.processes_per_node = 2;
    o.threads_per_process = 2;
    o.compress = compress;
    const fs::path path = dir_ / name;
    generate_report(path.string(), o);
    return path;
  }
  fs::path dir_;
};

TEST_F(ZcubexLayout, SparseMembersAreFoundRowByRowAsCubeLibLooksThemUp) {
  const auto plain = members_of(generate("plain.cubex", false));
  const auto packed = members_of(generate("packed.cubex", true));
  int sparse_metrics = 0;
  for (const auto& [name, data] : packed) {
    if (name.size() < 5 || name.substr(name.size() - 5) != ".data") continue;
    const std::string stem = name.substr(0, name.size() - 5);
    SCOPED_TRACE(name);
    // The same sparse index as the uncompressed twin: cnode → k-th stored row.
    const std::string& index = packed.at(stem + ".index");
    ASSERT_EQ(index, plain.at(stem + ".index"));
    const long stored = sparse_rows(index);
    ASSERT_GE(stored, 0) << "a compressed member needs a sparse index";
    const std::string& plain_data = plain.at(name);
    ASSERT_EQ(plain_data.compare(0, 10, "CUBEX.DATA"), 0);
    if (stored == 0) continue;
    const size_t row = (plain_data.size() - 10) / stored;  // a spare byte may follow the rows

    ASSERT_EQ(data.compare(0, 11, "ZCUBEX.DATA"), 0);
    const uint64_t entries = u64_at(data, 11);
    ASSERT_GE(entries, static_cast<uint64_t>(stored));
    if (entries > static_cast<uint64_t>(stored)) ++sparse_metrics;
    const size_t blocks = 19 + entries * 24;
    // CubeLib's map: start_uncompressed → (start_compressed, size), the last entry winning.
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> by_start;
    for (uint64_t e = 0; e < entries; ++e) {
      const size_t at = 19 + e * 24;
      EXPECT_EQ(u64_at(data, at), e * row) << "entry " << e << " must keep its own key";
      EXPECT_EQ(u64_at(data, at + 16) == 0, e >= static_cast<uint64_t>(stored)) << "entry " << e;
      by_start[u64_at(data, at)] = {u64_at(data, at + 8), u64_at(data, at + 16)};
    }
    for (long k = 0; k < stored; ++k) {
      const auto found = by_start.find(k * row);
      ASSERT_NE(found, by_start.end()) << "row " << k;
      const auto [start, size] = found->second;
      ASSERT_LE(blocks + start + size, data.size()) << "row " << k;
      EXPECT_EQ(inflate_block(data.substr(blocks + start, size), row),
                plain_data.substr(10 + k * row, row))
          << "row " << k;
    }
  }
  EXPECT_GT(sparse_metrics, 0) << "the generated report should have metrics with absent rows";
}

}  // namespace
}  // namespace cubekit
