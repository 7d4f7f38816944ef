// Parts of cubekit that live in shared modules of their own (e.g. cubekit-mpi.so), loaded only
// by the runs that need them, so that every other run starts without their libraries.
#pragma once

namespace cubekit::core {

// The address of the function `entry` in the module `file`, loaded (once) from beside the
// running executable: its own folder (a build tree), then CUBEKIT_MODULE_DIR relative to it
// (an installed tree: ../lib/cubekit). Throws Error naming the places tried and why each failed.
void* module_entry(const char* file, const char* entry);

}  // namespace cubekit::core
