# SPDX-License-Identifier: GPL-2.0-only
#
# The helpers the kernel's UAPI header documents (include/uapi/linux/bpf.h,
# the text bpf_doc.py makes bpf_helper_defs.h from), one line each, first
# documentation of each helper only:
#
#   RTG_HELPER(map_lookup_elem, "void *", "struct bpf_map *map, const void *key")

/Start of BPF helper function descriptions/ { on = 1 }

on && /^ \* [a-z].*[ *]bpf_[a-z0-9_]+\(.*\)$/ {
	line = substr($0, 4)
	match(line, /bpf_[a-z0-9_]+\(/)
	ret = substr(line, 1, RSTART - 1)
	sub(/ +$/, "", ret)
	name = substr(line, RSTART + 4, RLENGTH - 5)
	params = substr(line, RSTART + RLENGTH)
	sub(/\)$/, "", params)
	if (!(name in seen)) {
		seen[name] = 1
		printf "RTG_HELPER(%s, \"%s\", \"%s\")\n", name, ret, params
	}
}
