// The values of a PERI-XML document: its <data> elements, read against the dimensions
// (peri_dimensions.hpp) into one row per metric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubekit/model.hpp"
#include "io/peri_dimensions.hpp"

namespace cubekit::format {
class MappedFile;
class XmlStream;
}  // namespace cubekit::format

namespace cubekit::io::peri {

// How a metric's values are held while reading: 64-bit integers for integer types (exact),
// doubles otherwise; one 8-byte lane each.
DataType lane_type(const Metric& m);

// ---- data ----------------------------------------------------------------------------------
// A <data> is read by several threads, first by ranges of its children: each range begins at
// a guessed start of a child (the bytes that begin its first child, `<d metric="`, searched
// from an offset), each thread reads the children of its ranges with every check, and the
// reader of a range must land exactly on the next range's start — which proves that guess
// right. A guess proved wrong (the bytes inside a comment or deeper in a child), or any error,
// throws RangesGuessedWrong: the caller reads the document again without guesses (the values
// of a wrong range are already added), so values and errors are those of that reading.
// Without guesses (range_bytes 0, one thread, a small <data>), one thread reads the elements
// directly in it and the start tags of theirs; the elements one level further down (a
// metric's call paths, say) it only passes over (XmlStream::pass_element, a fraction of the
// cost of reading them) and queues, with what their parent names; the other threads read what
// is queued, and the first joins them when it is through. Values are added under a lock per
// (metric, call path) stripe, so any nesting of the dimensions stays correct.

// A guessed range start proved wrong, or an error found while reading by guessed ranges.
struct RangesGuessedWrong {};

class ValueReader {
 public:
  // `model` and `ids` (the dimensions read) outlive the reader; `mapped`, when `text` is that
  // file's bytes, lets pages already read leave the resident set.
  // `range_bytes`: the least size of a guessed range (0: no guesses).
  ValueReader(std::string_view text, const format::MappedFile* mapped, const Model& model,
              const Ids& ids, size_t range_bytes);
  ~ValueReader();

  // Reads one <data> element (its start tag just read) up to its end tag. Errors are kept, the
  // first in the document of each kind: a syntax error ends the reading (XmlSyntaxError thrown
  // here), an undefined id or a bad number only later (data_error: a dimension after this
  // <data> may still define what was missing).
  void read_data(format::XmlStream& xml);
  // The first undefined id or bad number of the <data> elements read: its offset and what.
  const std::optional<std::pair<size_t, std::string>>& data_error() const;
  // Per metric: call paths × locations (location ids), empty where no value was read.
  std::vector<std::vector<uint64_t>> take_values();
  // Ranges of guessed bounds read (and proved right), over all <data> elements.
  size_t guessed_ranges() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cubekit::io::peri
