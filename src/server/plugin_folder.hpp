// The viewer's user plugins (`cubekit serve --plugins DIR`, docs/viewer.md): the JavaScript
// modules lying directly in one folder. Only files named like `name.js` are listed or served;
// nothing else of the folder, nothing below or outside it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::server {

class PluginFolder {
 public:
  // An empty `dir`: no plugins. Otherwise it must be an existing folder (IoError otherwise).
  explicit PluginFolder(const std::filesystem::path& dir);

  // The plugin files' names, sorted ("flops.js", ...); empty without a folder.
  std::vector<std::string> list() const;

  // The text of one plugin file. HttpError 404 for a name that is no plugin file of the
  // folder (other extensions, '/', "..", hidden files, missing), 403 for a symbolic link
  // leading out of the folder, 413 for files over kMaxBytes.
  std::string read(std::string_view name) const;

  static constexpr size_t kMaxBytes = size_t{1} << 20;

 private:
  std::filesystem::path dir_;  // canonical; empty when there is no folder
};

// A plugin file's name: letters, digits, '_', '-' and '.', not starting with '.', ending in
// ".js", at most 128 characters.
bool is_plugin_name(std::string_view name);

}  // namespace cubekit::server
