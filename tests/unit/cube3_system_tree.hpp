// The system tree of the Cube 3 tests' hand-built reports.
#pragma once

#include <string>

#include "cubekit/model.hpp"

namespace cubekit::test {

// machine m → node n → processes p0, p1 → one thread each, t0 and t1: a system tree that
// Cube 3 holds (machine → node → process → thread).
inline void add_two_processes(Model& model) {
  SystemNode machine, node;
  machine.id = 0;
  machine.name = "m";
  machine.class_name = "machine";
  machine.children = {1};
  node.id = 1;
  node.name = "n";
  node.class_name = "node";
  node.parent = 0;
  node.groups = {0, 1};
  model.system_nodes = {machine, node};
  for (uint32_t t = 0; t < 2; ++t) {
    LocationGroup p;
    p.id = t;
    p.name = "p" + std::to_string(t);
    p.rank = t;
    p.node = 1;
    p.locations = {t};
    model.groups.push_back(p);
    Location l;
    l.id = t;
    l.name = "t" + std::to_string(t);
    l.rank = 0;
    l.group = t;
    model.locations.push_back(l);
  }
}

}  // namespace cubekit::test
