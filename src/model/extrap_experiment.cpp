// The measurements of a series as Extra-P's JSON input, so that Extra-P (`extrap --json FILE`,
// its GUI's "Open JSON input") models exactly the values cubekit modelled.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "cubekit/error.hpp"
#include "cubekit/model_output.hpp"
#include "model/json_text.hpp"

namespace cubekit {
namespace {

// Extra-P names call paths by their regions joined with "->" and splits them there again.
std::string extrap_callpath(const std::vector<std::string>& callpath) {
  std::string out;
  for (const std::string& name : callpath) out += (out.empty() ? "" : "->") + name;
  return out;
}

std::string extrap_metric(const CallPathModel& m) {
  return m.flavour == Flavour::kInclusive ? m.metric + " (inclusive)" : m.metric;
}

std::string measurements_json(const CallPathModel& m) {
  std::string out = "[";
  for (size_t i = 0; i < m.points.size(); ++i) {
    const MeasuredPoint& p = m.points[i];
    if (p.samples.empty())
      throw Error(extrap_callpath(m.callpath) + ", " + m.metric +
                  ": the point has no samples (model the series with keep_samples)");
    out += std::string(i ? ", " : "") + "{\"point\": [" + json_number(p.parameter_value) +
           "], \"values\": [";
    for (size_t s = 0; s < p.samples.size(); ++s)
      out += (s ? ", " : "") + json_number(p.samples[s]);
    out += "]}";
  }
  return out + "]";
}

// Writes `text` pieces to a temporary file beside `path`, renamed to it once complete.
class AtomicTextFile {
 public:
  explicit AtomicTextFile(const std::string& path)
      : path_(path),
        temporary_(path + ".tmp-" + std::to_string(::getpid())),
        out_(temporary_, std::ios::binary) {
    if (!out_) throw IoError(path + ": cannot write");
  }
  ~AtomicTextFile() {
    if (!committed_) {
      out_.close();
      std::error_code ec;
      std::filesystem::remove(temporary_, ec);
    }
  }
  void put(const std::string& text) { out_ << text; }
  void commit() {
    out_.flush();
    out_.close();
    if (!out_) throw IoError(path_ + ": writing failed (disk full?)");
    std::error_code ec;
    std::filesystem::rename(temporary_, path_, ec);
    if (ec) throw IoError(path_ + ": cannot rename the finished file: " + ec.message());
    committed_ = true;
  }

 private:
  std::string path_, temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace

void write_extrap_experiment(const std::string& path, const std::vector<CallPathModel>& models,
                             const std::string& parameter) {
  if (models.empty()) throw Error(path + ": no model to write the measurements of");
  // Call paths in the order of the models (parents first), metrics in theirs.
  std::vector<std::string> order;
  std::map<std::string, std::string> metrics_of;  // call path → its "metric": [...] members
  for (const CallPathModel& m : models) {
    const std::string callpath = extrap_callpath(m.callpath);
    auto [it, added] = metrics_of.emplace(callpath, std::string());
    if (added) order.push_back(callpath);
    it->second += std::string(it->second.empty() ? "" : ",\n    ") + json_string(extrap_metric(m)) +
                  ": " + measurements_json(m);
  }
  AtomicTextFile out(path);
  out.put("{\"parameters\": [" + json_string(parameter) + "],\n \"measurements\": {");
  for (size_t i = 0; i < order.size(); ++i)
    out.put(std::string(i ? ",\n  " : "\n  ") + json_string(order[i]) + ": {\n    " +
            metrics_of[order[i]] + "}");
  out.put("}}\n");
  out.commit();
}

}  // namespace cubekit
