// The heap of a program built on cubekit, such as its tools.
#pragma once

namespace cubekit {
// Sets up glibc's malloc so that the process's heap lies in transparent huge pages, for the
// tools' processes (not a library's host, nor a long-running server: the heap's memory is kept
// for reuse, not given back). On a virtual machine a fresh 4 KiB page can take ~11 us to fault
// in (this project's build machine); opening an anchor of 50,000 call paths touches ~4,500 of
// them, half of what `cube_info` takes. Most machines give huge pages only to the memory a
// program advises (the `madvise` mode), so:
//   - blocks up to 32 MiB come from the heap, not from a mapping of their own each time;
//   - the heap grows by 1 GiB at once, advised as huge pages: only the pages used become memory;
//   - each worker thread of parallel_for grows its own arena by 30 MiB at once and advises that
//     part (one arena for all threads made threads wait on its lock: `cubekit model` 40 % slower).
// Call it once, first thing, before any thread starts. Does nothing, and returns false, under
// ASan or TSan (their allocators are not glibc's), with CUBEKIT_HUGE_PAGES=0 in the
// environment, or when the heap cannot grow in place (a data size limit).
bool use_huge_page_heap();

}  // namespace cubekit
