/* bpftest CMD ARGS... [CMD ARGS...]: bpf() calls from a program, one command after another,
 * one line of result each, for tests/machine/test_bpf.py.  Byte strings are hex (little-endian
 * as in memory); results are numbers, an error a negative errno.  Built for the emulated kernel,
 * and with -DHOST as a static program for the real 6.1 (tests/data/bpf/, real-tracefs -s).
 *
 *   map TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES [FLAGS [NAME]]   -> map fd
 *   upd FD KEY VALUE [FLAGS]   get FD KEY   del FD KEY   next FD KEY|-
 *   pop FD KEY [FLAGS]         (BPF_MAP_LOOKUP_AND_DELETE_ELEM; for upd, get, del and pop a KEY
 *                              of "-" is no key: NULL, as a queue or stack takes)
 *   load TYPE INSNS [LOG_LEVEL] [P=PROG_FLAGS] [L=LICENSE] [A=ATTACH_TYPE:BTF_ID] [N=NAME] [F=BTF_FD:TYPE_ID]
 *                                          (F=: the program's BTF, one func_info record at insn 0)
 *        [B=BTF_FD] [FI=REC_SIZE:CNT:HEX] [LI=REC_SIZE:CNT:HEX]
 *                                          (prog_btf_fd, func_info, line_info as given; then the
 *                                          result line has " rec FUNC_REC_SIZE LINE_REC_SIZE")
 *                                          -> prog fd, then the verifier log's lines, "| "-prefixed
 *   run FD [CTX [CPU]]                     -> the program's return value (BPF_PROG_TEST_RUN)
 *   minfo FD   pinfo FD                    -> BPF_OBJ_GET_INFO_BY_FD fields
 *   pxlated FD                             -> the program as it runs (xlated_prog_insns), in hex
 *   pjit FD                                -> a program's JITed functions: how many, their lengths
 *                                             non-zero and adding up, addresses kernel ones, the
 *                                             first bytes of each's image
 *   pbtf FD NF NL NJ FRS LRS JRS           -> a program's btf_id, func_info, line_info (hex), jited
 *                                             line offsets, with room for NF, NL, NJ records of
 *                                             sizes FRS, LRS, JRS (its BTF's id then seen by bfdlast)
 *   bnext ID   bfd ID                      -> BPF_BTF_GET_NEXT_ID's next id, BPF_BTF_GET_FD_BY_ID's fd
 *   binfo FD NAME_LEN                      -> a BTF object's info: the data's first 4 bytes (of a
 *                                             16-byte buffer), its size, id, name, kernel_btf
 *   btf BLOB [LOG_LEVEL [LOG_SIZE]]        -> BPF_BTF_LOAD of the hex BLOB ("-": from stdin): a BTF fd,
 *                                             then the log's lines, "| "-prefixed (LOG_SIZE: of the
 *                                             64 KiB buffer given)
 *   bdata FD                               -> a BTF object's info: its size, id, name, kernel_btf, and
 *                                             whether its data is the last blob btf loaded
 *   mbtf FD                                -> a map's BTF: whether it has one (its id, then seen by bfdlast),
 *                                             its key's and value's type ids
 *   bid FD                                 -> whether BPF_BTF_GET_NEXT_ID from the BTF's id - 1 finds its
 *                                             id, and an fd BPF_BTF_GET_FD_BY_ID opens on that id
 *   bfdlast                                -> BPF_BTF_GET_FD_BY_ID of the id bid saw (ids vary: not shown)
 *   raw CMD ATTR [SIZE]                    -> bpf(CMD, ATTR, SIZE) as it returns
 *   rawtp FD NAME|-                        -> a link fd (BPF_RAW_TRACEPOINT_OPEN; "-": name NULL)
 *   link FD ATTACH_TYPE [I=HEX]            -> a link fd (BPF_LINK_CREATE, no target; I=: iter_info
 *                                             the bytes given, iter_info_len their count)
 *   iter LINK_FD [FLAGS]                   -> an iterator's fd (BPF_ITER_CREATE)
 *   read FD SIZE                           -> read(2)s of SIZE bytes until one gives 0 or an error:
 *                                             their results, then the text read, "| "-prefixed lines
 *   tpev ID                                -> a perf event fd on tracepoint ID, this process's
 *   tpevall ID                             -> the same, every task's on cpu 0 (as bpftrace opens them)
 *   child N PROG ARGS...                   -> PROG (N words with it) run in a child (fork, execve,
 *                                             wait4): its wait status
 *   dump FD                                -> every key and value of a map, as a tool reads it at exit
 *                                             (BPF_MAP_GET_NEXT_KEY, BPF_MAP_LOOKUP_ELEM): how many,
 *                                             then " KEY:VALUE" each, in hex
 *   setbpf EVFD FD                         -> PERF_EVENT_IOC_SET_BPF
 *   kpev TYPE FUNC ADDR|OFFSET RET         -> a perf event fd of the kprobe PMU (attr.type TYPE): at
 *                                             FUNC+OFFSET, or ("-": no name) at ADDR; RET 1: a kretprobe;
 *                                             every task's on cpu 0 (kpevt: this process's, any cpu)
 *   upev TYPE PATH OFFSET RET [REF_CTR]    -> a perf event fd of the uprobe PMU (attr.type TYPE): at
 *                                             OFFSET in the file PATH; RET 1: a uretprobe; REF_CTR:
 *                                             the reference counter's offset (config's top 32 bits);
 *                                             every task's on cpu 0 (upevt: this process's, any cpu)
 *   swev CONFIG PERIOD [SAMPLE_TYPE]       -> a perf event fd of the software PMU sampling every
 *                                             PERIOD, every task's on cpu 0 (as bpftrace's interval:)
 *   count FD                               -> the count read(2) gives
 *   sleep MS                               -> nanosleep(MS milliseconds)'s return
 *   calls N                                -> N getpid() calls
 *   mmap FD OFFSET LEN PROT FLAGS [@AT|!AT=V...]
 *                                          -> 0 and the u64 at each offset @AT of the mapping (!AT=V:
 *                                             V written there first), then unmapped; or the errno
 *   mmapk FD OFFSET LEN PROT FLAGS         -> as mmap, the mapping kept: its slot (0, 1, ...), or the errno
 *   peek SLOT @AT...                       -> the u64 at each offset @AT of a kept mapping
 *   unmap SLOT                             -> munmap of a kept mapping
 *   blook FD IN|- COUNT [ELEM_FLAGS [FLAGS]]  -> BPF_MAP_LOOKUP_BATCH from the batch token IN ("-": from
 *                                             the first) with room for COUNT elements: the result,
 *                                             the count, the out token's first 8 bytes, the keys'
 *                                             and values' bytes given back unless it failed
 *                                             (blookdel: AND_DELETE)
 *   bupd FD KEYS VALUES COUNT [ELEM_FLAGS]  -> BPF_MAP_UPDATE_BATCH of COUNT elements: result, count
 *   bdel FD KEYS COUNT                      -> BPF_MAP_DELETE_BATCH of COUNT keys: result, count
 *   close FD
 *   cpus N                                 -> the possible cpus (values a per-cpu lookup prints)
 *   pid                                    -> this process's pid
 *   tfq PID FD FLAGS BUF_LEN PROG_FD       -> BPF_TASK_FD_QUERY of FD of process PID ("-": this one)
 *                                             with a buffer of BUF_LEN bytes: the result, then (unless
 *                                             it failed otherwise than ENOSPC) buf_len, whether prog_id
 *                                             is PROG_FD's program's (ids vary between kernels),
 *                                             fd_type, probe_offset, probe_addr and the name, "| "-prefixed
 */
#ifdef HOST
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
static long syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(nr, a, b, c, d, e, f);
	return r < 0 ? -(long)errno : r;
}
#else
#include "libc.h"
#endif
#include "../include/uapi/bpf.h"
#include "../include/uapi/perf_event.h"

#define NR_bpf 321
#define NR_perf_event_open 298
#define NR_ioctl 16
#define NR_close 3

static char out[8192];
static unsigned long outn;

static void flush(void)
{
	write(1, out, outn);
	outn = 0;
}
static void puts_(const char *s)
{
	while (*s) {
		if (outn == sizeof(out))
			flush();
		out[outn++] = *s++;
	}
}
static void putnum(long v)
{
	char tmp[24];
	int k = 0;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

	if (v < 0)
		puts_("-");
	do tmp[k++] = '0' + u % 10; while (u /= 10);
	while (k) {
		char c[2] = { tmp[--k], 0 };
		puts_(c);
	}
}
static void puthex(const unsigned char *p, unsigned long n)
{
	static const char digits[] = "0123456789abcdef";
	unsigned long i;

	for (i = 0; i < n; i++) {
		char c[3] = { digits[p[i] >> 4], digits[p[i] & 15], 0 };
		puts_(c);
	}
}
static long num(const char *s)
{
	long v = 0, neg = 0;

	if (*s == '-')
		neg = 1, s++;
	if (s[0] == '0' && s[1] == 'x')
		for (s += 2; *s; s++)
			v = v * 16 + (*s <= '9' ? *s - '0' : (*s | 32) - 'a' + 10);
	else
		while (*s >= '0' && *s <= '9')
			v = v * 10 + (*s++ - '0');
	return neg ? -v : v;
}
static unsigned long unhex(const char *s, unsigned char *buf, unsigned long room)
{
	unsigned long n = 0;

	for (; s[0] && s[1] && n < room; s += 2) {
		int hi = s[0] <= '9' ? s[0] - '0' : (s[0] | 32) - 'a' + 10;
		int lo = s[1] <= '9' ? s[1] - '0' : (s[1] | 32) - 'a' + 10;
		buf[n++] = hi << 4 | lo;
	}
	return n;
}

static long sys_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return syscall6(NR_bpf, cmd, (long)attr, size, 0, 0, 0);
}

static void zero(void *p, unsigned long n)
{
	unsigned char *c = p;

	while (n--)
		*c++ = 0;
}

static unsigned char key[4096], value[65536], insns[65536], ctx[128];
static char log[65536];
static unsigned char btf[65536];	/* the last BTF loaded */
static unsigned long btf_len;
static unsigned int last_btf_id;
static long ncpus = 1;	/* possible cpus: how many values a per-cpu map's lookup gives */

/* a hex argument, or "-": read from stdin (longer than an argument may be) */
static const char *hex_arg(const char *hex)
{
	static char text[2 * sizeof(insns) + 1];
	long got, len = 0;

	if (strcmp(hex, "-"))
		return hex;
	while (len < (long)sizeof(text) - 1 &&
	       (got = syscall6(0 /* read */, 0, (long)(text + len), sizeof(text) - 1 - len, 0, 0, 0)) > 0)
		len += got;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	text[len] = 0;
	return text;
}

/* the verifier's log, each line "| "-prefixed after the result */
static void put_log(void)
{
	char *p = log;

	if (!log[0])
		return;
	puts_("\n| ");
	for (; *p; p++) {
		char c[2] = { *p, 0 };
		if (*p == '\n' && p[1])
			puts_("\n| ");
		else if (*p != '\n')
			puts_(c);
	}
}

/* BPF_OBJ_GET_INFO_BY_FD into info (len bytes, as the caller set them) through the zeroed ia,
 * which has the info_len the kernel gives back */
static long obj_info(union bpf_attr *ia, int fd, void *info, unsigned int len)
{
	ia->info.bpf_fd = fd;
	ia->info.info_len = len;
	ia->info.info = (unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, ia, sizeof(*ia));
}

/* the map's sizes, to print its keys and values */
static void map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr ia;

	zero(&ia, sizeof(ia));
	zero(info, sizeof(*info));
	obj_info(&ia, fd, info, sizeof(*info));
}

/* the bytes of one value as the syscall gives them: a per-cpu map's, every cpu's, 8-aligned */
static unsigned long value_len(const struct bpf_map_info *info)
{
	if (info->type == BPF_MAP_TYPE_PERCPU_HASH || info->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	    info->type == BPF_MAP_TYPE_LRU_PERCPU_HASH)
		return ((info->value_size + 7) & ~7UL) * ncpus;
	return info->value_size;
}

static void result(const char *cmd, long r)
{
	puts_(cmd);
	puts_(": ");
	putnum(r);
}

/* the mappings mmapk keeps, for peek and unmap */
static long kept[8], kept_len[8], nkept;

int main(int argc, char **argv)
{
	union bpf_attr attr;
	int i = 1;

	while (i < argc) {
		const char *cmd = argv[i++];
		long r;

		zero(&attr, sizeof(attr));
		if (!strcmp(cmd, "map") && i + 4 <= argc) {
			attr.map_type = num(argv[i]);
			attr.key_size = num(argv[i + 1]);
			attr.value_size = num(argv[i + 2]);
			attr.max_entries = num(argv[i + 3]);
			i += 4;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.map_flags = num(argv[i++]);
			result(cmd, sys_bpf(BPF_MAP_CREATE, &attr, sizeof(attr)));
		} else if (!strcmp(cmd, "upd") && i + 3 <= argc) {
			attr.map_fd = num(argv[i]);
			unhex(argv[i + 1], key, sizeof(key));
			unhex(argv[i + 2], value, sizeof(value));
			attr.key = strcmp(argv[i + 1], "-") ? (unsigned long)key : 0;
			attr.value = (unsigned long)value;
			i += 3;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.flags = num(argv[i++]);
			result(cmd, sys_bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)));
		} else if ((!strcmp(cmd, "get") || !strcmp(cmd, "del") || !strcmp(cmd, "pop")) && i + 2 <= argc) {
			struct bpf_map_info info;
			int reads = cmd[0] != 'd';
			map_info(num(argv[i]), &info);
			attr.map_fd = num(argv[i]);
			unhex(argv[i + 1], key, sizeof(key));
			attr.key = strcmp(argv[i + 1], "-") ? (unsigned long)key : 0;
			if (reads)
				attr.value = (unsigned long)value;
			i += 2;
			if (cmd[0] == 'p' && i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.flags = num(argv[i++]);
			r = sys_bpf(cmd[0] == 'g' ? BPF_MAP_LOOKUP_ELEM : cmd[0] == 'p' ? BPF_MAP_LOOKUP_AND_DELETE_ELEM
				    : BPF_MAP_DELETE_ELEM, &attr, sizeof(attr));
			result(cmd, r);
			if (reads && r == 0) {
				unsigned long n = info.value_size;
				if (info.type == BPF_MAP_TYPE_PERCPU_HASH || info.type == BPF_MAP_TYPE_PERCPU_ARRAY)
					n = ((n + 7) & ~7UL) * ncpus;
				puts_(" ");
				puthex(value, n);
			}
		} else if (!strcmp(cmd, "next") && i + 2 <= argc) {
			struct bpf_map_info info;
			map_info(num(argv[i]), &info);
			attr.map_fd = num(argv[i]);
			if (strcmp(argv[i + 1], "-")) {
				unhex(argv[i + 1], key, sizeof(key));
				attr.key = (unsigned long)key;
			}
			attr.next_key = (unsigned long)value;
			i += 2;
			r = sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr, sizeof(attr));
			result(cmd, r);
			if (r == 0) {
				puts_(" ");
				puthex(value, info.key_size);
			}
		} else if ((!strcmp(cmd, "blook") || !strcmp(cmd, "blookdel")) && i + 3 <= argc) {
			static unsigned char in_batch[64], out_batch[64];
			struct bpf_map_info info;
			map_info(num(argv[i]), &info);
			attr.batch.map_fd = num(argv[i]);
			if (strcmp(argv[i + 1], "-")) {
				unhex(argv[i + 1], in_batch, sizeof(in_batch));
				attr.batch.in_batch = (unsigned long)in_batch;
			}
			zero(out_batch, sizeof(out_batch));
			zero(key, sizeof(key));
			zero(value, sizeof(value));
			attr.batch.out_batch = (unsigned long)out_batch;
			attr.batch.keys = (unsigned long)key;
			attr.batch.values = (unsigned long)value;
			attr.batch.count = num(argv[i + 2]);
			i += 3;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.batch.elem_flags = num(argv[i++]);
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.batch.flags = num(argv[i++]);
			r = sys_bpf(cmd[5] ? BPF_MAP_LOOKUP_AND_DELETE_BATCH : BPF_MAP_LOOKUP_BATCH, &attr, sizeof(attr));
			result(cmd, r);
			puts_(" count ");
			putnum(attr.batch.count);
			puts_(" out ");
			puthex(out_batch, 8);
			if (r == 0 || r == -2) {	/* (ENOENT: the last batch) */
				puts_(" keys ");
				puthex(key, (unsigned long)attr.batch.count * info.key_size);
				puts_(" values ");
				puthex(value, (unsigned long)attr.batch.count * value_len(&info));
			}
		} else if ((!strcmp(cmd, "bupd") && i + 4 <= argc) || (!strcmp(cmd, "bdel") && i + 3 <= argc)) {
			attr.batch.map_fd = num(argv[i]);
			unhex(argv[i + 1], key, sizeof(key));
			attr.batch.keys = (unsigned long)key;
			if (cmd[1] == 'u') {
				unhex(argv[i + 2], value, sizeof(value));
				attr.batch.values = (unsigned long)value;
				i++;
			}
			attr.batch.count = num(argv[i + 2]);
			i += 3;
			if (cmd[1] == 'u' && i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.batch.elem_flags = num(argv[i++]);
			r = sys_bpf(cmd[1] == 'u' ? BPF_MAP_UPDATE_BATCH : BPF_MAP_DELETE_BATCH, &attr, sizeof(attr));
			result(cmd, r);
			puts_(" count ");
			putnum(attr.batch.count);
		} else if (!strcmp(cmd, "load") && i + 2 <= argc) {
			unsigned long n = unhex(hex_arg(argv[i + 1]), insns, sizeof(insns));
			const char *lic = "GPL";
			int recinfo = 0;
			attr.prog_type = num(argv[i]);
			attr.insns = (unsigned long)insns;
			attr.insn_cnt = n / 8;
			i += 2;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.log_level = num(argv[i++]);
			if (i < argc && argv[i][0] == 'P' && argv[i][1] == '=')
				attr.prog_flags = num(argv[i++] + 2);
			if (i < argc && argv[i][0] == 'L' && argv[i][1] == '=')
				lic = argv[i++] + 2;
			if (i < argc && argv[i][0] == 'A' && argv[i][1] == '=') {
				const char *a = argv[i++] + 2;

				attr.expected_attach_type = num(a);
				while (*a && *a != ':')
					a++;
				if (*a)
					attr.attach_btf_id = num(a + 1);
			}
			if (i < argc && argv[i][0] == 'N' && argv[i][1] == '=') {	/* its name */
				const char *name = argv[i++] + 2;
				unsigned long k;

				for (k = 0; name[k] && k < sizeof(attr.prog_name) - 1; k++)
					attr.prog_name[k] = name[k];
			}
			if (i < argc && argv[i][0] == 'F' && argv[i][1] == '=') {	/* its BTF */
				static unsigned int func_info[2];
				const char *f = argv[i++] + 2;

				attr.prog_btf_fd = num(f);
				while (*f && *f != ':')
					f++;
				func_info[1] = *f ? num(f + 1) : 0;
				attr.func_info = (unsigned long)func_info;
				attr.func_info_rec_size = sizeof(func_info);
				attr.func_info_cnt = 1;
			}
			/* B=: prog_btf_fd; FI=, LI=: func_info, line_info records (hex), as given */
			while (i < argc && (!strncmp(argv[i], "B=", 2) || !strncmp(argv[i], "FI=", 3) ||
					    !strncmp(argv[i], "LI=", 3))) {
				static unsigned char recs[2][4096];
				const char *a = argv[i++];
				unsigned int rec_size, cnt;
				int li = a[0] == 'L';

				if (a[0] == 'B') {
					attr.prog_btf_fd = num(a + 2);
					continue;
				}
				a += 3;
				rec_size = num(a);
				while (*a && *a++ != ':')
					;
				cnt = num(a);
				while (*a && *a++ != ':')
					;
				unhex(a, recs[li], sizeof(recs[li]));
				if (li) {
					attr.line_info_rec_size = rec_size;
					attr.line_info_cnt = cnt;
					attr.line_info = (unsigned long)recs[li];
				} else {
					attr.func_info_rec_size = rec_size;
					attr.func_info_cnt = cnt;
					attr.func_info = (unsigned long)recs[li];
				}
				recinfo = 1;
			}
			attr.license = (unsigned long)lic;
			zero(log, sizeof(log));
			if (attr.log_level) {
				attr.log_buf = (unsigned long)log;
				attr.log_size = sizeof(log);
			}
			result(cmd, sys_bpf(BPF_PROG_LOAD, &attr, sizeof(attr)));
			if (recinfo) {	/* the record sizes, as the kernel may have set them */
				puts_(" rec ");
				putnum(attr.func_info_rec_size);
				puts_(" ");
				putnum(attr.line_info_rec_size);
			}
			put_log();
		} else if (!strcmp(cmd, "btf") && i + 1 <= argc) {
			btf_len = unhex(hex_arg(argv[i++]), btf, sizeof(btf));
			attr.btf = (unsigned long)btf;
			attr.btf_size = btf_len;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.btf_log_level = num(argv[i++]);
			attr.btf_log_size = sizeof(log);
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.btf_log_size = num(argv[i++]);
			zero(log, sizeof(log));
			if (attr.btf_log_level)
				attr.btf_log_buf = (unsigned long)log;
			else
				attr.btf_log_size = 0;
			result(cmd, sys_bpf(BPF_BTF_LOAD, &attr, sizeof(attr)));
			put_log();
		} else if (!strcmp(cmd, "bid") && i + 1 <= argc) {
			struct bpf_btf_info info;

			zero(&info, sizeof(info));
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				last_btf_id = info.id;
				zero(&attr, sizeof(attr));
				attr.start_id = info.id - 1;
				r = sys_bpf(BPF_BTF_GET_NEXT_ID, &attr, sizeof(attr));
				puts_(" next_is_it "); putnum(r == 0 && attr.next_id == info.id);
				zero(&attr, sizeof(attr));
				attr.btf_id = info.id;
				puts_(" fd "); putnum(sys_bpf(BPF_BTF_GET_FD_BY_ID, &attr, sizeof(attr)));
			}
		} else if (!strcmp(cmd, "mbtf") && i + 1 <= argc) {
			struct bpf_map_info info;

			zero(&info, sizeof(info));
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				if (info.btf_id)
					last_btf_id = info.btf_id;
				puts_(" btf "); putnum(info.btf_id != 0);
				puts_(" key_type_id "); putnum(info.btf_key_type_id);
				puts_(" value_type_id "); putnum(info.btf_value_type_id);
			}
		} else if (!strcmp(cmd, "bfdlast")) {
			attr.btf_id = last_btf_id;
			result(cmd, sys_bpf(BPF_BTF_GET_FD_BY_ID, &attr, sizeof(attr)));
		} else if (!strcmp(cmd, "bdata") && i + 1 <= argc) {
			struct bpf_btf_info info;
			static unsigned char data[sizeof(btf)];
			static char name[32];
			unsigned long k, same;

			zero(&info, sizeof(info));
			zero(data, sizeof(data));
			name[0] = 'x';
			info.btf = (unsigned long)data;
			info.btf_size = sizeof(data);
			info.name = (unsigned long)name;
			info.name_len = sizeof(name);
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				same = info.btf_size == btf_len;
				for (k = 0; same && k < btf_len; k++)
					same = data[k] == btf[k];
				puts_(" btf_size "); putnum(info.btf_size);
				puts_(" id "); putnum(info.id);
				puts_(" name '"); puts_(name); puts_("'");
				puts_(" name_len "); putnum(info.name_len);
				puts_(" kernel_btf "); putnum(info.kernel_btf);
				puts_(" same "); putnum(same);
			}
		} else if (!strcmp(cmd, "run") && i + 1 <= argc) {
			attr.test.prog_fd = num(argv[i++]);
			if (i < argc && argv[i][0] != '-' && !(argv[i][0] >= 'a' && argv[i][0] <= 'z')) {
				attr.test.ctx_size_in = unhex(argv[i++], ctx, sizeof(ctx));
				attr.test.ctx_in = attr.test.ctx_size_in ? (unsigned long)ctx : 0;
			}
			r = sys_bpf(BPF_PROG_TEST_RUN, &attr, sizeof(attr));
			result(cmd, r);
			if (r == 0) {
				puts_(" retval ");
				putnum(attr.test.retval);
			}
		} else if (!strcmp(cmd, "minfo") && i + 1 <= argc) {
			struct bpf_map_info info;
			zero(&info, sizeof(info));
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				puts_(" type "); putnum(info.type);
				puts_(" id "); putnum(info.id > 0);
				puts_(" key_size "); putnum(info.key_size);
				puts_(" value_size "); putnum(info.value_size);
				puts_(" max_entries "); putnum(info.max_entries);
				puts_(" map_flags "); putnum(info.map_flags);
				puts_(" name "); puts_(info.name);
				puts_(" info_len "); putnum(attr.info.info_len);
			}
		} else if (!strcmp(cmd, "pinfo") && i + 1 <= argc) {
			struct bpf_prog_info info;
			unsigned int map_ids[4] = { 0 };
			zero(&info, sizeof(info));
			info.nr_map_ids = 4;
			info.map_ids = (unsigned long)map_ids;
			info.xlated_prog_len = sizeof(insns);
			info.xlated_prog_insns = (unsigned long)insns;
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				puts_(" type "); putnum(info.type);
				puts_(" tag "); puthex(info.tag, 8);
				puts_(" name "); puts_(info.name);
				puts_(" nr_map_ids "); putnum(info.nr_map_ids);
				puts_(" gpl "); putnum(info.gpl_compatible);
				puts_(" uid "); putnum(info.created_by_uid);
				puts_(" xlated_len "); putnum(info.xlated_prog_len);
				puts_(" verified_insns "); putnum(info.verified_insns);
				if (info.attach_btf_id) {	/* a tracing program's target */
					puts_(" attach_btf_obj_id "); putnum(info.attach_btf_obj_id);
					puts_(" attach_btf_id "); putnum(info.attach_btf_id);
				}
			}
		} else if (!strcmp(cmd, "pxlated") && i + 1 <= argc) {
			/* the program as it runs (xlated_prog_insns), in hex */
			struct bpf_prog_info info;
			zero(&info, sizeof(info));
			info.xlated_prog_len = sizeof(insns);
			info.xlated_prog_insns = (unsigned long)insns;
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				puts_(" ");
				puthex((const unsigned char *)insns, info.xlated_prog_len);
			}
		} else if (!strcmp(cmd, "pjit") && i + 1 <= argc) {
			/* the JIT's functions: how many, each's length non-zero, their sum the image's,
			 * each's address a kernel one, the first the program's (lengths and addresses
			 * differ from one kernel to another) */
			struct bpf_prog_info info;
			static unsigned long long ksyms[16];
			static unsigned int lens[16];
			static unsigned char image[16384];
			unsigned long sum = 0, nonzero = 1, kernel = 1;
			unsigned int k;

			zero(&info, sizeof(info));
			info.nr_jited_ksyms = 16;
			info.jited_ksyms = (unsigned long)ksyms;
			info.nr_jited_func_lens = 16;
			info.jited_func_lens = (unsigned long)lens;
			info.jited_prog_len = sizeof(image);
			info.jited_prog_insns = (unsigned long)image;
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				for (k = 0; k < info.nr_jited_func_lens && k < 16; k++) {
					sum += lens[k];
					nonzero &= lens[k] != 0;
				}
				for (k = 0; k < info.nr_jited_ksyms && k < 16; k++)
					kernel &= ksyms[k] >= 0xffffffff80000000UL;
				puts_(" nr_jited_ksyms "); putnum(info.nr_jited_ksyms);
				puts_(" nr_jited_func_lens "); putnum(info.nr_jited_func_lens);
				puts_(" lens_nonzero "); putnum(nonzero);
				puts_(" len_is_sum "); putnum(sum == info.jited_prog_len);
				puts_(" ksyms_kernel "); putnum(kernel);
				/* each function's image starts where the previous one's ends in the copy:
				 * its first bytes (the prologue's nop5) */
				for (k = 0, sum = 0; k < info.nr_jited_func_lens && k < 16; sum += lens[k], k++) {
					puts_(" f"); putnum(k); puts_(" ");
					puthex(image + sum, 5);
				}
			}
		} else if (!strcmp(cmd, "pbtf") && i + 7 <= argc) {
			/* a program's BTF records, room for NF func_info, NL line_info, NJ jited line
			 * records given (of the record sizes given); the buffers' bytes the kernel did not
			 * write stay "aa" */
			struct bpf_prog_info info;
			static unsigned char finfo[256], linfo[512], jinfo[256];
			unsigned long long ksym = 0, *jl = (unsigned long long *)jinfo;
			unsigned int k, nf, nl, nj;
			zero(&info, sizeof(info));
			for (k = 0; k < sizeof(finfo); k++)
				finfo[k] = 0xaa;
			for (k = 0; k < sizeof(linfo); k++)
				linfo[k] = 0xaa;
			zero(jinfo, sizeof(jinfo));
			info.nr_func_info = nf = num(argv[i + 1]);
			info.nr_line_info = nl = num(argv[i + 2]);
			info.nr_jited_line_info = nj = num(argv[i + 3]);
			info.func_info_rec_size = num(argv[i + 4]);
			info.line_info_rec_size = num(argv[i + 5]);
			info.jited_line_info_rec_size = num(argv[i + 6]);
			info.func_info = (unsigned long)finfo;
			info.line_info = (unsigned long)linfo;
			info.jited_line_info = (unsigned long)jinfo;
			info.nr_jited_ksyms = 1;
			info.jited_ksyms = (unsigned long)&ksym;
			r = obj_info(&attr, num(argv[i]), &info, sizeof(info));
			i += 7;
			result(cmd, r);
			if (r == 0) {
				if (info.btf_id)
					last_btf_id = info.btf_id;	/* for bfdlast */
				puts_(" btf_id "); putnum(info.btf_id);
				puts_(" nr_func_info "); putnum(info.nr_func_info);
				puts_(" rec "); putnum(info.func_info_rec_size);
				puts_(" "); puthex(finfo, nf * 8 < sizeof(finfo) ? nf * 8 : sizeof(finfo));
				puts_(" nr_line_info "); putnum(info.nr_line_info);
				puts_(" rec "); putnum(info.line_info_rec_size);
				puts_(" "); puthex(linfo, nl * 16 < sizeof(linfo) ? nl * 16 : sizeof(linfo));
				puts_(" nr_jited_line_info "); putnum(info.nr_jited_line_info);
				puts_(" rec "); putnum(info.jited_line_info_rec_size);
				/* each line's address, from the image's start (0: not written) */
				for (k = 0; k < nj && k < sizeof(jinfo) / 8; k++) {
					puts_(" ");
					if (jl[k])
						putnum((long)(jl[k] - ksym));
					else
						puts_("-");
				}
			}
		} else if (!strcmp(cmd, "bnext") && i + 1 <= argc) {
			attr.start_id = num(argv[i++]);
			r = sys_bpf(BPF_BTF_GET_NEXT_ID, &attr, sizeof(attr));
			result(cmd, r);
			if (r == 0) {
				puts_(" ");
				putnum(attr.next_id);
			}
		} else if (!strcmp(cmd, "bfd") && i + 1 <= argc) {
			attr.btf_id = num(argv[i++]);
			result(cmd, sys_bpf(BPF_BTF_GET_FD_BY_ID, &attr, sizeof(attr)));
		} else if (!strcmp(cmd, "binfo") && i + 2 <= argc) {
			struct bpf_btf_info info;
			static unsigned char data[16];
			static char name[32];
			zero(&info, sizeof(info));
			info.btf = (unsigned long)data;
			info.btf_size = sizeof(data);
			info.name = (unsigned long)name;
			info.name_len = num(argv[i + 1]);
			r = obj_info(&attr, num(argv[i]), &info, sizeof(info));
			i += 2;
			result(cmd, r);
			if (r == 0 || r == -28 /* ENOSPC */) {
				puts_(" data "); puthex(data, 4);
				puts_(" btf_size_over_16 "); putnum(info.btf_size > sizeof(data));
				puts_(" id "); putnum(info.id);
				puts_(" name "); puts_(name);
				puts_(" name_len "); putnum(info.name_len);
				puts_(" kernel_btf "); putnum(info.kernel_btf);
			}
		} else if (!strcmp(cmd, "raw") && i + 2 <= argc) {
			static unsigned char big[8192];
			unsigned long n = unhex(argv[i + 1], big, sizeof(big));
			int c = num(argv[i]);
			i += 2;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				n = num(argv[i++]);
			result(cmd, syscall6(NR_bpf, c, (long)big, n, 0, 0, 0));
		} else if (!strcmp(cmd, "link") && i + 2 <= argc) {
			static unsigned char linfo[64];
			attr.link_create.prog_fd = num(argv[i]);
			attr.link_create.attach_type = num(argv[i + 1]);
			i += 2;
			if (i < argc && argv[i][0] == 'I' && argv[i][1] == '=') {
				attr.link_create.iter_info_len = unhex(argv[i++] + 2, linfo, sizeof(linfo));
				attr.link_create.iter_info = (unsigned long)linfo;
			}
			result(cmd, sys_bpf(BPF_LINK_CREATE, &attr, sizeof(attr)));
		} else if (!strcmp(cmd, "iter") && i + 1 <= argc) {
			attr.iter_create.link_fd = num(argv[i++]);
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				attr.iter_create.flags = num(argv[i++]);
			result(cmd, sys_bpf(BPF_ITER_CREATE, &attr, sizeof(attr)));
		} else if (!strcmp(cmd, "read") && i + 2 <= argc) {
			static char text[65536];
			unsigned long len = 0, size = num(argv[i + 1]), k;
			long fd = num(argv[i]), r;
			i += 2;
			puts_(cmd);
			puts_(":");
			do {
				r = syscall6(0 /* read */, fd, (long)(text + len), size, 0, 0, 0);
				puts_(" ");
				putnum(r);
				if (r > 0)
					len += r;
			} while (r > 0 && len + size <= sizeof(text));
			for (k = 0; k < len; k++) {
				if (k == 0 || text[k - 1] == '\n')
					puts_("\n| ");
				if (text[k] != '\n') {
					char c[2] = { text[k], 0 };
					puts_(c);
				}
			}
		} else if (!strcmp(cmd, "rawtp") && i + 2 <= argc) {
			attr.raw_tracepoint.prog_fd = num(argv[i]);
			attr.raw_tracepoint.name = strcmp(argv[i + 1], "-") ? (unsigned long)argv[i + 1] : 0;
			i += 2;
			result(cmd, sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr)));
		} else if ((!strcmp(cmd, "tpev") || !strcmp(cmd, "tpevall")) && i + 1 <= argc) {
			struct perf_event_attr pa;
			int all = cmd[4] == 'a';
			zero(&pa, sizeof(pa));
			pa.type = PERF_TYPE_TRACEPOINT;
			pa.size = sizeof(pa);
			pa.config = num(argv[i++]);
			pa.sample_period = 1;
			/* this process's on any cpu; tpevall: every task's on cpu 0 */
			result(cmd, syscall6(NR_perf_event_open, (long)&pa, all ? -1 : 0, all ? 0 : -1, -1, 0, 0));
		} else if (!strcmp(cmd, "child") && i + 1 <= argc && i + 1 + num(argv[i]) <= argc) {
			long n = num(argv[i]), pid;
			int status = 0;
			char *args[16];
			long k;

			for (k = 0; k < n && k < 15; k++)
				args[k] = argv[i + 1 + k];
			args[k] = 0;
			i += 1 + n;
			flush();	/* the child must not write what is buffered again */
			pid = syscall6(57 /* fork */, 0, 0, 0, 0, 0, 0);
			if (pid == 0) {
				execve(args[0], args, 0);
				syscall6(60 /* exit */, 127, 0, 0, 0, 0, 0);
			}
			r = pid < 0 ? pid : syscall6(61 /* wait4 */, pid, (long)&status, 0, 0, 0, 0);
			result(cmd, r < 0 ? r : status);
		} else if (!strcmp(cmd, "dump") && i + 1 <= argc) {
			/* as bpftrace prints a map at exit: each key from the one before, then its value */
			static unsigned char prev[4096];
			struct bpf_map_info info;
			unsigned long n = 0, vsize;
			long fd = num(argv[i++]);
			int first = 1;

			map_info(fd, &info);
			vsize = info.value_size;
			if (info.type == BPF_MAP_TYPE_PERCPU_HASH || info.type == BPF_MAP_TYPE_PERCPU_ARRAY)
				vsize = ((vsize + 7) & ~7UL) * ncpus;
			puts_(cmd);
			puts_(":");
			for (;;) {
				zero(&attr, sizeof(attr));
				attr.map_fd = fd;
				attr.key = first ? 0 : (unsigned long)prev;
				attr.next_key = (unsigned long)key;
				if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr, sizeof(attr)))
					break;
				first = 0;
				zero(&attr, sizeof(attr));
				attr.map_fd = fd;
				attr.key = (unsigned long)key;
				attr.value = (unsigned long)value;
				if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) == 0) {
					puts_(" ");
					puthex(key, info.key_size);
					puts_(":");
					puthex(value, vsize);
					n++;
				}
				for (unsigned long b = 0; b < info.key_size; b++)
					prev[b] = key[b];
			}
			puts_(" entries ");
			putnum(n);
		} else if ((!strcmp(cmd, "kpev") || !strcmp(cmd, "kpevt")) && i + 4 <= argc) {
			struct perf_event_attr pa;
			int own = cmd[4] == 't';
			zero(&pa, sizeof(pa));
			pa.type = num(argv[i]);
			pa.size = sizeof(pa);
			pa.kprobe_func = strcmp(argv[i + 1], "-") ? (unsigned long)argv[i + 1] : 0;
			pa.probe_offset = num(argv[i + 2]);
			pa.config = num(argv[i + 3]);
			pa.sample_period = 1;
			i += 4;
			/* kpev as bpftrace opens them: every task, cpu 0 */
			result(cmd, syscall6(NR_perf_event_open, (long)&pa, own ? 0 : -1, own ? -1 : 0, -1, 0, 0));
		} else if ((!strcmp(cmd, "upev") || !strcmp(cmd, "upevt")) && i + 4 <= argc) {
			struct perf_event_attr pa;
			int own = cmd[4] == 't';
			zero(&pa, sizeof(pa));
			pa.type = num(argv[i]);
			pa.size = sizeof(pa);
			pa.uprobe_path = (unsigned long)argv[i + 1];
			pa.probe_offset = num(argv[i + 2]);
			pa.config = num(argv[i + 3]);
			pa.sample_period = 1;
			i += 4;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				pa.config |= (unsigned long long)num(argv[i++]) << 32;
			result(cmd, syscall6(NR_perf_event_open, (long)&pa, own ? 0 : -1, own ? -1 : 0, -1, 0, 0));
		} else if (!strcmp(cmd, "swev") && i + 2 <= argc) {
			struct perf_event_attr pa;
			zero(&pa, sizeof(pa));
			pa.type = 1 /* PERF_TYPE_SOFTWARE */;
			pa.size = sizeof(pa);
			pa.config = num(argv[i]);
			pa.sample_period = num(argv[i + 1]);
			i += 2;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9')
				pa.sample_type = num(argv[i++]);
			result(cmd, syscall6(NR_perf_event_open, (long)&pa, -1, 0, -1, 0, 0));
		} else if (!strcmp(cmd, "hwev") && i + 1 <= argc) {
			/* a hardware counter of this task (user and kernel), counting: `count` reads it */
			struct perf_event_attr pa;
			zero(&pa, sizeof(pa));
			pa.type = 0 /* PERF_TYPE_HARDWARE */;
			pa.size = sizeof(pa);
			pa.config = num(argv[i++]);
			result(cmd, syscall6(NR_perf_event_open, (long)&pa, 0, -1, -1, 0, 0));
		} else if (!strcmp(cmd, "jinfo") && i + 1 <= argc) {
			/* the JIT's part of the program's info: its code's length and bytes, its one
			 * function's address and length */
			struct bpf_prog_info info;
			static unsigned char code[16384];
			unsigned long long ksym = 0;
			unsigned int func_len = 0;
			zero(&info, sizeof(info));
			info.jited_prog_len = sizeof(code);
			info.jited_prog_insns = (unsigned long)code;
			info.nr_jited_ksyms = 1;
			info.jited_ksyms = (unsigned long)&ksym;
			info.nr_jited_func_lens = 1;
			info.jited_func_lens = (unsigned long)&func_len;
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				puts_(" jited_len "); putnum(info.jited_prog_len);
				puts_(" ksyms "); putnum(info.nr_jited_ksyms);
				puts_(" func_lens "); putnum(info.nr_jited_func_lens);
				puts_(" func_len "); putnum(func_len);
				puts_(" ksym "); puthex((const unsigned char *)&ksym, 8);
				puts_(" code "); puthex(code, info.jited_prog_len < sizeof(code) ? info.jited_prog_len : sizeof(code));
			}
		} else if (!strcmp(cmd, "sleep") && i + 1 <= argc) {
			long ts[2], ms = num(argv[i++]);
			ts[0] = ms / 1000;
			ts[1] = ms % 1000 * 1000000;
			result(cmd, syscall6(35 /* nanosleep */, (long)ts, 0, 0, 0, 0, 0));
		} else if (!strcmp(cmd, "count") && i + 1 <= argc) {
			unsigned long long c = 0;
			long r = syscall6(0 /* read */, num(argv[i++]), (long)&c, sizeof(c), 0, 0, 0);
			result(cmd, r < 0 ? r : (long)c);
		} else if (!strcmp(cmd, "setbpf") && i + 2 <= argc) {
			result(cmd, syscall6(NR_ioctl, num(argv[i]), PERF_EVENT_IOC_SET_BPF, num(argv[i + 1]), 0, 0, 0));
			i += 2;
		} else if (!strcmp(cmd, "calls") && i + 1 <= argc) {
			long n = num(argv[i++]), k;
			for (k = 0; k < n; k++)
				syscall6(39 /* getpid */, 0, 0, 0, 0, 0, 0);
			result(cmd, n);
		} else if (!strcmp(cmd, "tfq") && i + 5 <= argc) {
			char name[256];
			union bpf_attr ia;
			struct bpf_prog_info pi;

			attr.task_fd_query.pid = strcmp(argv[i], "-") ? num(argv[i])
								     : syscall6(39 /* getpid */, 0, 0, 0, 0, 0, 0);
			attr.task_fd_query.fd = num(argv[i + 1]);
			attr.task_fd_query.flags = num(argv[i + 2]);
			attr.task_fd_query.buf_len = num(argv[i + 3]);
			attr.task_fd_query.buf = (unsigned long)name;
			zero(name, sizeof(name));
			zero(&ia, sizeof(ia));
			zero(&pi, sizeof(pi));
			obj_info(&ia, num(argv[i + 4]), &pi, sizeof(pi));
			i += 5;
			r = sys_bpf(BPF_TASK_FD_QUERY, &attr, sizeof(attr));
			result(cmd, r);
			if (r == 0 || r == -28 /* ENOSPC */) {
				puts_(" len ");
				putnum(attr.task_fd_query.buf_len);
				puts_(pi.id && pi.id == attr.task_fd_query.prog_id ? " prog its" : " prog other");
				puts_(" type ");
				putnum(attr.task_fd_query.fd_type);
				puts_(" offset ");
				putnum((long)attr.task_fd_query.probe_offset);
				puts_(" addr ");
				putnum((long)attr.task_fd_query.probe_addr);
				puts_("\n| ");
				puts_(name);
			}
		} else if (!strcmp(cmd, "pid")) {
			result(cmd, syscall6(39 /* getpid */, 0, 0, 0, 0, 0, 0));
		} else if (!strcmp(cmd, "cpus") && i + 1 <= argc) {
			ncpus = num(argv[i++]);
			result(cmd, ncpus);
		} else if (!strcmp(cmd, "mmap") && i + 5 <= argc) {
			long len = num(argv[i + 2]);

			r = syscall6(9 /* mmap */, 0, len, num(argv[i + 3]), num(argv[i + 4]), num(argv[i]), num(argv[i + 1]));
			i += 5;
			if (r < 0 && r > -4096) {
				result(cmd, r);
			} else {
				result(cmd, 0);
				for (; i < argc && (argv[i][0] == '@' || argv[i][0] == '!'); i++) {
					const char *v = argv[i] + 1;

					if (argv[i][0] == '@') {
						puts_(" ");
						putnum(*(long *)(r + num(v)));
						continue;
					}
					while (*v && *v != '=')
						v++;
					*(long *)(r + num(argv[i] + 1)) = num(v + 1);
				}
				syscall6(11 /* munmap */, r, len, 0, 0, 0, 0);
			}
		} else if (!strcmp(cmd, "mmapk") && i + 5 <= argc && nkept < 8) {
			kept_len[nkept] = num(argv[i + 2]);
			r = syscall6(9 /* mmap */, 0, kept_len[nkept], num(argv[i + 3]), num(argv[i + 4]), num(argv[i]),
				     num(argv[i + 1]));
			i += 5;
			if (r < 0 && r > -4096) {
				result(cmd, r);
			} else {
				kept[nkept] = r;
				result(cmd, nkept++);
			}
		} else if (!strcmp(cmd, "peek") && i + 1 <= argc) {
			long slot = num(argv[i++]);

			result(cmd, slot);
			for (; i < argc && argv[i][0] == '@'; i++) {
				puts_(" ");
				putnum(slot < nkept && kept[slot] ? *(long *)(kept[slot] + num(argv[i] + 1)) : -1);
			}
		} else if (!strcmp(cmd, "unmap") && i + 1 <= argc) {
			long slot = num(argv[i++]);

			result(cmd, slot < nkept && kept[slot] ? syscall6(11 /* munmap */, kept[slot], kept_len[slot], 0, 0, 0, 0)
							      : -22);
			if (slot < nkept)
				kept[slot] = 0;
		} else if (!strcmp(cmd, "close") && i + 1 <= argc) {
			result(cmd, syscall6(NR_close, num(argv[i++]), 0, 0, 0, 0, 0));
		} else if (!strcmp(cmd, "estats")) {	/* BPF_ENABLE_STATS of run time: its fd */
			attr.enable_stats.type = BPF_STATS_RUN_TIME;
			result(cmd, sys_bpf(BPF_ENABLE_STATS, &attr, sizeof(attr)));
		} else if (!strcmp(cmd, "pstats") && i + 1 <= argc) {	/* a program's statistics */
			struct bpf_prog_info info;
			zero(&info, sizeof(info));
			r = obj_info(&attr, num(argv[i++]), &info, sizeof(info));
			result(cmd, r);
			if (r == 0) {
				puts_(" run_cnt "); putnum(info.run_cnt);
				puts_(" timed "); putnum(info.run_time_ns > 0);
				puts_(" recursion_misses "); putnum(info.recursion_misses);
			}
		} else if (!strcmp(cmd, "uid") && i + 1 <= argc) {	/* setresuid(N, N, N) */
			long uid = num(argv[i++]);
			result(cmd, syscall6(117, uid, uid, uid, 0, 0, 0));
		} else {
			puts_("bad command: ");
			puts_(cmd);
			puts_("\n");
			flush();
			return 2;
		}
		puts_("\n");
	}
	flush();
	return 0;
}
