// cubekit model on Extra-P's own test series chooses Extra-P's models: the single-parameter
// series (../shared extrap/single_parameter: mm.x{1,10,...,2000}y1z1.r1, one location each) and
// the threaded one (extrap/simple_threaded: cube-example{1..5}, in Extra-P's tests as
// example.f{1..5}, two threads each, so weak and strong scaling differ).
//
// The expectations are oracle data, produced with Extra-P 4.2.5 (github.com/extra-p/extrap,
// commit 291ac81) and pyCubexR on Debian's Python 3 packages: the series' files linked into a
// folder per experiment as Extra-P's tests have them, then for each scaling and flavour
//   reader = CubeFileReader2(); reader.scaling_type = scaling
//   reader.use_inclusive_measurements = (flavour == "incl")
//   generator = ModelGenerator(reader.read_experiment(folder)); generator.model_all()
// and each model's hypothesis printed (constant, the term's coefficient and exponents, RSS,
// SMAPE, AR2) with Python's repr. `extrapcmd --cube folder --print functions` prints the same
// exclusive weak-scaling models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cubekit/perf_model.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

struct ExtrapModel {
  const char* scaling;
  const char* callpath;  // names joined with "->", as Extra-P writes call paths
  const char* metric;
  const char* flavour;
  double constant, coefficient, exponent;  // coefficient 0: a constant model
  int log_exponent;
  double rss, smape, adjusted_r2;
};

const ExtrapModel kSingleParameter[] = {
    {"weak", "main", "visits", "excl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->init_mat", "visits", "excl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->zero_mat", "visits", "excl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->mat_mul", "visits", "excl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main", "time", "excl", 1.4376111111111112e-05, 0.0, 0.0, 0, 3.4617346688888893e-10,
     23.10166181741038, 1.0},
    {"weak", "main->init_mat", "time", "excl", 3.466518734430645e-06, 5.224494233337317e-10, 0.75,
     2, 4.729382891734051e-13, 3.3738045809043262, 0.9983168924695861},
    {"weak", "main->zero_mat", "time", "excl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75,
     2, 5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"weak", "main->mat_mul", "time", "excl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75,
     2, 3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"weak", "main", "min_time", "excl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"weak", "main->init_mat", "min_time", "excl", 1.0316666666666666e-06, 0.0, 0.0, 0,
     5.779199999999999e-14, 4.629416731984315, 1.0},
    {"weak", "main->zero_mat", "min_time", "excl", 1.1074519895541116e-06, 6.529544384104485e-11,
     0.75, 2, 5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"weak", "main->mat_mul", "min_time", "excl", 1.1170727189110314e-06, 1.5144249911961047e-10,
     0.75, 2, 3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"weak", "main", "max_time", "excl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"weak", "main->init_mat", "max_time", "excl", 2.4158145308741547e-06, 5.249539565463017e-10,
     0.75, 2, 3.900842716954265e-13, 2.8302285399136147, 0.9986244845781089},
    {"weak", "main->zero_mat", "max_time", "excl", 1.1074519895541116e-06, 6.529544384104485e-11,
     0.75, 2, 5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"weak", "main->mat_mul", "max_time", "excl", 1.1170727189110314e-06, 1.5144249911961047e-10,
     0.75, 2, 3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"weak", "main", "PAPI_FP_OPS", "excl", 8.503195088109017, -0.022306741162339556, 0.0, 2,
     22.970050170441855, 17.074159367605784, -0.31257429545382},
    {"weak", "main->init_mat", "PAPI_FP_OPS", "excl", 12.18176874704147, 1.8740762401617452, 1.0, 0,
     2313.7113094174715, 6.409581860966742, 0.9997911395998916},
    {"weak", "main->zero_mat", "PAPI_FP_OPS", "excl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->mat_mul", "PAPI_FP_OPS", "excl", 3.0786609188483705, 2.0196372082648293, 1.0, 0,
     6319.418539981048, 13.638736742323754, 0.9995088063184838},
    {"weak", "main", "PAPI_L3_TCM", "excl", 12.666666666666666, 0.0, 0.0, 0, 858.0000000000002,
     45.724063856870266, 1.0},
    {"weak", "main->init_mat", "PAPI_L3_TCM", "excl", 2.6993177857131965, 0.0011899157954574089,
     0.3333333333333333, 2, 7.705024521664026, 22.338951637548732, -0.16546589403321366},
    {"weak", "main->zero_mat", "PAPI_L3_TCM", "excl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->mat_mul", "PAPI_L3_TCM", "excl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main", "PAPI_L2_TCM", "excl", 223.75818958612055, 1.0797745804415476e-09, 2.5, 2,
     2071.6736602603714, 5.346788780575408, -0.16313555473133756},
    {"weak", "main->init_mat", "PAPI_L2_TCM", "excl", 37.10040930962666, 0.09991436507755212, 0.5,
     1, 93.34671048440474, 5.431219782738459, 0.9534862128885827},
    {"weak", "main->zero_mat", "PAPI_L2_TCM", "excl", 4.203385882973248, 0.19518833577918118,
     0.6666666666666666, 0, 268.67466127222445, 28.950010254574785, 0.6843866147033846},
    {"weak", "main->mat_mul", "PAPI_L2_TCM", "excl", 0.2433845220120512, 0.1515837846316905, 0.0, 1,
     4.68045209495658, 65.57514063301892, 0.03716414046607508},
    {"weak", "main", "visits", "incl", 5.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->init_mat", "visits", "incl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->zero_mat", "visits", "incl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->mat_mul", "visits", "incl", 1.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main", "time", "incl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"weak", "main->init_mat", "time", "incl", 3.466518734430645e-06, 5.224494233337317e-10, 0.75,
     2, 4.729382891734051e-13, 3.3738045809043262, 0.9983168924695861},
    {"weak", "main->zero_mat", "time", "incl", 1.1074519895541116e-06, 6.529544384104485e-11, 0.75,
     2, 5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"weak", "main->mat_mul", "time", "incl", 1.1170727189110314e-06, 1.5144249911961047e-10, 0.75,
     2, 3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"weak", "main", "min_time", "incl", 1.0293333333333332e-06, 0.0, 0.0, 0,
     4.8846000000000046e-14, 4.317451028365844, 1.0},
    {"weak", "main->init_mat", "min_time", "incl", 1.0316666666666666e-06, 0.0, 0.0, 0,
     5.779199999999999e-14, 4.629416731984315, 1.0},
    {"weak", "main->zero_mat", "min_time", "incl", 1.1074519895541116e-06, 6.529544384104485e-11,
     0.75, 2, 5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"weak", "main->mat_mul", "min_time", "incl", 1.1170727189110314e-06, 1.5144249911961047e-10,
     0.75, 2, 3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"weak", "main", "max_time", "incl", 2.1432113201334504e-05, 1.6291473109901011e-10, 1.25, 1,
     4.695664542329087e-10, 19.35828714625514, 0.36650138750500627},
    {"weak", "main->init_mat", "max_time", "incl", 2.4158145308741547e-06, 5.249539565463017e-10,
     0.75, 2, 3.900842716954265e-13, 2.8302285399136147, 0.9986244845781089},
    {"weak", "main->zero_mat", "max_time", "incl", 1.1074519895541116e-06, 6.529544384104485e-11,
     0.75, 2, 5.6235041912734804e-14, 3.9974913740830207, 0.9872598407810511},
    {"weak", "main->mat_mul", "max_time", "incl", 1.1170727189110314e-06, 1.5144249911961047e-10,
     0.75, 2, 3.8534523269120094e-14, 3.3888692295816947, 0.9983681914079563},
    {"weak", "main", "PAPI_FP_OPS", "incl", 23.16318248176768, 3.8924114221707566, 1.0, 0,
     2155.087419390213, 5.992513260074533, 0.9999548992444601},
    {"weak", "main->init_mat", "PAPI_FP_OPS", "incl", 12.18176874704147, 1.8740762401617452, 1.0, 0,
     2313.7113094174715, 6.409581860966742, 0.9997911395998916},
    {"weak", "main->zero_mat", "PAPI_FP_OPS", "incl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->mat_mul", "PAPI_FP_OPS", "incl", 3.0786609188483705, 2.0196372082648293, 1.0, 0,
     6319.418539981048, 13.638736742323754, 0.9995088063184838},
    {"weak", "main", "PAPI_L3_TCM", "incl", 15.88888888888889, 0.0, 0.0, 0, 844.8888888888888,
     35.65872227262084, 1.0},
    {"weak", "main->init_mat", "PAPI_L3_TCM", "incl", 2.6993177857131965, 0.0011899157954574089,
     0.3333333333333333, 2, 7.705024521664026, 22.338951637548732, -0.16546589403321366},
    {"weak", "main->zero_mat", "PAPI_L3_TCM", "incl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->mat_mul", "PAPI_L3_TCM", "incl", 0.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main", "PAPI_L2_TCM", "incl", 269.6315383145664, 0.05190959226852215, 1.0, 0,
     1816.4595537486164, 4.024502529853293, 0.81144834008059},
    {"weak", "main->init_mat", "PAPI_L2_TCM", "incl", 37.10040930962666, 0.09991436507755212, 0.5,
     1, 93.34671048440474, 5.431219782738459, 0.9534862128885827},
    {"weak", "main->zero_mat", "PAPI_L2_TCM", "incl", 4.203385882973248, 0.19518833577918118,
     0.6666666666666666, 0, 268.67466127222445, 28.950010254574785, 0.6843866147033846},
    {"weak", "main->mat_mul", "PAPI_L2_TCM", "incl", 0.2433845220120512, 0.1515837846316905, 0.0, 1,
     4.68045209495658, 65.57514063301892, 0.03716414046607508},
};

const ExtrapModel kSimpleThreaded[] = {
    {"weak", "main", "time", "excl", -8.275113844157577e-16, 0.7000000000000002, 1.0, 0,
     6.12599796710692e-30, 3.4681252578766804e-14, 1.0},
    {"weak", "main->foo", "time", "excl", -5.163671038754328e-15, 2.475000000000001, 1.0, 0,
     3.2343297114061484e-29, 3.3254356993486175e-14, 1.0},
    {"weak", "main->bar", "time", "excl", -1.8536255010912973e-15, 2.075, 1.0, 0,
     2.9187853493177437e-29, 2.140188963132832e-14, 1.0},
    {"weak", "main->omp parallel", "time", "excl", -4.501661931221722e-15, 3.3000000000000003, 1.0,
     0, 6.7053176943786e-29, 2.135216806955857e-14, 1.0},
    {"weak", "main", "visits", "excl", 0.5, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->foo", "visits", "excl", 4.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->bar", "visits", "excl", -5.296072860260849e-15, 3.5, 1.0, 0,
     5.36425415550288e-29, 1.844027576139308e-14, 1.0},
    {"weak", "main->omp parallel", "visits", "excl", -1.0327342077508656e-14, 6.000000000000002,
     1.0, 0, 2.68212707775144e-28, 2.8026963466092845e-14, 1.0},
    {"weak", "main->zero", "visits", "excl", 0.5, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main", "time", "incl", 1.5623414937769506e-14, 8.549999999999997, 1.0, 0,
     2.6505726415425997e-28, 1.4404765013460123e-14, 1.0},
    {"weak", "main->foo", "time", "incl", -5.163671038754328e-15, 2.475000000000001, 1.0, 0,
     3.2343297114061484e-29, 3.3254356993486175e-14, 1.0},
    {"weak", "main->bar", "time", "incl", -1.8536255010912973e-15, 2.075, 1.0, 0,
     2.9187853493177437e-29, 2.140188963132832e-14, 1.0},
    {"weak", "main->omp parallel", "time", "incl", -4.501661931221722e-15, 3.3000000000000003, 1.0,
     0, 6.7053176943786e-29, 2.135216806955857e-14, 1.0},
    {"weak", "main", "visits", "incl", 5.000000000000006, 9.499999999999998, 1.0, 0,
     1.0602290566170399e-27, 4.106929674522068e-14, 1.0},
    {"weak", "main->foo", "visits", "incl", 4.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"weak", "main->bar", "visits", "incl", -5.296072860260849e-15, 3.5, 1.0, 0,
     5.36425415550288e-29, 1.844027576139308e-14, 1.0},
    {"weak", "main->omp parallel", "visits", "incl", -1.0327342077508656e-14, 6.000000000000002,
     1.0, 0, 2.68212707775144e-28, 2.8026963466092845e-14, 1.0},
    {"weak", "main->zero", "visits", "incl", 0.5, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"strong", "main", "time", "excl", -3.310045537663031e-15, 2.8000000000000007, 1.0, 0,
     9.801596747371072e-29, 3.4681252578766804e-14, 1.0},
    {"strong", "main->foo", "time", "excl", -2.0654684155017313e-14, 9.900000000000004, 1.0, 0,
     5.174927538249837e-28, 3.3254356993486175e-14, 1.0},
    {"strong", "main->bar", "time", "excl", -7.414502004365189e-15, 8.3, 1.0, 0,
     4.67005655890839e-28, 2.140188963132832e-14, 1.0},
    {"strong", "main->omp parallel", "time", "excl", -1.8006647724886887e-14, 13.200000000000001,
     1.0, 0, 1.072850831100576e-27, 2.135216806955857e-14, 1.0},
    {"strong", "main", "visits", "excl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"strong", "main->foo", "visits", "excl", 16.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"strong", "main->bar", "visits", "excl", -2.1184291441043396e-14, 14.0, 1.0, 0,
     8.582806648804608e-28, 1.844027576139308e-14, 1.0},
    {"strong", "main->omp parallel", "visits", "excl", -4.1309368310034626e-14, 24.000000000000007,
     1.0, 0, 4.291403324402304e-27, 2.8026963466092845e-14, 1.0},
    {"strong", "main->zero", "visits", "excl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"strong", "main", "time", "incl", 6.249365975107803e-14, 34.19999999999999, 1.0, 0,
     4.2409162264681595e-27, 1.4404765013460123e-14, 1.0},
    {"strong", "main->foo", "time", "incl", -2.0654684155017313e-14, 9.900000000000004, 1.0, 0,
     5.174927538249837e-28, 3.3254356993486175e-14, 1.0},
    {"strong", "main->bar", "time", "incl", -7.414502004365189e-15, 8.3, 1.0, 0,
     4.67005655890839e-28, 2.140188963132832e-14, 1.0},
    {"strong", "main->omp parallel", "time", "incl", -1.8006647724886887e-14, 13.200000000000001,
     1.0, 0, 1.072850831100576e-27, 2.135216806955857e-14, 1.0},
    {"strong", "main", "visits", "incl", 20.000000000000025, 37.99999999999999, 1.0, 0,
     1.6963664905872638e-26, 4.106929674522068e-14, 1.0},
    {"strong", "main->foo", "visits", "incl", 16.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
    {"strong", "main->bar", "visits", "incl", -2.1184291441043396e-14, 14.0, 1.0, 0,
     8.582806648804608e-28, 1.844027576139308e-14, 1.0},
    {"strong", "main->omp parallel", "visits", "incl", -4.1309368310034626e-14, 24.000000000000007,
     1.0, 0, 4.291403324402304e-27, 2.8026963466092845e-14, 1.0},
    {"strong", "main->zero", "visits", "incl", 2.0, 0.0, 0.0, 0, 0.0, 0.0, 1.0},
};

// A noisy series cubekit generates (the spec in GeneratedNoisySeries below: 6 points × 3
// repetitions, 5 % noise, seed 3), modelled by Extra-P from the reports cubekit wrote. Extra-P
// leaves out the call paths whose rows are all zero (visits of main, mpi and io).
const ExtrapModel kGenerated[] = {
    {"weak", "main", "time", "excl", 0.824214912649726, 0.010087735193309364, 2.0, 0,
     18.826476007464684, 8.465879050944809, 0.9988819727041753},
    {"weak", "main->solve", "time", "excl", 3.3444824755967932, 0.48872381622112643, 1.5, 1,
     413.15569772724314, 9.137282822138351, 0.9999723743251219},
    {"weak", "main->solve->mpi", "time", "excl", 19.722250500745062, 3.0268750510196933, 0.0, 2,
     32.82100885110622, 2.201637451692521, 0.9969249592459295},
    {"weak", "main->io", "time", "excl", -0.11199494551929078, 5.010194567812612, 0.5, 0,
     2.2169461137991995, 2.1598756235333227, 0.9982087048894842},
    {"weak", "main->solve", "visits", "excl", 3.3352124848231854, 1.4027928431108487, 0.75, 1,
     22.188294010714046, 2.156006736736003, 0.9997174254098554},
    {"weak", "main", "time", "incl", 47.86408519462881, 1.630369550251711, 1.6666666666666667, 0,
     818.6555423883361, 6.782826681967117, 0.999951797344349},
    {"weak", "main->solve", "time", "incl", 32.96538603099414, 1.5661376842490922,
     1.6666666666666667, 0, 560.8578677794613, 5.901921815099458, 0.9999642119076755},
    {"weak", "main->solve->mpi", "time", "incl", 19.722250500745062, 3.0268750510196933, 0.0, 2,
     32.82100885110622, 2.201637451692521, 0.9969249592459295},
    {"weak", "main->io", "time", "incl", -0.11199494551929078, 5.010194567812612, 0.5, 0,
     2.2169461137991995, 2.1598756235333227, 0.9982087048894842},
    {"weak", "main->solve", "visits", "incl", 3.3352124848231854, 1.4027928431108487, 0.75, 1,
     22.188294010714046, 2.156006736736003, 0.9997174254098554},
};

// Relative 1e-6, plus rounding residue: series that follow a law exactly leave constants of
// 1e-15 and RSS of 1e-30 whose digits are noise in both programs.
void expect_close(double ours, double extrap, double residue, const std::string& what) {
  EXPECT_NEAR(ours, extrap, 1e-6 * std::abs(extrap) + residue) << what;
}

std::map<std::string, CallPathModel> models_by_key(const Series& series, Scaling scaling) {
  SeriesOptions options;
  options.scaling = scaling;
  std::map<std::string, CallPathModel> ours;
  for (CallPathModel& m : model_series(series, options).models) {
    std::string key;
    for (const std::string& name : m.callpath) key += (key.empty() ? "" : "->") + name;
    key += std::string(" ") + m.metric + (m.flavour == Flavour::kInclusive ? " incl" : " excl");
    ours[key] = std::move(m);
  }
  return ours;
}

void expect_extrap_models(const std::map<std::string, CallPathModel>& ours,
                          std::span<const ExtrapModel> expected, const std::string& scaling) {
  size_t compared = 0;
  for (const ExtrapModel& e : expected) {
    if (e.scaling != scaling) continue;
    ++compared;
    const std::string key = std::string(e.callpath) + " " + e.metric + " " + e.flavour;
    const auto it = ours.find(key);
    ASSERT_NE(it, ours.end()) << key;
    const PerformanceModel& m = it->second.model;
    const std::string what = scaling + " " + key + ": " + m.formula();
    const double scale = std::max(std::abs(e.constant), std::abs(e.coefficient));
    expect_close(m.constant, e.constant, 1e-12 * scale, what);
    ASSERT_EQ(m.terms.size(), e.coefficient == 0 ? 0u : 1u) << what;
    if (!m.terms.empty()) {
      expect_close(m.terms[0].coefficient, e.coefficient, 1e-12 * scale, what);
      EXPECT_DOUBLE_EQ(m.terms[0].exponent(), e.exponent) << what;
      EXPECT_EQ(m.terms[0].log_exponent, e.log_exponent) << what;
    }
    expect_close(m.rss, e.rss, 1e-12 * scale * scale, what + " (RSS)");
    expect_close(m.smape, e.smape, 1e-9, what + " (SMAPE)");
    expect_close(m.adjusted_r2, e.adjusted_r2, 0, what + " (adjusted R^2)");
  }
  EXPECT_GT(compared, 0u);
}

// A folder of experiment folders, one per report of `real` (../shared/data/real/extrap/...),
// named by `folder_of` from the report's file name, the report linked in.
void link_series(const std::filesystem::path& into, const std::string& real,
                 const std::function<std::string(const std::filesystem::path&)>& folder_of) {
  for (const auto& entry :
       std::filesystem::directory_iterator(test::shared_dir() / "data/real/extrap" / real)) {
    const std::filesystem::path experiment = into / folder_of(entry.path());
    std::filesystem::create_directory(experiment);
    std::filesystem::create_symlink(entry.path(), experiment / entry.path().filename());
  }
}

TEST(ExtrapOracle, SingleParameterSeriesGivesExtrapsModels) {
  CUBEKIT_REQUIRE_SHARED();
  test::TempDir folder("extrap-series");
  link_series(folder.path(), "single_parameter",
              [](const std::filesystem::path& file) { return file.stem().string(); });
  const Series series = read_series_folder(folder.path().string());
  ASSERT_EQ(series.parameters, std::vector<std::string>{"x"});
  const auto ours = models_by_key(series, Scaling::kWeak);
  // Extra-P skips bytes_get and bytes_put (no data stored): 4 call paths × 7 metrics × 2.
  EXPECT_EQ(ours.size(), std::size(kSingleParameter));
  expect_extrap_models(ours, kSingleParameter, "weak");
}

TEST(ExtrapOracle, ThreadedSeriesGivesExtrapsModelsForWeakAndStrongScaling) {
  CUBEKIT_REQUIRE_SHARED();
  test::TempDir folder("extrap-series");
  link_series(folder.path(), "simple_threaded", [](const std::filesystem::path& file) {
    return "example.f" + file.stem().string().substr(std::string("cube-example").size());
  });
  const Series series = read_series_folder(folder.path().string());
  ASSERT_EQ(series.parameters, std::vector<std::string>{"f"});
  for (const auto& [scaling, name] :
       {std::pair{Scaling::kWeak, "weak"}, std::pair{Scaling::kStrong, "strong"}}) {
    const auto ours = models_by_key(series, scaling);
    expect_extrap_models(ours, kSimpleThreaded, name);
    // main->zero has no stored time row in any report: Extra-P leaves it out, cubekit models
    // its true value, 0 (docs/models.md).
    EXPECT_EQ(ours.at("main->zero time excl").model.formula(), "0");
  }
}

TEST(ExtrapOracle, GeneratedNoisySeriesGivesExtrapsModels) {
  test::TempDir folder("extrap-series");
  SeriesSpec spec;
  spec.points = {4, 8, 16, 32, 64, 128};
  spec.repetitions = 3;
  spec.noise = 0.05;
  spec.seed = 3;
  spec.laws = {{{"main"}, "time", "1+0.01*p^2"},
               {{"main", "solve"}, "time", "0.5*p^1.5*log2(p)"},
               {{"main", "solve", "mpi"}, "time", "20+3*log2(p)^2"},
               {{"main", "solve"}, "visits", "3*p"},
               {{"main", "io"}, "time", "5*sqrt(p)"}};
  write_series(folder.path().string(), spec);
  const auto ours = models_by_key(read_series_folder(folder.path().string()), Scaling::kWeak);
  expect_extrap_models(ours, kGenerated, "weak");
}

}  // namespace
}  // namespace cubekit
