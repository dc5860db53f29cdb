/*
 * kallsyms (6.1's kernel/kallsyms.c): the kernel's own table of its symbols, which the build
 * links into .rodata (scripts/kallsyms.py writes it from the image it is linked into), read
 * for the name of an address (sprint_symbol(): a probe's symstr) and the address of a name
 * (kallsyms_lookup_name(): the BPF verifier's attach target).  Its order, sizes and names are
 * the ones /proc/kallsyms lists: the host reads this same table.
 *
 * The names are stored as indexes into a token table, each token a string (Linux's are the
 * byte pairs its build found commonest; here each is one character: the same decoder reads
 * both), the first character of a name its type letter.
 */
#include "../include/kernel.h"
#include "../include/kallsyms.h"
#include "../include/bpf.h"
#include "../include/bpf_tramp.h"

/* weak: the link's first pass has no table yet (kallsyms_internal.h) */
extern const int kallsyms_offsets[] __attribute__((weak));
extern const unsigned long kallsyms_relative_base __attribute__((weak));
extern const unsigned int kallsyms_num_syms __attribute__((weak));
extern const u8 kallsyms_names[] __attribute__((weak));
extern const unsigned int kallsyms_markers[] __attribute__((weak));
extern const u8 kallsyms_seqs_of_names[] __attribute__((weak));
extern const char kallsyms_token_table[] __attribute__((weak));
extern const u16 kallsyms_token_index[] __attribute__((weak));

/* linked apart from the image's symbols (vmlinux.lds): the ftrace trampoline and the BPF
 * program pack, which stand for Linux's memory outside the kernel image */
extern char __ftrace_tramp_start[], __ftrace_tramp_end[];
extern u8 bpf_tramp_area[BPF_TRAMP_AREA_SIZE];	/* the BPF trampolines' pages, likewise */

/* The name at off in kallsyms_names into result (without its type letter, at most maxlen bytes
 * with the NUL); returns the offset of the next name. */
static notrace unsigned int kallsyms_expand_symbol(unsigned int off, char *result, size_t maxlen)
{
	const u8 *data = &kallsyms_names[off];
	int len = *data++, skipped_first = 0;

	off++;
	if (len & 0x80) {	/* a length of two ULEB128 bytes */
		len = (len & 0x7F) | (*data++ << 7);
		off++;
	}
	off += len;
	while (len--) {
		const char *tptr = &kallsyms_token_table[kallsyms_token_index[*data++]];

		for (; *tptr; tptr++) {
			if (!skipped_first) {	/* the type letter */
				skipped_first = 1;
				continue;
			}
			if (maxlen <= 1)
				goto tail;
			*result++ = *tptr;
			maxlen--;
		}
	}
tail:
	if (maxlen)
		*result = '\0';
	return off;
}

/* Where symbol pos's name starts in kallsyms_names: from the marker of its 256. */
static notrace unsigned int get_symbol_offset(unsigned long pos)
{
	const u8 *name = &kallsyms_names[kallsyms_markers[pos >> 8]];
	unsigned long i;

	for (i = 0; i < (pos & 0xFF); i++) {
		int len = *name;

		if (len & 0x80)
			len = ((len & 0x7F) | (name[1] << 7)) + 1;
		name += len + 1;
	}
	return name - kallsyms_names;
}

static notrace unsigned long kallsyms_sym_address(unsigned long idx)
{
	return kallsyms_relative_base + (u32)kallsyms_offsets[idx];
}

/* The symbol at position index of the table sorted by name. */
static notrace unsigned int get_symbol_seq(unsigned int index)
{
	const u8 *seq = &kallsyms_seqs_of_names[3 * index];

	return seq[0] << 16 | seq[1] << 8 | seq[2];
}

/* The first symbol named name, in name order (bsearch of kallsyms_seqs_of_names); -ESRCH: none */
static noinline int kallsyms_lookup_names(const char *name, unsigned int *start)
{
	char namebuf[KSYM_NAME_LEN];
	int low = 0, high = (int)kallsyms_num_syms - 1, mid = 0, ret = 1;

	while (low <= high) {
		mid = low + (high - low) / 2;
		kallsyms_expand_symbol(get_symbol_offset(get_symbol_seq(mid)), namebuf, sizeof(namebuf));
		ret = strcmp(name, namebuf);
		if (ret > 0)
			low = mid + 1;
		else if (ret < 0)
			high = mid - 1;
		else
			break;
	}
	if (ret)
		return -ESRCH;
	while (mid) {	/* the first of those named so (the lowest address) */
		kallsyms_expand_symbol(get_symbol_offset(get_symbol_seq(mid - 1)), namebuf, sizeof(namebuf));
		if (strcmp(name, namebuf))
			break;
		mid--;
	}
	*start = mid;
	return 0;
}

/* The address of the symbol named name; 0: none (there are no modules to look in). */
noinline unsigned long kallsyms_lookup_name(const char *name)
{
	unsigned int i;

	if (!*name || kallsyms_lookup_names(name, &i))
		return 0;
	return kallsyms_sym_address(get_symbol_seq(i));
}

/* is_ksym_addr() of CONFIG_KALLSYMS_ALL: the image, data too */
static notrace bool is_ksym_addr(unsigned long addr)
{
	if (addr >= (unsigned long)__ftrace_tramp_start && addr < (unsigned long)__ftrace_tramp_end)
		return false;
	if (addr >= (unsigned long)bpf_tramp_area && addr < (unsigned long)bpf_tramp_area + BPF_TRAMP_AREA_SIZE)
		return false;
	return addr >= (unsigned long)_stext && addr < (unsigned long)_end;
}

/* The table position of the symbol addr is in (the first of its aliases), its size (to the
 * next higher address, or _end) and addr's offset in it. */
static noinline unsigned long get_symbol_pos(unsigned long addr, unsigned long *symbolsize,
					     unsigned long *offset)
{
	unsigned long low = 0, high = kallsyms_num_syms, mid, i, start, end = 0;

	while (high - low > 1) {
		mid = low + (high - low) / 2;
		if (kallsyms_sym_address(mid) <= addr)
			low = mid;
		else
			high = mid;
	}
	while (low && kallsyms_sym_address(low - 1) == kallsyms_sym_address(low))
		--low;
	start = kallsyms_sym_address(low);
	for (i = low + 1; i < kallsyms_num_syms; i++) {
		if (kallsyms_sym_address(i) > start) {
			end = kallsyms_sym_address(i);
			break;
		}
	}
	if (!end)
		end = (unsigned long)_end;
	if (symbolsize)
		*symbolsize = end - start;
	if (offset)
		*offset = addr - start;
	return low;
}

noinline int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *symbolsize,
					 unsigned long *offset)
{
	char namebuf[KSYM_NAME_LEN];

	if (is_ksym_addr(addr)) {
		get_symbol_pos(addr, symbolsize, offset);
		return 1;
	}
	return !!__bpf_address_lookup(addr, symbolsize, offset, namebuf);
}

/* kallsyms_lookup_buildid() without build ids: the image's symbols, then the JITed programs' */
static noinline const char *kallsyms_lookup_buildid(unsigned long addr, unsigned long *symbolsize,
						    unsigned long *offset, char **modname, char *namebuf)
{
	const char *ret;

	namebuf[KSYM_NAME_LEN - 1] = 0;
	namebuf[0] = 0;
	if (is_ksym_addr(addr)) {
		unsigned long pos = get_symbol_pos(addr, symbolsize, offset);

		kallsyms_expand_symbol(get_symbol_offset(pos), namebuf, KSYM_NAME_LEN);
		if (modname)
			*modname = NULL;
		return namebuf;
	}
	ret = __bpf_address_lookup(addr, symbolsize, offset, namebuf);	/* bpf_address_lookup() */
	if (ret && modname)
		*modname = "bpf";
	return ret;
}

noinline const char *kallsyms_lookup(unsigned long addr, unsigned long *symbolsize, unsigned long *offset,
				     char **modname, char *namebuf)
{
	return kallsyms_lookup_buildid(addr, symbolsize, offset, modname, namebuf);
}

/* __sprint_symbol(): "name+0xoff/0xsize" of address + symbol_offset, the offset given back as
 * of address itself (no build id) */
static notrace int __sprint_symbol(char *buffer, unsigned long address, int symbol_offset)
{
	unsigned long offset, size;
	char *modname;
	const char *name;
	int len;

	address += symbol_offset;
	name = kallsyms_lookup_buildid(address, &size, &offset, &modname, buffer);
	if (!name)
		return scnprintf(buffer, KSYM_SYMBOL_LEN, "0x%lx", address - symbol_offset);
	len = strlen(name);	/* (the name is in buffer) */
	offset -= symbol_offset;
	len += scnprintf(buffer + len, KSYM_SYMBOL_LEN - len, "+0x%lx/0x%lx", offset, size);
	if (modname)
		len += scnprintf(buffer + len, KSYM_SYMBOL_LEN - len, " [%s]", modname);
	return len;
}

noinline int sprint_symbol(char *buffer, unsigned long address)
{
	return __sprint_symbol(buffer, address, 0);
}

/* %pB: a return address is named after the call before it (address - 1: a call that ends its
 * function, a noreturn one, still names its caller), its offset the return address's */
noinline int sprint_backtrace(char *buffer, unsigned long address)
{
	return __sprint_symbol(buffer, address, -1);
}

/* The name of the symbol at addr into symname (KSYM_NAME_LEN); -ERANGE where none is */
noinline int lookup_symbol_name(unsigned long addr, char *symname)
{
	unsigned long size, offset;
	char *modname;

	symname[0] = '\0';
	return kallsyms_lookup_buildid(addr, &size, &offset, &modname, symname) ? 0 : -ERANGE;
}
