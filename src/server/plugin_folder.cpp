#include "server/plugin_folder.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

#include "cubekit/error.hpp"
#include "server/http_error.hpp"

namespace fs = std::filesystem;

namespace cubekit::server {

bool is_plugin_name(std::string_view name) {
  constexpr std::string_view ext = ".js";
  if (name.size() <= ext.size() || name.size() > 128 || name.front() == '.') return false;
  if (name.substr(name.size() - ext.size()) != ext) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

PluginFolder::PluginFolder(const fs::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  dir_ = fs::canonical(dir, ec);
  if (ec || !fs::is_directory(dir_))
    throw IoError(dir.string() + ": cannot serve plugins from it: not an existing folder");
}

std::vector<std::string> PluginFolder::list() const {
  std::vector<std::string> names;
  if (dir_.empty()) return names;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code fe;
    const fs::path real = fs::canonical(it->path(), fe);
    if (is_plugin_name(name) && !fe && real.parent_path() == dir_ && fs::is_regular_file(real, fe))
      names.push_back(name);
    if (names.size() >= 1000) break;  // a folder of plugins, not of everything
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string PluginFolder::read(std::string_view name) const {
  const std::string shown(name.substr(0, 200));
  if (dir_.empty() || !is_plugin_name(name)) throw HttpError(404, "no such plugin: " + shown);
  std::error_code ec;
  const fs::path real = fs::canonical(dir_ / std::string(name), ec);
  if (ec) throw HttpError(404, "no such plugin: " + shown);
  if (real.parent_path() != dir_) throw HttpError(403, shown + ": outside the plugin folder");
  if (!fs::is_regular_file(real, ec)) throw HttpError(404, "no such plugin: " + shown);
  if (fs::file_size(real, ec) > kMaxBytes)
    throw HttpError(413, shown + ": a plugin file may have at most 1 MiB");
  std::ifstream in(real, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw HttpError(500, shown + ": cannot read it");
  return text;
}

}  // namespace cubekit::server
