#!/usr/bin/env bash
# Installs what cubekit needs on Debian 12 (run as root, or with sudo available).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev clang-format
  libpugixml-dev zlib1g-dev libdeflate-dev libisal-dev libpcre2-dev libminizip-dev
  libgtest-dev libbenchmark-dev time ccache
  pybind11-dev python3-dev python3-numpy python3-pytest python3-pandas python3-setuptools
  python3-pip python3-build python3-venv
  libcpp-httplib-dev nlohmann-json3-dev chromium
  openmpi-bin libopenmpi-dev)
# Node.js and npm run the viewer's browser test. A machine may already have them from elsewhere
# (NodeSource's nodejs bundles npm, and Debian's npm package then cannot be installed beside it:
# apt reports "held broken packages"), so they are only installed when the commands are missing.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
