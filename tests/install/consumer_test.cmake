# Installs the build tree into a fresh temporary folder, builds tests/install/consumer against it
# with find_package(cubekit), runs it on a report written by the installed `cubekit generate`,
# compares its output with what the generator's options imply, and removes the folder again
# (also on failure).
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
file(REMOVE_RECURSE "${work}")
if(failure)
  message(FATAL_ERROR "${failure}")
endif()
message(STATUS "installed cubekit works for a find_package(cubekit) consumer")
