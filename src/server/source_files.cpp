#include "server/source_files.hpp"

#include <fstream>
#include <system_error>

#include "cubekit/error.hpp"
#include "server/confinement.hpp"
#include "server/http_error.hpp"

namespace fs = std::filesystem;

namespace cubekit::server {

SourceFiles::SourceFiles(const std::vector<fs::path>& folders) {
  for (const fs::path& f : folders) {
    std::error_code ec;
    fs::path real = fs::canonical(f, ec);
    if (ec || !fs::is_directory(real))
      throw IoError(f.string() + ": cannot read sources from it: not an existing folder");
    folders_.push_back(std::move(real));
  }
}

std::optional<SourceFiles::Found> SourceFiles::find(std::string_view mod) const {
  if (mod.empty() || mod.find('\0') != std::string_view::npos) return std::nullopt;
  // The path's parts without root, "." and ".." (a tail never climbs out of its folder).
  std::vector<fs::path> parts;
  for (const fs::path& part : fs::path(std::string(mod)).relative_path())
    if (part != "." && part != ".." && !part.empty()) parts.push_back(part);
  constexpr size_t kMaxParts = 32;
  const size_t first = parts.size() > kMaxParts ? parts.size() - kMaxParts : 0;
  for (size_t start = first; start < parts.size(); ++start) {
    fs::path tail;
    for (size_t i = start; i < parts.size(); ++i) tail /= parts[i];
    for (const fs::path& folder : folders_) {
      std::error_code ec;
      const fs::path real = fs::canonical(folder / tail, ec);
      if (ec || !is_within(real, folder) || !fs::is_regular_file(real, ec)) continue;
      return Found{real, tail.generic_string()};
    }
  }
  return std::nullopt;
}

std::vector<std::string> SourceFiles::lines(const fs::path& file) {
  std::error_code ec;
  if (fs::file_size(file, ec) > kMaxBytes)
    throw HttpError(413, file.filename().string() + ": a source file may have at most 4 MiB");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw HttpError(500, file.filename().string() + ": cannot read it");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace cubekit::server
