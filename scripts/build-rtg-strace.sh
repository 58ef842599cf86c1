#!/bin/bash
# Build rtg-strace and trace-cmd's plugin (tools/rtg-strace/Makefile)
# against the flavour's patched tree and its libbpf.
set -euo pipefail
. "$(dirname "$0")/common.sh"

make -s -C "$TOP/tools/rtg-strace" KSRC="$KSRC" LIBBPF_INC="$TOOLS/root/usr/include" \
	LIBBPF_A="$TOOLS/libbpf/libbpf.a" OUT="$FOUT/rtg-strace" -j"$NPROC"
