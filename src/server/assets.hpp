// The viewer's static files (web/*), compiled into the binary by cmake/embed_assets.cmake.
#pragma once

#include <string_view>

namespace cubekit::server {

struct Asset {
  std::string_view path;  // as requested: "/index.html", "/viewer.js", ...
  std::string_view content_type;
  std::string_view body;
};

// nullptr when no file of the viewer has this path.
const Asset* find_asset(std::string_view path);

}  // namespace cubekit::server
