// Which files a request may name: report files below the server's root, reached without
// leaving it (no "..", no absolute paths, no symbolic link pointing outside).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::server {

struct ReportFile {
  std::string path;  // relative to the root, '/'-separated
  uint64_t size = 0;
};

class Confinement {
 public:
  // `root` must be an existing folder (IoError otherwise); it is resolved once.
  explicit Confinement(const std::filesystem::path& root);
  const std::filesystem::path& root() const { return root_; }

  // The file a request's relative path names. HttpError 403 for paths that try to leave the
  // root (absolute, "..", symbolic links out of it, NUL bytes), 404 for anything that is not
  // an existing report file (.cubex, .cube, .cube.gz) below the root.
  std::filesystem::path resolve(std::string_view relative) const;
  // The folder a request's relative path names, with the same 403s; 404 for anything that is
  // not an existing folder below the root. `key` names the parameter in messages.
  std::filesystem::path resolve_folder(std::string_view relative, const std::string& key) const;
  // HttpError 403 naming `shown` when `path` (e.g. a report found in a resolved folder) leads
  // out of the root through a symbolic link.
  void require_inside(const std::filesystem::path& path, const std::string& shown) const;

  // The report files below the root (symbolic links followed only while they stay inside),
  // sorted by path; at most `limit` of them, the walk itself bounded too.
  std::vector<ReportFile> list(size_t limit = 10000) const;

  // `text` with the root's absolute path replaced by "." (library messages name files by the
  // path they were opened with; clients only know relative paths).
  std::string relative_message(std::string text) const;

 private:
  bool inside(const std::filesystem::path& canonical) const;
  // The canonical path of `relative` below the root (403 / 404 as resolve()).
  std::filesystem::path canonical_below_root(std::string_view relative,
                                             const std::string& key) const;
  std::filesystem::path root_;  // canonical
};

bool is_report_name(std::string_view name);

// Whether `canonical` is `folder` or lies below it (both canonical paths).
bool is_within(const std::filesystem::path& canonical, const std::filesystem::path& folder);

}  // namespace cubekit::server
