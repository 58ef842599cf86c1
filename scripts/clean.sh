#!/bin/bash
# Remove what the build wrote into $OUT (both flavours); the kernel builds
# in the cache stay.
set -euo pipefail
. "$(dirname "$0")/common.sh"

rm -rf "$OUT"
log "removed $OUT"
