# Installs the viewer's npm dependencies (web-vendor/package-lock.json) into BUILD_DIR and copies
# their browser modules to OUTPUT_DIR/vendor/, which embed_assets.cmake compiles in beside web/.
# Without npm, or when the registry cannot be reached, it says so and leaves OUTPUT_DIR/vendor
# empty: the viewer then names the missing library in the call graph's tab.
# Run at build time: cmake -DNPM=... -DSOURCE_DIR=... -DBUILD_DIR=... -DOUTPUT_DIR=... -P web_vendor.cmake
file(MAKE_DIRECTORY "${BUILD_DIR}" "${OUTPUT_DIR}/vendor")
file(COPY "${SOURCE_DIR}/package.json" "${SOURCE_DIR}/package-lock.json" DESTINATION "${BUILD_DIR}")
set(modules "@dagrejs/dagre/dist/dagre.esm.js=dagre.js")
if(NPM)
  execute_process(COMMAND "${NPM}" ci --no-audit --no-fund --silent WORKING_DIRECTORY "${BUILD_DIR}"
                  RESULT_VARIABLE status)
endif()
foreach(entry IN LISTS modules)
  string(REPLACE "=" ";" pair "${entry}")
  list(GET pair 0 from)
  list(GET pair 1 to)
  if(NPM AND status EQUAL 0 AND EXISTS "${BUILD_DIR}/node_modules/${from}")
    file(COPY_FILE "${BUILD_DIR}/node_modules/${from}" "${OUTPUT_DIR}/vendor/${to}" ONLY_IF_DIFFERENT)
  else()
    message(WARNING "viewer: ${from} not built in (npm missing or failed); the call graph tab will say so")
    file(REMOVE "${OUTPUT_DIR}/vendor/${to}")
  endif()
endforeach()
