// The source files of a report's regions, for the viewer's source view: a region names its file
// as the measurement saw it (`mod`, often an absolute path on another machine); it is looked for
// below the served root and below `--source-root`, never anywhere else.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::server {

class SourceFiles {
 public:
  // `folders`: where sources may lie (each must be an existing folder: IoError otherwise).
  explicit SourceFiles(const std::vector<std::filesystem::path>& folders);

  struct Found {
    std::filesystem::path file;  // canonical
    std::string shown;           // as the client may see it: the path below its folder
  };

  // The file `mod` names: its tails ("/a/b/c.f" → "a/b/c.f", "b/c.f", "c.f"), longest first,
  // below each folder in order; the first regular file that stays inside its folder (symbolic
  // links out of it do not count). nullopt when none is found.
  std::optional<Found> find(std::string_view mod) const;

  // The lines of a found file (at most kMaxBytes; HttpError 413 beyond).
  static std::vector<std::string> lines(const std::filesystem::path& file);

  static constexpr size_t kMaxBytes = size_t{4} << 20;

 private:
  std::vector<std::filesystem::path> folders_;  // canonical
};

}  // namespace cubekit::server
