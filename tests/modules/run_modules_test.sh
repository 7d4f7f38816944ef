#!/usr/bin/env bash
# The parts of the tools that live in modules (core/modules.hpp): the executable does not link
# their libraries, so a tool starts without them; `cubekit serve` and a tool under an MPI
# launcher load their module from beside the executable; without the module they end with one
# line naming it, exit 1.
#   run_modules_test.sh BIN_DIR WITH_MPI(0|1)
set -euo pipefail
bin=$1 with_mpi=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

needed=$(readelf -d "$bin/cubekit" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf found no NEEDED libraries in $bin/cubekit"
for lib in libcpp-httplib libssl libcrypto libmpi; do
  [[ $needed != *"$lib"* ]] || fail "$bin/cubekit links $lib, which only a module may"
done

# The server answers from its module: here, that the root is no folder.
said=$("$bin/cubekit" serve --port 0 --root "$work/no-such-folder" 2>&1) && fail "serve started"
[[ $said == *"no-such-folder: cannot serve it: not an existing folder"* ]] ||
  fail "cubekit serve did not reach its module: $said"

# A copy of the executable without its modules beside it.
mkdir "$work/alone"
cp "$bin/cubekit" "$work/alone/cubekit"
rc=0
said=$("$work/alone/cubekit" serve --port 0 --root "$work" 2>&1) || rc=$?
[ $rc -eq 1 ] || fail "serve without its module: exit $rc, expected 1"
[ "$said" = "cubekit serve: cannot load the module cubekit-server.so: $work/alone/cubekit-server.so: cannot open shared object file: No such file or directory; $work/lib/cubekit/cubekit-server.so: cannot open shared object file: No such file or directory" ] ||
  fail "serve without its module said: $said"

"$bin/cubekit" generate --call-paths 20 -o "$work/r.cubex" >/dev/null
if [ "$with_mpi" = 1 ]; then
  # As if a launcher had started it: the MPI module is what it needs first.
  rc=0
  said=$(OMPI_COMM_WORLD_SIZE=1 "$work/alone/cubekit" dump -m time "$work/r.cubex" 2>&1) || rc=$?
  [ $rc -eq 1 ] || fail "a rank without the MPI module: exit $rc, expected 1"
  [[ $said == "cube_dump: cannot load the module cubekit-mpi.so: $work/alone/cubekit-mpi.so: cannot open"* ]] ||
    fail "a rank without the MPI module said: $said"
fi
# Started alone, no module is needed.
"$work/alone/cubekit" dump -m time "$work/r.cubex" >"$work/alone.out" ||
  fail "cube_dump without any module beside it failed"
"$bin/cubekit" dump -m time "$work/r.cubex" >"$work/built.out"
cmp -s "$work/alone.out" "$work/built.out" || fail "cube_dump printed other bytes without the modules"

[ $failures -eq 0 ] || exit 1
echo "modules: the executable starts without the modules' libraries and loads them on demand"
