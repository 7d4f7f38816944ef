// cube_cut and cube_clean (report_algebra.hpp: write_cut, write_clean): one input unified on
// its own, with CubeLib 4.6's progress lines between the dimensions, its call tree re-rooted and
// pruned for a cut; the values go through write_combination.
#include <algorithm>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

void tell(const Progress& progress, const std::string& text) {
  if (progress) progress(text);
}

bool calls_region(const Model& model, const std::string& name) {
  return std::any_of(model.cnodes.begin(), model.cnodes.end(),
                     [&](const Cnode& c) { return model.regions[c.region].name == name; });
}

// The dimensions after the call tree, the same for a cut and a clean; the finished definitions.
std::shared_ptr<const Model> finish_unification(UnifiedDefinitions& defs, const Report& input,
                                                InputMapping& map, SystemUnification system,
                                                const Progress& progress) {
  tell(progress, "INFO::Merging system dimension...");
  if (!defs.add_system_tree(input.model(), map, system))
    throw Error(input.path() + ": the system tree cannot be unified");
  tell(progress, " done.\nINFO::Adding topologies...");
  defs.add_topologies(input.model(), map);
  tell(progress, " done.\n");
  return defs.finish();
}

void copy_data(const Report& input, std::vector<InputMapping>& maps,
               std::shared_ptr<const Model> model, Combination how, const Progress& progress,
               const std::string& path, const WriteOptions& write_options) {
  tell(progress, "INFO::Copy data...");
  write_combination({&input}, maps, std::move(model), how, path, write_options);
  tell(progress, " done.\n");
}

}  // namespace

void write_cut(const Report& input, const CutOptions& options, const std::string& path,
               const WriteOptions& write_options) {
  const Model& in = input.model();
  if (!options.root.empty() && !calls_region(in, options.root)) {
    // CubeLib warns of the missing region, then gives up on it.
    const std::string missing = "Region " + options.root + " doesn't exist in the input file.";
    if (options.warning) options.warning(missing);
    throw LookupError(missing);
  }
  if (options.warning)
    for (const std::string& prune : options.prunes)
      if (!calls_region(in, prune))
        options.warning("Region " + prune + " doesn't exist in the input file.");
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(1);
  defs.add_mirrors(in);
  defs.add_mirror("http://www.fz-juelich.de/jsc/datapool/scalasca/");
  defs.set_attribute("CUBE_CT_AGGR", "SUM");
  tell(options.progress, "INFO::Merging metric dimension...");
  defs.add_metrics(in, maps[0]);
  tell(options.progress, " done.\nINFO::Merging program dimension...");
  defs.add_cut_call_tree(in, maps[0], options.root, options.prunes);
  tell(options.progress, " done.\n");
  auto model = finish_unification(defs, input, maps[0], options.system, options.progress);
  // A pruned call path's exclusive values join its caller's: the sum over what maps there.
  copy_data(input, maps, std::move(model), Combination::kSum, options.progress, path,
            write_options);
}

void write_clean(const Report& input, SystemUnification system, const Progress& progress,
                 const std::string& path, const WriteOptions& write_options) {
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(1);
  defs.add_mirrors(input.model());
  tell(progress, "INFO::Merging metric dimension...");
  defs.add_metrics(input.model(), maps[0]);
  tell(progress, " done.\nINFO::Merging program dimension...");
  defs.add_call_tree(input.model(), maps[0]);
  tell(progress, " done.\n");
  auto model = finish_unification(defs, input, maps[0], system, progress);
  copy_data(input, maps, std::move(model), Combination::kMerge, progress, path, write_options);
}

}  // namespace cubekit
