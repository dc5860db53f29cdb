# Sourced by the uprobe recipes: `file_offset FILE SYMBOL` prints the file offset uprobe_events
# wants for a symbol (its address, less its PT_LOAD's address, plus that segment's offset), as
# perf-tools' uprobe and `perf probe -x` work it out; `entry_offset FILE` the same for the
# program's entry point (for a stripped program such as busybox).
vaddr_to_offset() {
	readelf -lW "$1" | while read -r type off va pa fsz rest; do
		[ "$type" = LOAD ] || continue
		if [ $(($2)) -ge $((va)) ] && [ $(($2)) -lt $((va + fsz)) ]; then
			printf '0x%x\n' $(($2 - va + off))
			break
		fi
	done
}
file_offset() {
	vaddr_to_offset "$1" "0x$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')"
}
entry_offset() {
	vaddr_to_offset "$1" "$(readelf -hW "$1" | awk '/Entry point address/ { print $4 }')"
}
