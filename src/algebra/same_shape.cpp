// Reports of the input's shape (report_algebra.hpp): cube_part (select_ranks, write_part) keeps
// the definitions, renames the process groups outside the partition "<name> <VOID>" and zeroes
// their locations' values, except visits; cube_canonize (write_canonized) renames regions. Both
// as CubeLib 4.6 does; the rows are copied one at a time.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {

std::vector<bool> select_ranks(const std::string& ranks, size_t count,
                               const std::function<void(const std::string&)>& warning) {
  std::vector<bool> selected(count, false);
  size_t begin = 0;
  while (begin <= ranks.size()) {
    size_t end = ranks.find(',', begin);
    if (end == std::string::npos) end = ranks.size();
    const std::string token = ranks.substr(begin, end - begin);
    begin = end + 1;
    if (token.empty()) continue;
    // CubeLib's reading: "a", "a-b", "-b" (from 0), "a-" (to the last rank).
    const size_t dash = token.find('-');
    size_t first = static_cast<size_t>(std::atol(token.c_str()));
    size_t last = first;
    if (dash == 0) first = 0;
    if (dash != std::string::npos) {
      last = static_cast<size_t>(std::atol(token.c_str() + dash + 1));
      if (last == 0) last = count == 0 ? 0 : count - 1;
    }
    if (last < first) {
      if (warning) warning("Invalid rank range: " + token);
      continue;
    }
    for (size_t r = first; r <= last && r < count; ++r) selected[r] = true;
  }
  return selected;
}

namespace {

// Writes `model` (the input's definitions, renamed) with the input's rows; the values of the
// locations l with zeroed[l] become 0 (empty: none), except for visits.
void write_same_shape(const Report& input, std::shared_ptr<Model> model,
                      const std::vector<bool>& zeroed, const std::string& path,
                      const WriteOptions& write_options) {
  const bool reordered = order_children_by_id(*model);  // as CubeLib's copy
  // CubeLib's copy of a cube takes attributes and mirrors but not the three tree titles (the
  // Cube 3 text of a canonized report in its test 19 has none).
  model->metrics_title.clear();
  model->program_title.clear();
  model->system_title.clear();
  stamp_cubelib_versions(*model);
  model->finalize(path);
  ReportWriter writer(path, model, write_options);
  for (Index m = 0; m < model->metrics.size(); ++m) {
    const Metric& metric = model->metrics[m];
    if (is_derived(metric.kind) || metric.is_void) continue;
    const size_t size = metric.dtype.memory_size();
    std::vector<std::byte> row(size * model->locations.size());
    const bool zeroing = !zeroed.empty() && metric.uniq_name != "visits";  // as in CubeLib
    auto write = [&](Index c, const std::byte* values) {
      std::memcpy(row.data(), values, row.size());
      if (zeroing)
        for (Index l = 0; l < zeroed.size(); ++l)
          if (zeroed[l]) std::memset(row.data() + l * size, 0, size);
      writer.write_row(c, row.data());
    };
    writer.begin_metric(m);
    if (!reordered) {
      input.visit_rows(m, write);  // the input's storage order is the output's: streamed
    } else {
      // The rows go in the new storage order: one metric's rows in memory at a time.
      const auto rows = input.severities(m);
      if (rows != nullptr)
        for (Index c : storage_order(*model, metric.kind))
          if (const std::byte* values = rows->row(c)) write(c, values);
      input.drop(m);
    }
    writer.end_metric();
  }
  writer.finish();
}

// CubeLib's generic canonical name: from the first letter or digit on. CubeLib then keeps as
// many characters as the index of the last letter or digit plus one (a length where an end was
// meant), so trailing characters stay when the name starts with others; kept for equal output.
// A name without any letter or digit is kept as it is (CubeLib aborts on it).
std::string generic_name(const std::string& name) {
  const char* valid = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const size_t first = name.find_first_of(valid);
  if (first == std::string::npos) return name;
  return name.substr(first, name.find_last_of(valid) + 1);
}

// PDT names ("int ns::f(double)"): the last word before "(", then the generic canonical name.
std::string pdt_name(const std::string& name) {
  std::string word = name.substr(0, name.find('('));
  if (const size_t space = word.rfind(' '); space != std::string::npos) word.erase(0, space + 1);
  if (word.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
      std::string::npos)
    return name;
  return generic_name(word);
}

}  // namespace

size_t write_part(const Report& input, const std::vector<bool>& kept_groups,
                  const std::function<void(const std::string&)>& warning, const std::string& path,
                  const WriteOptions& write_options) {
  auto model = std::make_shared<Model>(input.model());
  if (kept_groups.size() != model->groups.size())
    throw Error(path + ": the partition must name every process group");
  // CubeLib's deep copy defines the system tree anew, without its nodes' attributes.
  for (SystemNode& n : model->system_nodes) n.attrs.clear();
  size_t voided = 0;
  for (Index g = 0; g < model->groups.size(); ++g)
    if (!kept_groups[g]) {
      model->groups[g].name = model->groups[g].name.str() + " <VOID>";
      ++voided;
    }
  if (voided == 0 || voided == kept_groups.size()) return voided;
  for (Metric& m : model->metrics)
    if (m.uniq_name == "imbalance" && !m.is_void) {
      if (warning) warning("Warning: Voiding metrics for " + m.disp_name + "!");
      m.val = "VOID";
      m.is_void = true;
    }
  std::vector<bool> zeroed(model->locations.size());
  for (Index l = 0; l < zeroed.size(); ++l) zeroed[l] = !kept_groups[model->locations[l].group];
  write_same_shape(input, model, zeroed, path, write_options);
  return voided;
}

void write_canonized(const Report& input, const CanonizeOptions& options, const std::string& path,
                     const WriteOptions& write_options) {
  auto model = std::make_shared<Model>(input.model());
  for (Region& r : model->regions) {
    std::string name = options.pdt ? pdt_name(r.name) : generic_name(r.name);
    if (options.max_length > 0 && name.size() > options.max_length) name.resize(options.max_length);
    if (options.lower_case)
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    r.name = name;
    if (options.remove_line_numbers) r.begin = r.end = 0;
    if (options.remove_file_names) r.mod.clear();
    r.attrs.clear();  // CubeLib defines the regions anew, bare
  }
  for (SystemNode& n : model->system_nodes) n.attrs.clear();
  // CubeLib numbers the metrics of its copy anew, in document order.
  for (Index i = 0; i < model->metrics.size(); ++i) model->metrics[i].id = static_cast<uint32_t>(i);
  // Metrics read as VOID are left out (without data members); CubeLib's copy does not define
  // them, so a sub-metric that is not VOID itself loses its parent and becomes a root (after
  // the root it was defined under, as roots keep their definition order).
  for (Index i = 0; i < model->metrics.size(); ++i) {
    Metric& m = model->metrics[i];
    if (m.val == "VOID") {
      model->anchor_omitted_metric_ids.push_back(m.id);
    } else if (m.parent != kNoIndex && model->metrics[m.parent].val == "VOID") {
      auto& siblings = model->metrics[m.parent].children;
      siblings.erase(std::remove(siblings.begin(), siblings.end(), i), siblings.end());
      m.parent = kNoIndex;
    }
  }
  for (Metric& m : model->metrics) m.is_void = false;  // finalize() works it out again
  // CubeLib records a Cube 3 document's syntax version among the attributes it copies.
  if (model->version == "3.0" && !model->attr("Cube syntax version"))
    model->attrs.emplace_back("Cube syntax version", "3");
  write_same_shape(input, model, {}, path, write_options);
}

}  // namespace cubekit
