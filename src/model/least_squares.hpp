// Linear least squares for the multi-parameter modeler (a few columns, tens of rows).
#pragma once

#include <vector>

namespace cubekit::model_detail {

// Columns of a matrix: column j holds the values of unknown j at every row.
using Columns = std::vector<std::vector<double>>;

// The x minimising |A·x − b|, of least norm when A has not full rank, from the singular value
// decomposition of A (one-sided Jacobi: exact to rounding for columns as different as 1 and
// p³ at 10⁴). Singular values below eps · max(rows, columns) · σ_max count as zero, as in
// NumPy's lstsq; when that leaves A rank-deficient, the cut-off is eps · σ_max instead, as
// Extra-P retries.
std::vector<double> least_squares(Columns a, const std::vector<double>& b);

}  // namespace cubekit::model_detail
