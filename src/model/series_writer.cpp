// Series with known laws (cubekit generate --series): reports whose values follow expressions
// of one or more parameters, so that tests and examples know the model to expect.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <span>

#include "cubekit/error.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/writer.hpp"
#include "model/report_shape.hpp"

namespace cubekit {
namespace {

// Recursive descent over expr := term (± term)*, term := unary (*/ unary)*, unary := -unary |
// power, power := primary (^ unary)?, primary := number | parameter | function(expr) | (expr).
class LawParser {
 public:
  LawParser(const std::string& text, std::span<const std::string> parameters,
            std::span<const double> values)
      : text_(text), parameters_(parameters), values_(values) {}

  double parse() {
    const double v = expression();
    skip_blanks();
    if (at_ < text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("law '" + text_ + "', at " + std::to_string(at_ + 1) + ": " + what);
  }
  void skip_blanks() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(char c) {
    skip_blanks();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  double expression() {
    double v = term();
    for (;;) {
      if (take('+'))
        v += term();
      else if (take('-'))
        v -= term();
      else
        return v;
    }
  }
  double term() {
    double v = unary();
    for (;;) {
      if (take('*'))
        v *= unary();
      else if (take('/'))
        v /= unary();
      else
        return v;
    }
  }
  double unary() { return take('-') ? -unary() : power(); }
  double power() {
    const double base = primary();
    return take('^') ? std::pow(base, unary()) : base;
  }
  double primary() {
    skip_blanks();
    if (take('(')) {
      const double v = expression();
      if (!take(')')) fail("')' expected");
      return v;
    }
    if (at_ < text_.size() &&
        (std::isdigit(static_cast<unsigned char>(text_[at_])) || text_[at_] == '.')) {
      size_t used = 0;
      const double v = std::stod(text_.substr(at_), &used);
      at_ += used;
      return v;
    }
    const size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      ++at_;
    const std::string name = text_.substr(start, at_ - start);
    if (name.empty()) fail("a number, a parameter, a function or '(' expected");
    for (size_t i = 0; i < parameters_.size(); ++i)
      if (name == parameters_[i]) return values_[i];
    static const std::map<std::string, double (*)(double)> kFunctions = {
        {"log2", [](double x) { return std::log2(x); }},
        {"log", [](double x) { return std::log(x); }},
        {"sqrt", [](double x) { return std::sqrt(x); }},
        {"exp", [](double x) { return std::exp(x); }}};
    const auto f = kFunctions.find(name);
    if (f == kFunctions.end()) fail("unknown name '" + name + "'");
    if (!take('(')) fail("'(' expected after " + name);
    const double argument = expression();
    if (!take(')')) fail("')' expected");
    return f->second(argument);
  }

  const std::string& text_;
  std::span<const std::string> parameters_;
  std::span<const double> values_;
  size_t at_ = 0;
};

// splitmix64: the same noise on every platform (the standard distributions are not).
double uniform_minus_one_to_one(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53 * 2 - 1;
}

ReportShape series_shape(const SeriesSpec& spec) {
  ReportShape shape;
  Model& model = *shape.model;
  for (const SeriesLaw& law : spec.laws) {
    if (law.callpath.empty() || law.metric.empty())
      throw Error("law '" + law.expression + "': needs a call path and a metric");
    add_call_path(shape, law.callpath, false);
    if (shape.metric_of.emplace(law.metric, Index(model.metrics.size())).second) {
      Metric metric;
      metric.id = uint32_t(model.metrics.size());
      metric.uniq_name = metric.disp_name = law.metric;
      metric.dtype_text = "DOUBLE";
      metric.dtype = DataType::parse("DOUBLE");
      model.metrics.push_back(metric);
    }
  }
  add_one_location(model, "machine", "rank 0", "thread 0");
  return shape;
}

// The shortest fixed-point text that reads back as v (folder names take no exponent).
std::string number_text(double v) {
  char buffer[400];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed);
  return std::string(buffer, result.ptr);
}

}  // namespace

double evaluate_law(const std::string& expression, const std::string& parameter, double value) {
  return LawParser(expression, {&parameter, 1}, {&value, 1}).parse();
}

double evaluate_law(const std::string& expression, std::span<const std::string> parameters,
                    std::span<const double> values) {
  return LawParser(expression, parameters, values).parse();
}

namespace {

// Every parameter of the spec with its points, checked.
std::vector<SeriesParameter> checked_parameters(const SeriesSpec& spec) {
  std::vector<SeriesParameter> all{{spec.parameter, spec.points}};
  all.insert(all.end(), spec.further_parameters.begin(), spec.further_parameters.end());
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string& name = all[i].name;
    // Extra-P reads parameters from the folder name up to ".r": letters only, no leading r.
    if (name.empty() || name[0] == 'r' || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c));
        }))
      throw Error("parameter '" + name + "': letters only, not starting with r");
    for (size_t j = 0; j < i; ++j)
      if (all[j].name == name) throw Error("parameter '" + name + "' is given twice");
    if (all[i].values.empty()) throw Error("parameter '" + name + "' has no point");
    for (double p : all[i].values)
      if (!(p >= 0 && std::isfinite(p)))
        throw Error("point " + name + "=" + std::to_string(p) + ": must be >= 0");
  }
  return all;
}

// The coordinates of the full grid of the parameters' points, the last parameter fastest.
std::vector<std::vector<double>> grid_of(const std::vector<SeriesParameter>& parameters) {
  std::vector<std::vector<double>> grid{{}};
  for (const SeriesParameter& p : parameters) {
    std::vector<std::vector<double>> next;
    for (const std::vector<double>& c : grid)
      for (double v : p.values) {
        next.push_back(c);
        next.back().push_back(v);
      }
    grid = std::move(next);
  }
  return grid;
}

void write_report(const std::string& path, const Model& model,
                  const std::vector<std::vector<double>>& values) {
  auto copy = std::make_shared<Model>(model);
  copy->finalize(path);
  ReportWriter writer(path, copy);
  for (Index m = 0; m < model.metrics.size(); ++m) {
    writer.begin_metric(m);
    for (Index c : storage_order(*copy, MetricKind::kExclusive))
      writer.write_row(c, reinterpret_cast<const std::byte*>(&values[m][c]));
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace

void write_series(const std::string& folder, const SeriesSpec& spec) {
  if (spec.laws.empty()) throw Error("a series needs at least one law");
  if (spec.repetitions == 0) throw Error("a series needs at least one point and one repetition");
  if (!(spec.noise >= 0 && spec.noise < 1)) throw Error("the noise must be in [0, 1)");
  const std::vector<SeriesParameter> parameters = checked_parameters(spec);
  std::vector<std::string> names;
  for (const SeriesParameter& p : parameters) names.push_back(p.name);
  const ReportShape shape = series_shape(spec);
  const Model& model = *shape.model;
  uint64_t state = spec.seed;
  for (const std::vector<double>& point : grid_of(parameters)) {
    std::string point_text;
    for (size_t i = 0; i < names.size(); ++i) point_text += names[i] + number_text(point[i]);
    for (unsigned r = 1; r <= spec.repetitions; ++r) {
      // values[metric][cnode], exclusive
      std::vector<std::vector<double>> values(model.metrics.size(),
                                              std::vector<double>(model.cnodes.size(), 0.0));
      for (const SeriesLaw& law : spec.laws) {
        double v = evaluate_law(law.expression, names, point);
        if (spec.noise > 0) v *= 1 + spec.noise * uniform_minus_one_to_one(state);
        if (!std::isfinite(v))
          throw Error("law '" + law.expression + "' is not finite at " + point_text);
        values[shape.metric_of.at(law.metric)][shape.cnode_of.at(law.callpath)] = v;
      }
      const std::filesystem::path dir =
          std::filesystem::path(folder) / ("exp." + point_text + ".r" + std::to_string(r));
      std::filesystem::create_directories(dir);
      write_report((dir / "profile.cubex").string(), model, values);
    }
  }
}

}  // namespace cubekit
