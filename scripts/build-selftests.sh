#!/bin/bash
# Build the kernel's own BPF selftests runner, test_progs, and the modules
# it loads (bpf_testmod.ko, ...) from the patched tree against the
# flavour's guest kernel, out of tree in $ST_DIR:
#   $ST_DIR/tree   a shadow of $KSRC: tools/ as real directories of
#                  symlinks to the source files, every other top-level
#                  entry a symlink; what the build writes next to its
#                  sources (bpf_testmod's objects) lands here, and the
#                  programs left out are symlinks removed here only
#   $ST_DIR/out    OUTPUT of the selftests' Makefile: test_progs, *.bpf.o
#   $ST_DIR/excluded  what is left out, and why (kept per kernel config)
# Some selftest programs do not compile against a tinyconfig-based
# vmlinux.h (types of subsystems the guest does not have), and every test
# object depends on every skeleton; so the build runs with make -k, and
# each BPF program (progs/X.c) or test (prog_tests/X.c) whose target
# fails is left out, with every test that uses the skeleton or object of
# a program left out, and the build runs again, until it links. $KSRC is
# never written (checked after the build). make rebuilds only what
# changed. Holds $KBUILD_LOCK while compiling: one build at a time.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -f "$KOBJ/vmlinux" ] || die "no $KOBJ/vmlinux; run make kernel"
command -v rsync >/dev/null || die "rsync missing (scripts/setup-host.sh)"
tree=$ST_DIR/tree
out=$ST_DIR/out
excluded=$ST_DIR/excluded
sel=tools/testing/selftests/bpf
mkdir -p "$ST_DIR" "$out"

exec 9>>"$KBUILD_LOCK"
if ! flock -n 9; then
	log "waiting for $KBUILD_LOCK (a kernel build)"
	flock 9
fi

# What was left out holds for one kernel configuration (vmlinux.h's
# types); a new configuration starts from everything again.
cfgkey="config $(sha256sum < "$KOBJ/.config" | cut -d' ' -f1)"
if [ "$(head -1 "$excluded" 2>/dev/null)" != "$cfgkey" ]; then
	echo "$cfgkey" > "$excluded"
fi

# The shadow: made once; tools/ refreshed from $KSRC on every run (new
# files, programs left out before under another configuration), then
# what is left out removed. Generated files stay.
shadow() {
	local e
	if [ ! -d "$tree" ]; then
		mkdir -p "$tree"
		for e in "$KSRC"/* "$KSRC"/.rtg-version; do
			[ "$(basename "$e")" = tools ] || ln -s "$e" "$tree/"
		done
	fi
	cp -rs --remove-destination "$KSRC/tools" "$tree/"
	while read -r f _; do
		rm -f "$tree/$sel/$f"
	done < <(tail -n +2 "$excluded")
	# prog_tests/tests.h lists the tests: regenerated when the set changed
	if ! cmp -s "$excluded" "$ST_DIR/.excluded-built"; then
		rm -f "$tree/$sel/prog_tests/tests.h"
	fi
}

# leave out F (progs/X.c or prog_tests/X.c) for REASON; for a program,
# also the tests that use its skeleton or its object file
leave_out() {
	local f=$1 why=$2 name t
	[ -L "$tree/$sel/$f" ] || return 0
	echo "$f $why" >> "$excluded"
	rm -f "$tree/$sel/$f" "$tree/$sel/prog_tests/tests.h"
	log "leaving out $f ($why)"
	case $f in
	progs/*)
		name=$(basename "$f" .c)
		for t in $(grep -lE "[\"/]$name\.(skel|lskel|subskel)\.h\"|\"$name\.bpf\.o\"" \
				"$tree/$sel"/prog_tests/*.c 2>/dev/null); do
			leave_out "prog_tests/$(basename "$t")" "uses ${f}"
		done ;;
	esac
}

# the file to blame for a failed make target
blame() {
	local base
	base=$(basename "$1")
	case $base in
	*.test.o) echo "prog_tests/${base%.test.o}.c" ;;
	*.bpf.o|*.skel.h|*.lskel.h|*.subskel.h|*.llinked[123].o|*.linked[123].o)
		echo "progs/${base%%.*}.c" ;;
	esac
}

# 6.12's Makefile maps the bare skeleton names that the compiler writes
# into a test's dependency file (X.test.d) back to $OUTPUT for %.skel.h
# only: once a test using a light skeleton or a subskeleton has been
# compiled, make finds no rule for its X.lskel.h or X.subskel.h (made
# with X.skel.h) and gives up. The same rules for those, read after the
# Makefile:
printf '%s\n\t@true\n' '%.lskel.h: $(OUTPUT)/%.lskel.h' \
	'%.subskel.h: $(OUTPUT)/%.skel.h' > "$ST_DIR/lskel.mk"
mk=(make -C "$tree/$sel" -f Makefile -f "$ST_DIR/lskel.mk" OUTPUT="$out" VMLINUX_BTF="$KOBJ/vmlinux"
	KDIR="$KOBJ" CLANG=clang-19 LLC=llc-19 LLVM_STRIP=llvm-strip-19
	feature-llvm=0 -j"$NPROC")
stamp=$ST_DIR/.build-start
touch "$stamp"
shadow
ok=0
blog=$ST_DIR/build.log
for round in 1 2 3 4 5 6; do
	log "round $round: make test_progs ($(($(wc -l < "$excluded") - 1)) files left out; log $blog)"
	if "${mk[@]}" -k test_progs > "$blog" 2>&1; then
		ok=1
		break
	fi
	# make's lines for what failed:
	#   make: *** [Makefile:NNN: /out/X.bpf.o] Error 1
	#   make: *** No rule to make target 'progs/X.c', needed by '/out/X.bpf.o'.
	found=0
	for tgt in $({ sed -nE 's/.*\*\*\* \[[^]]*:[0-9]+: ([^] ]+)\] Error.*/\1/p' "$blog"
			sed -nE "s/.*No rule to make target '[^']+', needed by '([^']+)'.*/\1/p" "$blog"
		} | sort -u); do
		f=$(blame "$tgt")
		[ -n "$f" ] && [ -L "$tree/$sel/$f" ] || continue
		why=$(grep -a -m1 -E "(^|/)$f:[0-9]+:[0-9]+: (fatal )?error:" "$blog" |
			sed -E 's/^.*: (fatal )?error: //' | cut -c1-120 || true)
		leave_out "$f" "${why:-make target $(basename "$tgt") failed}"
		found=1
	done
	if [ "$found" = 0 ]; then
		grep -a -E -B5 'error|Error' "$blog" | tail -40
		die "test_progs does not build, and no single program or test is to blame (log $blog)"
	fi
done
[ "$ok" = 1 ] || die "test_progs still does not build after $round rounds (log $blog)"
cp "$excluded" "$ST_DIR/.excluded-built"

changed=$(find "$KSRC" -newer "$stamp" ! -type d | head -5)
[ -z "$changed" ] || die "the build wrote into $KSRC: $changed"
flock -u 9
n=$(($(wc -l < "$excluded") - 1))
log "$out/test_progs ($n files left out, see $excluded)"
