// A read-only memory map of a whole file. Empty files map to an empty span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cubekit::format {

class MappedFile {
 public:
  // Throws IoError naming the path (missing, a directory, unreadable).
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // Tells the kernel these bytes are not needed again soon: their pages leave this process's
  // resident set (they stay in the page cache), so streaming a large report does not make the
  // whole file resident. A hint only.
  void release(uint64_t offset, uint64_t size) const;

 private:
  std::string path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// Throws IoError naming `output` when it is the file `input` (the same device and inode, by
// whatever path): a report being read, and mapped, must not be written over.
void refuse_overwriting(const std::string& input, const std::string& output);

}  // namespace cubekit::format
