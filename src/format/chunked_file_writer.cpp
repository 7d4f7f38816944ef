#include "format/chunked_file_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace cubekit::format {

ChunkedFileWriter::ChunkedFileWriter(int fd) : fd_(fd) {
  current_.reserve(kChunk);
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread (the system's limit): chunks are written where they fill up.
  }
}

ChunkedFileWriter::~ChunkedFileWriter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

int ChunkedFileWriter::write_all(int fd, const std::byte* bytes, size_t n, uint64_t at) {
  while (n > 0) {
    const ssize_t done = ::pwrite(fd, bytes, n, static_cast<off_t>(at));
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return done < 0 ? errno : EIO;
    bytes += done;
    n -= static_cast<size_t>(done);
    at += static_cast<uint64_t>(done);
  }
  return 0;
}

void ChunkedFileWriter::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return busy_ || stop_; });
    if (!busy_) return;  // stopped with nothing pending
    lock.unlock();
    const int error = write_all(fd_, pending_.data(), pending_.size(), pending_at_);
    lock.lock();
    if (error_ == 0) error_ = error;
    busy_ = false;
    changed_.notify_all();
  }
}

int ChunkedFileWriter::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !busy_; });
  return error_;
}

int ChunkedFileWriter::hand_over() {
  const size_t size = current_.size();
  if (size == 0) return thread_.joinable() ? wait_idle() : error_;
  if (!thread_.joinable()) {
    if (error_ == 0) error_ = write_all(fd_, current_.data(), size, at_);
    current_.clear();
    at_ += size;
    return error_;
  }
  if (const int error = wait_idle(); error != 0) return error;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    pending_.swap(current_);
    pending_at_ = at_;
    busy_ = true;
  }
  changed_.notify_all();
  current_.clear();  // the chunk written before, now free
  current_.reserve(kChunk);
  at_ += size;
  return 0;
}

int ChunkedFileWriter::append(const void* bytes, size_t n) {
  const auto* from = static_cast<const std::byte*>(bytes);
  while (n > 0) {
    const size_t take = std::min(n, kChunk - current_.size());
    current_.insert(current_.end(), from, from + take);
    from += take;
    n -= take;
    if (current_.size() == kChunk)
      if (const int error = hand_over(); error != 0) return error;
  }
  return 0;
}

int ChunkedFileWriter::flush() {
  if (const int error = hand_over(); error != 0) return error;
  return thread_.joinable() ? wait_idle() : error_;
}

}  // namespace cubekit::format
