// JSON of fitted models, shared by `cubekit model -s json`, the Extra-P experiment file and
// `cubekit serve`'s /api/v1/model.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "cubekit/model_output.hpp"
#include "model/json_text.hpp"

namespace cubekit {

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

namespace {

// {coefficient, parameter, exponent, log_exponent} of the first factor, and with several
// parameters every factor as `factors`.
std::string term_json(const ModelTerm& term) {
  auto factor = [](const TermFactor& f) {
    return "\"parameter\": " + json_string(f.parameter) +
           ", \"exponent\": " + json_number(f.exponent()) +
           ", \"log_exponent\": " + json_number(f.log_exponent);
  };
  const std::vector<TermFactor> factors = term.factors();
  std::string out =
      "{\"coefficient\": " + json_number(term.coefficient) + ", " + factor(factors[0]);
  if (factors.size() > 1) {
    out += ", \"factors\": [";
    for (size_t i = 0; i < factors.size(); ++i) out += (i ? ", {" : "{") + factor(factors[i]) + "}";
    out += "]";
  }
  return out + "}";
}

std::string terms_json(const PerformanceModel& model) {
  std::string out = "[";
  for (size_t t = 0; t < model.terms.size(); ++t)
    out += std::string(t ? ", " : "") + term_json(model.terms[t]);
  return out + "]";
}

std::string prediction_json(const PerformanceModel& model, const ModelPrediction& at) {
  std::string point;
  for (size_t i = 0; i < at.parameters.size(); ++i)
    point += (i ? ", " : "") + json_string(at.parameters[i]) + ": " + json_number(at.values[i]);
  return "{\"point\": {" + point +
         "}, \"value\": " + json_number(model.evaluate(at.parameters, at.values)) + "}";
}

// A point's coordinates by parameter name (a single-parameter point may have no coordinate:
// its parameter_value is the one).
std::string coordinates_json(const MeasuredPoint& p, const std::vector<std::string>& parameters) {
  std::string out = "{";
  for (size_t i = 0; i < parameters.size(); ++i) {
    const double v = i < p.coordinate.size() ? p.coordinate[i] : p.parameter_value;
    out += (i ? ", " : "") + json_string(parameters[i]) + ": " + json_number(v);
  }
  return out + "}";
}

std::string points_json(const std::vector<MeasuredPoint>& points,
                        const std::vector<std::string>& parameters) {
  std::string out = "[";
  for (size_t i = 0; i < points.size(); ++i) {
    const MeasuredPoint& p = points[i];
    out += std::string(i ? ", " : "") + "{\"parameter_value\": " + json_number(p.parameter_value) +
           ", \"coordinates\": " + coordinates_json(p, parameters) +
           ", \"value\": " + json_number(p.value) + ", \"median\": " + json_number(p.median) +
           ", \"minimum\": " + json_number(p.minimum) + ", \"maximum\": " + json_number(p.maximum) +
           "}";
  }
  return out + "]";
}

}  // namespace

std::string model_json(const CallPathModel& m, const std::vector<ModelPrediction>& at,
                       const std::vector<std::string>* point_parameters) {
  std::string path;
  for (const std::string& name : m.callpath) path += (path.empty() ? "" : ", ") + json_string(name);
  std::string out =
      "{\"callpath\": [" + path + "], \"metric\": " + json_string(m.metric) + ", \"flavour\": \"" +
      (m.flavour == Flavour::kInclusive ? "incl" : "excl") + "\"" +
      (m.location ? ", \"location\": " + std::to_string(*m.location) : std::string()) +
      ", \"model\": " + json_string(m.model.formula()) +
      ", \"constant\": " + json_number(m.model.constant) + ", \"terms\": " + terms_json(m.model) +
      ", \"rss\": " + json_number(m.model.rss) + ", \"smape\": " + json_number(m.model.smape) +
      ", \"adjusted_r2\": " + json_number(m.model.adjusted_r2);
  if (!at.empty()) {
    out += ", \"predictions\": [";
    for (size_t p = 0; p < at.size(); ++p)
      out += std::string(p ? ", " : "") + prediction_json(m.model, at[p]);
    out += "]";
  }
  if (point_parameters) out += ", \"points\": " + points_json(m.points, *point_parameters);
  return out + "}";
}

}  // namespace cubekit
