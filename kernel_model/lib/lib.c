/* String and memory helpers (lib/string.c, lib/vsprintf.c, lib/hexdump.c, lib/kstrtox.c subset):
 * built without ftrace, as Linux builds lib/. */
#include "../include/kernel.h"
#include <stdarg.h>

/*
 * 32 bytes per loop iteration, bytes only for the tail.  Under Unicorn every
 * loop iteration (and every rep iteration) is one block execution, so the old
 * byte-wise rep movsb/stosb cost a block per byte (4096 per page zeroed at
 * exec).  The accesses are volatile so GCC cannot turn these loops back into
 * calls to memcpy/memset.  Copies forward only: no caller passes overlapping
 * buffers (no memmove semantics needed).
 */
void *memcpy(void *d, const void *s, size_t n)
{
	volatile u64 *dq = d;
	const volatile u64 *sq = s;
	volatile u8 *db;
	const volatile u8 *sb;

	for (; n >= 32; n -= 32, dq += 4, sq += 4) {
		dq[0] = sq[0]; dq[1] = sq[1]; dq[2] = sq[2]; dq[3] = sq[3];
	}
	for (; n >= 8; n -= 8)
		*dq++ = *sq++;
	for (db = (volatile u8 *)dq, sb = (const volatile u8 *)sq; n; n--)
		*db++ = *sb++;
	return d;
}

void *memset(void *d, int c, size_t n)
{
	u64 v = (u8)c * 0x0101010101010101ull;
	volatile u64 *dq = d;
	volatile u8 *db;

	for (; n >= 32; n -= 32, dq += 4) {
		dq[0] = v; dq[1] = v; dq[2] = v; dq[3] = v;
	}
	for (; n >= 8; n -= 8)
		*dq++ = v;
	for (db = (volatile u8 *)dq; n; n--)
		*db++ = c;
	return d;
}

/* lib/string.c's strnchr(): c in the first count bytes of s, up to its NUL; NULL: not there */
char *strnchr(const char *s, size_t count, int c)
{
	while (count--) {
		if (*s == (char)c)
			return (char *)s;
		if (*s++ == '\0')
			break;
	}
	return NULL;
}

size_t strlen(const char *s)
{
	const char *p = s;
	while (*p)
		p++;
	return p - s;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (u8)*a - (u8)*b;
}

/* lib/string.c's: -1 or 1 at the first difference (bpf_strncmp() returns it to a program) */
int strncmp(const char *a, const char *b, size_t n)
{
	for (; n && *a && *a == *b; n--)
		a++, b++;
	if (!n || (u8)*a == (u8)*b)
		return 0;
	return (u8)*a < (u8)*b ? -1 : 1;
}

char *strscpy_pad(char *d, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i + 1 < n && s[i]; i++)
		d[i] = s[i];
	for (; i < n; i++)
		d[i] = 0;
	return d;
}

const char *kbasename(const char *path)
{
	const char *tail = path;
	for (; *path; path++)
		if (*path == '/')
			tail = path + 1;
	return tail;
}

/* lib/string.c: s without its leading and trailing white space (cut in place; strstrip() is
 * its inline name); not traceable in 6.1, neither is kstrtoint */
char *strim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
		s[--n] = 0;
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	return s;
}

/* lib/string.c: the token of *s up to the first of ct (cut there), *s moved past it (NULL: none left) */
char *strsep(char **s, const char *ct)
{
	char *sbegin = *s, *end;

	if (sbegin == NULL)
		return NULL;
	for (end = sbegin; *end; end++) {
		for (const char *c = ct; *c; c++) {
			if (*end == *c) {
				*end = '\0';
				*s = end + 1;
				return sbegin;
			}
		}
	}
	*s = NULL;
	return sbegin;
}

/* lib/string.c: strcmp() of ASCII letters whatever their case */
int strcasecmp(const char *s1, const char *s2)
{
	int c1, c2;

	do {
		c1 = *s1++;
		c2 = *s2++;
		if (c1 >= 'A' && c1 <= 'Z')
			c1 += 'a' - 'A';
		if (c2 >= 'A' && c2 <= 'Z')
			c2 += 'a' - 'A';
	} while (c1 == c2 && c1 != 0);
	return c1 - c2;
}

/* lib/kstrtox.c's _parse_integer_fixup_radix(): base 0 is 16 after "0x" and a hex digit, 8
 * after another "0", else 10; a base 16 number's "0x" is skipped */
const char *_parse_integer_fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if ((s[1] | 0x20) == 'x' && ((s[2] >= '0' && s[2] <= '9') || ((s[2] | 0x20) >= 'a' && (s[2] | 0x20) <= 'f')))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

/* _parse_integer(): the digits of base at s, their value in *p; how many, with KSTRTOX_OVERFLOW
 * if the value passed 64 bits */
unsigned int _parse_integer(const char *s, unsigned int base, unsigned long long *p)
{
	unsigned long long res = 0;
	unsigned int rv = 0;

	for (;; s++, rv++) {
		unsigned int c = *s, lc = c | 0x20, val;

		if (c >= '0' && c <= '9')
			val = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			val = lc - 'a' + 10;
		else
			break;
		if (val >= base)
			break;
		if (res > (~0ULL - val) / base)
			rv |= KSTRTOX_OVERFLOW;
		res = res * base + val;
	}
	*p = res;
	return rv;
}

/* _kstrtoull(): digits in base 8, 10 or 16 (base 0: by the prefix), one newline after them at
 * most; -EINVAL for anything else, -ERANGE past 64 bits */
static int _kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v;
	unsigned int rv;

	s = _parse_integer_fixup_radix(s, &base);
	rv = _parse_integer(s, base, &v);
	if (rv & KSTRTOX_OVERFLOW)
		return -ERANGE;
	if (rv == 0)
		return -EINVAL;
	s += rv;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

/* an unsigned long long, a '+' before it allowed */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (*s == '+')
		s++;
	return _kstrtoull(s, base, res);
}

/* an int, with a sign; -ERANGE past an int */
int kstrtoint(const char *s, unsigned int base, int *res)
{
	unsigned long long v;
	bool neg = false;
	int err;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	err = _kstrtoull(s, base, &v);
	if (err)
		return err;
	if (v > (neg ? 0x80000000ULL : 0x7fffffffULL))
		return -ERANGE;
	*res = neg ? (int)-(long long)v : (int)v;
	return 0;
}

/* kstrtoull() of what a write(2) gave (at most 23 bytes are read, as 6.1's buffer holds) */
int kstrtoull_from_user(const char *buf, size_t count, unsigned int base, unsigned long long *res)
{
	char tmp[24];

	if (count > sizeof(tmp) - 1)
		count = sizeof(tmp) - 1;
	if (copy_from_user(tmp, buf, count))
		return -EFAULT;
	tmp[count] = '\0';
	return kstrtoull(tmp, base, res);
}

static size_t put_num(char *buf, size_t pos, size_t size, u64 v, int base, int width, bool neg, char pad)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (pad == '0' && n < width - neg)
		tmp[n++] = '0';
	if (neg)
		tmp[n++] = '-';
	while (n < width)
		tmp[n++] = ' ';
	while (n) {
		if (pos + 1 < size)
			buf[pos] = tmp[n - 1];
		pos++;
		n--;
	}
	return pos;
}

/*
 * %d %u %x %o %lu %ld %lx (%z: as %l) %s %c %p, optional width (0: zero-padded; -: left-justified,
 * padded after) or an integer's precision (%.8x: at least 8 digits); returns bytes written.  %p prints a pointer as 6.1 does before its
 * hashing key is ready (no hashed value is ever shown here, as the trace's own %p prints it):
 * "(____ptrval____)", NULL and error values as themselves (16 hex digits).
 */
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t pos = 0;

	for (; *fmt; fmt++) {
		int width = 0, lng = 0;
		size_t start;
		bool left = false;
		char pad = ' ';
		if (*fmt != '%') {
			if (pos + 1 < size)
				buf[pos] = *fmt;
			pos++;
			continue;
		}
		fmt++;
		if (*fmt == '-')
			left = true, fmt++;
		if (*fmt == '0')
			pad = '0', fmt++;
		if (*fmt == '.')	/* an integer's precision: its digits, zero-padded */
			pad = '0', fmt++;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l' || *fmt == 'z')
			lng++, fmt++;
		if (left)	/* the field's width is made up after it, below */
			width = -width;
		else if (*fmt == 's') {	/* right-justified: the padding first */
			const char *s = va_arg(ap, const char *);
			int len = strlen(s);

			for (; len < width; len++, pos++)
				if (pos + 1 < size)
					buf[pos] = ' ';
			for (; *s; s++, pos++)
				if (pos + 1 < size)
					buf[pos] = *s;
			continue;
		}
		start = pos;
		switch (*fmt) {
		case 'p': {
			unsigned long p = (unsigned long)va_arg(ap, void *);
			const char *s = "(____ptrval____)";

			if (!p || IS_ERR(p)) {	/* IS_ERR_OR_NULL(): as they are */
				pos = put_num(buf, pos, size, p, 16, 16, false, '0');
				break;
			}
			for (; *s; s++, pos++)
				if (pos + 1 < size)
					buf[pos] = *s;
			break;
		}
		case 'd': {
			s64 v = lng ? va_arg(ap, long) : va_arg(ap, int);
			pos = put_num(buf, pos, size, v < 0 ? -v : v, 10, width, v < 0, pad);
			break;
		}
		case 'u':
			pos = put_num(buf, pos, size, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 10, width, false, pad);
			break;
		case 'x':
			pos = put_num(buf, pos, size, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 16, width, false, pad);
			break;
		case 'o':
			pos = put_num(buf, pos, size, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 8, width, false, pad);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			for (; *s; s++, pos++)
				if (pos + 1 < size)
					buf[pos] = *s;
			break;
		}
		case 'c':
			if (pos + 1 < size)
				buf[pos] = (char)va_arg(ap, int);
			pos++;
			break;
		default:
			if (pos + 1 < size)
				buf[pos] = *fmt;
			pos++;
		}
		for (; width < 0 && (long)(pos - start) < -width; pos++)	/* left-justified */
			if (pos + 1 < size)
				buf[pos] = ' ';
	}
	if (size)
		buf[pos < size ? pos : size - 1] = 0;
	return pos < size ? (int)pos : (int)size - 1;
}

/*
 * lib/hexdump.c: len bytes at buf as printk lines of rowsize (16 or 32) bytes, each byte two hex
 * digits and a space apart (groupsize 1; ascii false: what its callers here ask), after level,
 * prefix_str and the row's offset (DUMP_PREFIX_OFFSET) or address (DUMP_PREFIX_ADDRESS).
 */
void print_hex_dump(const char *level, const char *prefix_str, int prefix_type, int rowsize,
			    int groupsize, const void *buf, size_t len, bool ascii)
{
	char line[32 * 3 + 1];
	const u8 *p = buf;

	(void)groupsize, (void)ascii;
	if (rowsize != 16 && rowsize != 32)
		rowsize = 16;
	for (size_t i = 0; i < len; i += rowsize) {
		size_t n = len - i < (size_t)rowsize ? len - i : (size_t)rowsize, at = 0;

		for (size_t j = 0; j < n; j++) {
			line[at++] = "0123456789abcdef"[p[i + j] >> 4];
			line[at++] = "0123456789abcdef"[p[i + j] & 15];
			line[at++] = ' ';
		}
		line[at ? at - 1 : 0] = 0;
		if (prefix_type == DUMP_PREFIX_ADDRESS)
			printk("%s%s%p: %s\n", level, prefix_str, p + i, line);
		else if (prefix_type == DUMP_PREFIX_OFFSET)
			printk("%s%s%.8x: %s\n", level, prefix_str, (unsigned int)i, line);
		else
			printk("%s%s%s\n", level, prefix_str, line);
	}
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return len;
}
