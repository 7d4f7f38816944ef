// The algebra of every data type (cube-format.md §7.2): identity, ⊕ and ⊖, applied to whole
// rows of values in memory layout (see DataType::lane_type). One table, one place.
#pragma once

#include <cstddef>
#include <string>

#include "cubekit/data_type.hpp"

namespace cubekit {

// dst[i] = identity, for n values.
void set_identity(DataType type, std::byte* dst, size_t n);
// Whether the identity is all zero bytes (false for MIN/MAXDOUBLE, TAU_ATOMIC, HISTOGRAM).
bool identity_is_zero(DataType type);
// acc[i] = acc[i] ⊕ x[i], for n values.
void plus_rows(DataType type, std::byte* acc, const std::byte* x, size_t n);
// acc[i] = acc[i] ⊖ x[i], for n values: the call tree's ⊖, where a DOUBLE difference within
// a few ulps of the operands is 0 (CubeLib's minus_operator; rounding residues of a parent
// minus its children vanish).
void minus_rows(DataType type, std::byte* acc, const std::byte* x, size_t n);
// The same, but a DOUBLE difference is the plain a − b: the metric tree's ⊖ (a metric's
// exclusive value is its inclusive one minus each sub-metric's, CubeLib's operator-=).
void minus_rows_unsnapped(DataType type, std::byte* acc, const std::byte* x, size_t n);
// acc[0] = acc[0] ⊕ x[0] ⊕ … ⊕ x[n-1]: aggregation over the locations of a row.
void fold_row(DataType type, std::byte* acc, const std::byte* x, size_t n);
// fold_row of `count` rows lying one after the other, row j at x + j * stride into accs[j]:
// the same results bit for bit (each row's values in their order), several rows at a time.
void fold_rows(DataType type, std::byte* const* accs, const std::byte* x, size_t stride,
               size_t count, size_t n);
// Whether fold_row of this type accepts a row `x` at any address (integers and the doubles):
// such rows can be folded where they lie (in the buffer a plain member is read into, in an
// inflated row, in a column window's mapped bytes), without a copy of their own.
bool fold_reads_unaligned(DataType type);
// x[i] = x[i] · factor lane by lane, as CubeLib's Value::operator*= scales the types made of
// several doubles (cube_diff multiplies by −1, cube_mean by 1/n): every lane of COMPLEX, RATE,
// TAU_ATOMIC and NDOUBLES, the bins of HISTOGRAM. False (nothing done) for other types.
bool scale_lanes(DataType type, std::byte* x, size_t n, double factor);
// A number for sorting and thresholds (value, modulus, ratio, mean, sum of bins, ...).
double scalar(DataType type, const std::byte* value);
// out[i] = scalar(x[i]) for a whole row of n values (x at any address).
void scalars(DataType type, const std::byte* x, size_t n, double* out);

// Whether values of `from` can be stored as `to`: the same type, or both single numbers
// (integers, DOUBLE, MIN/MAXDOUBLE).
bool convertible(DataType from, DataType to);
// n values of `from` (memory layout) into n values of `to`. Integers go to integers exactly
// (modulo the width, as a C++ cast), everything else through a double; a double stored as an
// integer is truncated toward zero and clamped to the type's range (NaN: 0). Throws Error naming
// `what` when !convertible(from, to). Remapped metrics with another dtype, derived values of
// integer metrics and derived sub-metrics subtracted from integer parents all go through here.
void convert_values(DataType from, const std::byte* src, DataType to, std::byte* dst, size_t n,
                    const std::string& what);
// x[i] = x[i] · factor as CubeLib's Value::operator*= scales: a single number as a double,
// stored back as convert_values stores it (integers truncate toward zero and clamp), the other
// types lane by lane (scale_lanes). Throws Error naming `what` for types without a scale
// (SCALE_FUNC).
void scale_values(DataType type, std::byte* x, size_t n, double factor, const std::string& what);
// dst[i] = src[i] · factor, the same values without a copy first (src == dst allowed).
void scale_values(DataType type, const std::byte* src, std::byte* dst, size_t n, double factor,
                  const std::string& what);

}  // namespace cubekit
