#!/usr/bin/env bash
# `cpack -G DEB` makes a package that installs and runs on Debian 12: builds it from BUILD into a
# fresh temporary folder, checks that its Depends name the Debian package of every shared library
# the tools load (so that apt installs them on a clean system), unpacks it into a scratch root
# (dpkg -x, as dpkg --install would lay it out) and runs the unpacked `cube_dump` link: on a
# report the unpacked `cubekit generate` writes (the call paths and locations its options imply)
# and, when ../shared is there, on CubeLib's summary.cubex against CubeLib 4.6's own output.
#   [CPACK=cpack] tests/install/deb_test.sh BUILD SHARED_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
shared=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cubekit-deb-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "deb_test: $*" >&2
  exit 1
}

"${CPACK:-cpack}" -G DEB --config "$build/CPackConfig.cmake" -B "$work/package" >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(cat "$work/cpack.log")"
deb=$(ls "$work"/package/*.deb)
[ "$(dpkg-deb -f "$deb" Package)" = cubekit ] || fail "$deb is not the package cubekit"

root="$work/root"
dpkg -x "$deb" "$root"
[ -x "$root/usr/bin/cubekit" ] || fail "the package holds no /usr/bin/cubekit"
for tool in cube_dump cube_calltree cube_serve; do
  [ "$(readlink "$root/usr/bin/$tool")" = cubekit ] || fail "/usr/bin/$tool is not a link to cubekit"
done
for f in include/cubekit/derived.hpp lib/cmake/cubekit/cubekitConfig.cmake lib/libcubekit_core.a; do
  [ -e "$root/usr/$f" ] || fail "the package holds no /usr/$f"
done

# Every shared library the executable and its modules (cubekit-server.so, cubekit-mpi.so,
# loaded on demand from /usr/lib/cubekit) need themselves (their NEEDED entries; what those
# need, their packages depend on) belongs to a Debian package named in Depends.
depends=$(dpkg-deb -f "$deb" Depends)
package_of() {  # dpkg knows a file by the path its package installed it under (/lib or /usr/lib)
  local path
  for path in "$1" "$(readlink -f "$1")" "${1#/usr}" "/usr${1#/usr}"; do
    dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 | grep . && return 0
  done
  return 1
}
ls "$root"/usr/lib/cubekit/cubekit-server.so >/dev/null || fail "the package holds no server module"
# Built with MPI, the package recommends OpenMPI's launcher (its libraries are in Depends).
if [ -e "$root"/usr/lib/cubekit/cubekit-mpi.so ]; then
  [[ ",$(dpkg-deb -f "$deb" Recommends)," == *openmpi-bin* ]] ||
    fail "the package holds cubekit-mpi.so but does not recommend openmpi-bin"
  [[ ",$depends," == *libopenmpi3* ]] || fail "Depends ($depends) lacks libopenmpi3"
fi
for elf in "$root/usr/bin/cubekit" "$root"/usr/lib/cubekit/*.so; do
  needed=$(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [ -n "$needed" ] || fail "readelf found no NEEDED libraries in $elf"
  for name in $needed; do
    [[ "$name" == ld-linux* ]] && continue  # the dynamic loader, libc6's
    lib=$(ldd "$elf" | awk -v n="$name" '$1 == n {print $3}')
    [ -n "$lib" ] || fail "the system has no $name, which $elf needs"
    owner=$(package_of "$lib") || fail "no Debian package holds $lib"
    case "$owner" in libc6 | libgcc-s1 | libstdc++6) ;;  # always there (essential or required)
    *) [[ ",$depends," == *"$owner"* ]] || fail "Depends ($depends) lacks $owner, which holds $lib" ;;
    esac
  done
done

# The unpacked tools run: 60 call paths, 1 machine × 1 node × 2 ranks × 2 threads = 4 locations.
"$root/usr/bin/cubekit" generate --call-paths 60 --machines 1 --nodes 1 --processes 2 \
  --threads 2 -o "$work/generated.cubex" >/dev/null
"$root/usr/bin/cube_dump" -m visits -t aggr -s csv2 "$work/generated.cubex" >"$work/dump.csv"
rows=$(($(wc -l <"$work/dump.csv") - 1))
[ "$rows" -eq 60 ] || fail "cube_dump printed $rows call paths of the generated report, not 60"
"$root/usr/bin/cube_dump" -m visits -t 0-3 -s csv2 "$work/generated.cubex" >"$work/dump.csv"
threads=$(tail -n +2 "$work/dump.csv" | cut -d, -f2 | sort -u | wc -l)
[ "$threads" -eq 4 ] || fail "cube_dump printed values of $threads locations, not 4"

# The packaged `cubekit serve` finds its module: the server itself answers (here: that the
# root is no folder), not the loader.
if said=$("$root/usr/bin/cubekit" serve --port 0 --root "$work/no-such-folder" 2>&1); then
  fail "cubekit serve started on a root that does not exist"
fi
[[ $said == *"no-such-folder: cannot serve it: not an existing folder"* ]] ||
  fail "the packaged cubekit serve did not reach its server module: $said"

summary="$shared/data/real/cubelib/examples/summary.cubex"
oracle="$shared/oracle/cubelib__examples__cube__summary.cubex"
if [ -f "$summary" ] && [ -f "$oracle/dump_all_incl_aggr.out" ]; then
  # CubeLib ran in the oracle folder on a copy named after it (../shared/oracle/README.md).
  cp "$summary" "$work/cubelib__examples__cube__summary.cubex"
  (cd "$work" && "$root/usr/bin/cube_dump" -m all -z incl -t aggr \
    ./cubelib__examples__cube__summary.cubex >"$work/summary.out")
  cmp -s "$work/summary.out" "$oracle/dump_all_incl_aggr.out" ||
    fail "the packaged cube_dump -m all -z incl -t aggr differs from CubeLib's on summary.cubex"
elif [ "${CI:-}" = true ]; then
  fail "$shared is missing (needed under CI=true)"
else
  echo "deb_test: $shared is missing: the comparison with CubeLib's output is skipped"
fi
echo "deb_test: the Debian package installs into a scratch root and its cube_dump runs"
