#include "algebra/members.hpp"

#include <unordered_set>

namespace cubekit::algebra {
namespace {

void add_metric_members(const Model& model, std::unordered_set<std::string>& names) {
  for (const Metric& m : model.metrics) {
    const std::string stem = (m.ghost ? "ghost_" : "") + std::to_string(m.id);
    names.insert(stem + ".data");
    names.insert(stem + ".index");
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> misc_members(const Report& input,
                                                              const Model& output) {
  std::unordered_set<std::string> taken{"anchor.xml"};
  add_metric_members(input.model(), taken);
  add_metric_members(output, taken);
  std::vector<std::pair<std::string, std::string>> out;
  for (const MemberInfo& member : input.members())
    if (!taken.contains(member.name))
      if (auto bytes = input.member_content(member.name))
        out.emplace_back(member.name, std::move(*bytes));
  return out;
}

}  // namespace cubekit::algebra
