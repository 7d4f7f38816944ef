// cubekit model on Extra-P's own single-parameter test series (extrap/single_parameter in
// ../shared: mm.x{1,10,25,50,100,250,500,1000,2000}y1z1.r1) chooses Extra-P's models.
//
// The expectations are oracle data, produced with Extra-P 4.2.5 (github.com/extra-p/extrap,
// commit 291ac81) and pyCubexR from Debian's Python 3 packages: the series' files linked into
// a folder per experiment (mm.x10y1z1.r1/profile.cubex ...), then for each flavour
//   reader = CubeFileReader2(); reader.use_inclusive_measurements = (flavour == "incl")
//   generator = ModelGenerator(reader.read_experiment(folder)); generator.model_all()
// and each model's hypothesis printed (constant, the term's coefficient and exponents, RSS,
// SMAPE, AR2) with Python's repr. `extrapcmd --cube folder --print functions` prints the same
// exclusive models.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cubekit/perf_model.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

struct ExtrapModel {
  const char* callpath;  // names joined with "->", as Extra-P writes call paths
  const char* metric;
  const char* flavour;
  double constant, coefficient, exponent;  // coefficient 0: a constant model
  int log_exponent;
  double rss, smape, adjusted_r2;
};

const ExtrapModel kExtrapModels[] = {
    {"main", "visits", "excl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->init_mat", "visits", "excl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->zero_mat", "visits", "excl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->mat_mul", "visits", "excl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main", "time", "excl", 1.4376111111111112e-05, 0.0, 0.0, 0, 3.4617346688888893e-10,
     23.10166181741038, 1.0},
    {"main->init_mat", "time", "excl", 3.466518734430645e-06, 5.224494233337317e-10, 0.75, 2,
     4.729382891734051e-13, 3.3738045809043262, 0.9983168924695861},
    {"main->zero_mat", "time", "excl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75, 2,
     5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"main->mat_mul", "time", "excl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75, 2,
     3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"main", "min_time", "excl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"main->init_mat", "min_time", "excl", 1.0316666666666666e-06, 0.0, 0.0, 0,
     5.779199999999999e-14, 4.629416731984315, 1.0},
    {"main->zero_mat", "min_time", "excl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75, 2,
     5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"main->mat_mul", "min_time", "excl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75, 2,
     3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"main", "max_time", "excl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"main->init_mat", "max_time", "excl", 2.4158145308741547e-06, 5.249539565463017e-10, 0.75, 2,
     3.900842716954265e-13, 2.8302285399136147, 0.9986244845781089},
    {"main->zero_mat", "max_time", "excl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75, 2,
     5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"main->mat_mul", "max_time", "excl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75, 2,
     3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"main", "PAPI_FP_OPS", "excl", 8.503195088109017, -0.022306741162339556, 0.0, 2,
     22.970050170441855, 17.074159367605784, -0.31257429545382},
    {"main->init_mat", "PAPI_FP_OPS", "excl", 12.18176874704147, 1.8740762401617452, 1.0, 0,
     2313.7113094174715, 6.409581860966742, 0.9997911395998916},
    {"main->zero_mat", "PAPI_FP_OPS", "excl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->mat_mul", "PAPI_FP_OPS", "excl", 3.0786609188483705, 2.0196372082648293, 1.0, 0,
     6319.418539981048, 13.638736742323754, 0.9995088063184838},
    {"main", "PAPI_L3_TCM", "excl", 12.666666666666666, 0.0, 0.0, 0, 858.0000000000002,
     45.724063856870266, 1.0},
    {"main->init_mat", "PAPI_L3_TCM", "excl", 2.6993177857131965, 0.0011899157954574089,
     0.3333333333333333, 2, 7.705024521664026, 22.338951637548732, -0.16546589403321366},
    {"main->zero_mat", "PAPI_L3_TCM", "excl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->mat_mul", "PAPI_L3_TCM", "excl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main", "PAPI_L2_TCM", "excl", 223.75818958612055, 1.0797745804415476e-09, 2.5, 2,
     2071.6736602603714, 5.346788780575408, -0.16313555473133756},
    {"main->init_mat", "PAPI_L2_TCM", "excl", 37.10040930962666, 0.09991436507755212, 0.5, 1,
     93.34671048440474, 5.431219782738459, 0.9534862128885827},
    {"main->zero_mat", "PAPI_L2_TCM", "excl", 4.203385882973248, 0.19518833577918118,
     0.6666666666666666, 0, 268.67466127222445, 28.950010254574785, 0.6843866147033846},
    {"main->mat_mul", "PAPI_L2_TCM", "excl", 0.2433845220120512, 0.1515837846316905, 0.0, 1,
     4.68045209495658, 65.57514063301892, 0.03716414046607508},
    {"main", "visits", "incl", 5.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->init_mat", "visits", "incl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->zero_mat", "visits", "incl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->mat_mul", "visits", "incl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main", "time", "incl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"main->init_mat", "time", "incl", 3.466518734430645e-06, 5.224494233337317e-10, 0.75, 2,
     4.729382891734051e-13, 3.3738045809043262, 0.9983168924695861},
    {"main->zero_mat", "time", "incl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75, 2,
     5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"main->mat_mul", "time", "incl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75, 2,
     3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"main", "min_time", "incl", 1.0293333333333332e-06, 0.0, 0.0, 0, 4.8846000000000046e-14,
     4.317451028365844, 1.0},
    {"main->init_mat", "min_time", "incl", 1.0316666666666666e-06, 0.0, 0.0, 0,
     5.779199999999999e-14, 4.629416731984315, 1.0},
    {"main->zero_mat", "min_time", "incl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75, 2,
     5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"main->mat_mul", "min_time", "incl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75, 2,
     3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"main", "max_time", "incl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"main->init_mat", "max_time", "incl", 2.4158145308741547e-06, 5.249539565463017e-10, 0.75, 2,
     3.900842716954265e-13, 2.8302285399136147, 0.9986244845781089},
    {"main->zero_mat", "max_time", "incl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75, 2,
     5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"main->mat_mul", "max_time", "incl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75, 2,
     3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"main", "PAPI_FP_OPS", "incl", 23.16318248176768, 3.8924114221707566, 1.0, 0,
     2155.087419390213, 5.992513260074533, 0.9999548992444601},
    {"main->init_mat", "PAPI_FP_OPS", "incl", 12.18176874704147, 1.8740762401617452, 1.0, 0,
     2313.7113094174715, 6.409581860966742, 0.9997911395998916},
    {"main->zero_mat", "PAPI_FP_OPS", "incl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->mat_mul", "PAPI_FP_OPS", "incl", 3.0786609188483705, 2.0196372082648293, 1.0, 0,
     6319.418539981048, 13.638736742323754, 0.9995088063184838},
    {"main", "PAPI_L3_TCM", "incl", 15.88888888888889, 0.0, 0.0, 0, 844.8888888888888,
     35.65872227262084, 1.0},
    {"main->init_mat", "PAPI_L3_TCM", "incl", 2.6993177857131965, 0.0011899157954574089,
     0.3333333333333333, 2, 7.705024521664026, 22.338951637548732, -0.16546589403321366},
    {"main->zero_mat", "PAPI_L3_TCM", "incl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main->mat_mul", "PAPI_L3_TCM", "incl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"main", "PAPI_L2_TCM", "incl", 269.6315383145664, 0.05190959226852215, 1.0, 0,
     1816.4595537486164, 4.024502529853293, 0.81144834008059},
    {"main->init_mat", "PAPI_L2_TCM", "incl", 37.10040930962666, 0.09991436507755212, 0.5, 1,
     93.34671048440474, 5.431219782738459, 0.9534862128885827},
    {"main->zero_mat", "PAPI_L2_TCM", "incl", 4.203385882973248, 0.19518833577918118,
     0.6666666666666666, 0, 268.67466127222445, 28.950010254574785, 0.6843866147033846},
    {"main->mat_mul", "PAPI_L2_TCM", "incl", 0.2433845220120512, 0.1515837846316905, 0.0, 1,
     4.68045209495658, 65.57514063301892, 0.03716414046607508},
};

// Relative 1e-6; a value that is 0 in one must be 0 (to rounding) in the other.
void expect_close(double ours, double extrap, const std::string& what) {
  EXPECT_NEAR(ours, extrap, 1e-6 * std::max(std::abs(extrap), 1e-300)) << what;
}

TEST(ExtrapOracle, SingleParameterSeriesGivesExtrapsModels) {
  CUBEKIT_REQUIRE_SHARED();
  test::TempDir folder("extrap-series");
  const std::filesystem::path real = test::shared_dir() / "data/real/extrap/single_parameter";
  for (const auto& entry : std::filesystem::directory_iterator(real)) {
    const std::filesystem::path experiment = folder.path() / entry.path().stem();
    std::filesystem::create_directory(experiment);
    std::filesystem::create_symlink(entry.path(), experiment / "profile.cubex");
  }
  const Series series = read_series_folder(folder.path().string());
  ASSERT_EQ(series.parameters, std::vector<std::string>{"x"});
  std::map<std::string, CallPathModel> ours;
  for (CallPathModel& m : model_series(series)) {
    std::string key;
    for (const std::string& name : m.callpath) key += (key.empty() ? "" : "->") + name;
    key += std::string(" ") + m.metric + (m.flavour == Flavour::kInclusive ? " incl" : " excl");
    ours[key] = std::move(m);
  }
  // Extra-P skips bytes_get and bytes_put (no data stored): 4 call paths × 7 metrics × 2.
  EXPECT_EQ(ours.size(), std::size(kExtrapModels));
  for (const ExtrapModel& e : kExtrapModels) {
    const std::string key = std::string(e.callpath) + " " + e.metric + " " + e.flavour;
    const auto it = ours.find(key);
    ASSERT_NE(it, ours.end()) << key;
    const PerformanceModel& m = it->second.model;
    const std::string what = key + ": " + m.formula();
    expect_close(m.constant, e.constant, what);
    ASSERT_EQ(m.terms.size(), e.coefficient == 0 ? 0u : 1u) << what;
    if (!m.terms.empty()) {
      expect_close(m.terms[0].coefficient, e.coefficient, what);
      EXPECT_DOUBLE_EQ(m.terms[0].exponent(), e.exponent) << what;
      EXPECT_EQ(m.terms[0].log_exponent, e.log_exponent) << what;
    }
    expect_close(m.rss, e.rss, what + " (RSS)");
    expect_close(m.smape, e.smape, what + " (SMAPE)");
    expect_close(m.adjusted_r2, e.adjusted_r2, what + " (adjusted R^2)");
  }
}

}  // namespace
}  // namespace cubekit
