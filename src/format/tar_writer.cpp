#include "format/tar_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "cubekit/error.hpp"
#include "format/chunked_file_writer.hpp"
#include "format/tar.hpp"

namespace cubekit::format {
namespace {

constexpr uint64_t kMaxOctalSize = 077777777777ull;  // 11 octal digits: 8 GiB - 1

void octal(char* field, size_t width, uint64_t value) {
  // width includes the terminating NUL
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
}

// The members' time stamp when the caller gives none: SOURCE_DATE_EPOCH if set (the
// reproducible-builds convention, so that the same inputs give the same bytes), else now. A
// value that is not a whole number of seconds is an error, as the convention asks, rather than
// a silently different archive.
uint64_t default_mtime(const std::string& path) {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  if (text == nullptr || *text == '\0') return static_cast<uint64_t>(std::time(nullptr));
  uint64_t seconds = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, seconds);
  if (error != std::errc() || stop != end || seconds > kMaxOctalSize)
    throw Error(path + ": SOURCE_DATE_EPOCH '" + text +
                "' is not a number of seconds since 1970 (0 to 8589934591)");
  return seconds;
}

}  // namespace

TarWriter::TarWriter(std::string path, int64_t mtime)
    : file_(std::move(path)),
      mtime_(mtime >= 0 ? static_cast<uint64_t>(mtime) : default_mtime(file_.path())),
      out_(std::make_unique<ChunkedFileWriter>(file_.descriptor())) {}

TarWriter::~TarWriter() = default;

void TarWriter::fail(const std::string& what) const {
  throw IoError(file_.path() + ": " + what + ": " + std::strerror(errno));
}

void TarWriter::write_raw(const void* bytes, size_t n) {
  if (n == 0) return;
  if (const int error = out_->append(bytes, n); error != 0) {
    errno = error;
    fail("write failed (disk full?)");
  }
  written_ += n;
}

void TarWriter::flush() {
  if (const int error = out_->flush(); error != 0) {
    errno = error;
    fail("write failed (disk full?)");
  }
}

void TarWriter::write_at(uint64_t offset, const void* bytes, size_t n) {
  flush();  // the bytes there may still be on their way
  if (::pwrite(file_.descriptor(), bytes, n, static_cast<off_t>(offset)) != static_cast<ssize_t>(n))
    fail("write failed (disk full?)");
}

void TarWriter::header(const std::string& name, uint64_t size, char type, char* b) const {
  std::memset(b, 0, kTarBlock);
  std::memcpy(b, name.data(), std::min<size_t>(name.size(), 100));
  octal(b + 100, 8, 0644);
  octal(b + 108, 8, 0);
  octal(b + 116, 8, 0);
  octal(b + 124, 12, std::min(size, kMaxOctalSize));
  octal(b + 136, 12, mtime_);
  b[156] = type;
  std::memcpy(b + 257, "ustar", 6);  // with its NUL
  std::memcpy(b + 263, "00", 2);
  std::memcpy(b + 265, "cubekit", 7);
  std::memcpy(b + 297, "users", 5);
  std::memset(b + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) sum += static_cast<unsigned char>(b[i]);
  std::snprintf(b + 148, 8, "%06o", sum);  // six digits, NUL, then the blank left in place
  b[155] = ' ';
}

void TarWriter::add(const std::string& name, std::string_view bytes) {
  begin_member(name, bytes.size());
  append(bytes.data(), bytes.size());
  end_member();
}

void TarWriter::begin_member(const std::string& name, uint64_t max_size) {
  if (name.size() > 100) throw FormatError(path() + ": member name longer than 100 bytes: " + name);
  member_ = name;
  pax_ = max_size > kMaxOctalSize;
  if (pax_) {
    // A fixed-width "size" record, patched at the end: "29 size=<20 digits>\n".
    char block[kTarBlock];
    header("PaxHeader/" + name.substr(0, 90), 29, 'x', block);
    pax_at_ = written_ + kTarBlock;
    write_raw(block, kTarBlock);
    char records[kTarBlock] = {};
    std::snprintf(records, sizeof records, "29 size=%020llu\n", 0ull);
    write_raw(records, kTarBlock);
  }
  header_at_ = written_;
  char block[kTarBlock];
  header(name, 0, '0', block);
  write_raw(block, kTarBlock);
  content_start_ = written_;
}

void TarWriter::append(const void* bytes, size_t n) {
  write_raw(bytes, n);
}

void TarWriter::patch(uint64_t offset, const void* bytes, size_t n) {
  write_at(content_start_ + offset, bytes, n);
}

void TarWriter::erase(uint64_t offset, uint64_t n) {
  if (n == 0) return;
  flush();
  const int fd = file_.descriptor();
  std::vector<char> chunk(1 << 20);
  for (uint64_t from = content_start_ + offset + n; from < written_;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk.size(), written_ - from));
    if (::pread(fd, chunk.data(), want, static_cast<off_t>(from)) != static_cast<ssize_t>(want))
      fail("read back failed");
    if (::pwrite(fd, chunk.data(), want, static_cast<off_t>(from - n)) !=
        static_cast<ssize_t>(want))
      fail("write failed (disk full?)");
    from += want;
  }
  written_ -= n;
  // The bytes beyond the new end are stale: cut them off, later writes continue from there.
  if (::ftruncate(fd, static_cast<off_t>(written_)) != 0) fail("truncate failed");
  out_->move_to(written_);
}

void TarWriter::end_member() {
  const uint64_t size = member_size();
  char block[kTarBlock];
  header(member_, size, '0', block);
  write_at(header_at_, block, kTarBlock);
  if (pax_) {
    char record[30];
    std::snprintf(record, sizeof record, "29 size=%020llu\n",
                  static_cast<unsigned long long>(size));
    write_at(pax_at_, record, 29);
  }
  static const char zeros[kTarBlock] = {};
  write_raw(zeros, (kTarBlock - size % kTarBlock) % kTarBlock);
}

void TarWriter::finish() {
  static const char zeros[2 * kTarBlock] = {};
  write_raw(zeros, sizeof zeros);
  flush();
  out_.reset();
  file_.commit();
}

}  // namespace cubekit::format
