// core::KeyedOnce and core::OnceValue: callers asking at once get one computation's result;
// a computation's error reaches every caller waiting for it, and a later call computes again.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/computed_once.hpp"

namespace {

using cubekit::core::KeyedOnce;
using cubekit::core::OnceValue;

constexpr int kCallers = 8;

// A store as the server's caches keep one: a map under a mutex; `keep_results` false stands
// for a budget that says no (the result is answered, not kept).
struct Store {
  std::mutex mutex;
  std::map<std::string, int> kept;
  KeyedOnce<std::string, int> once;
  std::atomic<int> lookups = 0, computations = 0;
  bool keep_results = true;
  bool fail = false;

  // Computes only once every caller has looked the key up (and so found it being computed):
  // all of them are then waiting for this computation, none computes beside it.
  int get(const std::string& key, int lookups_before_computing) {
    return once.get(
        mutex, key,
        [&]() -> std::optional<int> {
          ++lookups;
          if (auto it = kept.find(key); it != kept.end()) return it->second;
          return std::nullopt;
        },
        [&] {
          while (lookups < lookups_before_computing) std::this_thread::yield();
          ++computations;
          if (fail) throw std::runtime_error("cannot compute " + key);
          return static_cast<int>(key.size()) * 10;
        },
        [&](int value) {
          if (keep_results) kept.emplace(key, value);
          return value;
        });
  }
};

// Runs `call` on kCallers threads at once; returns each one's result or error message. The
// waiters share one exception object: it is read after the threads end (libstdc++ counts its
// references where ThreadSanitizer does not see it).
template <class Call>
std::vector<std::string> on_all_callers(Call call) {
  std::vector<std::string> outcome(kCallers);
  std::vector<std::exception_ptr> errors(kCallers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i)
    threads.emplace_back([&, i] {
      try {
        outcome[i] = std::to_string(call());
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kCallers; ++i)
    if (errors[i]) try {
        std::rethrow_exception(errors[i]);
      } catch (const std::exception& e) {
        outcome[i] = e.what();
      }
  return outcome;
}

TEST(KeyedOnce, CallersAskingAtOnceGetOneComputation) {
  Store s;
  const auto outcome = on_all_callers([&] { return s.get("abc", kCallers); });
  EXPECT_EQ(outcome, std::vector<std::string>(kCallers, "30"));
  EXPECT_EQ(s.computations, 1);
  EXPECT_EQ(s.kept, (std::map<std::string, int>{{"abc", 30}}));
  EXPECT_EQ(s.get("abc", 0), 30);  // kept: found, not computed again
  EXPECT_EQ(s.computations, 1);
  EXPECT_EQ(s.get("de", 0), 20);  // another key: its own computation
  EXPECT_EQ(s.computations, 2);
}

TEST(KeyedOnce, AnErrorReachesEveryWaiterAndALaterCallComputesAgain) {
  Store s;
  s.fail = true;
  const auto outcome = on_all_callers([&] { return s.get("abc", kCallers); });
  EXPECT_EQ(outcome, std::vector<std::string>(kCallers, "cannot compute abc"));
  EXPECT_EQ(s.computations, 1);
  EXPECT_TRUE(s.kept.empty());
  s.fail = false;
  EXPECT_EQ(s.get("abc", 0), 30);
  EXPECT_EQ(s.computations, 2);
}

TEST(KeyedOnce, AResultNotKeptIsAnsweredAndComputedAgainLater) {
  Store s;
  s.keep_results = false;
  const auto outcome = on_all_callers([&] { return s.get("abc", kCallers); });
  EXPECT_EQ(outcome, std::vector<std::string>(kCallers, "30"));
  EXPECT_EQ(s.computations, 1);
  EXPECT_TRUE(s.kept.empty());
  EXPECT_EQ(s.get("abc", 0), 30);
  EXPECT_EQ(s.computations, 2);
}

TEST(OnceValue, CallersAskingAtOnceGetOneComputation) {
  OnceValue<int> value;
  EXPECT_EQ(value.peek(), std::nullopt);
  std::atomic<int> computations = 0;
  const auto outcome = on_all_callers([&] {
    return value.get([&] {
      ++computations;
      // Long enough for the other callers to come while it computes (they then wait).
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return 42;
    });
  });
  EXPECT_EQ(outcome, std::vector<std::string>(kCallers, "42"));
  EXPECT_EQ(computations, 1);
  EXPECT_EQ(value.peek(), 42);
}

TEST(OnceValue, AnErrorIsNotKeptAndTheNextCallComputesAgain) {
  OnceValue<int> value;
  int computations = 0;
  const auto failing = [&]() -> int {
    ++computations;
    throw std::runtime_error("cannot compute");
  };
  EXPECT_THROW(value.get(failing), std::runtime_error);
  EXPECT_EQ(value.peek(), std::nullopt);
  EXPECT_EQ(value.get([&] { return ++computations * 7; }), 14);
  EXPECT_EQ(value.get(failing), 14);  // kept: not computed again
  EXPECT_EQ(computations, 2);
}

}  // namespace
