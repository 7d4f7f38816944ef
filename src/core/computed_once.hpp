// Computing a costly result once when several threads ask for it at the same time: the first
// caller computes, the others wait for its result instead of computing it beside it (on a loaded
// machine, three threads building the same 100,000 paths take three times as long).
#pragma once

#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace cubekit::core {

// Results by key, computed once among concurrent callers. Where a result is kept (and whether,
// and for how long) is the caller's: it passes the lock guarding its store, a look-up in it and
// a keep step. A computation's error reaches every caller waiting for it; nothing is kept then,
// and a later call computes again.
template <class Key, class Value>
class KeyedOnce {
 public:
  // `find()` (under `guard`) returns the kept result or nothing; else, when no other caller is
  // computing `key`, `compute()` runs without the lock and `keep(computed)` (under `guard`, in
  // the same hold that ends the computation, so that a caller finds the one or the other)
  // stores what it wants to and returns the result every caller waiting for it gets.
  template <class Find, class Compute, class Keep>
  Value get(std::mutex& guard, const Key& key, Find&& find, Compute&& compute, Keep&& keep) {
    std::promise<Value> promise;
    std::shared_future<Value> pending;
    {
      std::lock_guard lock(guard);
      if (std::optional<Value> kept = find()) return std::move(*kept);
      if (auto it = computing_.find(key); it != computing_.end())
        pending = it->second;
      else
        computing_.emplace(key, promise.get_future().share());
    }
    if (pending.valid()) return pending.get();  // its error, if any, is this caller's too
    try {
      auto computed = compute();
      std::optional<Value> result;
      {
        std::lock_guard lock(guard);
        computing_.erase(key);
        result.emplace(keep(std::move(computed)));
      }
      promise.set_value(*result);
      return std::move(*result);
    } catch (...) {
      {
        std::lock_guard lock(guard);
        computing_.erase(key);
      }
      promise.set_exception(std::current_exception());
      throw;
    }
  }

 private:
  std::map<Key, std::shared_future<Value>> computing_;  // guarded by the callers' `guard`
};

// One result computed on first use and kept: the callers meanwhile wait for the one computing
// it. When the computation throws, nothing is kept and the next caller (a waiting one
// included) computes again.
template <class T>
class OnceValue {
 public:
  template <class Compute>
  T get(Compute&& compute) {
    if (std::optional<T> kept = peek()) return std::move(*kept);
    std::lock_guard once(computing_);
    if (std::optional<T> kept = peek()) return std::move(*kept);
    T computed = compute();
    std::lock_guard lock(mutex_);
    value_ = std::move(computed);
    return *value_;
  }
  // The kept result, if computed (never waits for a computation).
  std::optional<T> peek() {
    std::lock_guard lock(mutex_);
    return value_;
  }

 private:
  std::mutex computing_;  // held while one caller computes; taken before mutex_
  std::mutex mutex_;      // guards value_
  std::optional<T> value_;
};

}  // namespace cubekit::core
