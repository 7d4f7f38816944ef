# Sourced by the build scripts (build.sh, sanitizers.sh, tsan.sh): how they use ccache, Debian's,
# installed by scripts/setup.sh, when it is present. Sets `launcher` to the cmake argument that
# puts ccache before the compiler (empty without ccache).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"  # hits across clones side by side
# With -g ccache keys on the build folder unless told not to: no hits across clones otherwise.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# The tests' precompiled header (tests/CMakeLists.txt): ccache caches the files that use it only
# when told that its defines and time macros do not change the result.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
