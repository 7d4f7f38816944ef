// ChunkedFileWriter (src/format/chunked_file_writer.hpp): bytes appended in pieces of every size
// reach the file in order, whole once flush() returns; a failed write comes back as its errno.
#include "format/chunked_file_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace cubekit::format {
namespace {

std::vector<char> contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

TEST(ChunkedFileWriter, PiecesOfEverySizeArriveInOrder) {
  test::TempDir tmp("chunked-writer");
  const std::string path = (tmp.path() / "out").string();
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  std::vector<char> expected;
  {
    ChunkedFileWriter out(fd);
    // 1 byte, a little under and over a chunk, 9 MiB at once: every way across chunk borders.
    for (size_t size : {size_t{1}, size_t{4 << 20} - 7, size_t{20}, size_t{9 << 20} + 3}) {
      std::vector<char> piece(size);
      for (size_t i = 0; i < size; ++i) piece[i] = static_cast<char>((expected.size() + i) * 31);
      ASSERT_EQ(out.append(piece.data(), piece.size()), 0);
      expected.insert(expected.end(), piece.begin(), piece.end());
    }
    EXPECT_EQ(out.position(), expected.size());
    ASSERT_EQ(out.flush(), 0);
    EXPECT_EQ(contents(path), expected);
    // After a flush, appending may go on elsewhere: here over bytes 10..12.
    out.move_to(10);
    ASSERT_EQ(out.append("abc", 3), 0);
    ASSERT_EQ(out.flush(), 0);
  }
  expected[10] = 'a';
  expected[11] = 'b';
  expected[12] = 'c';
  EXPECT_EQ(contents(path), expected);
  ::close(fd);
}

TEST(ChunkedFileWriter, AFailedWriteComesBackAsItsErrno) {
  test::TempDir tmp("chunked-writer");
  const std::string path = (tmp.path() / "read-only").string();
  std::ofstream(path) << "x";
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  {
    ChunkedFileWriter out(fd);
    const std::vector<char> chunk(size_t{5} << 20);  // more than one chunk: a write is started
    const int appended = out.append(chunk.data(), chunk.size());
    const int flushed = out.flush();
    EXPECT_EQ(appended == 0 ? flushed : appended, EBADF);
    EXPECT_EQ(out.flush(), EBADF);  // and stays
  }
  ::close(fd);
}

}  // namespace
}  // namespace cubekit::format
