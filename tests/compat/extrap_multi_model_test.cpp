// cubekit model on multi-parameter series chooses Extra-P's multi-parameter models, on noisy
// series cubekit generates (the specs below), also with points left out of the grid. (Extra-P's
// own multi-parameter test set, tests/data/cubeset/multi_parameter, is not in ../shared; the
// one-off comparison on it is in docs/models.md.)
//
// The expectations are oracle data, produced with Extra-P 4.2.5 (github.com/extra-p/extrap,
// commit 291ac81) and pyCubexR on Debian's Python 3 packages, on the series' folders as written
// here (each generated series also by `cubekit generate --series DIR --points x=2,4,8,16,32
// --points y=1,2,4,8,16 --repetitions 3 --noise 0.05 --seed 7 --law ...`), for each flavour
//   reader = CubeFileReader2(); reader.scaling_type = "weak"
//   reader.use_inclusive_measurements = (flavour == "incl")
//   generator = ModelGenerator(reader.read_experiment(folder), use_measure=measure)
//   generator.model_all()
// and each model's hypothesis printed (constant; per term its coefficient and per factor the
// parameter and exponents; RSS, SMAPE, AR2) with Python's repr. `extrapcmd --cube folder
// --print functions` prints the same exclusive models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cubekit/perf_model.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

struct ExtrapFactor {
  const char* parameter;
  double exponent;
  int log_exponent;
};
struct ExtrapTerm {
  double coefficient;
  std::vector<ExtrapFactor> factors;
};
struct ExtrapMultiModel {
  const char* series;
  const char* callpath;  // names joined with "->", as Extra-P writes call paths
  const char* metric;
  const char* flavour;
  double constant;
  std::vector<ExtrapTerm> terms;
  double rss, smape, adjusted_r2;
};

// The generated series (GeneratedSeries below): "generated" with Extra-P's default mean,
// "generated-median" with the median of the repetitions, "cross" only the lines x = 2 and
// y = 1 and the points (8, 8) and (32, 16), "gaps" without the points (32, 16), (16, 2) and
// (4, 8), and "three" the three-parameter series. Extra-P leaves out the call paths whose rows
// are all zero.
const ExtrapMultiModel kGeneratedMulti[] = {
    {"generated",
     "main",
     "time",
     "excl",
     1.0068332689776542,
     {{-0.0002313670992097807, {{"x", 2.0, 0}}},
      {0.010046992270560209, {{"x", 2.0, 0}, {"y", 1.0, 0}}}},
     1.422557666014197,
     1.4261346271045623,
     0.9999478488725998},
    {"generated",
     "main->solve",
     "time",
     "excl",
     3.859318557155575,
     {{0.4996385558040738, {{"x", 1.5, 1}}}, {1.3543613804928112, {{"y", 1.25, 0}}}},
     243.65057018207358,
     5.5414073396752315,
     0.9996348458145655},
    {"generated",
     "main->solve->mpi",
     "time",
     "excl",
     19.85482749407504,
     {{2.928728792295303, {{"x", 0.0, 2}}}, {1.1254262736051803, {{"x", 0.0, 2}, {"y", 0.25, 1}}}},
     73.18596155114159,
     1.371586654836293,
     0.9993857079993209},
    {"generated",
     "main->io",
     "time",
     "excl",
     18.71507616579757,
     {{1.4334200265886963, {{"x", 0.6666666666666666, 1}}},
      {0.738832199270304, {{"x", 0.6666666666666666, 1}, {"y", 0.6666666666666666, 1}}}},
     1865.3045066908805,
     12.057824428435824,
     0.9983404328768896},
    {"generated",
     "main->solve",
     "visits",
     "excl",
     1.133892522139748,
     {{3.120334122604062, {{"x", 1.0, 0}}},
      {1.7372675638083495, {{"x", 1.0, 0}, {"y", 0.6666666666666666, 1}}}},
     1068.8724995090215,
     3.4723597082631446,
     0.9995602700414002},
    {"generated",
     "main",
     "time",
     "incl",
     51.9946720073483,
     {{5.0686693032134365, {{"x", 1.25, 0}}}, {2.295260131671016, {{"x", 1.25, 0}, {"y", 0.8, 0}}}},
     34328.210346847525,
     15.771880528658627,
     0.9927886160015228},
    {"generated",
     "main->solve",
     "time",
     "incl",
     32.01681436533249,
     {{4.4659368524218825, {{"x", 1.3333333333333333, 0}}},
      {0.5493250808643806, {{"x", 1.3333333333333333, 0}, {"y", 0.6666666666666666, 0}}}},
     12947.422708911665,
     16.934221906664927,
     0.9890492947352713},
    {"generated",
     "main->solve->mpi",
     "time",
     "incl",
     19.85482749407504,
     {{2.928728792295303, {{"x", 0.0, 2}}}, {1.1254262736051803, {{"x", 0.0, 2}, {"y", 0.25, 1}}}},
     73.18596155114159,
     1.371586654836293,
     0.9993857079993209},
    {"generated",
     "main->io",
     "time",
     "incl",
     18.71507616579757,
     {{1.4334200265886963, {{"x", 0.6666666666666666, 1}}},
      {0.738832199270304, {{"x", 0.6666666666666666, 1}, {"y", 0.6666666666666666, 1}}}},
     1865.3045066908805,
     12.057824428435824,
     0.9983404328768896},
    {"generated",
     "main->solve",
     "visits",
     "incl",
     1.133892522139748,
     {{3.120334122604062, {{"x", 1.0, 0}}},
      {1.7372675638083495, {{"x", 1.0, 0}, {"y", 0.6666666666666666, 1}}}},
     1068.8724995090215,
     3.4723597082631446,
     0.9995602700414002},
    {"generated-median",
     "main",
     "time",
     "excl",
     0.9826125813627815,
     {{-0.0005887682735207529, {{"x", 2.0, 0}}},
      {0.01012744001137619, {{"x", 2.0, 0}, {"y", 1.0, 0}}}},
     5.074401464360865,
     2.4616199554505616,
     0.9998159749250036},
    {"generated-median",
     "main->solve",
     "time",
     "excl",
     1.3459524358505037,
     {{0.497479599424115, {{"x", 1.5, 1}}}, {2.808565433535867, {{"y", 1.0, 0}}}},
     192.2197794083034,
     4.157329913437213,
     0.9997093823203338},
    {"generated-median",
     "main->solve->mpi",
     "time",
     "excl",
     20.05870403101874,
     {{2.9295353979087704, {{"x", 0.0, 2}}}, {1.1125435400386725, {{"x", 0.0, 2}, {"y", 0.25, 1}}}},
     81.31127793183447,
     1.613656934416426,
     0.9993061532542394},
    {"generated-median",
     "main->io",
     "time",
     "excl",
     18.751339673506152,
     {{1.4554858069639576, {{"x", 0.6666666666666666, 1}}},
      {0.7372530966432267, {{"x", 0.6666666666666666, 1}, {"y", 0.6666666666666666, 1}}}},
     2304.673369120186,
     12.400441387310957,
     0.9979464879146105},
    {"generated-median",
     "main->solve",
     "visits",
     "excl",
     0.3335694735613109,
     {{3.175970126347451, {{"x", 1.0, 0}}},
      {1.7445954362143454, {{"x", 1.0, 0}, {"y", 0.6666666666666666, 1}}}},
     2425.6904384664895,
     2.922187798847892,
     0.9990125709711007},
    {"generated-median",
     "main",
     "time",
     "incl",
     51.51560172934986,
     {{5.081328339670651, {{"x", 1.25, 0}}}, {2.304258782293256, {{"x", 1.25, 0}, {"y", 0.8, 0}}}},
     33675.02038033434,
     15.69456182665276,
     0.9929748984834764},
    {"generated-median",
     "main->solve",
     "time",
     "incl",
     32.05683806122149,
     {{4.951515298245473, {{"x", 1.3333333333333333, 0}}},
      {0.29919548710125454, {{"x", 1.3333333333333333, 0}, {"y", 0.3333333333333333, 1}}}},
     12247.142685437933,
     16.67440276441301,
     0.9897087733005872},
    {"generated-median",
     "main->solve->mpi",
     "time",
     "incl",
     20.05870403101874,
     {{2.9295353979087704, {{"x", 0.0, 2}}}, {1.1125435400386725, {{"x", 0.0, 2}, {"y", 0.25, 1}}}},
     81.31127793183447,
     1.613656934416426,
     0.9993061532542394},
    {"generated-median",
     "main->io",
     "time",
     "incl",
     18.751339673506152,
     {{1.4554858069639576, {{"x", 0.6666666666666666, 1}}},
      {0.7372530966432267, {{"x", 0.6666666666666666, 1}, {"y", 0.6666666666666666, 1}}}},
     2304.673369120186,
     12.400441387310957,
     0.9979464879146105},
    {"generated-median",
     "main->solve",
     "visits",
     "incl",
     0.3335694735613109,
     {{3.175970126347451, {{"x", 1.0, 0}}},
      {1.7445954362143454, {{"x", 1.0, 0}, {"y", 0.6666666666666666, 1}}}},
     2425.6904384664895,
     2.922187798847892,
     0.9990125709711007},
    {"cross",
     "main",
     "time",
     "excl",
     0.9199519082604283,
     {{-0.008262167022207785, {{"x", 2.0, 0}}},
      {0.018422024843572495, {{"x", 2.0, 0}, {"y", 0.8, 0}}}},
     0.2899971288456909,
     4.219137681207757,
     0.9999828827338155},
    {"cross",
     "main->solve",
     "time",
     "excl",
     1.2098344878258833,
     {{0.5006785529719363, {{"x", 1.5, 1}}}, {2.7064469816735865, {{"y", 1.0, 0}}}},
     47.44541351995222,
     5.256464850269052,
     0.9998205376354627},
    {"cross",
     "main->solve->mpi",
     "time",
     "excl",
     21.103545971272162,
     {{2.934758786979496, {{"x", 0.0, 2}}}, {0.5561232184660203, {{"x", 0.0, 2}, {"y", 0.5, 1}}}},
     34.363180233309365,
     1.8380385253106435,
     0.9993276122030218},
    {"cross",
     "main->io",
     "time",
     "excl",
     12.49088367341318,
     {{2.1496858256728775, {{"y", 1.0, 0}}}, {1.026545743272194, {{"x", 0.25, 2}, {"y", 1.0, 0}}}},
     473.29019399184256,
     11.89589297148868,
     0.9992306044982003},
    {"cross",
     "main->solve",
     "visits",
     "excl",
     1.432913472554906,
     {{3.772478442880699, {{"y", 1.0, 0}}}, {1.3338417729858945, {{"x", 0.75, 1}, {"y", 1.0, 0}}}},
     48.13550843477292,
     5.384570256338748,
     0.9999641358404047},
    {"cross",
     "main",
     "time",
     "incl",
     66.07646192750369,
     {{2.7329898364613974, {{"x", 1.5, 0}}}, {0.49870092441229463, {{"x", 1.5, 0}, {"y", 1.0, 0}}}},
     14822.034439714706,
     26.033641715814827,
     0.9936548867728614},
    {"cross",
     "main->solve",
     "time",
     "incl",
     43.25752099390918,
     {{1.3331285528056285, {{"x", 1.25, 1}}},
      {0.02706265513860573, {{"x", 1.25, 1}, {"y", 0.6666666666666666, 1}}}},
     4331.912369894797,
     23.439072645894417,
     0.9905744457521677},
    {"cross",
     "main->solve->mpi",
     "time",
     "incl",
     21.103545971272162,
     {{2.934758786979496, {{"x", 0.0, 2}}}, {0.5561232184660203, {{"x", 0.0, 2}, {"y", 0.5, 1}}}},
     34.363180233309365,
     1.8380385253106435,
     0.9993276122030218},
    {"cross",
     "main->io",
     "time",
     "incl",
     12.49088367341318,
     {{2.1496858256728775, {{"y", 1.0, 0}}}, {1.026545743272194, {{"x", 0.25, 2}, {"y", 1.0, 0}}}},
     473.29019399184256,
     11.89589297148868,
     0.9992306044982003},
    {"cross",
     "main->solve",
     "visits",
     "incl",
     1.432913472554906,
     {{3.772478442880699, {{"y", 1.0, 0}}}, {1.3338417729858945, {{"x", 0.75, 1}, {"y", 1.0, 0}}}},
     48.13550843477292,
     5.384570256338748,
     0.9999641358404047},
    {"gaps",
     "main",
     "time",
     "excl",
     1.037801138932116,
     {{0.00014482616046081025, {{"x", 2.0, 0}}},
      {0.009914819476459492, {{"x", 2.0, 0}, {"y", 1.0, 0}}}},
     0.42619854808076457,
     1.463297673852818,
     0.9999398009421082},
    {"gaps",
     "main->solve",
     "time",
     "excl",
     0.565814017505348,
     {{0.5012791169453901, {{"x", 1.5, 1}}}, {2.900348857385873, {{"y", 1.0, 0}}}},
     207.63156487034865,
     2.3054995662692606,
     0.9996112516542422},
    {"gaps",
     "main->solve->mpi",
     "time",
     "excl",
     19.556134576214724,
     {{-0.05819888172964527, {{"x", 0.0, 2}}}, {3.06524016740301, {{"x", 0.0, 2}, {"y", 0.5, 0}}}},
     66.63101638213006,
     1.4099258628263627,
     0.9990740891627444},
    {"gaps",
     "main->io",
     "time",
     "excl",
     17.07397939135212,
     {{1.4012320217864818, {{"x", 0.6666666666666666, 1}}},
      {0.7602031277447032, {{"x", 0.6666666666666666, 1}, {"y", 0.6666666666666666, 1}}}},
     1372.114974816481,
     11.241958196268097,
     0.9968996702624646},
    {"gaps",
     "main->solve",
     "visits",
     "excl",
     -1.2086198405279913,
     {{-0.029842773959791735, {{"x", 1.0, 0}}},
      {3.034699140068376, {{"x", 1.0, 0}, {"y", 1.0, 0}}}},
     261.93144085004633,
     3.789555849644892,
     0.9997198021047563},
    {"gaps",
     "main",
     "time",
     "incl",
     63.96976546971341,
     {{3.3258007617006373, {{"x", 1.3333333333333333, 0}}},
      {1.9015578641963184, {{"x", 1.3333333333333333, 0}, {"y", 0.8, 0}}}},
     39994.88980706152,
     18.52897700427908,
     0.9834077330976891},
    {"gaps",
     "main->solve",
     "time",
     "incl",
     -20.469174959066336,
     {{3.2985247529674773, {{"x", 1.5, 0}}}, {23.227119533338264, {{"y", 0.6666666666666666, 0}}}},
     13355.572546828405,
     16.64439612765397,
     0.9851383736568158},
    {"gaps",
     "main->solve->mpi",
     "time",
     "incl",
     19.556134576214724,
     {{-0.05819888172964527, {{"x", 0.0, 2}}}, {3.06524016740301, {{"x", 0.0, 2}, {"y", 0.5, 0}}}},
     66.63101638213006,
     1.4099258628263627,
     0.9990740891627444},
    {"gaps",
     "main->io",
     "time",
     "incl",
     17.07397939135212,
     {{1.4012320217864818, {{"x", 0.6666666666666666, 1}}},
      {0.7602031277447032, {{"x", 0.6666666666666666, 1}, {"y", 0.6666666666666666, 1}}}},
     1372.114974816481,
     11.241958196268097,
     0.9968996702624646},
    {"gaps",
     "main->solve",
     "visits",
     "incl",
     -1.2086198405279913,
     {{-0.029842773959791735, {{"x", 1.0, 0}}},
      {3.034699140068376, {{"x", 1.0, 0}, {"y", 1.0, 0}}}},
     261.93144085004633,
     3.789555849644892,
     0.9997198021047563},
    {"three",
     "main",
     "time",
     "excl",
     3.7599327014182,
     {{0.2041952083650851, {{"p", 1.0, 0}}}, {0.9968550168626336, {{"p", 1.0, 0}, {"n", 1.0, 0}}}},
     30959.309601631867,
     2.3625687505907784,
     0.9997463458774862},
    {"three",
     "main->comm",
     "time",
     "excl",
     -0.03625557175778739,
     {{1.015062469258356, {{"p", 0.0, 1}, {"n", 0.5, 0}}},
      {1.0024033133816772, {{"t", 2.0, 0}}},
      {-0.10637304650523194, {{"p", 0.0, 1}}}},
     62.692035360425336,
     1.3658667582859838,
     0.9991615025560001},
    {"three",
     "main->calc",
     "time",
     "excl",
     -14.028888747154209,
     {{-0.09128250931734197, {{"p", 0.0, 1}, {"n", 2.0, 0}, {"t", 1.0, 0}}},
      {0.48534839624637344, {{"n", 2.0, 0}, {"t", 1.0, 0}}},
      {3.3015911171250525, {{"p", 0.0, 1}}}},
     125939080.14062715,
     60.904831845523034,
     0.8790427227114633},
    {"three",
     "main",
     "time",
     "incl",
     140.5275916251748,
     {{1.1070598805350884, {{"n", 1.6666666666666667, 0}}},
      {0.7049100075920798, {{"n", 1.6666666666666667, 0}, {"t", 1.0, 0}}}},
     501901037.18088305,
     45.99831483703192,
     0.5491395716563748},
    {"three",
     "main->comm",
     "time",
     "incl",
     -0.03625557175778739,
     {{1.015062469258356, {{"p", 0.0, 1}, {"n", 0.5, 0}}},
      {1.0024033133816772, {{"t", 2.0, 0}}},
      {-0.10637304650523194, {{"p", 0.0, 1}}}},
     62.692035360425336,
     1.3658667582859838,
     0.9991615025560001},
    {"three",
     "main->calc",
     "time",
     "incl",
     -14.028888747154209,
     {{-0.09128250931734197, {{"p", 0.0, 1}, {"n", 2.0, 0}, {"t", 1.0, 0}}},
      {0.48534839624637344, {{"n", 2.0, 0}, {"t", 1.0, 0}}},
      {3.3015911171250525, {{"p", 0.0, 1}}}},
     125939080.14062715,
     60.904831845523034,
     0.8790427227114633},
};

void expect_close_multi(double ours, double extrap, double residue, const std::string& what) {
  EXPECT_NEAR(ours, extrap, 1e-6 * std::abs(extrap) + residue) << what;
}

// "x^(1) * y^(2/3) * log2(y)^(1)" of a term's factors, sorted by parameter, for matching.
std::string factors_key(std::vector<std::pair<std::string, std::pair<double, int>>> factors) {
  std::sort(factors.begin(), factors.end());
  std::string key;
  for (const auto& [parameter, exponents] : factors)
    key += parameter + "^" + std::to_string(exponents.first) + "*log" +
           std::to_string(exponents.second) + " ";
  return key;
}

void expect_model(const PerformanceModel& m, const ExtrapMultiModel& e, const std::string& what) {
  double scale = std::abs(e.constant);
  std::map<std::string, double> expected;
  for (const ExtrapTerm& t : e.terms) {
    std::vector<std::pair<std::string, std::pair<double, int>>> factors;
    for (const ExtrapFactor& f : t.factors)
      factors.push_back({f.parameter, {f.exponent, f.log_exponent}});
    expected[factors_key(factors)] = t.coefficient;
    scale = std::max(scale, std::abs(t.coefficient));
  }
  expect_close_multi(m.constant, e.constant, 1e-12 * scale, what);
  ASSERT_EQ(m.terms.size(), e.terms.size()) << what;
  for (const ModelTerm& t : m.terms) {
    std::vector<std::pair<std::string, std::pair<double, int>>> factors;
    for (const TermFactor& f : t.factors())
      factors.push_back({f.parameter, {f.exponent(), f.log_exponent}});
    const auto it = expected.find(factors_key(factors));
    ASSERT_NE(it, expected.end()) << what << ": Extra-P has no term " << factors_key(factors);
    expect_close_multi(t.coefficient, it->second, 1e-12 * scale, what);
  }
  expect_close_multi(m.rss, e.rss, 1e-12 * scale * scale, what + " (RSS)");
  expect_close_multi(m.smape, e.smape, 1e-9, what + " (SMAPE)");
  expect_close_multi(m.adjusted_r2, e.adjusted_r2, 0, what + " (adjusted R^2)");
}

// Compares the models of `series` with the expectations labelled `label`; returns how many.
size_t expect_extrap_multi_models(const Series& series, const SeriesOptions& options,
                                  const ExtrapMultiModel* begin, const ExtrapMultiModel* end,
                                  const std::string& label) {
  std::map<std::string, CallPathModel> ours;
  for (CallPathModel& m : model_series(series, options).models) {
    std::string key;
    for (const std::string& name : m.callpath) key += (key.empty() ? "" : "->") + name;
    key += std::string(" ") + m.metric + (m.flavour == Flavour::kInclusive ? " incl" : " excl");
    ours[key] = std::move(m);
  }
  size_t compared = 0;
  for (const ExtrapMultiModel* e = begin; e != end; ++e) {
    if (e->series != label) continue;
    ++compared;
    const std::string key = std::string(e->callpath) + " " + e->metric + " " + e->flavour;
    const auto it = ours.find(key);
    if (it == ours.end()) {
      ADD_FAILURE() << label << ": no model of " << key;
      continue;
    }
    expect_model(it->second.model, *e, label + " " + key + ": " + it->second.model.formula());
  }
  EXPECT_GT(compared, 0u) << label;
  return compared;
}

SeriesSpec generated_spec() {
  SeriesSpec spec;
  spec.parameter = "x";
  spec.points = {2, 4, 8, 16, 32};
  spec.further_parameters = {{"y", {1, 2, 4, 8, 16}}};
  spec.repetitions = 3;
  spec.noise = 0.05;
  spec.seed = 7;
  spec.laws = {{{"main"}, "time", "1+0.01*x^2*y"},
               {{"main", "solve"}, "time", "0.5*x^1.5*log2(x)+3*y"},
               {{"main", "solve", "mpi"}, "time", "20+3*log2(x)^2*y^0.5"},
               {{"main", "solve"}, "visits", "3*x*y"},
               {{"main", "io"}, "time", "5*sqrt(x)+2*x*y"}};
  return spec;
}

// Removes the repetitions of the points for which `drop(x, y)` holds.
void drop_points(const std::filesystem::path& folder, bool (*drop)(int, int)) {
  for (int x : {2, 4, 8, 16, 32})
    for (int y : {1, 2, 4, 8, 16})
      if (drop(x, y))
        for (int r = 1; r <= 3; ++r)
          std::filesystem::remove_all(folder / ("exp.x" + std::to_string(x) + "y" +
                                                std::to_string(y) + ".r" + std::to_string(r)));
}

TEST(ExtrapMultiParameter, GeneratedSeriesGivesExtrapsModels) {
  const auto* begin = std::begin(kGeneratedMulti);
  const auto* end = std::end(kGeneratedMulti);
  test::TempDir folder("extrap-series");
  write_series(folder.path().string(), generated_spec());
  const Series full = read_series_folder(folder.path().string());
  ASSERT_EQ(full.parameters, (std::vector<std::string>{"x", "y"}));
  expect_extrap_multi_models(full, {}, begin, end, "generated");
  SeriesOptions median;
  median.measure = Measure::kMedian;
  expect_extrap_multi_models(full, median, begin, end, "generated-median");

  test::TempDir cross("extrap-series");
  write_series(cross.path().string(), generated_spec());
  drop_points(cross.path(), [](int x, int y) {
    return x != 2 && y != 1 && !(x == 8 && y == 8) && !(x == 32 && y == 16);
  });
  expect_extrap_multi_models(read_series_folder(cross.path().string()), {}, begin, end, "cross");

  test::TempDir gaps("extrap-series");
  write_series(gaps.path().string(), generated_spec());
  drop_points(gaps.path(), [](int x, int y) {
    return (x == 32 && y == 16) || (x == 16 && y == 2) || (x == 4 && y == 8);
  });
  expect_extrap_multi_models(read_series_folder(gaps.path().string()), {}, begin, end, "gaps");
}

TEST(ExtrapMultiParameter, ThreeParameterSeriesGivesExtrapsModels) {
  test::TempDir folder("extrap-series");
  SeriesSpec spec;
  spec.parameter = "p";
  spec.points = {2, 4, 8, 16, 32, 64};
  spec.further_parameters = {{"n", {10, 20, 40, 80}}, {"t", {1, 2, 4, 8}}};
  spec.noise = 0.03;
  spec.seed = 5;
  spec.laws = {{{"main"}, "time", "2+p*n"},
               {{"main", "comm"}, "time", "log2(p)*n^0.5+t^2"},
               {{"main", "calc"}, "time", "n^2*t/p"}};
  write_series(folder.path().string(), spec);
  expect_extrap_multi_models(read_series_folder(folder.path().string()), {},
                             std::begin(kGeneratedMulti), std::end(kGeneratedMulti), "three");
}

}  // namespace
}  // namespace cubekit
