// The measurements of a series as Extra-P's JSON input, so that Extra-P (`extrap --json FILE`,
// its GUI's "Open JSON input") models exactly the values cubekit modelled, and the models with
// their measurements as Extra-P's experiment file (`extrap --experiment FILE.extra-p`).
#include <zip.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>

#include "cubekit/atomic_file.hpp"
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
    std::string point;
    if (p.coordinate.empty()) point = json_number(p.parameter_value);
    for (size_t c = 0; c < p.coordinate.size(); ++c)
      point += (c ? ", " : "") + json_number(p.coordinate[c]);
    out += std::string(i ? ", " : "") + "{\"point\": [" + point + "], \"values\": [";
    for (size_t s = 0; s < p.samples.size(); ++s)
      out += (s ? ", " : "") + json_number(p.samples[s]);
    out += "]}";
  }
  return out + "]";
}

// Extra-P's numbers: NaN and the infinities as the strings its reader takes.
std::string extrap_number(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return json_number(v);
}

// The coordinate of a point as Extra-P writes it: a list of floats.
std::string coordinate_json(const MeasuredPoint& p) {
  std::string out = "[";
  if (p.coordinate.empty()) out += json_number(p.parameter_value);
  for (size_t c = 0; c < p.coordinate.size(); ++c)
    out += (c ? ", " : "") + json_number(p.coordinate[c]);
  return out + "]";
}

// One point as Extra-P's Measurement: its statistics of the samples, `repetitions` the number
// of reports at the point (Extra-P counts reports, not locations), no values kept.
std::string extrap_measurement_json(const MeasuredPoint& p, size_t reports) {
  double sum = 0, squares = 0;
  for (double s : p.samples) sum += s;
  const double mean = sum / double(p.samples.size());
  for (double s : p.samples) squares += (s - mean) * (s - mean);
  const double deviation = std::sqrt(squares / double(p.samples.size()));  // numpy's std
  return "{\"coordinate\": " + coordinate_json(p) + ", \"median\": " + extrap_number(p.median) +
         ", \"mean\": " + extrap_number(mean) + ", \"minimum\": " + extrap_number(p.minimum) +
         ", \"maximum\": " + extrap_number(p.maximum) + ", \"std\": " + extrap_number(deviation) +
         ", \"repetitions\": " + std::to_string(reports) + ", \"values\": null}";
}

// The factor p^(i/j) · log2(p)^l as Extra-P's simple terms (exponent i/j as a reduced
// fraction in a string, as its Fraction is written).
std::string simple_terms_json(const TermFactor& f) {
  std::string out = "[";
  if (f.exponent_numerator != 0) {
    const int g = std::gcd(f.exponent_numerator, f.exponent_denominator);
    const int n = f.exponent_numerator / g, d = f.exponent_denominator / g;
    out += "{\"term_type\": \"polynomial\", \"exponent\": \"" + std::to_string(n) +
           (d == 1 ? "" : "/" + std::to_string(d)) + "\"}";
  }
  if (f.log_exponent != 0)
    out += std::string(out.size() > 1 ? ", " : "") +
           "{\"term_type\": \"logarithm\", \"exponent\": " + json_number(f.log_exponent) + "}";
  return out + "]";
}

// The model as Extra-P's function: constant, single-parameter (compound terms of simple
// terms) or multi-parameter (each term a product of one compound term per parameter index).
std::string extrap_function_json(const PerformanceModel& model,
                                 const std::vector<std::string>& parameters) {
  std::string out = "{\"constant_coefficient\": " + extrap_number(model.constant);
  if (model.terms.empty()) return out + ", \"$type\": \"ConstantFunction\"}";
  out += ", \"compound_terms\": [";
  for (size_t t = 0; t < model.terms.size(); ++t) {
    const ModelTerm& term = model.terms[t];
    out += std::string(t ? ", " : "") + "{\"coefficient\": " + extrap_number(term.coefficient);
    if (parameters.size() == 1) {
      out += ", \"simple_terms\": " + simple_terms_json(term.factors()[0]) + "}";
      continue;
    }
    out += ", \"parameter_term_pairs\": {";
    const std::vector<TermFactor> factors = term.factors();
    for (size_t f = 0; f < factors.size(); ++f) {
      const auto at = std::find(parameters.begin(), parameters.end(), factors[f].parameter);
      if (at == parameters.end())
        throw Error("the model's parameter " + factors[f].parameter + " is not the series'");
      out += std::string(f ? ", " : "") + "\"" + std::to_string(at - parameters.begin()) +
             "\": {\"coefficient\": 1.0, \"simple_terms\": " + simple_terms_json(factors[f]) + "}";
    }
    out += "}}";
  }
  return out + "], \"$type\": \"" +
         (parameters.size() == 1 ? "SingleParameterFunction" : "MultiParameterFunction") + "\"}";
}

const char* extrap_measure(Measure m) {
  switch (m) {
    case Measure::kMedian:
      return "MEDIAN";
    case Measure::kMinimum:
      return "MINIMUM";
    case Measure::kMaximum:
      return "MAXIMUM";
    case Measure::kMean:
      break;
  }
  return "MEAN";
}

// The model as Extra-P's Model. rRSS, nRSS and RE are measures cubekit does not compute: they
// are written as NaN ("not known") rather than as 0, which would read as a perfect fit.
std::string extrap_model_json(const PerformanceModel& model,
                              const std::vector<std::string>& parameters, Measure measure) {
  const bool constant = model.terms.empty();
  const char* type = constant                 ? "ConstantHypothesis"
                     : parameters.size() == 1 ? "SingleParameterHypothesis"
                                              : "MultiParameterHypothesis";
  return "{\"hypothesis\": {\"function\": " + extrap_function_json(model, parameters) +
         ", \"RSS\": " + extrap_number(model.rss) +
         ", \"rRSS\": \"nan\", \"nRSS\": \"nan\", \"SMAPE\": " + extrap_number(model.smape) +
         (constant ? "" : ", \"AR2\": " + extrap_number(model.adjusted_r2)) +
         ", \"RE\": \"nan\", \"_use_median\": " + (measure == Measure::kMedian ? "true" : "false") +
         ", \"_use_measure\": \"" + extrap_measure(measure) +
         "\", \"_costs_are_calculated\": true, \"$type\": \"" + type + "\"}, \"annotations\": []}";
}

// Extra-P's description of the modeler whose models these are: its default single- or
// multi-parameter modeler with its default options, which cubekit's modeler follows.
std::string extrap_modeler_json(size_t parameters, Measure measure) {
  std::string out = "{\"use_median\": ";
  out += measure == Measure::kMedian ? "true" : "false";
  out += ", \"use_measure\": \"" + std::string(extrap_measure(measure)) + "\", ";
  if (parameters == 1)
    return out +
           "\"allow_log_terms\": true, \"use_crossvalidation\": true, \"compare_with_RSS\": "
           "false, \"minimum_term_contribution\": 0.0005, \"poly_exponents\": \"\", "
           "\"log_exponents\": \"\", \"retain_default_exponents\": false, "
           "\"force_combination_exponents\": false, \"allow_negative_exponents\": false, "
           "\"$type\": \"SingleParameterModeler\"}";
  return out +
         "\"single_parameter_point_selection\": \"auto\", "
         "\"allow_combinations_of_sums_and_products\": true, \"compare_with_RSS\": false, "
         "\"$type\": \"MultiParameterModeler\"}";
}

// {"call path": {"metric": <piece>, ...}, ...} in the order of the models (parents first).
std::string nested_by_callpath(const std::vector<CallPathModel>& models,
                               const std::function<std::string(const CallPathModel&)>& piece) {
  std::vector<std::string> order;
  std::map<std::string, std::string> members;
  for (const CallPathModel& m : models) {
    const std::string callpath = extrap_callpath(m.callpath);
    auto [it, added] = members.emplace(callpath, std::string());
    if (added) order.push_back(callpath);
    it->second += std::string(it->second.empty() ? "" : ", ") + json_string(extrap_metric(m)) +
                  ": " + piece(m);
  }
  std::string out = "{";
  for (size_t i = 0; i < order.size(); ++i)
    out +=
        std::string(i ? ",\n " : "\n ") + json_string(order[i]) + ": {" + members[order[i]] + "}";
  return out + "}";
}

// experiment.json of Extra-P's experiment file.
std::string extrap_experiment_json(const std::vector<CallPathModel>& models, const Series& series,
                                   const SeriesOptions& options) {
  std::map<std::vector<double>, size_t> reports_at;
  for (const SeriesReport& r : series.reports) ++reports_at[r.coordinate];
  auto measurements = [&](const CallPathModel& m) {
    std::string out = "[";
    for (size_t i = 0; i < m.points.size(); ++i) {
      const MeasuredPoint& p = m.points[i];
      if (p.samples.empty())
        throw Error(extrap_callpath(m.callpath) + ", " + m.metric +
                    ": the point has no samples (model the series with keep_samples)");
      const std::vector<double> at =
          p.coordinate.empty() ? std::vector{p.parameter_value} : p.coordinate;
      out += std::string(i ? ", " : "") + extrap_measurement_json(p, reports_at[at]);
    }
    return out + "]";
  };
  auto model = [&](const CallPathModel& m) {
    return extrap_model_json(m.model, series.parameters, options.measure);
  };
  std::string names;
  for (const std::string& p : series.parameters)
    names += (names.empty() ? "" : ", ") + json_string(p);
  return std::string("{\"scaling\": \"") +
         (options.scaling == Scaling::kStrong ? "strong" : "weak") + "\", \"parameters\": [" +
         names + "],\n\"measurements\": " + nested_by_callpath(models, measurements) +
         ",\n\"modelers\": [{\"name\": \"cubekit\", \"modeler\": " +
         extrap_modeler_json(series.parameters.size(), options.measure) +
         ",\n\"models\": " + nested_by_callpath(models, model) + "}]}\n";
}

// A zip archive in memory, as minizip's file functions: it seeks back to complete each
// member's header, so the archive is built here and written to the file whole.
struct ZipBytes {
  std::string bytes;
  size_t at = 0;

  static voidpf open(voidpf self, const void*, int) { return self; }
  static uLong read(voidpf, voidpf self, void* into, uLong n) {
    ZipBytes& z = *static_cast<ZipBytes*>(self);
    const size_t count = std::min<size_t>(n, z.bytes.size() - std::min(z.at, z.bytes.size()));
    std::memcpy(into, z.bytes.data() + z.at, count);
    z.at += count;
    return uLong(count);
  }
  static uLong write(voidpf, voidpf self, const void* from, uLong n) {
    ZipBytes& z = *static_cast<ZipBytes*>(self);
    if (z.bytes.size() < z.at + n) z.bytes.resize(z.at + n);
    std::memcpy(z.bytes.data() + z.at, from, n);
    z.at += n;
    return n;
  }
  static ZPOS64_T tell(voidpf, voidpf self) { return static_cast<ZipBytes*>(self)->at; }
  static long seek(voidpf, voidpf self, ZPOS64_T offset, int origin) {
    ZipBytes& z = *static_cast<ZipBytes*>(self);
    const size_t base = origin == ZLIB_FILEFUNC_SEEK_SET   ? 0
                        : origin == ZLIB_FILEFUNC_SEEK_CUR ? z.at
                                                           : z.bytes.size();
    z.at = base + size_t(offset);
    return 0;
  }
  static int close(voidpf, voidpf) { return 0; }
  static int error(voidpf, voidpf) { return 0; }
};

// `text` as the only file, named `member`, of a zip, deflated (Extra-P's own files are deflated
// too).
std::string zip_of(const std::string& member, const std::string& text) {
  ZipBytes archive;
  zlib_filefunc64_def functions{&ZipBytes::open,  &ZipBytes::read, &ZipBytes::write,
                                &ZipBytes::tell,  &ZipBytes::seek, &ZipBytes::close,
                                &ZipBytes::error, &archive};
  zipFile zip = zipOpen2_64(member.c_str(), APPEND_STATUS_CREATE, nullptr, &functions);
  if (!zip) throw Error("cannot start the zip archive");
  zip_fileinfo info{};
  info.tmz_date.tm_year = 1980;  // a fixed time: the same models give the same file
  info.tmz_date.tm_mday = 1;
  const int zip64 = text.size() >= 0xffffffffu ? 1 : 0;
  bool ok = zipOpenNewFileInZip64(zip, member.c_str(), &info, nullptr, 0, nullptr, 0, nullptr,
                                  Z_DEFLATED, 1, zip64) == ZIP_OK;
  for (size_t at = 0; ok && at < text.size(); at += 1u << 30) {
    const size_t piece = std::min<size_t>(text.size() - at, 1u << 30);
    ok = zipWriteInFileInZip(zip, text.data() + at, unsigned(piece)) == ZIP_OK;
  }
  ok = zipCloseFileInZip(zip) == ZIP_OK && ok;
  ok = zipClose(zip, nullptr) == ZIP_OK && ok;
  if (!ok) throw Error("compressing the zip archive failed");
  return std::move(archive.bytes);
}

}  // namespace

void write_extrap_experiment_file(const std::string& path, const std::vector<CallPathModel>& models,
                                  const Series& series, const SeriesOptions& options) {
  if (models.empty()) throw Error(path + ": no model to write");
  if (models.front().location)
    throw Error(path + ": Extra-P's experiments pool the locations; model without per-location");
  std::string zip;
  try {
    zip = zip_of("experiment.json", extrap_experiment_json(models, series, options));
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  AtomicFile out(path);
  out.write(zip);
  out.commit();
}

void write_extrap_experiment(const std::string& path, const std::vector<CallPathModel>& models,
                             const std::vector<std::string>& parameters) {
  if (models.empty()) throw Error(path + ": no model to write the measurements of");
  if (models.front().location)
    throw Error(path + ": Extra-P's experiments pool the locations; model without per-location");
  AtomicFile out(path);
  std::string names;
  for (const std::string& p : parameters) names += (names.empty() ? "" : ", ") + json_string(p);
  out.write("{\"parameters\": [" + names + "],\n \"measurements\": ");
  out.write(nested_by_callpath(models, measurements_json));
  out.write("}\n");
  out.commit();
}

}  // namespace cubekit
