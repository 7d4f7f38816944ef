// A read-only memory map of a whole file, and the file open for reads by offset. Empty files
// map to an empty span.
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
  // Copies the file's bytes [offset, offset + into.size()) into `into` (pread); returns how
  // many there were (fewer only at the file's end). Streaming a large member this way through
  // one small buffer maps none of its pages: on a virtual machine each page table entry made
  // for the mapping can cost more than copying the page. Throws IoError naming the path.
  // A file opened while the process was short of descriptors keeps none: then the bytes are
  // copied from the map (its size as when opened).
  size_t read(uint64_t offset, std::span<std::byte> into) const;
  bool keeps_descriptor() const { return fd_ >= 0; }

 private:
  static bool short_of_descriptors(int fd);
  std::string path_;
  int fd_ = -1;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// Throws IoError naming `output` when it is the file `input` (the same device and inode, by
// whatever path): a report being read, and mapped, must not be written over.
void refuse_overwriting(const std::string& input, const std::string& output);

}  // namespace cubekit::format
