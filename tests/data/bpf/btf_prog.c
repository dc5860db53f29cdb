/* A BPF object's C, whose .BTF (clang -g -O2 -target bpf, extracted: btf_prog.btf) is a valid
 * BTF_BTF_LOAD case of bpf_btf_load_cases.py: structs, unions, bitfields, enums, typedefs, a
 * float, arrays, functions with arguments, global variables in sections, tags. */
typedef unsigned int u32;
typedef unsigned long long u64;
#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))

enum color { RED, GREEN = 5, BLUE = -1 };
enum big { HUGE = 0x123456789aULL };

struct inner {
	int a : 3;
	unsigned int b : 5;
	enum color c : 4;
	char name[16];
};

union either {
	u64 n;
	double d;
	struct inner in;
};

struct event {
	u32 pid __tag("pid");
	u64 ts;
	union either u;
	struct inner arr[2][3];
	struct event *next;
	const volatile int *restrict p;
	int __user *up;
	void (*fn)(int, struct event *);
	float f;
	char tail[];
};

struct {
	int type;
	int max_entries;
	u32 *key;
	struct event *value;
} events_map __attribute__((section(".maps")));

u64 counter = 1;
static volatile const int limit = 10;
struct event last __attribute__((section(".bss")));
enum big big_one = HUGE;

static __attribute__((noinline)) int helper(struct event *e __tag("arg"), int n)
{
	return e->pid + n + limit;
}

__attribute__((section("kprobe/vfs_read"), used)) __tag("prog")
int prog(void *ctx)
{
	counter++;
	return helper(&last, (int)counter);
}

char _license[] __attribute__((section("license"), used)) = "GPL";
