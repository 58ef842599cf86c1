#!/bin/bash
# Install the Debian packages the build, the guest image and the tests need.
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

pkgs=(
	build-essential bc bison flex kmod cpio xz-utils python3 perl
	libelf-dev libssl-dev zlib1g-dev libzstd-dev libcap-dev
	dwarves linux-source-6.12
	clang-19 llvm-19
	qemu-system-x86 busybox-static
	rsync	# make selftests: the kernel's BPF selftests copy with it
	# the guest's trace-cmd, and the headers of the plugin that lets it
	# print debug-mode calls
	trace-cmd libtraceevent-dev
	linux-perf	# perf script, which loads the same plugin
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup-host: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "setup-host: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
