// One report split over the ranks by its locations (mpi.hpp, docs/mpi.md): each rank makes the
// part of every row that its run of locations gives, rank 0 joins the parts in rank order, so
// that the rows are those one process prints.
#include <algorithm>
#include <cstring>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/mpi.hpp"
#include "mpi/collectives.hpp"

namespace cubekit::mpi {
namespace {

// Rank 0's side of a step: each row's parts (ByteWriter texts, one per row and rank) appended
// where they lie in what was gathered, rank after rank.
void join_parts(const Job& job, const Gathered& g, std::vector<std::string>& rows) {
  for (int rank = 0; rank < job.size(); ++rank) {
    std::string_view parts = g.by_item.at(static_cast<uint64_t>(rank));
    for (std::string& text : rows) {
      uint64_t size;
      if (parts.size() < sizeof size) throw Error("MPI: gathered parts are cut short");
      std::memcpy(&size, parts.data(), sizeof size);
      if (parts.size() - sizeof size < size) throw Error("MPI: gathered parts are cut short");
      text.append(parts.substr(sizeof size, size));
      parts.remove_prefix(sizeof size + size);
    }
  }
}

}  // namespace

void agreed(const std::function<void()>& step) {
  gather_step(running_job(), [&](std::string&, size_t& item) {
    item = static_cast<size_t>(running_job().rank());
    step();
  });
}

Run share_of(size_t items) {
  const Job& job = running_job();
  const auto rank = static_cast<size_t>(job.rank()), ranks = static_cast<size_t>(job.size());
  return {items * rank / ranks, items * (rank + 1) / ranks};
}

JoinedRows::JoinedRows(size_t rows, uint64_t row_bytes, std::function<std::string(size_t)> part)
    : rows_(rows),
      // Steps of about CUBEKIT_MPI_WINDOW_BYTES of whole rows: what rank 0 holds at once stays
      // bounded however many ranks send parts; the same count on every rank (steps must match).
      rows_per_step_(static_cast<size_t>(
          std::max<uint64_t>(1, window_bytes() / std::max<uint64_t>(row_bytes, 1)))),
      part_(std::move(part)) {}

std::string JoinedRows::take(size_t row) {
  if (row < begin_ || row >= rows_)
    throw Error("JoinedRows: row " + std::to_string(row) + " asked out of order");
  while (row >= end_) {
    Job& job = running_job();
    begin_ = end_;
    end_ = std::min(rows_, begin_ + rows_per_step_);
    Gathered g = gather_step(job, [&](std::string& records, size_t& item) {
      item = static_cast<size_t>(job.rank());
      ByteWriter parts;
      for (size_t r = begin_; r < end_; ++r) parts.text(part_(r));
      append_record(records, item, parts.out);
    });
    joined_.assign(job.root() ? end_ - begin_ : 0, std::string());
    if (job.root()) join_parts(job, g, joined_);
    job.show_progress("lines " + std::to_string(end_) + "/" + std::to_string(rows_) +
                      ranks_text(job));
  }
  if (row + 1 == rows_) running_job().end_progress();
  return joined_.empty() ? std::string() : std::move(joined_[row - begin_]);
}

Values fold_rows_in_rank_order(const Report& columns, Index metric) {
  Job& job = running_job();
  const Model& model = columns.model();
  const DataType type = model.metrics[metric].dtype;
  std::shared_ptr<const SeverityMatrix> rows;
  agreed([&] { rows = columns.severities(metric); });  // every rank decodes its columns at once
  Values folds(type, model.cnodes.size());
  const size_t bytes = folds.size() * folds.stride();
  for (int rank = 0; rank < job.size(); ++rank) {
    if (rank == job.rank() && rows)
      for (Index c = 0; c < model.cnodes.size(); ++c)
        if (const std::byte* row = rows->row(c))
          fold_row(type, folds.at(c), row, rows->locations());
    std::string sent(reinterpret_cast<const char*>(folds.data()), bytes);
    broadcast(sent, rank);
    std::memcpy(folds.data(), sent.data(), bytes);
  }
  columns.drop(metric);
  return folds;
}

}  // namespace cubekit::mpi
