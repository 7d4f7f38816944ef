// Variable names: the names the engine provides (cubepl.md §7.4, §7.5) and the cube-wide
// binding of all other names to local or global storage (§7.3).
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string>

#include "cubekit/cubepl.hpp"

namespace cubekit::cubepl {
namespace {

// Sorted for binary search. Misspellings found in CubeLib's documentation are deliberately
// absent: they are ordinary local variables there too.
constexpr std::string_view kProvided[] = {
    "calculation::callpath::#elements",
    "calculation::callpath::id",
    "calculation::callpath::state",
    "calculation::metric::id",
    "calculation::region::#elements",
    "calculation::region::id",
    "calculation::sysres::#elements",
    "calculation::sysres::id",
    "calculation::sysres::kind",
    "calculation::sysres::state",
    "calculation::sysres::sysid",
    "cube::#callpaths",
    "cube::#locationgroups",
    "cube::#locationgroups::nonvoid",
    "cube::#locationgroups::void",
    "cube::#locations",
    "cube::#locations::nonvoid",
    "cube::#locations::void",
    "cube::#metrics",
    "cube::#mirrors",
    "cube::#regions",
    "cube::#root::callpaths",
    "cube::#root::metrics",
    "cube::#rootstns",
    "cube::#stns",
    "cube::callpath::#children",
    "cube::callpath::calleeid",
    "cube::callpath::children",
    "cube::callpath::enumeration",
    "cube::callpath::line",
    "cube::callpath::mod",
    "cube::callpath::parent::id",
    "cube::filename",
    "cube::location::name",
    "cube::location::parent::id",
    "cube::location::parent::sysid",
    "cube::location::rank",
    "cube::location::type",
    "cube::location::void",
    "cube::locationgroup::#locations",
    "cube::locationgroup::locations",
    "cube::locationgroup::name",
    "cube::locationgroup::parent::id",
    "cube::locationgroup::parent::sysid",
    "cube::locationgroup::rank",
    "cube::locationgroup::type",
    "cube::locationgroup::void",
    "cube::metric::#children",
    "cube::metric::children",
    "cube::metric::description",
    "cube::metric::disp::name",
    "cube::metric::dtype",
    "cube::metric::enumeration",
    "cube::metric::expression",
    "cube::metric::initexpression",
    "cube::metric::parent::id",
    "cube::metric::uniq::name",
    "cube::metric::uom",
    "cube::metric::url",
    "cube::region::begin::line",
    "cube::region::description",
    "cube::region::end::line",
    "cube::region::mangled::name",
    "cube::region::mod",
    "cube::region::name",
    "cube::region::paradigm",
    "cube::region::role",
    "cube::region::url",
    "cube::stn::#children",
    "cube::stn::#locationgroups",
    "cube::stn::children",
    "cube::stn::class",
    "cube::stn::description",
    "cube::stn::locationgroups",
    "cube::stn::name",
    "cube::stn::parent::id",
    "cube::stn::parent::sysid",
};

static_assert(std::is_sorted(std::begin(kProvided), std::end(kProvided)));

}  // namespace

bool is_reserved_name(std::string_view name) {
  return std::binary_search(std::begin(kProvided), std::end(kProvided), name);
}

VariableNames::Kind VariableNames::bind(std::string_view name, Kind kind) {
  for (const auto& [known, bound] : names_) {
    if (known == name) return bound;
  }
  names_.emplace_back(std::string(name), kind);
  return kind;
}

bool VariableNames::known(std::string_view name) const {
  return std::any_of(names_.begin(), names_.end(),
                     [&](const auto& entry) { return entry.first == name; });
}

std::string Environment::environment_variable(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  return value ? value : "";
}

}  // namespace cubekit::cubepl
