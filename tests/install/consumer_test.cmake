# Installs the build tree into a fresh temporary folder, builds tests/install/consumer against it
# with find_package(cubekit), runs it on a report written by the installed `cubekit generate`,
# compares its output with what the generator's options imply, and removes the folder again
# (also on failure). The README's library example (its first ```cpp block) is built with it and
# run for the first root and a deeper call path: it must print what the installed
# `cube_calltree -m time -i -c` (a cube_* link) prints for the same call path.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DGENERATOR=Ninja [-DCXX=...] [-DLAUNCHER=...]
#         -P tests/install/consumer_test.cmake
cmake_minimum_required(VERSION 3.25)
if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
  set(temp_root "$ENV{TMPDIR}")
else()
  set(temp_root /tmp)
endif()
string(RANDOM LENGTH 12 token)
set(work "${temp_root}/cubekit-install-test-${token}")
file(MAKE_DIRECTORY "${work}")
set(failure "")

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(failure "${name} failed (${rc}):\n${out}\n${err}" PARENT_SCOPE)
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${work}/prefix")
step(install ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
if(NOT failure)
  set(configure_args -S "${SOURCE_DIR}/tests/install/consumer" -B "${work}/build" -G "${GENERATOR}"
      "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
  if(CXX)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX}")
  endif()
  if(LAUNCHER)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
  endif()
  file(READ "${SOURCE_DIR}/README.md" readme)
  string(REGEX MATCH "\n```cpp\n([^`]*)```" block "${readme}")
  if(NOT block)
    set(failure "README.md has no ```cpp block (the library example)")
  endif()
  file(WRITE "${work}/readme_example.cpp" "${CMAKE_MATCH_1}")
  list(APPEND configure_args "-DREADME_EXAMPLE=${work}/readme_example.cpp")
endif()
if(NOT failure)
  step(configure ${CMAKE_COMMAND} ${configure_args})
endif()
if(NOT failure)
  step(build ${CMAKE_COMMAND} --build "${work}/build")
endif()
set(report "${work}/generated.cubex")
if(NOT failure)
  step(generate "${prefix}/bin/cubekit" generate --call-paths 200 --machines 1 --nodes 2
       --processes 4 --threads 4 -o "${report}")
endif()
if(NOT failure)
  step(run "${work}/build/consumer" "${report}")
  # 200 call paths as asked; 1 machine × 2 nodes × 4 ranks × 4 threads = 32 locations.
  set(expected "call paths 200
locations 32
selected 200
root inclusive visits = sum of exclusive: yes
derived twice = 2 x visits: yes
lookup error: no call path at index 200: the report has 200
")
  if(NOT failure AND NOT step_output STREQUAL expected)
    set(failure "consumer printed:\n${step_output}\nexpected:\n${expected}")
  endif()
endif()
# The example against cube_calltree: lines "<value> <indented name> /<region>/<region>...".
if(NOT failure)
  step(calltree "${prefix}/bin/cube_calltree" -m time -i -c "${report}")
  string(REGEX MATCHALL "[^\n]+" calltree_lines "${step_output}")
  list(FILTER calltree_lines INCLUDE REGEX "^[-+.0-9e]+ .* /[^ ]")
  list(LENGTH calltree_lines calltree_count)
  if(calltree_count LESS 10)
    set(failure "cube_calltree printed ${calltree_count} call paths:\n${step_output}")
  endif()
endif()
foreach(line_index 0 9)
  if(failure)
    break()
  endif()
  list(GET calltree_lines ${line_index} line)
  string(REGEX MATCH "^([^ ]+) .* /(.+)$" matched "${line}")
  set(expected_value "${CMAKE_MATCH_1}")
  set(call_path "${CMAKE_MATCH_2}")
  if(line_index EQUAL 0)
    step(example "${work}/build/readme_example" "${report}")  # default: the first root
  else()
    step(example "${work}/build/readme_example" "${report}" "${call_path}")
  endif()
  if(NOT failure AND NOT step_output STREQUAL "${expected_value}\n")
    set(failure "the README example printed '${step_output}' for ${call_path}; cube_calltree: ${expected_value}")
  endif()
endforeach()
if(NOT failure)
  execute_process(COMMAND "${work}/build/readme_example" "${report}" "main/no such region"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "no call path 'main/no such region'")
    set(failure "the README example on a missing call path: exit ${rc}, '${err}'")
  endif()
endif()
file(REMOVE_RECURSE "${work}")
if(failure)
  message(FATAL_ERROR "${failure}")
endif()
message(STATUS "installed cubekit works for a find_package(cubekit) consumer")
