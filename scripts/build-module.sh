#!/bin/bash
# Build bpf_rtguard.ko and rtg_testmod.ko against the flavour's kernel in
# $FOUT/modules, a tree of symlinks to the sources (kbuild writes objects
# next to them), so that the repository stays clean and the fast and
# debug kernels each get their own objects.
set -euo pipefail
. "$(dirname "$0")/common.sh"

mod=$FOUT/modules
mkdir -p "$mod"
find "$mod" -type l -delete
cp -rs "$TOP/Kbuild" "$TOP/kmod" "$mod/"
mkdir -p "$mod/tests"
cp -rs "$TOP/tests/kmod" "$mod/tests/"
# a module's BTF is split against vmlinux: relink it when the kernel changed
find "$mod" -name '*.ko' ! -newer "$KOBJ/vmlinux" -delete
make -s -C "$KOBJ" M="$mod" -j"$NPROC" modules
log "$mod/kmod/bpf_rtguard.ko $mod/tests/kmod/rtg_testmod.ko"
