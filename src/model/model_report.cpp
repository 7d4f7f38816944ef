// The models of a series as a Cube report of SCALE_FUNC values (cube-format.md §7.3), so that
// Cube's tools and GUI show, per call path and metric, the model instead of a measurement.
#include <cstring>
#include <map>
#include <memory>
#include <numeric>

#include "cubekit/error.hpp"
#include "cubekit/model_output.hpp"
#include "cubekit/writer.hpp"
#include "model/report_shape.hpp"

namespace cubekit {
namespace {

// A SCALE_FUNC term a · x^(b/c) · log2(x)^d, the exponent reduced (CubeLib adds terms only
// when b, c and d agree, so 2/4 would not merge with 1/2).
struct SlotTerm {
  double a;
  int32_t b;
  uint32_t c;
  int32_t d;
};

std::vector<SlotTerm> slot_terms(const CallPathModel& m) {
  std::vector<SlotTerm> terms;
  if (m.model.constant != 0) terms.push_back({m.model.constant, 0, 1, 0});
  for (const ModelTerm& t : m.model.terms) {
    int32_t b = t.exponent_numerator;
    int32_t c = t.exponent_denominator;
    if (c < 0) b = -b, c = -c;
    const int32_t g = std::gcd(b, c);
    if (c == 0 || g == 0)
      throw Error("model " + m.model.formula() + ": exponent without a denominator");
    if (t.coefficient != 0)
      terms.push_back({t.coefficient, b / g, uint32_t(c / g), t.log_exponent});
  }
  if (terms.size() > kScaleFuncMaxTerms)
    throw Error("model " + m.model.formula() + ": more terms than a SCALE_FUNC value holds");
  return terms;
}

// The 848-byte slot in host byte order: u32 term count, u32 measurement count (0: CubeLib
// prints measurements in front of every value and does not merge them when it adds values),
// then the terms packed (f64, i32, u32, i32), zeros after.
std::vector<std::byte> slot_of(const std::vector<SlotTerm>& terms) {
  std::vector<std::byte> slot(kScaleFuncSize, std::byte{0});
  const uint32_t n = uint32_t(terms.size());
  std::memcpy(slot.data(), &n, 4);
  std::byte* at = slot.data() + 8;
  for (const SlotTerm& t : terms) {
    std::memcpy(at, &t.a, 8);
    std::memcpy(at + 8, &t.b, 4);
    std::memcpy(at + 12, &t.c, 4);
    std::memcpy(at + 16, &t.d, 4);
    at += 20;
  }
  return slot;
}

void add_metric(ReportShape& shape, const std::string& name, const std::string& parameter) {
  Model& model = *shape.model;
  if (!shape.metric_of.emplace(name, Index(model.metrics.size())).second) return;
  Metric metric;
  metric.id = uint32_t(model.metrics.size());
  metric.uniq_name = metric.disp_name = name;
  metric.dtype_text = "SCALE_FUNC";
  metric.dtype = DataType::parse("SCALE_FUNC");
  metric.descr = "Extra-P model of the exclusive " + name + " in " + parameter + " (x)";
  model.metrics.push_back(metric);
}

}  // namespace

void write_model_report(const std::string& path, const std::vector<CallPathModel>& models,
                        const std::vector<std::string>& parameters) {
  if (models.empty()) throw Error(path + ": no model to write");
  if (parameters.size() != 1)
    throw Error(path + ": a SCALE_FUNC value holds a model of one parameter; the series has " +
                std::to_string(parameters.size()));
  if (models.front().location)
    throw Error(path +
                ": a Cube report of models holds one model per call path and metric; "
                "model without per-location");
  const std::string& parameter = parameters.front();
  ReportShape shape;
  for (const CallPathModel& m : models) {
    add_call_path(shape, m.callpath, true);
    add_metric(shape, m.metric, parameter);
  }
  Model& model = *shape.model;
  model.attrs.emplace_back("ScaleFuncPresent", "1");
  model.attrs.emplace_back("Extra-P parameter", parameter);
  // One location: a model is a value of the series, not of a location.
  add_one_location(model, "model", "model", "model");
  // slots[metric][cnode]; call paths without a model of an exclusive value stay empty.
  std::vector<std::vector<std::vector<std::byte>>> slots(
      model.metrics.size(), std::vector<std::vector<std::byte>>(model.cnodes.size()));
  for (const CallPathModel& m : models)
    if (m.flavour == Flavour::kExclusive)
      slots[shape.metric_of.at(m.metric)][shape.cnode_of.at(m.callpath)] = slot_of(slot_terms(m));
  model.finalize(path);
  ReportWriter writer(path, shape.model);
  for (Index metric = 0; metric < model.metrics.size(); ++metric) {
    writer.begin_metric(metric);
    for (Index c : storage_order(model, MetricKind::kExclusive))
      if (!slots[metric][c].empty()) writer.write_row(c, slots[metric][c].data());
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace cubekit
