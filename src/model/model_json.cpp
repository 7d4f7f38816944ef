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

std::string terms_json(const PerformanceModel& model) {
  std::string out = "[";
  for (size_t t = 0; t < model.terms.size(); ++t) {
    const ModelTerm& term = model.terms[t];
    out += std::string(t ? ", " : "") + "{\"coefficient\": " + json_number(term.coefficient) +
           ", \"parameter\": " + json_string(term.parameter) +
           ", \"exponent\": " + json_number(term.exponent()) +
           ", \"log_exponent\": " + json_number(term.log_exponent) + "}";
  }
  return out + "]";
}

std::string points_json(const std::vector<MeasuredPoint>& points) {
  std::string out = "[";
  for (size_t i = 0; i < points.size(); ++i) {
    const MeasuredPoint& p = points[i];
    out += std::string(i ? ", " : "") + "{\"parameter_value\": " + json_number(p.parameter_value) +
           ", \"value\": " + json_number(p.value) + ", \"median\": " + json_number(p.median) +
           ", \"minimum\": " + json_number(p.minimum) + ", \"maximum\": " + json_number(p.maximum) +
           "}";
  }
  return out + "]";
}

}  // namespace

std::string model_json(const CallPathModel& m, const std::vector<ModelPrediction>& at,
                       bool with_points) {
  std::string path;
  for (const std::string& name : m.callpath) path += (path.empty() ? "" : ", ") + json_string(name);
  std::string out =
      "{\"callpath\": [" + path + "], \"metric\": " + json_string(m.metric) + ", \"flavour\": \"" +
      (m.flavour == Flavour::kInclusive ? "incl" : "excl") +
      "\", \"model\": " + json_string(m.model.formula()) +
      ", \"constant\": " + json_number(m.model.constant) + ", \"terms\": " + terms_json(m.model) +
      ", \"rss\": " + json_number(m.model.rss) + ", \"smape\": " + json_number(m.model.smape) +
      ", \"adjusted_r2\": " + json_number(m.model.adjusted_r2);
  if (!at.empty()) {
    out += ", \"predictions\": [";
    for (size_t p = 0; p < at.size(); ++p)
      out += std::string(p ? ", " : "") + "{\"point\": {" + json_string(at[p].first) + ": " +
             json_number(at[p].second) +
             "}, \"value\": " + json_number(m.model.evaluate(at[p].second)) + "}";
    out += "]";
  }
  if (with_points) out += ", \"points\": " + points_json(m.points);
  return out + "}";
}

}  // namespace cubekit
