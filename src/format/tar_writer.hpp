// Writes a ustar archive into a temporary file beside its final name, renamed into place only
// when complete (cube-format.md §9.5: standard padding, correct checksums, pax sizes ≥ 8 GiB).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cubekit/atomic_file.hpp"

namespace cubekit::format {

class ChunkedFileWriter;

class TarWriter {
 public:
  // Creates the temporary file beside `path` (cubekit/atomic_file.hpp). Throws IoError.
  // `mtime`: the members' time stamp (seconds since 1970); -1 takes SOURCE_DATE_EPOCH if set
  // (Error if it is not a number of seconds), else now.
  explicit TarWriter(std::string path, int64_t mtime = -1);
  // Removes the temporary file unless finish() succeeded.
  ~TarWriter();
  TarWriter(const TarWriter&) = delete;
  TarWriter& operator=(const TarWriter&) = delete;

  // A member whose bytes are all known.
  void add(const std::string& name, std::string_view bytes);

  // A member streamed in pieces; `max_size` bounds its final size (a pax header is reserved when
  // it could reach 8 GiB). The size is patched in at end_member().
  void begin_member(const std::string& name, uint64_t max_size);
  void append(const void* bytes, size_t n);
  // Offset of the next byte relative to the start of the current member's content.
  uint64_t member_size() const { return written_ - content_start_; }
  // Overwrites bytes already appended (at `offset` into the member's content).
  void patch(uint64_t offset, const void* bytes, size_t n);
  // Removes `n` bytes at `offset` into the current member's content; later bytes move forward.
  void erase(uint64_t offset, uint64_t n);
  void end_member();

  // Writes the end-of-archive blocks, syncs, renames to the final name.
  void finish();
  const std::string& path() const { return file_.path(); }

 private:
  void write_raw(const void* bytes, size_t n);
  void flush();
  void write_at(uint64_t offset, const void* bytes, size_t n);
  void header(const std::string& name, uint64_t size, char type, char* block) const;
  [[noreturn]] void fail(const std::string& what) const;

  AtomicFile file_;
  uint64_t mtime_ = 0;
  // Appends, written by a background thread; declared after file_, so that the thread stops
  // before the file closes.
  std::unique_ptr<ChunkedFileWriter> out_;
  uint64_t written_ = 0;
  uint64_t header_at_ = 0, content_start_ = 0, pax_at_ = 0;
  bool pax_ = false;
  std::string member_;
};

}  // namespace cubekit::format
