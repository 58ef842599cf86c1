#!/bin/bash
# Build libbpf (static) and bpftool from the kernel tree, so that the test
# loaders and skeletons match the 6.12 kernel they run on.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -d "$KSRC/tools/lib/bpf" ] || die "kernel source missing; run scripts/build-kernel.sh"
mkdir -p "$TOOLS/libbpf" "$TOOLS/bpftool"
log "libbpf"
make -s -C "$KSRC/tools/lib/bpf" OUTPUT="$TOOLS/libbpf/" -j"$NPROC" \
	"$TOOLS/libbpf/libbpf.a" >/dev/null
make -s -C "$KSRC/tools/lib/bpf" OUTPUT="$TOOLS/libbpf/" \
	DESTDIR="$TOOLS/root" prefix=/usr install_headers >/dev/null
log "bpftool (bootstrap: btf dump, gen skeleton)"
make -s -C "$KSRC/tools/bpf/bpftool" OUTPUT="$TOOLS/bpftool/" -j"$NPROC" \
	bootstrap >/dev/null
ln -sf "$TOOLS/bpftool/bootstrap/bpftool" "$TOOLS/bpftool-bin"
log "tools ready in $TOOLS"
