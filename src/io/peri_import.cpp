// PERI-XML import (peri_import.hpp: import_peri_xml). One pass over the document with XmlStream:
// the elements beside <data> (the dimensions, small) are parsed with pugixml once the first
// <data> begins (peri_dimensions.hpp), and the <d> values are added into the metrics' rows as
// they stream by (peri_values.hpp). This file walks the document and writes the report.
#include <algorithm>
#include <memory>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/peri_import.hpp"
#include "cubekit/writer.hpp"
#include "format/anchor.hpp"
#include "format/mapped_file.hpp"
#include "format/xml_stream.hpp"
#include "io/peri_reader.hpp"
#include "io/peri_values.hpp"

namespace cubekit::io {
namespace {

using format::XmlStream;
using format::XmlSyntaxError;

bool is_dimension(std::string_view element) {
  return element == "metrics" || element == "code" || element == "space" || element == "states" ||
         element == "time";
}

class PeriReader {
 public:
  PeriReader(std::string_view text, std::string name, const format::MappedFile* mapped,
             size_t range_bytes)
      : text_(text), path_(std::move(name)), mapped_(mapped), range_bytes_(range_bytes) {}

  PeriDocument read() {
    bool again = false;
    try {
      try {
        read_document();
      } catch (const peri::RangesGuessedWrong&) {
        // Values of a wrong range are added already: all read once more, without guesses
        // (which also tells an error found by ranges as the reading in order finds it).
        again = true;
        range_bytes_ = 0;
        forget_all();
        read_document();
      }
    } catch (const XmlSyntaxError& e) {
      throw FormatError(where(e.offset()) + ": malformed XML: " + e.what());
    }
    return {model_, values_->take_values(), values_->guessed_ranges(), again};
  }

 private:
  // An element beside <data> (a dimension, or one to ignore) or a <data>, by byte range.
  struct Part {
    size_t begin, end;
    bool data;
  };

  void read_document() {
    XmlStream xml(text_);
    XmlStream::Token t;
    while ((t = xml.next()) != XmlStream::Token::kStart)
      if (t == XmlStream::Token::kEndOfInput)
        throw FormatError(where(text_.size()) + ": no document element");
    root_tag_ = {xml.token_offset(), xml.position()};
    root_name_ = std::string(xml.name());
    std::vector<Part> parts;
    bool dimensions_read = false, late_dimensions = false;
    while ((t = xml.next()) != XmlStream::Token::kEnd) {
      if (t != XmlStream::Token::kStart) continue;  // text beside the dimensions
      const size_t begin = xml.token_offset();
      const bool is_data = xml.name() == "data";
      if (is_data) {
        if (!dimensions_read) read_dimensions(parts);
        dimensions_read = true;
        values_->read_data(xml);
      } else {
        late_dimensions = late_dimensions || (dimensions_read && is_dimension(xml.name()));
        xml.skip_element();
      }
      parts.push_back({begin, xml.position(), is_data});
    }
    while (xml.next() != XmlStream::Token::kEndOfInput) {
      // what follows the document element: comments, white space (checked by the scanner)
    }
    if (!dimensions_read) {
      read_dimensions(parts);
    } else if (late_dimensions) {
      // A dimension after a <data>: read again, now knowing every id.
      forget_all();
      read_dimensions(parts);
      for (const Part& part : parts) {
        if (!part.data) continue;
        XmlStream again(text_, part.begin);
        again.next();
        values_->read_data(again);
      }
    }
    if (const auto& error = values_->data_error())
      throw FormatError(where(error->first) + ": " + error->second);
  }

  // Back to the state before the first dimension was read.
  void forget_all() {
    values_.reset();
    ids_ = {};
    model_ = std::make_shared<Model>();
  }

  // "file:line:column" of a byte offset into the document.
  std::string where(size_t offset) const {
    return path_ + ":" + format::line_column(text_, static_cast<ptrdiff_t>(offset));
  }
  // pugixml's offsets are into the dimensions' text (dimensions_text): back to the document.
  size_t document_offset(ptrdiff_t in_dimensions) const {
    const size_t offset = static_cast<size_t>(std::max<ptrdiff_t>(in_dimensions, 0));
    size_t in_document = text_.size();
    for (const auto& [from, to] : dimension_offsets_)
      if (from <= offset) in_document = to + (offset - from);
    return in_document;
  }
  std::string where(const pugi::xml_node& node) const {
    return where(document_offset(node.offset_debug()));
  }

  // ---- the dimensions: the root's start tag and every element beside <data>, for pugixml ----
  void read_dimensions(const std::vector<Part>& parts) {
    std::string text;
    dimension_offsets_.clear();
    auto append = [&](size_t begin, size_t end) {
      dimension_offsets_.emplace_back(text.size(), begin);
      text.append(text_.substr(begin, end - begin));
    };
    append(root_tag_.first, root_tag_.second);
    const bool empty_root = text.size() >= 2 && text[text.size() - 2] == '/';
    for (const Part& part : parts)
      if (!part.data) append(part.begin, part.end);
    if (!empty_root) text += "</" + root_name_ + ">";
    const pugi::xml_parse_result ok = doc_.load_buffer(text.data(), text.size());
    if (!ok)
      throw FormatError(where(document_offset(ok.offset)) + ": malformed XML: " + ok.description());
    peri::Dimensions dimensions = peri::read_dimensions(
        doc_.document_element(), path_, [this](const pugi::xml_node& node) { return where(node); });
    model_ = dimensions.model;
    ids_ = std::move(dimensions.ids);
    values_ = std::make_unique<peri::ValueReader>(text_, mapped_, *model_, ids_, range_bytes_);
  }

  std::string_view text_;
  std::string path_;
  const format::MappedFile* mapped_;
  size_t range_bytes_;
  std::pair<size_t, size_t> root_tag_;
  std::string root_name_;
  std::vector<std::pair<size_t, size_t>> dimension_offsets_;  // (in their text, in the document)
  pugi::xml_document doc_;
  std::shared_ptr<Model> model_ = std::make_shared<Model>();
  peri::Ids ids_;
  std::unique_ptr<peri::ValueReader> values_;
};

// The values as the report's rows, in the writer's order.
void write_peri_document(const PeriDocument& doc, const std::string& name, const std::string& out) {
  const Model& model = *doc.model;
  ReportWriter writer(out, doc.model);
  const size_t n = model.locations.size();
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const Metric& metric = model.metrics[m];
    writer.begin_metric(m);
    // A metric without values has no rows: all of them would be 0 (for minima and maxima,
    // whose missing rows mean ±DBL_MAX, rows of zeros are written).
    const bool sums =
        metric.dtype.kind() != TypeKind::kMinDouble && metric.dtype.kind() != TypeKind::kMaxDouble;
    const std::vector<uint64_t>& values = doc.values[m];
    if (values.empty() && sums) {
      writer.end_metric();
      continue;
    }
    const std::vector<uint64_t> zeros(values.empty() ? n : 0, 0);
    const DataType lanes = peri::lane_type(metric);
    std::vector<uint64_t> row(lanes == metric.dtype ? 0 : (metric.dtype.memory_size() * n + 7) / 8);
    const std::string what = name + ": metric '" + metric.uniq_name + "'";
    for (Index c : storage_order(model, metric.kind)) {
      const uint64_t* from = values.empty() ? zeros.data() : values.data() + c * n;
      // A row of zeros is left out where 0 is what a missing row means. All-zero bits are 0
      // in every lane type.
      if (sums && std::all_of(from, from + n, [](uint64_t v) { return v == 0; })) continue;
      if (row.empty()) {  // the lanes are the stored type
        writer.write_row(c, reinterpret_cast<const std::byte*>(from));
        continue;
      }
      convert_values(lanes, reinterpret_cast<const std::byte*>(from), metric.dtype,
                     reinterpret_cast<std::byte*>(row.data()), n, what);
      writer.write_row(c, reinterpret_cast<const std::byte*>(row.data()));
    }
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace

PeriDocument read_peri_xml(std::string_view text, const std::string& name,
                           const format::MappedFile* mapped, size_t range_bytes) {
  return PeriReader(text, name, mapped, range_bytes).read();
}

}  // namespace cubekit::io

namespace cubekit {

void import_peri_xml(const std::string& xml_path, const std::string& cubex_path) {
  const format::MappedFile file(xml_path);
  const std::string_view text(reinterpret_cast<const char*>(file.bytes().data()),
                              file.bytes().size());
  const io::PeriDocument doc = io::read_peri_xml(text, xml_path, &file);
  io::write_peri_document(doc, xml_path, cubex_path);
}

}  // namespace cubekit
