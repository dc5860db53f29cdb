/*
 * Event filters the kernel parses itself (kernel/trace/trace_events_filter.c of Linux 6.1), for
 * PERF_EVENT_IOC_SET_FILTER on a tracepoint event (ftrace_profile_set_filter): predicates
 * `FIELD OP VALUE` (== != < <= > >= & on numbers, == != ~ on strings, globs with * and ?),
 * joined by && (tighter) and ||, with ! and parentheses, over the event's fields, the common
 * ones, and CPU/COMM.  Matched against the record before perf counts or samples it.
 */
#include "../include/perf_event.h"
#include "../include/trace/filter.h"

enum { FOP_EQ, FOP_NE, FOP_LT, FOP_LE, FOP_GT, FOP_GE, FOP_BAND, FOP_GLOB };
enum { FN_PRED, FN_AND, FN_OR, FN_NOT };
enum { FK_NUM, FK_STR_ARRAY, FK_STR_DYN, FK_STR_PTR, FK_CPU, FK_COMM };

struct filter_node {
	u8 type, op, kind, is_signed;
	u16 left, right;		/* FN_AND/FN_OR: the operands; FN_NOT: left */
	u32 offset, size;
	s64 val;
	char str[64];
};

struct event_filter {
	int nr;
	int root;
	struct filter_node node[FILTER_MAX_NODES];
};

struct filter_parse {
	const char *s;
	const struct trace_event_meta *meta;
	struct event_filter *f;
};

/* s starts with tok */
static bool starts(const char *s, const char *tok)
{
	while (*tok)
		if (*s++ != *tok++)
			return false;
	return true;
}

static void skip_space(struct filter_parse *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n')
		p->s++;
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int new_node(struct filter_parse *p)
{
	if (p->f->nr >= FILTER_MAX_NODES)
		return -EINVAL;
	memset(&p->f->node[p->f->nr], 0, sizeof(p->f->node[0]));
	return p->f->nr++;
}

static const struct {
	const char *name;
	u32 offset, size, is_signed;
} common_fields[] = {
	{ "common_type", 0, 2, 0 }, { "common_flags", 2, 1, 0 },
	{ "common_preempt_count", 3, 1, 0 }, { "common_pid", 4, 4, 1 },
};

static bool str_has(const char *s, const char *part)
{
	for (; *s; s++)
		if (starts(s, part))
			return true;
	return false;
}

/* the field's place and kind; -EINVAL: no such field */
static int find_field(struct filter_parse *p, const char *name, struct filter_node *n)
{
	const struct trace_event_meta *meta = p->meta;
	size_t i;

	if (!strcmp(name, "CPU") || !strcmp(name, "cpu")) {
		n->kind = FK_CPU;
		return 0;
	}
	if (!strcmp(name, "COMM") || !strcmp(name, "comm")) {
		n->kind = FK_COMM;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(common_fields); i++)
		if (!strcmp(name, common_fields[i].name)) {
			n->kind = FK_NUM;
			n->offset = common_fields[i].offset;
			n->size = common_fields[i].size;
			n->is_signed = common_fields[i].is_signed;
			return 0;
		}
	for (i = 0; i < meta->nr_fields; i++) {
		const struct trace_field_meta *fm = &meta->fields[i];

		if (strcmp(name, fm->name))
			continue;
		n->offset = fm->offset;
		n->size = fm->size;
		n->is_signed = fm->is_signed;
		if (str_has(fm->type, "__data_loc") && str_has(fm->type, "char"))
			n->kind = FK_STR_DYN;
		else if (str_has(fm->type, "char[") || str_has(fm->type, "char ["))
			n->kind = FK_STR_ARRAY;
		else if (str_has(fm->type, "char *") || str_has(fm->type, "char*"))
			n->kind = FK_STR_PTR;
		else if (fm->size == 1 || fm->size == 2 || fm->size == 4 || fm->size == 8)
			n->kind = FK_NUM;
		else
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

static int parse_expr(struct filter_parse *p);

static int parse_pred(struct filter_parse *p)
{
	char name[64];
	int i = 0, id, err;
	struct filter_node *n;

	skip_space(p);
	while (is_ident(*p->s) && i < (int)sizeof(name) - 1)
		name[i++] = *p->s++;
	name[i] = 0;
	if (!i)
		return -EINVAL;
	id = new_node(p);
	if (id < 0)
		return id;
	n = &p->f->node[id];
	n->type = FN_PRED;
	err = find_field(p, name, n);
	if (err)
		return err;
	skip_space(p);
	if (starts(p->s, "=="))
		n->op = FOP_EQ, p->s += 2;
	else if (starts(p->s, "!="))
		n->op = FOP_NE, p->s += 2;
	else if (starts(p->s, "<="))
		n->op = FOP_LE, p->s += 2;
	else if (starts(p->s, ">="))
		n->op = FOP_GE, p->s += 2;
	else if (*p->s == '<')
		n->op = FOP_LT, p->s++;
	else if (*p->s == '>')
		n->op = FOP_GT, p->s++;
	else if (*p->s == '&' && p->s[1] != '&')
		n->op = FOP_BAND, p->s++;
	else if (*p->s == '~')
		n->op = FOP_GLOB, p->s++;
	else
		return -EINVAL;
	skip_space(p);
	if (n->kind == FK_NUM || n->kind == FK_CPU) {
		bool neg = *p->s == '-';
		u64 v = 0;
		int base = 10, digits = 0;

		if (n->op == FOP_GLOB)
			return -EINVAL;
		if (neg)
			p->s++;
		if (p->s[0] == '0' && (p->s[1] == 'x' || p->s[1] == 'X'))
			base = 16, p->s += 2;
		for (;; p->s++, digits++) {
			char c = *p->s;
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;

			if (d >= base)
				break;
			v = v * base + d;
		}
		if (!digits || is_ident(*p->s))
			return -EINVAL;
		n->val = neg ? -(s64)v : (s64)v;
		return id;
	}
	/* a string: quoted, or a bare word */
	if (n->op != FOP_EQ && n->op != FOP_NE && n->op != FOP_GLOB)
		return -EINVAL;
	i = 0;
	if (*p->s == '"' || *p->s == '\'') {
		char q = *p->s++;

		while (*p->s && *p->s != q && i < (int)sizeof(n->str) - 1)
			n->str[i++] = *p->s++;
		if (*p->s != q)
			return -EINVAL;
		p->s++;
	} else {
		while (*p->s && *p->s != ' ' && *p->s != ')' && *p->s != '&' && *p->s != '|' &&
		       i < (int)sizeof(n->str) - 1)
			n->str[i++] = *p->s++;
	}
	n->str[i] = 0;
	return i ? id : -EINVAL;
}

static int parse_factor(struct filter_parse *p)
{
	int id, inner;

	skip_space(p);
	if (*p->s == '!' && p->s[1] != '=') {
		p->s++;
		inner = parse_factor(p);
		if (inner < 0)
			return inner;
		id = new_node(p);
		if (id < 0)
			return id;
		p->f->node[id].type = FN_NOT;
		p->f->node[id].left = inner;
		return id;
	}
	if (*p->s == '(') {
		p->s++;
		inner = parse_expr(p);
		if (inner < 0)
			return inner;
		skip_space(p);
		if (*p->s != ')')
			return -EINVAL;
		p->s++;
		return inner;
	}
	return parse_pred(p);
}

/* term ('&&' term)* inside factor, then ('||' ...)*: && binds tighter */
static int parse_binary(struct filter_parse *p, int type)
{
	const char *tok = type == FN_OR ? "||" : "&&";
	int left = type == FN_OR ? parse_binary(p, FN_AND) : parse_factor(p), right, id;

	while (left >= 0) {
		skip_space(p);
		if (!starts(p->s, tok))
			break;
		p->s += 2;
		right = type == FN_OR ? parse_binary(p, FN_AND) : parse_factor(p);
		if (right < 0)
			return right;
		id = new_node(p);
		if (id < 0)
			return id;
		p->f->node[id].type = type;
		p->f->node[id].left = left;
		p->f->node[id].right = right;
		left = id;
	}
	return left;
}

static int parse_expr(struct filter_parse *p)
{
	return parse_binary(p, FN_OR);
}

/* glob_match() of lib/glob.c, for * and ? */
static bool glob_match(const char *pat, const char *str)
{
	if (!*pat)
		return !*str;
	if (*pat == '*')
		return glob_match(pat + 1, str) || (*str && glob_match(pat, str + 1));
	if (*str && (*pat == '?' || *pat == *str))
		return glob_match(pat + 1, str + 1);
	return false;
}

static bool match_pred(const struct filter_node *n, const void *rec)
{
	const char *s = NULL;
	char buf[TASK_COMM_LEN + 64];
	s64 v = 0;
	bool eq;

	switch (n->kind) {
	case FK_NUM:
		switch (n->size) {
		case 1: v = n->is_signed ? *(const s8 *)(rec + n->offset) : *(const u8 *)(rec + n->offset); break;
		case 2: v = n->is_signed ? *(const s16 *)(rec + n->offset) : *(const u16 *)(rec + n->offset); break;
		case 4: v = n->is_signed ? *(const s32 *)(rec + n->offset) : *(const u32 *)(rec + n->offset); break;
		default: v = *(const s64 *)(rec + n->offset); break;
		}
		break;
	case FK_CPU:
		v = smp_processor_id();
		break;
	case FK_COMM:
		s = current->comm;
		break;
	case FK_STR_ARRAY: {
		u32 len = min(n->size, (u32)sizeof(buf) - 1);

		memcpy(buf, rec + n->offset, len);
		buf[len] = 0;
		s = buf;
		break;
	}
	case FK_STR_DYN: {
		u32 loc = *(const u32 *)(rec + n->offset), len = min(loc >> 16, (u32)sizeof(buf) - 1);

		memcpy(buf, rec + (loc & 0xffff), len);
		buf[len] = 0;
		s = buf;
		break;
	}
	default:	/* a pointer to a string: not read from a record (as the host's filters) */
		return false;
	}
	if (s) {
		eq = n->op == FOP_GLOB ? glob_match(n->str, s) : !strcmp(n->str, s);
		return n->op == FOP_NE ? !eq : eq;
	}
	if (!n->is_signed && n->kind == FK_NUM) {
		u64 a = v, b = n->val;

		switch (n->op) {
		case FOP_LT: return a < b;
		case FOP_LE: return a <= b;
		case FOP_GT: return a > b;
		case FOP_GE: return a >= b;
		default: break;
		}
	}
	switch (n->op) {
	case FOP_EQ: return v == n->val;
	case FOP_NE: return v != n->val;
	case FOP_LT: return v < n->val;
	case FOP_LE: return v <= n->val;
	case FOP_GT: return v > n->val;
	case FOP_GE: return v >= n->val;
	default: return (v & n->val) != 0;
	}
}

static bool match_node(const struct event_filter *f, int id, const void *rec)
{
	const struct filter_node *n = &f->node[id];

	switch (n->type) {
	case FN_AND: return match_node(f, n->left, rec) && match_node(f, n->right, rec);
	case FN_OR: return match_node(f, n->left, rec) || match_node(f, n->right, rec);
	case FN_NOT: return !match_node(f, n->left, rec);
	default: return match_pred(n, rec);
	}
}

/* filter_match_preds() */
bool filter_match_preds(const struct event_filter *filter, const void *rec)
{
	return match_node(filter, filter->root, rec);
}

/* create_filter(): the filter of text over meta's fields, or an ERR_PTR (-EINVAL: not one) */
struct event_filter *create_event_filter(const struct trace_event_meta *meta, const char *text)
{
	struct filter_parse p = { .s = text, .meta = meta };
	int root;

	p.f = kzalloc(sizeof(*p.f), GFP_KERNEL);
	if (!p.f)
		return (void *)(long)-ENOMEM;
	root = parse_expr(&p);
	skip_space(&p);
	if (root < 0 || *p.s) {
		kfree(p.f);
		return (void *)(long)(root < 0 ? root : -EINVAL);
	}
	p.f->root = root;
	return p.f;
}

void free_event_filter(struct event_filter *filter)
{
	kfree(filter);
}
