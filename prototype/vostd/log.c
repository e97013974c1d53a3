// SPDX-License-Identifier: GPL-2.0
/* Printing: format in the sandbox, then one crossing to the log service. */
#include "vostd.h"

long vostd_println(const char *fmt, ...)
{
	char line[EV_LOG_LINE_MAX];
	va_list args;
	int n;

	va_start(args, fmt);
	n = vostd_vsnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	if (n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	return vostd_svc_log((unsigned long)line, n);
}
