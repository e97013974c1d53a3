// SPDX-License-Identifier: GPL-2.0
/*
 * The service table: everything a sandbox kernel may ask of Linux.  Each
 * entry runs on the carrier's Linux stack, called by the stub with the
 * calling vCPU first; every other argument comes from the sandbox and is
 * checked before use.  A bad argument is refused with an error code the
 * sandbox sees, never with a crash.
 */
#include <linux/ctype.h>
#include <linux/export.h>
#include <linux/uaccess.h>

#include "endovisor.h"

EV_SERVICE_DEFINE0(nop)
{
	return 0;
}

/*
 * log(buf, len): one line into the sandbox's log, tagged with the kernel
 * and vCPU it came from.  The buffer must lie in memory the sandbox owns;
 * unprintable bytes are replaced so that a line stays one line.
 */
EV_SERVICE_DEFINE2(log, unsigned long, buf, unsigned long, len)
{
	char line[EV_LOG_LINE_MAX];
	size_t i;

	if (len == 0 || len > EV_LOG_LINE_MAX)
		return -EINVAL;
	if (ev_sandbox_read(v, line, (const void *)buf, len))
		return -EFAULT;
	/* A sandbox's number indexes memory: clamped under speculation too. */
	if (line[array_index_nospec(len - 1, EV_LOG_LINE_MAX)] == '\n')
		len--;
	for (i = 0; i < len; i++)
		if (!isprint(line[i]))
			line[i] = '?';
	ev_log_printf(&v->sb->log, "[%s.%u] %.*s\n", v->sb->kernel->name,
		      v->id, (int)len, line);
	return 0;
}

/*
 * What the generic crossing, ev_stub_cross, calls (stub/cross.S): service
 * svc of v, with its arguments.  A switch, which this kernel's compiler
 * turns into compares and direct calls, since with retpolines it makes no
 * jump tables: so this crossing takes no indirect branch, as Linux's own
 * system-call dispatch (x64_sys_call) has taken none since 6.9.  An
 * unknown number is -ENOSYS.  A sandbox kernel that knows the service
 * when it is compiled calls that service's own crossing instead,
 * ev_stub_cross_NAME, which has no dispatch at all.
 */
long ev_service_call(struct ev_vcpu *v, unsigned long a0, unsigned long a1,
		     unsigned long a2, unsigned long a3, unsigned long a4,
		     unsigned long svc)
{
	switch (svc) {
#define EV_SERVICE(nr, NAME, name, args) case nr: return ev_svc_##name(v, a0, a1, a2, a3, a4);
#include "ev_services.h"
#undef EV_SERVICE
	}
	return -ENOSYS;
}

/* Every service's own crossing, for sandbox kernels to call. */
#define EV_SERVICE(nr, NAME, name, args)	EXPORT_SYMBOL_GPL(ev_stub_cross_##name);
#include "ev_services.h"
#undef EV_SERVICE

/*
 * The table the crossing went through before, kept to time that crossing
 * (crossing.c).
 */
const ev_service_fn ev_service_table[EV_NR_SERVICES] = {
#define EV_SERVICE(nr, NAME, name, args)	[nr] = ev_svc_##name,
#include "ev_services.h"
#undef EV_SERVICE
};

/* The list holds every service, each at its number. */
enum {
#define EV_SERVICE(nr, NAME, name, args)	ev_listed_##name,
#include "ev_services.h"
#undef EV_SERVICE
	EV_SERVICES_LISTED
};

static_assert(EV_SERVICES_LISTED == EV_NR_SERVICES);
#define EV_SERVICE(nr, NAME, name, args)	static_assert(ev_listed_##name == (nr));
#include "ev_services.h"
#undef EV_SERVICE
