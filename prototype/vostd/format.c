// SPDX-License-Identifier: GPL-2.0
/*
 * A small vsnprintf, so that a sandbox kernel can format without Linux:
 * %d %i %u %x %s %c %p and %%, with l and ll, a field width and 0 padding,
 * and for %s a - to pad on the right.
 * Like the C library's, it returns the length the whole output would have.
 */
#include "vostd.h"

struct vostd_out {
	char *buf;
	size_t size, len;
};

static int vostd_strlen(const char *s)
{
	int n = 0;

	while (s[n])
		n++;
	return n;
}

static void vostd_put(struct vostd_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void vostd_put_num(struct vostd_out *o, unsigned long long v,
			  unsigned int base, bool neg, int width, char pad)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		width--;
	if (neg && pad == '0')
		vostd_put(o, '-');
	for (; width > n; width--)
		vostd_put(o, pad);
	if (neg && pad != '0')
		vostd_put(o, '-');
	while (n)
		vostd_put(o, digits[--n]);
}

int vostd_vsnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	struct vostd_out o = { .buf = buf, .size = size };

	for (; *fmt; fmt++) {
		unsigned long long u;
		long long s;
		int width = 0, longs = 0;
		bool left = false;
		char pad = ' ';
		const char *str;

		if (*fmt != '%') {
			vostd_put(&o, *fmt);
			continue;
		}
		fmt++;
		if (*fmt == '-') {
			left = true;
			fmt++;
		}
		if (*fmt == '0')
			pad = '0';
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + *fmt++ - '0';
		while (*fmt == 'l') {
			longs++;
			fmt++;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			s = longs > 1 ? va_arg(args, long long) :
			    longs ? va_arg(args, long) : va_arg(args, int);
			vostd_put_num(&o, s < 0 ? -(unsigned long long)s : s,
				      10, s < 0, width, pad);
			break;
		case 'u':
		case 'x':
			u = longs > 1 ? va_arg(args, unsigned long long) :
			    longs ? va_arg(args, unsigned long) :
			    va_arg(args, unsigned int);
			vostd_put_num(&o, u, *fmt == 'u' ? 10 : 16, false,
				      width, pad);
			break;
		case 'p':
			vostd_put(&o, '0');
			vostd_put(&o, 'x');
			vostd_put_num(&o, (unsigned long)va_arg(args, void *),
				      16, false, 16, '0');
			break;
		case 's':
			str = va_arg(args, const char *);
			if (!str)
				str = "(null)";
			width -= vostd_strlen(str);
			for (; !left && width > 0; width--)
				vostd_put(&o, ' ');
			while (*str)
				vostd_put(&o, *str++);
			for (; width > 0; width--)
				vostd_put(&o, ' ');
			break;
		case 'c':
			vostd_put(&o, (char)va_arg(args, int));
			break;
		case '%':
			vostd_put(&o, '%');
			break;
		default:	/* unknown: print it as it stands */
			vostd_put(&o, '%');
			if (!*fmt)
				goto out;
			vostd_put(&o, *fmt);
		}
	}
out:
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

int vostd_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vostd_vsnprintf(buf, size, fmt, args);
	va_end(args);
	return n;
}

bool vostd_has_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

/*
 * A number in base 10 or 16 (lower-case digits) at *s, after any spaces,
 * 0 if there is none; *s is left just past it, for the next.
 */
unsigned long vostd_parse_ulong(const char **s, unsigned int base)
{
	unsigned long v = 0;

	while (**s == ' ')
		(*s)++;
	for (;; (*s)++) {
		char c = **s;
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return v;
		v = v * base + d;
	}
}
