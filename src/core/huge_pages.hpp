// Transparent huge pages, which cut page faults about 20-fold (docs/benchmarks.md): asked for
// large buffers of row values (a decoded metric, an accumulator), which are not zeroed by the
// program when they grow (every user writes the values before reading them), and for the heaps
// of the tools' worker threads (cubekit/process_heap.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace cubekit::core {

// Whether a sanitizer's allocator replaces glibc's in this build (ASan, TSan, MSan): GCC says so
// with __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__, clang only through __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
inline constexpr bool kSanitizerAllocator = true;
#else
inline constexpr bool kSanitizerAllocator = false;
#endif
#else
inline constexpr bool kSanitizerAllocator = false;
#endif

// Asks for transparent huge pages over the whole 2 MiB pages inside [p, p + bytes) when the
// range is large (the machine's setting is often "madvise"). Only a hint; failure changes nothing.
void advise_huge_pages(const void* p, size_t bytes);

// Held by each worker thread of parallel_for while it runs: after use_huge_page_heap
// (cubekit/process_heap.hpp), the blocks the thread allocates lie in huge pages too; else
// nothing.
class WorkerHeap {
 public:
  WorkerHeap();
  ~WorkerHeap();
  WorkerHeap(const WorkerHeap&) = delete;
  WorkerHeap& operator=(const WorkerHeap&) = delete;

 private:
  void* head_ = nullptr;  // the part of the thread's heap that cannot be huge pages, unused
};

// Uninitialised 64-bit words that keep their memory from one use to the next: pages once
// faulted in are not faulted and zeroed by the kernel again (a fresh allocation per metric and
// input cost cube_mean 13% of its time).
class ReusedWords {
 public:
  // At least n words, contents unspecified (those of an earlier use, if any).
  uint64_t* get(size_t n) {
    if (n > capacity_) {
      words_.reset();  // the old memory goes back first: never two buffers at once
      words_.reset(new uint64_t[n]);
      capacity_ = n;
      advise_huge_pages(words_.get(), n * sizeof(uint64_t));
    }
    return words_.get();
  }

 private:
  std::unique_ptr<uint64_t[]> words_;
  size_t capacity_ = 0;
};

}  // namespace cubekit::core
