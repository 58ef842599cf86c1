#!/bin/bash
# Build the guest test programs (tests/Makefile) for the flavour's kernel.
set -euo pipefail
. "$(dirname "$0")/common.sh"

make -s -C "$TOP/tests" KSRC="$KSRC" KOBJ="$KOBJ" TOOLS="$TOOLS" \
	OUT="$FOUT/tests" CLANG="$CLANG" -j"$NPROC"
