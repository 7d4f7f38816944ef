// Micro-benchmarks of the inner loops a report read spends its time in: row decoding (with and
// without byte swapping), zlib rows (ZCUBEX.DATA), the per-type algebra over rows, call-tree
// orders, and the aggregation over locations plus tree arithmetic of calc.hpp (asked through
// MetricEngine, which hands a stored metric straight to those kernels).
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/model.hpp"
#include "cubekit/report.hpp"
#include "format/byte_order.hpp"
#include "format/compression.hpp"
#include "format/metric_data.hpp"
#include "synthetic_cubex.hpp"

namespace {

using cubekit::DataType;
using cubekit::TypeKind;
using cubekit::format::ByteOrder;

constexpr ByteOrder kSwapped =
    cubekit::format::kHostOrder == ByteOrder::kLittle ? ByteOrder::kBig : ByteOrder::kLittle;

// Time-like doubles: smooth with some noise, so the zlib ratio is realistic rather than ideal.
std::vector<double> sample_doubles(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 1.5 + 0.01 * std::sin(0.37 * i) + 1e-7 * (i * 7919 % 101);
  return v;
}

std::vector<std::byte> as_bytes(const void* p, size_t n) {
  std::vector<std::byte> out(n);
  std::memcpy(out.data(), p, n);
  return out;
}

// (a) One row of `range(0)` values from file layout to memory layout.
void BM_DecodeRow(benchmark::State& state, TypeKind kind, ByteOrder order) {
  const DataType type(kind);
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<double> values = sample_doubles(n);
  const std::vector<std::byte> src = as_bytes(values.data(), n * 8);
  std::vector<uint64_t> dst(n);
  for (auto _ : state) {
    cubekit::format::decode_row(type, src.data(), reinterpret_cast<std::byte*>(dst.data()), n,
                                order);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 8));
}
BENCHMARK_CAPTURE(BM_DecodeRow, double_host, TypeKind::kDouble, cubekit::format::kHostOrder)
    ->Arg(4096);
BENCHMARK_CAPTURE(BM_DecodeRow, double_swapped, TypeKind::kDouble, kSwapped)->Arg(4096);
BENCHMARK_CAPTURE(BM_DecodeRow, uint64_host, TypeKind::kUInt64, cubekit::format::kHostOrder)
    ->Arg(4096);
BENCHMARK_CAPTURE(BM_DecodeRow, uint64_swapped, TypeKind::kUInt64, kSwapped)->Arg(4096);

// (b) A ZCUBEX.DATA row: one zlib stream per row (cube-format.md §6.3). Bytes are those of the
// uncompressed output, so the figure compares with BM_DecodeRow.
void BM_ZlibInflateRow(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<double> values = sample_doubles(n);
  uLongf packed_size = compressBound(n * 8);
  std::vector<std::byte> packed(packed_size);
  if (compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size,
                reinterpret_cast<const Bytef*>(values.data()), n * 8,
                Z_DEFAULT_COMPRESSION) != Z_OK) {
    state.SkipWithError("compress2 failed");
    return;
  }
  packed.resize(packed_size);
  std::vector<std::byte> out(n * 8);
  const std::string where = "bench";
  for (auto _ : state) {
    cubekit::format::zlib_inflate_exact(packed, out, where);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 8));
  state.counters["ratio"] = static_cast<double>(n * 8) / static_cast<double>(packed_size);
}
BENCHMARK(BM_ZlibInflateRow)->Arg(4096);

// (c) Aggregation of one row over its locations (the first step of aggregated_values).
void BM_FoldRow(benchmark::State& state, TypeKind kind) {
  const DataType type(kind);
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<uint64_t> row(n);
  if (kind == TypeKind::kDouble || kind == TypeKind::kMinDouble || kind == TypeKind::kMaxDouble) {
    const std::vector<double> values = sample_doubles(n);
    std::memcpy(row.data(), values.data(), n * 8);
  } else {
    for (size_t i = 0; i < n; ++i) row[i] = i % 17;
  }
  uint64_t acc = 0;
  for (auto _ : state) {
    acc = 0;
    cubekit::fold_row(type, reinterpret_cast<std::byte*>(&acc),
                      reinterpret_cast<const std::byte*>(row.data()), n);
    benchmark::DoNotOptimize(acc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 8));
}
BENCHMARK_CAPTURE(BM_FoldRow, double, TypeKind::kDouble)->Arg(4096)->Arg(65536);
BENCHMARK_CAPTURE(BM_FoldRow, uint64, TypeKind::kUInt64)->Arg(4096)->Arg(65536);
BENCHMARK_CAPTURE(BM_FoldRow, mindouble, TypeKind::kMinDouble)->Arg(4096);
BENCHMARK_CAPTURE(BM_FoldRow, maxdouble, TypeKind::kMaxDouble)->Arg(4096);

// HISTOGRAM(8) values over overlapping ranges folded into one accumulator: CubeLib's ⊕ spreads
// each bin over the union's grid (the inclusive histogram of a call path folds every value of
// its subtree this way).
void BM_FoldRowHistogram(benchmark::State& state) {
  constexpr size_t kBins = 8;
  const DataType type(TypeKind::kHistogram, kBins);
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<double> row;
  for (size_t i = 0; i < n; ++i) {
    const double lo = 1.0 + 0.5 * std::sin(0.37 * i), hi = lo + 2.0 + std::cos(0.11 * i);
    row.insert(row.end(), {lo, hi});
    for (size_t k = 0; k < kBins; ++k) row.push_back(static_cast<double>((i + k) % 5));
  }
  std::vector<double> acc(2 + kBins);
  for (auto _ : state) {
    cubekit::set_identity(type, reinterpret_cast<std::byte*>(acc.data()), 1);
    cubekit::fold_row(type, reinterpret_cast<std::byte*>(acc.data()),
                      reinterpret_cast<const std::byte*>(row.data()), n);
    benchmark::DoNotOptimize(acc.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_FoldRowHistogram)->Arg(4096);

// (d) Element-wise ⊕ of two rows (per-location inclusive values, system-tree sums).
void BM_PlusRows(benchmark::State& state) {
  const DataType type(TypeKind::kDouble);
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<double> acc = sample_doubles(n);
  const std::vector<double> x = sample_doubles(n);
  for (auto _ : state) {
    cubekit::plus_rows(type, reinterpret_cast<std::byte*>(acc.data()),
                       reinterpret_cast<const std::byte*>(x.data()), n);
    benchmark::DoNotOptimize(acc.data());
    benchmark::ClobberMemory();
  }
  // Two rows read, one written.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 8 * 3));
}
BENCHMARK(BM_PlusRows)->Arg(4096)->Arg(65536);

// (e) Call-tree orders: a model of `range(0)` cnodes, fan-out 4, in document pre-order as the
// anchor reader builds it.
cubekit::Model tree_model(size_t cnodes, size_t fan_out) {
  cubekit::Model model;
  model.cnodes.resize(cnodes);
  // Heap-shaped tree (children of h: fan_out*h+1 …), renumbered into document pre-order.
  std::vector<cubekit::Index> index_of(cnodes);
  cubekit::Index next = 0;
  std::vector<size_t> stack{0};
  while (!stack.empty()) {
    const size_t h = stack.back();
    stack.pop_back();
    index_of[h] = next++;
    for (size_t k = std::min(cnodes, fan_out * h + fan_out + 1); k-- > fan_out * h + 1;)
      stack.push_back(k);
  }
  for (size_t h = 0; h < cnodes; ++h) {
    cubekit::Cnode& c = model.cnodes[index_of[h]];
    c.id = static_cast<uint32_t>(h);
    if (h > 0) c.parent = index_of[(h - 1) / fan_out];
    for (size_t k = fan_out * h + 1; k < std::min(cnodes, fan_out * h + fan_out + 1); ++k)
      c.children.push_back(index_of[k]);
  }
  return model;
}

void BM_PreOrder(benchmark::State& state) {
  const cubekit::Model model = tree_model(static_cast<size_t>(state.range(0)), 4);
  for (auto _ : state) benchmark::DoNotOptimize(cubekit::pre_order(model));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * state.range(0)));
}
BENCHMARK(BM_PreOrder)->Arg(5000);

void BM_ChildrenFirstOrder(benchmark::State& state) {
  const cubekit::Model model = tree_model(static_cast<size_t>(state.range(0)), 4);
  for (auto _ : state) benchmark::DoNotOptimize(cubekit::children_first_order(model));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * state.range(0)));
}
BENCHMARK(BM_ChildrenFirstOrder)->Arg(5000);

// A synthetic report of 5000 cnodes (fan-out 4) × 64 locations: metric 0 = visits (EXCLUSIVE
// UINT64), metric 1 = time (INCLUSIVE DOUBLE). Written once per process, removed at exit.
struct SyntheticReport {
  std::string path;
  cubekit::bench::SyntheticShape shape;
  cubekit::Report report;
  static SyntheticReport& get() {
    static SyntheticReport instance = make();
    return instance;
  }
  ~SyntheticReport() { std::remove(path.c_str()); }

 private:
  static SyntheticReport make() {
    cubekit::bench::SyntheticShape shape;
    shape.cnodes = 5000;
    shape.locations = 64;
    shape.metrics = 2;
    shape.fan_out = 4;
    const std::string path = "/tmp/cubekit_bench_" + std::to_string(getpid()) + ".cubex";
    cubekit::bench::write_synthetic_cubex(path, shape);
    return SyntheticReport{path, shape, cubekit::Report::open(path)};
  }
};

// Decoding one metric's whole data member (5000 × 64 values) into a SeverityMatrix.
void BM_DecodeMetric(benchmark::State& state) {
  SyntheticReport& s = SyntheticReport::get();
  const auto metric = static_cast<cubekit::Index>(state.range(0));
  for (auto _ : state) {
    s.report.drop(metric);
    benchmark::DoNotOptimize(s.report.severities(metric));
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * s.shape.cnodes * s.shape.locations * 8));
}
BENCHMARK(BM_DecodeMetric)->Arg(0)->Arg(1);

// aggregated_values on cached severities: C×L fold plus the tree arithmetic on C values.
// range(0): metric; range(1): 1 = inclusive call-tree flavour, 0 = exclusive. Inclusive of an
// EXCLUSIVE metric and exclusive of an INCLUSIVE one need the tree arithmetic.
void BM_AggregatedValues(benchmark::State& state) {
  SyntheticReport& s = SyntheticReport::get();
  const auto metric = static_cast<cubekit::Index>(state.range(0));
  const auto flavour =
      state.range(1) != 0 ? cubekit::Flavour::kInclusive : cubekit::Flavour::kExclusive;
  s.report.severities(metric);  // decode outside the timed loop
  cubekit::MetricEngine engine(s.report);
  // The writer's tree is known, so the root's value is a correctness check of the whole path.
  const cubekit::Values check =
      engine.aggregated_values(metric, cubekit::Flavour::kInclusive, flavour);
  const auto root = s.report.model().cnode_roots().at(0);
  if (metric == 1 && flavour == cubekit::Flavour::kExclusive) {
    double expect = 0;
    for (size_t l = 0; l < s.shape.locations; ++l)
      expect +=
          cubekit::bench::synthetic_own_time(0) * cubekit::bench::synthetic_location_weight(l);
    if (std::abs(check.scalar(root) - expect) > 1e-9 * expect)
      state.SkipWithError("wrong exclusive root time");
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(
        engine.aggregated_values(metric, cubekit::Flavour::kInclusive, flavour));
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * s.shape.cnodes * s.shape.locations * 8));
}
BENCHMARK(BM_AggregatedValues)->ArgsProduct({{0, 1}, {0, 1}});

// The same per-location (no aggregation over locations): the values of every cnode.
void BM_LocationValuesAllCnodes(benchmark::State& state) {
  SyntheticReport& s = SyntheticReport::get();
  const auto metric = static_cast<cubekit::Index>(state.range(0));
  const auto flavour =
      state.range(1) != 0 ? cubekit::Flavour::kInclusive : cubekit::Flavour::kExclusive;
  s.report.severities(metric);
  cubekit::MetricEngine engine(s.report);
  const auto cnodes = static_cast<cubekit::Index>(s.report.model().cnodes.size());
  for (auto _ : state)
    for (cubekit::Index c = 0; c < cnodes; ++c)
      benchmark::DoNotOptimize(
          engine.location_values(metric, c, cubekit::Flavour::kInclusive, flavour));
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * s.shape.cnodes * s.shape.locations * 8));
}
BENCHMARK(BM_LocationValuesAllCnodes)->ArgsProduct({{0, 1}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
