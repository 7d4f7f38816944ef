// Walking a call tree as nested elements (XML writers): `open(c)` on the way down in pre-order,
// `close(c)` after all of c's subtree. Iterative: call trees can be deeper than the stack.
#pragma once

#include <vector>

#include "cubekit/model.hpp"

namespace cubekit::core {

template <class Open, class Close>
void walk_nested(const Model& model, Index root, Open&& open, Close&& close) {
  struct Step {
    Index cnode;
    bool close;
  };
  std::vector<Step> stack{{root, false}};
  while (!stack.empty()) {
    const Step s = stack.back();
    stack.pop_back();
    if (s.close) {
      close(s.cnode);
      continue;
    }
    open(s.cnode);
    stack.push_back({s.cnode, true});
    const auto& children = model.cnodes[s.cnode].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, false});
  }
}

}  // namespace cubekit::core
