// The byte layout of compressed (ZCUBEX) data members: the one CubeLib 4.6's own writer
// produces and its cube_dump reads (cube-format.md §6.3, docs/compatibility.md,
// scripts/reference_check.sh), pinned here so that CI guards it without the original. CubeLib
// finds a row through the metric's sparse index (cnode → k-th stored row), then looks k · row
// size up in a map keyed by start_uncompressed; pyCubexR ignores start_compressed and inflates
// the blocks in sub-index order from the end of the sub-index, so they must be back to back.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <latch>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "format/compression.hpp"
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

TEST_F(ZcubexLayout, SubIndexListsTheStoredRowsAsCubeLibWritesThem) {
  const auto plain = members_of(generate("plain.cubex", false));
  const auto packed = members_of(generate("packed.cubex", true));
  long most_rows = 0;  // the call paths: metrics storing fewer rows have absent rows
  for (const auto& [name, member] : plain)
    if (name.ends_with(".index")) most_rows = std::max(most_rows, sparse_rows(member));
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
    // As CubeLib's writer (WOZRowsSupplier) leaves it: one entry per stored row, entry k with
    // start_uncompressed = k · row size, the blocks back to back right after the sub-index.
    ASSERT_EQ(u64_at(data, 11), static_cast<uint64_t>(stored));
    if (stored < most_rows) ++sparse_metrics;
    const size_t blocks = 19 + stored * 24;
    uint64_t next_block = 0;
    for (long k = 0; k < stored; ++k) {
      const size_t at = 19 + k * 24;
      EXPECT_EQ(u64_at(data, at), k * row) << "entry " << k;
      const uint64_t start = u64_at(data, at + 8), size = u64_at(data, at + 16);
      EXPECT_EQ(start, next_block) << "row " << k << " must follow the previous block";
      next_block = start + size;
      ASSERT_LE(blocks + start + size, data.size()) << "row " << k;
      EXPECT_EQ(inflate_block(data.substr(blocks + start, size), row),
                plain_data.substr(10 + k * row, row))
          << "row " << k;
    }
    EXPECT_LE(data.size() - (blocks + next_block), 1u) << "at most the spare byte follows";
  }
  EXPECT_GT(sparse_metrics, 0) << "the generated report should have metrics with absent rows";
}

// The writer's compressor (ISA-L, libdeflate beyond ISA-L's 32-bit counts) must produce what
// CubeLib's zlib inflates: checked with zlib itself on empty, tiny, constant, incompressible and
// value-like inputs, on both paths.
std::string deflated(const std::string& in, size_t isal_limit) {
  std::string out(format::zlib_deflate_bound(in.size()), '\0');
  const size_t n = format::zlib_deflate({reinterpret_cast<const std::byte*>(in.data()), in.size()},
                                        {reinterpret_cast<std::byte*>(out.data()), out.size()},
                                        "test", isal_limit);
  out.resize(n);
  return out;
}

std::vector<std::string> deflate_inputs() {
  std::mt19937_64 random(7);
  std::string noise(300000, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  std::string values;  // doubles of a smooth series with noisy low bits, like measured times
  for (int i = 0; i < 40000; ++i) {
    const double v = 1.5 + i * 1e-3 + static_cast<double>(random() % 1000) * 1e-9;
    values.append(reinterpret_cast<const char*>(&v), 8);
  }
  return {"", "x", std::string(1 << 20, '\7'), noise, values};
}

TEST(ZlibDeflate, ZlibInflatesWhatEitherPathWrites) {
  for (const size_t isal_limit : {format::kIsalDeflateLimit, size_t{0}}) {
    for (const std::string& in : deflate_inputs()) {
      SCOPED_TRACE("input of " + std::to_string(in.size()) + " bytes, limit " +
                   std::to_string(isal_limit));
      const std::string z = deflated(in, isal_limit);
      ASSERT_GE(z.size(), 6u) << "zlib header and Adler-32 at least";
      EXPECT_EQ(static_cast<uint8_t>(z[0]) & 0x0f, 8) << "method deflate";
      if (in.empty()) {
        // zlib's uncompress cannot be handed an empty output buffer; inflate it by hand.
        z_stream zs{};
        ASSERT_EQ(inflateInit(&zs), Z_OK);
        char sink[1];
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
        zs.avail_in = static_cast<uInt>(z.size());
        zs.next_out = reinterpret_cast<Bytef*>(sink);
        zs.avail_out = 1;
        EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
        EXPECT_EQ(zs.total_out, 0u);
        inflateEnd(&zs);
        continue;
      }
      EXPECT_EQ(inflate_block(z, in.size()), in);
    }
  }
}

// Rows like a report's counts: 8-byte words of one value, one byte in seven something else (ISA-L's
// level 1 once chose its matches by where its stream object lay: such rows then deflated to
// other bytes on another thread or in another run).
std::vector<std::string> count_rows() {
  std::mt19937_64 random(12);
  std::vector<std::string> rows;
  std::vector<size_t> sizes;  // short rows most: ISA-L hashes them into fewer slots
  for (size_t size = 16; size < 100000; size = size * 5 / 4 + 3) sizes.push_back(size);
  for (size_t size = 32; size < 288; size += 2) sizes.push_back(size);
  for (const size_t size : sizes) {
    std::string row(size, '\0');
    for (size_t i = 0; i < size; ++i)
      row[i] = static_cast<char>(random() % 7 == 0 ? random() : i % 8 == 0 ? 210 : 0);
    rows.push_back(row);
  }
  return rows;
}

// The same input gives the same bytes on every thread: each thread deflates with its own ISA-L
// stream object, at its own address (all threads live at once, so no two share a stack).
TEST(ZlibDeflate, SameBytesOnEveryThread) {
  const std::vector<std::string> rows = count_rows();
  std::vector<std::vector<std::string>> packed(16);
  std::latch all_started(static_cast<std::ptrdiff_t>(packed.size() - 1));
  const auto deflate_all = [&](size_t t) {
    for (const std::string& row : rows)
      packed[t].push_back(deflated(row, format::kIsalDeflateLimit));
  };
  deflate_all(0);
  std::vector<std::thread> threads;
  for (size_t t = 1; t < packed.size(); ++t)
    threads.emplace_back([&, t] {
      all_started.arrive_and_wait();
      deflate_all(t);
    });
  for (std::thread& t : threads) t.join();
  for (size_t t = 1; t < packed.size(); ++t)
    for (size_t r = 0; r < rows.size(); ++r) {
      ASSERT_EQ(packed[t][r], packed[0][r])
          << "row of " << rows[r].size() << " bytes, thread " << t;
      EXPECT_EQ(inflate_block(packed[t][r], rows[r].size()), rows[r]);
    }
}

TEST(ZlibDeflate, TooLittleRoomIsAnErrorNamingTheMember) {
  std::string in(1000, 'a'), out(100, '\0');
  try {
    format::zlib_deflate({reinterpret_cast<const std::byte*>(in.data()), in.size()},
                         {reinterpret_cast<std::byte*>(out.data()), out.size()}, "F.cubex: 3.data");
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("F.cubex: 3.data"), std::string::npos) << e.what();
  }
}

// Same options, same bytes (README, "Writing reports"): the generator's compressed report written
// by two processes (each with its own address layout) and by a thread of this one.
TEST_F(ZcubexLayout, SameReportBytesInEveryRunAndThread) {
  const std::vector<std::string> options = {"--seed", "12",          "--all-types", "--call-paths",
                                            "400",    "--processes", "2",           "--threads",
                                            "3",      "--compress"};
  std::vector<std::string> files;
  for (const std::string name : {"run1.cubex", "run2.cubex"}) {
    std::vector<std::string> args = {"generate", "-o", (dir_ / name).string()};
    args.insert(args.end(), options.begin(), options.end());
    const test::RunResult r = test::run_tool("cubekit", args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    files.push_back(test::read_file(dir_ / name));
  }
  GeneratorOptions o;
  o.seed = 12;
  o.all_types = true;
  o.call_paths = 400;
  o.processes_per_node = 2;
  o.threads_per_process = 3;
  o.compress = true;
  std::thread([&] { generate_report((dir_ / "thread.cubex").string(), o); }).join();
  files.push_back(test::read_file(dir_ / "thread.cubex"));
  EXPECT_TRUE(files[0] == files[1]) << "two runs of cubekit generate differ";
  EXPECT_TRUE(files[2] == files[0]) << "generate_report on a thread differs from the tool";
}

// The goal of issue 30: the writer's ratio within 10% of zlib's level 6 on the rows of a report
// (CubeLib's writer uses zlib's default level, 6). Both measured here on the same rows.
TEST_F(ZcubexLayout, RatioWithinTenPercentOfZlibLevel6) {
  const auto plain = members_of(generate("ratio.cubex", false));
  uint64_t raw = 0, ours = 0, zlib6 = 0;
  for (const auto& [name, data] : plain) {
    if (!name.ends_with(".data") || data.size() <= 10) continue;
    const long stored = sparse_rows(plain.at(name.substr(0, name.size() - 5) + ".index"));
    if (stored <= 0) continue;
    const size_t row = (data.size() - 10) / stored;
    for (long k = 0; k < stored; ++k) {
      const std::string in = data.substr(10 + k * row, row);
      uLongf size = compressBound(row);
      std::string z(size, '\0');
      ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(z.data()), &size,
                          reinterpret_cast<const Bytef*>(in.data()), row, 6),
                Z_OK);
      raw += row;
      zlib6 += size;
      ours += deflated(in, format::kIsalDeflateLimit).size();
    }
  }
  ASSERT_GT(raw, 0u);
  const double ours_ratio = double(raw) / ours, zlib_ratio = double(raw) / zlib6;
  EXPECT_GE(ours_ratio, 0.9 * zlib_ratio) << "ours " << ours_ratio << ", zlib-6 " << zlib_ratio;
}

}  // namespace
}  // namespace cubekit
