// The member table of a tar archive (.cubex container, cube-format.md §2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cubekit::format {

// A tar archive is a sequence of 512-byte blocks: headers, and contents padded to whole blocks.
inline constexpr size_t kTarBlock = 512;

struct TarMember {
  std::string name;
  uint64_t offset = 0;  // of the content, from the start of the archive
  uint64_t size = 0;
};

class TarIndex {
 public:
  // Scans the headers of `archive`. `file` names the archive in error messages.
  // Reads POSIX ustar, GNU and pax headers, GNU long names, base-256 sizes, the ustar prefix,
  // CubeW's extra zero block after members whose size is a multiple of 512, and wrong
  // checksums (CubeLib 4.8's bug). Later members of the same name replace earlier ones.
  // Throws FormatError when the bytes are not a tar archive or a member runs past the end.
  static TarIndex scan(std::span<const std::byte> archive, const std::string& file);

  const TarMember* find(std::string_view name) const;
  // Members in archive order (duplicates removed, the last one kept).
  const std::vector<TarMember>& members() const { return members_; }

 private:
  std::vector<TarMember> members_;
  std::unordered_map<std::string, size_t> by_name_;
};

// True when `bytes` start like a tar header (ustar magic, or a valid checksum).
bool looks_like_tar(std::span<const std::byte> bytes);

}  // namespace cubekit::format
