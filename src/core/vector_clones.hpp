// CUBEKIT_WITH_AVX2: a row loop compiled for AVX2 as well as for plain x86-64, the loader picking
// one per machine (an ifunc; the binary still runs on any x86-64). The build is -O2 for any
// x86-64, whose SSE2 vectors hold 2 doubles; AVX2 holds 4 and adds 64-bit integer lanes. Lane by
// lane the same IEEE operations: AVX2 brings no fused multiply-add (that is the FMA target), so
// the results keep their bits. Not under ThreadSanitizer: a program with an ifunc crashes at
// start under it; nor with clang, whose target_clones differs.
#pragma once

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define CUBEKIT_WITH_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define CUBEKIT_WITH_AVX2
#endif
