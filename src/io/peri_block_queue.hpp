// The blocks of a PERI-XML <data> element waiting to be read by the threads that read its values
// (peri_values.cpp): the thread that finds them queues them, the others take them in document
// order, and the bytes before the first block not yet read may leave the resident set.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit::io::peri {

// Where a <d> stands: what it and its ancestors name.
struct Point {
  Index metric = kNoIndex, cnode = kNoIndex, location = kNoIndex;
};

// An element queued for reading: its bytes and what its parent <d> names.
struct Block {
  size_t begin = 0, end = 0;
  Point context;
};

// Elements found, waiting to be read, in document order.
class BlockQueue {
 public:
  void push(const Block& block) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      blocks_.push_back(block);
      done_.push_back(false);
    }
    ready_.notify_one();
  }
  void finish() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      finished_ = true;
    }
    ready_.notify_all();
  }
  // Bytes from the first block not yet read to the end of the last one found.
  size_t backlog() {
    std::lock_guard<std::mutex> guard(mutex_);
    return first_open_ < blocks_.size() ? blocks_.back().end - blocks_[first_open_].begin : 0;
  }
  bool try_pop(Block& block, size_t& index) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (next_ == blocks_.size()) return false;
    index = next_++;
    block = blocks_[index];
    return true;
  }
  bool pop(Block& block, size_t& index) {
    std::unique_lock<std::mutex> guard(mutex_);
    ready_.wait(guard, [&] { return finished_ || next_ < blocks_.size(); });
    if (next_ == blocks_.size()) return false;
    index = next_++;
    block = blocks_[index];
    return true;
  }
  // Block `index` is read. Returns the bytes before the first block not yet read once they
  // reach 16 MiB (else an empty range): they are not needed again.
  std::pair<size_t, size_t> done(size_t index) {
    std::lock_guard<std::mutex> guard(mutex_);
    done_[index] = true;
    while (first_open_ < next_ && done_[first_open_]) ++first_open_;
    const size_t upto =
        first_open_ < blocks_.size() ? blocks_[first_open_].begin : blocks_[first_open_ - 1].end;
    if (upto < released_ + (16u << 20)) return {0, 0};
    const std::pair<size_t, size_t> range{released_, upto};
    released_ = upto;
    return range;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Block> blocks_;
  std::vector<bool> done_;
  size_t next_ = 0, first_open_ = 0, released_ = 0;
  bool finished_ = false;
};

}  // namespace cubekit::io::peri
