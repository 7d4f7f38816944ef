# The layers of cubekit, lowest first. A file under src/<layer>/ and a public header of a layer
# may include only its own layer and the layers before it in this list; the build has one
# library target per layer (cubekit_<layer>, linking the one below it), and the tools see only
# include/. cmake/check_layers.cmake enforces the order (ctest: layers.*).
set(CUBEKIT_LAYERS core format io calc cubepl algebra query model generator mpi server tools cli)
# The layers that make up the library (installed; generator, mpi, server, tools and cli are not:
# generator is the synthetic profile generator of `cubekit generate`, the tests and bench/, a
# library of its own, cubekit_generator; mpi and server are cubekit_mpi and cubekit_server,
# because of their dependencies: MPI, which is optional, and HTTP and JSON; tools and cli are
# the executable).
set(CUBEKIT_LIBRARY_LAYERS core format io calc cubepl algebra query model)

# Every public header and the layer that implements it: the one table the checker reads.
set(CUBEKIT_PUBLIC_HEADERS
  algebra.hpp=core
  atomic_file.hpp=core
  data_type.hpp=core
  error.hpp=core
  model.hpp=core
  parallel.hpp=core
  process_heap.hpp=core
  severity.hpp=core
  source.hpp=core
  report.hpp=io
  writer.hpp=io
  tau_profile.hpp=io
  peri_import.hpp=io
  calc.hpp=calc
  row_folds.hpp=calc
  cubepl.hpp=cubepl
  derived.hpp=cubepl
  cube3_writer.hpp=algebra
  remap.hpp=algebra
  report_algebra.hpp=algebra
  structure.hpp=query
  value_text.hpp=query
  selection.hpp=query
  flat_profile.hpp=query
  call_graph.hpp=query
  flame_layout.hpp=query
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
  generator.hpp=generator
  mpi.hpp=mpi
  server.hpp=server)

# The internal API of each layer: its private headers (under src/<layer>/) that higher layers
# may include. Any other private header is its own layer's alone; the checker fails on a higher
# layer including one not listed here. Tools include public headers only. "HEADER=LAYER,..."
# names the only layers that may include it (not the tests: they ask the public API).
#   calc/kernels.hpp: the stored metrics' kernels behind MetricEngine (cubepl), which is the one
#   way to ask for values. algebra's Cube 3 export and mapped reports read stored metrics only,
#   from reports whose CubePL they must not compile and run (MetricEngine's constructor does:
#   init code, cycle checks), so they use the kernels directly.
set(CUBEKIT_INTERNAL_HEADERS
  core/huge_pages.hpp
  core/computed_once.hpp
  core/modules.hpp
  core/scale_func.hpp
  core/tree_walk.hpp
  core/unaligned.hpp
  core/vector_clones.hpp
  format/anchor.hpp
  format/anchor_writer.hpp
  format/byte_order.hpp
  format/compression.hpp
  format/cube3.hpp
  format/cube3_writer.hpp
  format/cubex_source.hpp
  format/mapped_file.hpp
  format/metric_data.hpp
  format/tar.hpp
  format/tar_writer.hpp
  format/xml_escape.hpp
  format/xml_stream.hpp
  io/metric_definition.hpp
  calc/kernels.hpp=cubepl,algebra,query
  cubepl/regex.hpp)

# Tests and bench/ stand above every layer and use the library as a higher layer may: public
# headers, the internal API above, and these private headers besides, the units that white-box
# tests and fuzzers drive directly (each with its test). They are not internal API: no other
# layer may include them. The checker enforces it for tests/ and bench/ (ctest: layers.*).
set(CUBEKIT_TEST_HEADERS
  format/chunked_file_writer.hpp  # tests/unit/chunked_file_writer_test.cpp
  cubepl/evaluator.hpp            # tests/unit/cubepl_rows_test.cpp: the row path against
  cubepl/parser.hpp               #   the general evaluator, program by program
  cubepl/row_program.hpp
  format/xml_pull.hpp             # tests/unit/xml_stream_test.cpp
  format/tree_reader.hpp          # tests/unit/system_split_test.cpp: the system tree split where
                                  #   the test says (set_system_split_for_tests)
  io/peri_reader.hpp              # tests/fuzz/fuzz_peri.cpp, tests/roundtrip/peri_xml_test.cpp
  model/least_squares.hpp         # tests/unit/multi_parameter_test.cpp
  model/series_names.hpp          # tests/fuzz/fuzz_series_names.cpp, tests/unit/perf_model_test.cpp
  mpi/collectives.hpp             # tests/mpi/plan_test.cpp
  server/report_cache.hpp         # tests/server/concurrency_test.cpp
  server/http_error.hpp           # tests/server/callgraph_api_test.cpp: the cache's refusal
  server/source_files.hpp         # tests/server/server_test.cpp
  cli/run_guarded.hpp)            # tests/unit/hostile_input_test.cpp
