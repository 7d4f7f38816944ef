// Appends to a file in chunks of 4 MiB that one background thread writes (pwrite), so that the
// caller computes its next rows while the kernel copies the last ones into the page cache: the
// writing tools (cube_mean, cube_merge, ...) get their second core for the copy. At most one
// chunk waits to be written; without a thread (none could be started) chunks are written in
// the caller's thread. Errors are errno values, kept and returned by the next call.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace cubekit::format {

class ChunkedFileWriter {
 public:
  explicit ChunkedFileWriter(int fd);
  // Waits for the chunk being written; what was appended since the last flush() is lost.
  ~ChunkedFileWriter();
  ChunkedFileWriter(const ChunkedFileWriter&) = delete;
  ChunkedFileWriter& operator=(const ChunkedFileWriter&) = delete;

  // Appends n bytes at position(). 0, or the errno of a failed write.
  int append(const void* bytes, size_t n);
  // Everything appended is in the file. 0, or the errno of a failed write.
  int flush();
  // Where the next append goes; moving it requires a flush() first.
  uint64_t position() const { return at_ + current_.size(); }
  void move_to(uint64_t offset) { at_ = offset; }

 private:
  static constexpr size_t kChunk = size_t{4} << 20;
  int hand_over();  // current_ to the writer; waits while the writer is busy
  int wait_idle();
  void run();
  static int write_all(int fd, const std::byte* bytes, size_t n, uint64_t at);

  int fd_;
  uint64_t at_ = 0;  // file offset of current_'s first byte
  std::vector<std::byte> current_, pending_;
  uint64_t pending_at_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool busy_ = false, stop_ = false;
  int error_ = 0;
  std::thread thread_;
};

}  // namespace cubekit::format
