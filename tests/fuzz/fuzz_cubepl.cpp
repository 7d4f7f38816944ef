// Fuzzes the CubePL scanner and parser (cubepl.md §2, §3): any text must compile or raise a
// cubekit::Error, in both the default and the CubeLib-compatible dialect. Programs that compile
// and have no loop are also evaluated over a row of three lanes, which exercises the
// evaluator's masks and per-lane variables on odd but valid trees.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/cubepl.hpp"
#include "cubekit/error.hpp"

namespace {

using namespace cubekit::cubepl;

class FuzzEnv : public Environment {
 public:
  size_t width() const override { return 3; }
  void metric_row(const MetricRef& ref, std::span<double> out) override {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(ref.metric) - i;
  }
  double metric_call(const CallRef& ref) override { return static_cast<double>(ref.cnode); }
  std::optional<ArrayView> variable(std::string_view name) override {
    if (name == "calculation::sysres::id") return ArrayView{lanes_, {}, true};
    if (name == "cube::region::name") return ArrayView{{}, names_, false};
    if (name.starts_with("cube::")) return ArrayView{numbers_, {}, false};
    return std::nullopt;
  }
  std::span<const double> arg(int which) override {
    return which == 1 ? std::span<const double>(lanes_) : std::span<const double>(numbers_);
  }
  std::string environment_variable(std::string_view) override { return "x"; }

 private:
  std::vector<double> lanes_ = {0, 1, 2};
  std::vector<double> numbers_ = {4, -1, 0.5};
  std::vector<std::string> names_ = {"main", "MPI_Send"};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const bool compatible : {false, true}) {
    CompileContext context;
    context.compatible = compatible;
    context.find_metric = [](std::string_view name) -> std::optional<cubekit::Index> {
      if (name == "time") return 0;
      if (name == "visits") return 1;
      return std::nullopt;
    };
    context.define = [](const Definition&) {};
    try {
      const Program program = compile(text, context);
      if (text.find("while") != std::string_view::npos) continue;  // may legitimately run long
      FuzzEnv env;
      Globals globals;
      double out[3];
      program.evaluate(env, globals, out);
    } catch (const cubekit::Error&) {
      // Rejecting the text is the expected outcome for most inputs.
    }
  }
  return 0;
}
