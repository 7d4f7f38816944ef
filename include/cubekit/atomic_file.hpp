// A file that appears whole or not at all (every report and output file cubekit writes): the
// bytes go into a temporary file in the target's folder, which commit() syncs and renames over
// the target. Destroyed without commit() (an error, an exception), it removes the temporary and
// leaves whatever was at the target before untouched.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace cubekit {

class AtomicFile {
 public:
  // Creates the temporary beside `path`: an unnamed file (O_TMPFILE) where the file system has
  // them, so that even a killed process leaves nothing, else "<path>.tmp.<pid>.<n>". Its mode is
  // what creating `path` would give (0666 less the umask). A `path` that exists and is not a
  // regular file (a device such as /dev/null, a pipe) is opened and written in place instead;
  // a symbolic link stays, and the file it points to is replaced. A path naming one of the
  // process's open descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is
  // written through a copy of that descriptor, at its offset, whatever it has open.
  // Throws IoError naming `path`.
  explicit AtomicFile(std::string path);
  // Removes the temporary unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;

  // The target's name, as given.
  const std::string& path() const;

  // Buffered output into the temporary. A write that fails sets the stream's badbit; commit()
  // then throws the reason.
  std::ostream& stream();
  // Appends `bytes` (through the same buffer as stream()). Throws IoError when writing fails.
  void write(std::string_view bytes);
  // Writes out what the buffer holds. Throws IoError when writing fails.
  void flush();
  // The temporary's descriptor (opened read-write), for writers that place bytes themselves
  // (pwrite, a compressor's own buffer); flush() first when stream() or write() were used.
  int descriptor() const;

  // Flushes, syncs the file, renames it to path() and syncs the folder. Throws IoError naming
  // the file and what failed; the temporary is gone in either case.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cubekit
