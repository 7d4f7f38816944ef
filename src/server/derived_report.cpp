// /api/v1/derived-report: the open report with the viewer's derived metrics added, as
// cube_derive adds one (docs/viewer.md), for the browser to download.
#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "server/api.hpp"
#include "server/http_error.hpp"

namespace cubekit::server {
namespace {

constexpr size_t kMaxDerivedMetrics = 32;

// A fresh folder of the system's temp dir, removed with its content when the answer is read.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cubekit-derive-XXXXXX");
    if (!mkdtemp(pattern.data())) throw HttpError(500, "cannot create a temporary folder");
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The `name` and `expression` parameters, paired in their order.
std::vector<NewMetric> requested_metrics(const Params& p) {
  std::vector<NewMetric> out;
  const auto [names, names_end] = p.equal_range("name");
  const auto [texts, texts_end] = p.equal_range("expression");
  auto text = texts;
  for (auto name = names; name != names_end; ++name, ++text) {
    if (text == texts_end) throw HttpError(400, "metric '" + name->second + "' has no expression");
    out.push_back({name->second, text->second, "", MetricKind::kPostDerived});
  }
  if (text != texts_end) throw HttpError(400, "an expression has no 'name'");
  if (out.empty()) throw HttpError(400, "parameter 'name' is missing");
  if (out.size() > kMaxDerivedMetrics)
    throw HttpError(413, "at most " + std::to_string(kMaxDerivedMetrics) + " derived metrics");
  return out;
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw HttpError(500, "cannot read back the derived report");
  return bytes;
}

// `message` without a leading "<path>: ".
std::string without_path(const std::string& message, const std::string& path) {
  const std::string prefix = path + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// A file name for the browser: the report's stem, other characters than these as '_'.
std::string download_name(const std::string& report) {
  std::string stem = std::filesystem::path(report).stem().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return stem + "-derived.cubex";
}

}  // namespace

// Each metric is derived from the report the previous one gave (an expression may name an
// earlier one); the last report is read whole and the folder removed before answering.
Api::Download Api::derived_report(const Params& p) {
  const std::vector<NewMetric> metrics = requested_metrics(p);
  const auto open_report = open(p);
  const ScratchFolder scratch;
  Report current = open_report->report();
  std::filesystem::path written;
  for (size_t i = 0; i < metrics.size(); ++i) {
    written = scratch.path() / ("step" + std::to_string(i) + ".cubex");
    try {
      derive_metric(current, metrics[i], written.string());
    } catch (const Error& e) {  // named after the served report, not the scratch file
      throw HttpError(422, open_report->name() + ": metric '" + metrics[i].name +
                               "': " + without_path(e.what(), current.path()));
    }
    current = Report::open(written.string());
  }
  return {download_name(open_report->name()), file_bytes(written)};
}

}  // namespace cubekit::server
