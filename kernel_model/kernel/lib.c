/* String and memory helpers (lib/string.c, lib/vsprintf.c subset). */
#include "../include/kernel.h"
#include <stdarg.h>

notrace void *memcpy(void *d, const void *s, size_t n)
{
	void *ret = d;
	asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return ret;
}

notrace void *memset(void *d, int c, size_t n)
{
	void *ret = d;
	asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return ret;
}

notrace size_t strlen(const char *s)
{
	const char *p = s;
	while (*p)
		p++;
	return p - s;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (u8)*a - (u8)*b;
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

static size_t put_num(char *buf, size_t pos, size_t size, u64 v, int base, int width, bool neg)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
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

/* %d %u %x %lu %ld %lx %s %c, optional width; returns bytes written. */
int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t pos = 0;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		int width = 0, lng = 0;
		if (*fmt != '%') {
			if (pos + 1 < size)
				buf[pos] = *fmt;
			pos++;
			continue;
		}
		fmt++;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l')
			lng++, fmt++;
		switch (*fmt) {
		case 'd': {
			s64 v = lng ? va_arg(ap, long) : va_arg(ap, int);
			pos = put_num(buf, pos, size, v < 0 ? -v : v, 10, width, v < 0);
			break;
		}
		case 'u':
			pos = put_num(buf, pos, size, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 10, width, false);
			break;
		case 'x':
			pos = put_num(buf, pos, size, lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 16, width, false);
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
	}
	va_end(ap);
	if (size)
		buf[pos < size ? pos : size - 1] = 0;
	return pos < size ? (int)pos : (int)size - 1;
}
