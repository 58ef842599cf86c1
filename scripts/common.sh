# The one place for build settings; sourced by every script, not run.
# The Makefile only calls scripts, so everything below can be overridden
# from the environment or the make command line:
#   RTGUARD_CACHE  kernel tree, kernel builds and tools (/var/cache/bpf_rtguard)
#   OUT            what is built from this repository ($TOP/build)
#   CLANG          the compiler for BPF programs (clang-19)
#   RTG_FLAVOR     fast (the guest kernel of make check) or debug (check-debug)
#   ST_DIR         the kernel's BPF selftests built for that kernel (make
#                  selftests; $RTGUARD_CACHE/selftests, debug-selftests)
# shellcheck shell=bash
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${RTGUARD_CACHE:-/var/cache/bpf_rtguard}
KSRC=$CACHE/linux-source-6.12
TOOLS=$CACHE/tools
OUT=${OUT:-$TOP/build}
CLANG=${CLANG:-clang-19}
NPROC=$(nproc)
# held around every kernel build on this machine: never two at once
KBUILD_LOCK=/var/lock/rtg-kbuild

# Per flavour: the kernel build directory (an O= build of KSRC), its
# configuration fragments on top of tinyconfig, where the module, tests
# and initramfs for that kernel go, and where its test_progs is built.
FLAVOR=${RTG_FLAVOR:-fast}
case $FLAVOR in
fast)
	KOBJ=$CACHE/build
	FRAGMENTS="$TOP/scripts/guest.config"
	FOUT=$OUT
	ST_DIR=${ST_DIR:-$CACHE/selftests} ;;
debug)
	KOBJ=$CACHE/debug-build
	FRAGMENTS="$TOP/scripts/guest.config $TOP/scripts/debug.config"
	FOUT=$OUT/debug
	ST_DIR=${ST_DIR:-$CACHE/debug-selftests} ;;
*)
	echo "RTG_FLAVOR must be fast or debug" >&2; exit 1 ;;
esac
export TOP CACHE KSRC TOOLS OUT CLANG NPROC KBUILD_LOCK FLAVOR KOBJ FRAGMENTS FOUT ST_DIR

log() { printf '[%s] %s\n' "$(basename "$0")" "$*"; }
die() { printf '[%s] error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
