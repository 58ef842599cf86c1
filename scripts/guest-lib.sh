# What the host scripts that assemble guests and judge their runs share;
# sourced after common.sh, not run.
# shellcheck shell=bash

# Kernel log lines that fail a boot: warnings, BUG, oops, lockdep, RCU,
# KASAN, UBSAN, debug objects, list corruption, kmemleak.
# shellcheck disable=SC2034 # read by the scripts that source this one
kernel_reports='WARNING:|BUG:|Oops|INFO:|Call Trace:|Kernel panic|general protection|possible circular|possible recursive|inconsistent lock|suspicious RCU|sleeping function called|UBSAN|KASAN|ODEBUG|list_(add|del) corruption|unreferenced object'

# One verdict line, counted in pass and fail (which the caller sets to 0).
result() {	# result NAME OK [detail]
	if [ "$2" = 1 ]; then
		echo "PASS $1${3:+ ($3)}"
		pass=$((pass + 1))
	else
		echo "FAIL $1${3:+ ($3)}"
		fail=$((fail + 1))
	fi
}

# A new initramfs tree at ROOT: busybox-static and its applets, a console,
# initramfs/init, and the directories DIRS (bin sbin dev proc sys tmp etc
# rtg are always made).
initramfs_base() {	# initramfs_base ROOT [DIRS...]
	local root=$1 applet
	shift
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,rtg}
	for applet in "$@"; do
		mkdir -p "$root/$applet"
	done
	cp /bin/busybox "$root/bin/busybox"
	for applet in $("$root/bin/busybox" --list); do
		[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
	done
	mknod -m 600 "$root/dev/console" c 5 1
	install -m 755 "$TOP/initramfs/init" "$root/init"
}

# Copy the host's dynamically linked BIN into ROOT at the same path, with
# the libraries and the loader it needs.
initramfs_add_dynamic() {	# initramfs_add_dynamic ROOT BIN
	local root=$1 bin=$2 lib
	install -D -m 755 "$bin" "$root$bin"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] || install -D -m 755 "$lib" "$root$lib"
	done
}

# Pack the tree ROOT into the gzipped cpio archive OUT.
initramfs_pack() {	# initramfs_pack ROOT OUT
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) > "$2"
	log "$2 ($(du -h "$2" | cut -f1))"
}
