#!/bin/bash
# SPDX-License-Identifier: MIT
# Install everything libcomm needs on a fresh Debian 12 machine (build, tests, benchmarks).
set -euo pipefail
PKGS=(lua5.4 liblua5.4-dev scons m4 libcriterion-dev build-essential pkg-config valgrind
      clang gnuplot-nox openmpi-bin libopenmpi-dev)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${PKGS[@]}"
echo "setup: installed ${PKGS[*]}"
# the public programs the tests build unmodified against a config (NetPIPE: personalities/mpi)
python3 "$(dirname "$0")/thirdparty.py" || echo "setup: tests that need those files will be skipped"
