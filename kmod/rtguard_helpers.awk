# SPDX-License-Identifier: GPL-2.0-only
#
# From the kernel's UAPI header (include/uapi/linux/bpf.h), with
# what=helpers: the helpers it documents (the text bpf_doc.py makes
# bpf_helper_defs.h from), one line each, first documentation of each
# helper only:
#
#   RTG_HELPER(map_lookup_elem, "void *", "struct bpf_map *map, const void *key")
#
# with what=map_types: the map types of enum bpf_map_type, one line each,
# an alias under its own name, the name it replaced left out:
#
#   RTG_MAP_TYPE(HASH)

/Start of BPF helper function descriptions/ { on = 1 }

what == "helpers" && on && /^ \* [a-z].*[ *]bpf_[a-z0-9_]+\(.*\)$/ {
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

/^enum bpf_map_type {/ { maps = 1; next }
maps && /^};/ { maps = 0 }

what == "map_types" && maps && /^\tBPF_MAP_TYPE_[A-Z0-9_]+/ {
	name = $1
	sub(/,$/, "", name)
	sub(/^BPF_MAP_TYPE_/, "", name)
	if (name !~ /_DEPRECATED$/)
		printf "RTG_MAP_TYPE(%s)\n", name
}
