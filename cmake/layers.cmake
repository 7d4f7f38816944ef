# The layers of cubekit, lowest first. A file under src/<layer>/ and a public header of a layer
# may include only its own layer and the layers before it in this list; the build has one
# library target per layer (cubekit_<layer>, linking the one below it), and the tools see only
# include/. cmake/check_layers.cmake enforces the order (ctest: layers.*).
set(CUBEKIT_LAYERS core format io calc cubepl algebra query model server tools cli)
# The layers that make up the library (server, tools and cli are the executable; server is a
# library of its own, cubekit_server, because of its HTTP and JSON dependencies).
set(CUBEKIT_LIBRARY_LAYERS core format io calc cubepl algebra query model)

# Every public header and the layer that implements it: the one table the checker reads.
set(CUBEKIT_PUBLIC_HEADERS
  algebra.hpp=core
  data_type.hpp=core
  error.hpp=core
  model.hpp=core
  parallel.hpp=core
  severity.hpp=core
  source.hpp=core
  generator.hpp=io
  report.hpp=io
  writer.hpp=io
  tau_profile.hpp=io
  calc.hpp=calc
  cubepl.hpp=cubepl
  derived.hpp=cubepl
  cube3_writer.hpp=algebra
  remap.hpp=algebra
  report_algebra.hpp=algebra
  structure.hpp=query
  value_text.hpp=query
  selection.hpp=query
  flat_profile.hpp=query
  pop.hpp=query
  call_tree_view.hpp=query
  statistics.hpp=query
  node_view.hpp=query
  rank.hpp=query
  topology.hpp=query
  info_tree.hpp=query
  region_info.hpp=query
  call_path_checks.hpp=query
  sanity.hpp=query
  peri_xml.hpp=query
  perf_model.hpp=model
  model_output.hpp=model
  server.hpp=server)
