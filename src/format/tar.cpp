#include "format/tar.hpp"

#include <algorithm>
#include <cstring>

#include "cubekit/error.hpp"

namespace cubekit::format {
namespace {

std::string_view field(const std::byte* block, size_t offset, size_t length) {
  const char* p = reinterpret_cast<const char*>(block) + offset;
  size_t n = 0;
  while (n < length && p[n] != '\0') ++n;
  return {p, n};
}

bool is_zero_block(const std::byte* block) {
  return std::all_of(block, block + kTarBlock, [](std::byte b) { return b == std::byte{0}; });
}

// Octal text (NUL/space padded) or GNU base-256 (high bit of the first byte set).
bool parse_size(const std::byte* block, uint64_t& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(block) + 124;
  if (p[0] & 0x80) {
    uint64_t v = p[0] & 0x7f;
    for (int i = 1; i < 12; ++i) {
      if (v >> 56) return false;
      v = (v << 8) | p[i];
    }
    out = v;
    return true;
  }
  size_t i = 0;
  while (i < 12 && p[i] == ' ') ++i;
  uint64_t v = 0;
  size_t digits = 0;
  for (; i < 12 && p[i] >= '0' && p[i] <= '7'; ++i, ++digits) v = v * 8 + (p[i] - '0');
  for (; i < 12; ++i)
    if (p[i] != ' ' && p[i] != '\0') return false;
  if (digits == 0) return false;
  out = v;
  return true;
}

bool checksum_ok(const std::byte* block) {
  const auto* p = reinterpret_cast<const unsigned char*>(block);
  unsigned sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) sum += (i >= 148 && i < 156) ? ' ' : p[i];
  uint64_t stored = 0;
  size_t i = 148;
  while (i < 156 && p[i] == ' ') ++i;
  size_t digits = 0;
  for (; i < 156 && p[i] >= '0' && p[i] <= '7'; ++i, ++digits) stored = stored * 8 + (p[i] - '0');
  return digits > 0 && stored == sum;
}

bool has_ustar_magic(const std::byte* block) {
  return std::memcmp(reinterpret_cast<const char*>(block) + 257, "ustar", 5) == 0;
}

uint64_t padded(uint64_t size) {
  return (size + kTarBlock - 1) / kTarBlock * kTarBlock;
}

// The value of `key` in pax records "<len> key=value\n".
bool pax_value(std::string_view records, std::string_view key, std::string& out) {
  while (!records.empty()) {
    const size_t space = records.find(' ');
    if (space == std::string_view::npos) return false;
    size_t len = 0;
    for (size_t i = 0; i < space; ++i) {
      if (records[i] < '0' || records[i] > '9') return false;
      len = len * 10 + (records[i] - '0');
    }
    if (len <= space || len > records.size()) return false;
    std::string_view record = records.substr(space + 1, len - space - 1);
    if (!record.empty() && record.back() == '\n') record.remove_suffix(1);
    const size_t eq = record.find('=');
    if (eq != std::string_view::npos && record.substr(0, eq) == key) {
      out = std::string(record.substr(eq + 1));
      return true;
    }
    records.remove_prefix(len);
  }
  return false;
}

}  // namespace

bool looks_like_tar(std::span<const std::byte> bytes) {
  if (bytes.size() < kTarBlock) return false;
  return has_ustar_magic(bytes.data()) || checksum_ok(bytes.data());
}

TarIndex TarIndex::scan(std::span<const std::byte> archive, const std::string& file) {
  TarIndex index;
  const uint64_t end = archive.size();
  if (end == 0) throw FormatError(file + ": empty file, expected a .cubex tar archive");
  if (end < kTarBlock)
    throw FormatError(file + ": " + std::to_string(end) +
                      " bytes, too short for a tar header (512 bytes); not a .cubex archive");
  uint64_t offset = 0;
  std::string long_name;  // from a GNU 'L' or pax 'path' record, for the next header
  uint64_t pax_size = 0;
  bool have_pax_size = false;
  bool seen_header = false;
  while (offset + kTarBlock <= end) {
    const std::byte* block = archive.data() + offset;
    if (is_zero_block(block)) {
      offset += kTarBlock;
      continue;
    }
    uint64_t size = 0;
    const bool plausible =
        (has_ustar_magic(block) || checksum_ok(block)) && parse_size(block, size);
    if (!plausible) {
      if (!seen_header)
        throw FormatError(
            file + ": offset " + std::to_string(offset) +
            ": not a tar header (no ustar magic, bad checksum); not a .cubex archive");
      break;  // trailing garbage after the archive: treat as its end, as tar does
    }
    seen_header = true;
    const char type = static_cast<char>(block[156]);
    const uint64_t content = offset + kTarBlock;
    if (have_pax_size) size = pax_size;
    if (size > end - content)
      throw FormatError(file + ": member '" + std::string(field(block, 0, 100)) + "' at offset " +
                        std::to_string(offset) + " declares " + std::to_string(size) +
                        " bytes but only " + std::to_string(end - content) +
                        " remain: truncated archive");
    const std::string_view data(reinterpret_cast<const char*>(archive.data() + content), size);
    if (type == 'x' || type == 'g') {
      std::string value;
      if (type == 'x') {
        if (pax_value(data, "size", value)) {
          pax_size = std::strtoull(value.c_str(), nullptr, 10);
          have_pax_size = true;
        }
        if (pax_value(data, "path", value)) long_name = value;
      }
    } else if (type == 'L') {
      long_name = std::string(data.substr(0, data.find('\0')));
    } else {
      if (type == '0' || type == '\0' || type == '7') {
        std::string name;
        if (!long_name.empty()) {
          name = long_name;
        } else {
          name = std::string(field(block, 0, 100));
          const std::string_view prefix = field(block, 345, 155);
          if (has_ustar_magic(block) && !prefix.empty() &&
              std::memcmp(reinterpret_cast<const char*>(block) + 257, "ustar\0", 6) == 0)
            name = std::string(prefix) + "/" + name;
        }
        auto [it, inserted] = index.by_name_.try_emplace(name, index.members_.size());
        if (inserted)
          index.members_.push_back({name, content, size});
        else
          index.members_[it->second] = {name, content, size};
      }
      long_name.clear();
      have_pax_size = false;
    }
    offset = content + padded(size);
  }
  if (!seen_header) throw FormatError(file + ": only zero blocks; not a .cubex archive");
  return index;
}

const TarMember* TarIndex::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &members_[it->second];
}

}  // namespace cubekit::format
