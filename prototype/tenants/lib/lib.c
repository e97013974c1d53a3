// SPDX-License-Identifier: GPL-2.0
/* The tenants' library: a line printer, threads, order statistics, figures. */
#include <stdarg.h>

#include "tenant.h"

static void put(char *buf, unsigned int *n, unsigned int cap, char c)
{
	if (*n < cap)
		buf[*n] = c;
	(*n)++;
}

static void put_num(char *buf, unsigned int *n, unsigned int cap, u64 v, int neg)
{
	char d[24];
	int i = 0;

	do {
		d[i++] = '0' + v % 10;
		v /= 10;
	} while (v);
	if (neg)
		put(buf, n, cap, '-');
	while (i)
		put(buf, n, cap, d[--i]);
}

/* %d %ld %u %lu %s %x %lx: enough for the tenants. */
int print(const char *fmt, ...)
{
	char buf[200];
	unsigned int n = 0, cap = sizeof(buf);
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		int l = 0;

		if (*fmt != '%') {
			put(buf, &n, cap, *fmt);
			continue;
		}
		while (*++fmt == 'l')
			l = 1;
		if (*fmt == 'd') {
			long v = l ? va_arg(ap, long) : va_arg(ap, int);

			put_num(buf, &n, cap, v < 0 ? -(u64)v : (u64)v, v < 0);
		} else if (*fmt == 'u') {
			put_num(buf, &n, cap, l ? va_arg(ap, u64) : va_arg(ap, u32), 0);
		} else if (*fmt == 'x') {
			u64 v = l ? va_arg(ap, u64) : va_arg(ap, u32);
			int shift = 60;

			while (shift > 0 && !((v >> shift) & 15))
				shift -= 4;
			for (; shift >= 0; shift -= 4)
				put(buf, &n, cap, "0123456789abcdef"[(v >> shift) & 15]);
		} else if (*fmt == 's') {
			const char *s = va_arg(ap, const char *);

			while (*s)
				put(buf, &n, cap, *s++);
		} else {
			put(buf, &n, cap, *fmt);
		}
	}
	va_end(ap);
	if (n > cap)
		n = cap;
	return sys3(SYS_WRITE, (long)buf, n, 0);
}

extern char thread_start[];

/* The new thread finds its function and argument at the top of its stack. */
long thread(long (*fn)(void *), void *arg, int same_vcpu)
{
	char *stack = mmap(4 * 4096, PROT_R | PROT_W);
	void **top;

	if ((long)stack < 0)
		return (long)stack;
	top = (void **)(stack + 4 * 4096) - 2;
	top[0] = (void *)fn;
	top[1] = arg;
	return sys4(SYS_THREAD, (long)thread_start, (long)top, (long)top, same_vcpu);
}

void sort(u64 *v, unsigned long n)
{
	unsigned long i, j;

	/* Shell sort: no recursion, no allocation, fast enough for a few thousand. */
	for (unsigned long gap = n / 2; gap; gap /= 2)
		for (i = gap; i < n; i++) {
			u64 t = v[i];

			for (j = i; j >= gap && v[j - gap] > t; j -= gap)
				v[j] = v[j - gap];
			v[j] = t;
		}
}

u64 percentile(const u64 *sorted, unsigned long n, unsigned int pct)
{
	unsigned long rank = (n * pct + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

/*
 * One figure (ev_report.h): the median of n samples, sorted here, with
 * their 99th percentile, in cycles; baseline names the Linux figure to
 * read it against, or is NULL.  The proc kernel forwards it as it is.
 */
void fig_median(const char *key, u64 *v, unsigned long n, const char *baseline)
{
	sort(v, n);
	print(EV_FIG_MEDIAN("%s", "%lu", "cycles", "%lu") "%s%s", key, percentile(v, n, 50),
	      percentile(v, n, 99), n, baseline ? EV_BASELINE("") : "", baseline ? baseline : "");
}
