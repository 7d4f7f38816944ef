#include "core/modules.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "cubekit/error.hpp"

#ifndef CUBEKIT_MODULE_DIR
#define CUBEKIT_MODULE_DIR "../lib/cubekit"
#endif

namespace cubekit::core {

void* module_entry(const char* file, const char* entry) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw Error(std::string("cannot find the running executable to load ") + file + ": " +
                ec.message());
  std::string why;
  for (const std::filesystem::path& dir :
       {exe.parent_path(), exe.parent_path() / CUBEKIT_MODULE_DIR}) {
    const std::string path = (dir / file).lexically_normal().string();
    // RTLD_GLOBAL: MPI libraries open plugins of their own that look their symbols up globally
    // (mpi4py loads libmpi the same way). The modules export nothing else: their entry only.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (module == nullptr) {
      why += std::string(why.empty() ? "" : "; ") + dlerror();
      continue;
    }
    if (void* address = dlsym(module, entry)) return address;
    throw Error(path + ": has no " + entry + " (a module of another cubekit build?)");
  }
  throw Error(std::string("cannot load the module ") + file + ": " + why);
}

}  // namespace cubekit::core
