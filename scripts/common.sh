# Paths shared by the build scripts; sourced, not run.
# shellcheck shell=bash
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${RTGUARD_CACHE:-/var/cache/bpf_rtguard}
KSRC=$CACHE/linux-source-6.12
KOBJ=$CACHE/build
TOOLS=$CACHE/tools
NPROC=$(nproc)
CLANG=${CLANG:-clang-19}
export TOP CACHE KSRC KOBJ TOOLS NPROC CLANG

log() { printf '[%s] %s\n' "$(basename "$0")" "$*"; }
die() { printf '[%s] error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
