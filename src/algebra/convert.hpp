// Values of one data type as values of another (metrics re-declared with a different dtype by a
// remapping specification, derived DOUBLE values stored as integer metrics).
#pragma once

#include <cstddef>
#include <string>

#include "cubekit/data_type.hpp"

namespace cubekit::algebra {

// Whether values of `from` can be stored as `to`: the same type, or both single numbers.
bool convertible(DataType from, DataType to);

// n values of `from` (memory layout) into n values of `to`. Integers go to integers exactly
// (modulo the width, as a C++ cast), everything else through a double; a double stored as an
// integer is truncated toward zero. Throws Error naming `what` when !convertible(from, to).
void convert_values(DataType from, const std::byte* src, DataType to, std::byte* dst, size_t n,
                    const std::string& what);

}  // namespace cubekit::algebra
