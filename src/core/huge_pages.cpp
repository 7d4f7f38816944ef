#include "core/huge_pages.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cubekit/process_heap.hpp"

namespace cubekit {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
constexpr int kHeapGrowth = 1 << 30;         // the heap's first growth, advised as huge pages
constexpr int kLargestHeapBlock = 32 << 20;  // glibc's cap for M_MMAP_THRESHOLD on 64 bits
constexpr size_t kWorkerHeapGrowth = size_t{30} << 20;  // below kLargestHeapBlock

uintptr_t huge_page_above(uintptr_t address) {
  return (address + kHugePage - 1) & ~(kHugePage - 1);
}

// The heap's head, up to the second huge page boundary past the point where it grew, in one
// block that is never used (its pages are not touched). Volatile: a block allocated and never
// read could be left out by the compiler.
void* volatile unused_heap_head = nullptr;

std::atomic<bool> worker_heaps_in_huge_pages{false};

}  // namespace

void core::advise_huge_pages(const void* p, size_t bytes) {
  if (bytes < 4 * kHugePage) return;
  const auto begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = huge_page_above(begin);
  const uintptr_t end = begin + bytes;
  if (end > aligned + kHugePage)
    ::madvise(reinterpret_cast<void*>(aligned), (end - aligned) & ~(kHugePage - 1), MADV_HUGEPAGE);
}

// A worker thread allocates from an arena of its own, a heap that glibc makes writable as it
// grows, in steps too small for a huge page. So the arena grows at once, by a block taken and
// given back (the trim threshold keeps it), and that part is advised as huge pages. Up to the
// first huge page boundary past the block's start (the arena's start, or where its free part
// began) its pages are 4 KiB ones: a block that is not used takes that part while the thread
// runs. An arena used before is advised again, which changes nothing.
core::WorkerHeap::WorkerHeap() {
  if (!worker_heaps_in_huge_pages.load(std::memory_order_relaxed)) return;
  void* block = std::malloc(kWorkerHeapGrowth);
  if (block == nullptr) return;
  const auto start = reinterpret_cast<uintptr_t>(block);
  std::free(block);
  const uintptr_t first = huge_page_above(start + 1);
  const uintptr_t end = (start + kWorkerHeapGrowth) & ~(kHugePage - 1);  // a header lies at end
  if (end <= first) return;
  head_ = std::malloc(first - start - 8);
  ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

core::WorkerHeap::~WorkerHeap() {
  std::free(head_);
}

bool use_huge_page_heap() {
  const char* setting = std::getenv("CUBEKIT_HUGE_PAGES");
  if (core::kSanitizerAllocator || (setting && std::strcmp(setting, "0") == 0)) return false;
  ::mallopt(M_MMAP_THRESHOLD, kLargestHeapBlock);
  ::mallopt(M_TRIM_THRESHOLD, kHeapGrowth + kLargestHeapBlock);  // the growth is kept
  ::mallopt(M_TOP_PAD, kHeapGrowth);
  void* probe = std::malloc(kHugePage);  // more than the heap has left: it grows now
  const auto start = reinterpret_cast<uintptr_t>(probe);
  std::free(probe);
  ::mallopt(M_TOP_PAD, 128 << 10);  // glibc's default, for any later growth
  const auto end = reinterpret_cast<uintptr_t>(::sbrk(0));
  const uintptr_t first = huge_page_above(start) + kHugePage;
  if (probe == nullptr || end < first + kHugePage || end - start > uintptr_t{2} * kHeapGrowth)
    return false;  // the heap did not grow in place: malloc fell back to a mapping
  // Up to `first` the heap cannot be huge pages: the first boundary past `start` may be the
  // heap's start, and malloc wrote a header past the probe before the advice.
  unused_heap_head = std::malloc(first - start - 8);
  worker_heaps_in_huge_pages = true;
  return ::madvise(reinterpret_cast<void*>(first), (end - first) & ~(kHugePage - 1),
                   MADV_HUGEPAGE) == 0;
}

}  // namespace cubekit
