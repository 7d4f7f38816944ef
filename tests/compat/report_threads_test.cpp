// A Report is opened lazily and may be queried from several threads at once.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"

using cubekit::test::shared_dir;

namespace cubekit {
namespace {

TEST(ReportThreads, ConcurrentQueriesAgreeWithSerialOnes) {
  CUBEKIT_REQUIRE_SHARED();
  const std::string path = (shared_dir() / "data/real/cubelib/examples/summary.cubex").string();
  const Report serial = Report::open(path);
  const Report shared = Report::open(path);
  MetricEngine serial_engine(serial), shared_engine(shared);
  const size_t metrics = serial.model().metrics.size();
  std::vector<Values> expected;
  for (Index m = 0; m < metrics; ++m)
    expected.push_back(
        serial_engine.aggregated_values(m, Flavour::kExclusive, Flavour::kExclusive));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (Index m = 0; m < metrics; ++m) {
          const Values v =
              shared_engine.aggregated_values(m, Flavour::kExclusive, Flavour::kExclusive);
          if (std::memcmp(v.data(), expected[m].data(), v.size() * v.stride()) != 0)
            ++mismatches[t];
          if ((m + t) % 3 == 0) shared.drop(m);  // drops race with loads on purpose
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(ReportThreads, OpeningReadsNoMetricData) {
  CUBEKIT_REQUIRE_SHARED();
  const Report r =
      Report::open((shared_dir() / "data/real/cubelib/examples/summary.cubex").string());
  // Decoding happens on first use and is cached: the same matrix is handed out twice.
  const auto a = r.severities(0);
  const auto b = r.severities(0);
  EXPECT_EQ(a.get(), b.get());
  r.drop(0);
  const auto c = r.severities(0);
  EXPECT_NE(c.get(), nullptr);
  EXPECT_EQ(std::memcmp(a->row(0), c->row(0), a->row_bytes()), 0);
}

}  // namespace
}  // namespace cubekit
