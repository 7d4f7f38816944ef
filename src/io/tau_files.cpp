#include "tau_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "cubekit/error.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& file, size_t line, const std::string& what) {
  throw FormatError(file + ":" + std::to_string(line) + ": " + what);
}

std::string trimmed(const std::string& s) {
  const size_t from = s.find_first_not_of(" \t\r");
  if (from == std::string::npos) return "";
  return s.substr(from, s.find_last_not_of(" \t\r") - from + 1);
}

// "a => b => c": the regions of a call path; an empty part is an error.
CallPath split_call_path(const std::string& text, const std::string& file, size_t line) {
  CallPath path;
  for (size_t from = 0;;) {
    const size_t arrow = text.find("=>", from);
    const std::string part = trimmed(text.substr(from, arrow - from));
    if (part.empty()) fail(file, line, "empty region name in call path \"" + text + "\"");
    path.push_back(part);
    if (arrow == std::string::npos) return path;
    from = arrow + 2;
  }
}

// `"<quoted name>" rest...`: the name and the stream positioned after it.
std::string quoted_name(const std::string& text, std::istringstream& rest, const std::string& file,
                        size_t line) {
  const size_t open = text.find('"');
  const size_t close = open == std::string::npos ? open : text.find('"', open + 1);
  if (open != 0 || close == std::string::npos)
    fail(file, line, "expected a name in double quotes, found \"" + text + "\"");
  rest.str(text.substr(close + 1));
  return text.substr(1, close - 1);
}

class FileParser {
 public:
  explicit FileParser(TauFile& f) : f_(f), in_(f.path) {
    if (!in_) throw IoError("cannot read " + f.path + ": " + std::strerror(errno));
  }
  void parse() {
    const std::string header = next("the line \"<N> templated_functions...\"");
    std::istringstream first(header);
    long count = -1;
    std::string word;
    first >> count >> word;
    if (count < 0 || word.rfind("templated_functions", 0) != 0)
      fail(f_.path, line_,
           "expected \"<N> templated_functions[_MULTI_<metric>]\", found \"" + header + "\"");
    if (word.rfind("templated_functions_MULTI_", 0) == 0) f_.metric = word.substr(26);
    const std::string columns = next("the column line \"# Name Calls ...\"");
    if (columns.empty() || columns[0] != '#')
      fail(f_.path, line_,
           "expected the column line \"# Name Calls ...\", found \"" + columns + "\"");
    const bool with_statistics = columns.find("SumExclSqr") != std::string::npos;
    for (long i = 0; i < count; ++i) function_line(with_statistics);
    sections();
  }

 private:
  std::string next(const char* expected) {
    std::string line;
    if (!std::getline(in_, line))
      fail(f_.path, line_ + 1, std::string("the file ends where ") + expected + " should be");
    ++line_;
    return line;
  }
  bool next_optional(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_;
    return true;
  }

  void function_line(bool with_statistics) {
    const std::string text = next("a function line");
    std::istringstream rest;
    FunctionLine fn;
    fn.line = line_;
    fn.path = split_call_path(quoted_name(text, rest, f_.path, line_), f_.path, line_);
    double subroutines = 0;
    if (!(rest >> fn.calls >> subroutines >> fn.exclusive >> fn.inclusive))
      fail(f_.path, line_,
           "expected calls, subroutine calls, exclusive and inclusive values "
           "after the name in \"" +
               text + "\"");
    if (fn.calls < 0) fail(f_.path, line_, "negative number of calls in \"" + text + "\"");
    f_.functions.push_back(std::move(fn));
    long ignored = 0, statistics_lines = 0;
    if (with_statistics && (rest >> ignored >> statistics_lines))
      for (long i = 0; i < statistics_lines; ++i) next("a statistics line");
  }

  // "<K> aggregates" (K lines skipped) and "<U> userevents" with its column line.
  void sections() {
    for (std::string text; next_optional(text);) {
      if (trimmed(text).empty()) continue;
      std::istringstream words(text);
      long count = -1;
      std::string word;
      words >> count >> word;
      if (count < 0 || (word != "aggregates" && word != "userevents"))
        fail(f_.path, line_,
             "expected \"<N> aggregates\" or \"<N> userevents\", found \"" + text + "\"");
      if (word == "aggregates") {
        for (long i = 0; i < count; ++i) next("an aggregate line");
        continue;
      }
      const std::string columns = next("the column line \"# eventname ...\"");
      if (columns.empty() || columns[0] != '#')
        fail(f_.path, line_,
             "expected the column line \"# eventname ...\", found \"" + columns + "\"");
      for (long i = 0; i < count; ++i) event_line();
    }
  }

  void event_line() {
    const std::string text = next("a user event line");
    std::istringstream rest;
    EventLine e;
    e.line = line_;
    const std::string name = quoted_name(text, rest, f_.path, line_);
    if (!(rest >> e.count >> e.maximum >> e.minimum >> e.mean >> e.squares))
      fail(f_.path, line_,
           "expected count, maximum, minimum, mean and sum of squares after "
           "the name in \"" +
               text + "\"");
    if (e.count < 0) fail(f_.path, line_, "negative event count in \"" + text + "\"");
    // A context event is named "<event> : <call path>".
    const size_t colon = name.find(" : ");
    e.name = trimmed(name.substr(0, colon));
    if (colon != std::string::npos)
      e.context = split_call_path(name.substr(colon + 3), f_.path, line_);
    f_.events.push_back(std::move(e));
  }

  TauFile& f_;
  std::ifstream in_;
  size_t line_ = 0;
};

// A profile.N.C.T file (its place from the name), not yet parsed.
TauFile named_tau_file(const fs::path& path) {
  TauFile f;
  f.path = path.string();
  long n, c, t;
  char tail;
  if (std::sscanf(path.filename().c_str(), "profile.%ld.%ld.%ld%c", &n, &c, &t, &tail) != 3 ||
      n < 0 || c < 0 || t < 0)
    throw FormatError(f.path + ": not named profile.<node>.<context>.<thread>");
  f.place = {n, c, t};
  return f;
}

}  // namespace

std::vector<TauFile> find_tau_files(const std::string& profile) {
  if (fs::is_regular_file(profile)) return {named_tau_file(profile)};
  if (!fs::is_directory(profile))
    throw IoError(profile + ": neither a TAU profile file nor a directory");
  const std::string& dir = profile;
  std::vector<fs::path> folders{dir};
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("MULTI__", 0) == 0)
      folders.push_back(e.path());
  std::sort(folders.begin() + 1, folders.end());
  std::vector<TauFile> files;
  for (const fs::path& folder : folders) {
    std::vector<TauFile> here;
    for (const auto& e : fs::directory_iterator(folder)) {
      const std::string name = e.path().filename();
      if (!e.is_regular_file() || name.rfind("profile.", 0) != 0) continue;
      TauFile f = named_tau_file(e.path());
      if (folder != fs::path(dir)) f.metric = folder.filename().string().substr(7);
      here.push_back(std::move(f));
    }
    std::sort(here.begin(), here.end(),
              [](const TauFile& a, const TauFile& b) { return a.place < b.place; });
    for (TauFile& f : here) files.push_back(std::move(f));
  }
  if (files.empty())
    throw IoError(dir + ": no TAU profile files (profile.<node>.<context>.<thread>)");
  return files;
}

void parse_tau_file(TauFile& file) {
  FileParser(file).parse();
}

}  // namespace cubekit
