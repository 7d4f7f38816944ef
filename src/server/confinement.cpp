#include "server/confinement.hpp"

#include <algorithm>
#include <system_error>

#include "cubekit/error.hpp"
#include "server/http_error.hpp"

namespace fs = std::filesystem;

namespace cubekit::server {

bool is_report_name(std::string_view name) {
  auto ends_with = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  return ends_with(".cubex") || ends_with(".cube") || ends_with(".cube.gz");
}

Confinement::Confinement(const fs::path& root) {
  std::error_code ec;
  root_ = fs::canonical(root, ec);
  if (ec || !fs::is_directory(root_))
    throw IoError(root.string() + ": cannot serve it: not an existing folder");
}

bool is_within(const fs::path& canonical, const fs::path& folder) {
  auto r = folder.begin(), c = canonical.begin();
  for (; r != folder.end(); ++r, ++c)
    if (c == canonical.end() || *r != *c) return false;
  return true;
}

bool Confinement::inside(const fs::path& canonical) const {
  return is_within(canonical, root_);
}

fs::path Confinement::canonical_below_root(std::string_view relative,
                                           const std::string& key) const {
  if (relative.empty()) throw HttpError(400, "parameter '" + key + "' is missing");
  if (relative.find('\0') != std::string_view::npos || relative.front() == '/' ||
      relative.find('\\') != std::string_view::npos)
    throw HttpError(403, key + " path must be relative to the served folder");
  const fs::path asked(relative);
  for (const fs::path& part : asked)
    if (part == ".." || part == ".")
      throw HttpError(403, key + " path must not contain '.' or '..' components");
  std::error_code ec;
  const fs::path real = fs::canonical(root_ / asked, ec);
  if (ec) throw HttpError(404, std::string(relative) + ": no such " + key);
  if (!inside(real)) throw HttpError(403, std::string(relative) + ": outside the served folder");
  return real;
}

fs::path Confinement::resolve(std::string_view relative) const {
  const fs::path real = canonical_below_root(relative, "report");
  std::error_code ec;
  if (!fs::is_regular_file(real, ec) || !is_report_name(real.filename().string()))
    throw HttpError(404, std::string(relative) + ": not a report file (.cubex, .cube, .cube.gz)");
  return real;
}

fs::path Confinement::resolve_folder(std::string_view relative, const std::string& key) const {
  const fs::path real = canonical_below_root(relative, key);
  std::error_code ec;
  if (!fs::is_directory(real, ec)) throw HttpError(404, std::string(relative) + ": not a folder");
  return real;
}

void Confinement::require_inside(const fs::path& path, const std::string& shown) const {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec || !inside(real)) throw HttpError(403, shown + ": outside the served folder");
}

std::vector<ReportFile> Confinement::list(size_t limit) const {
  std::vector<ReportFile> out;
  std::error_code ec;
  constexpr int kMaxDepth = 16;
  size_t visited = 0;
  fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator() && out.size() < limit &&
         ++visited < 100 * limit;
       it.increment(ec)) {
    if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
    const fs::directory_entry& e = *it;
    if (!is_report_name(e.path().filename().string())) continue;
    std::error_code fe;
    const fs::path real = fs::canonical(e.path(), fe);
    if (fe || !inside(real) || !fs::is_regular_file(real, fe)) continue;
    out.push_back({e.path().lexically_relative(root_).generic_string(), fs::file_size(real, fe)});
  }
  std::sort(out.begin(), out.end(),
            [](const ReportFile& a, const ReportFile& b) { return a.path < b.path; });
  return out;
}

std::string Confinement::relative_message(std::string text) const {
  const std::string prefix = root_.string() + "/";
  for (size_t at; (at = text.find(prefix)) != std::string::npos;)
    text.replace(at, prefix.size(), "");
  return text;
}

}  // namespace cubekit::server
