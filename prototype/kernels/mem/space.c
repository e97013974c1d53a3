// SPDX-License-Identifier: GPL-2.0
/*
 * The mem kernel's tenants: an address space with touch mapped in,
 * the results pages it writes its timings to, and a pass of touch.
 */
#include "mem.h"

/* A new address space with touch mapped at CODE_VA and room for n timings. */
struct tenant *tenant_new(unsigned int n)
{
	struct tenant *t = vostd_alloc(sizeof(*t), true);
	unsigned int i;

	if (!t)
		return NULL;
	t->vs = vostd_vmspace_new();
	t->code = vostd_frame_alloc();
	if (!t->vs || !t->code)
		return NULL;
	vostd_memcpy(t->code, tenant_touch_start, tenant_touch_end - tenant_touch_start);
	if (vostd_vm_map(t->vs, CODE_VA, t->code, EV_PROT_READ | EV_PROT_EXEC))
		return NULL;
	t->result_pages = (n * 8 + PAGE - 1) / PAGE;
	for (i = 0; i < t->result_pages; i++) {
		t->results[i] = vostd_frame_alloc();
		if (!t->results[i] ||
		    vostd_vm_map(t->vs, RESULTS_VA + i * PAGE, t->results[i], RW))
			return NULL;
	}
	return t;
}

void tenant_free(struct tenant *t)
{
	unsigned int i;

	vostd_vmspace_destroy(t->vs);
	vostd_frame_free(t->code);
	for (i = 0; i < t->result_pages; i++)
		vostd_frame_free(t->results[i]);
	vostd_free(t);
}

/*
 * Run touch over n pages from va; with timings, each access's cycles land
 * in s.  Page faults it takes are handed to fault(), which resolves them.
 * Returns the pass's cycles, or 0 on failure; *faults is what Linux counted.
 */
u64 touch(struct tenant *t, unsigned long va, unsigned long n, bool write,
	  u64 *s, u64 *faults,
	  long (*fault)(struct tenant *t, unsigned long addr, bool write))
{
	struct ev_tenant_ctx *c = vostd_alloc(sizeof(*c), true);
	u64 total = 0;
	long trap;

	if (!c)
		return 0;
	c->rip = CODE_VA;
	c->rsp = RESULTS_VA;	/* touch uses no stack */
	c->rdi = va;
	c->rsi = n;
	c->r12 = PAGE;
	c->r13 = s ? RESULTS_VA : 0;
	c->r14 = write;
	c->r15 = 0x5a;
	*faults = 0;
	for (;;) {
		trap = vostd_user_run(t->vs, c, 0);
		*faults += c->linux_faults;
		if (trap == EV_TRAP_FAULT && fault && !fault(t, c->fault_addr, c->fault_write))
			continue;	/* resolved: the access is retried */
		if (trap == EV_TRAP_KICK)
			continue;
		break;
	}
	if (trap == EV_TRAP_SYSCALL && c->syscall_nr == 0)
		total = c->rbx;
	else
		vostd_println("mem: %s ended with trap %ld at %llx (fault %llx)",
			      __func__, trap, c->rip, c->fault_addr);
	if (total && s && vostd_copy_from_user(t->vs, s, RESULTS_VA, n * 8))
		total = 0;
	vostd_free(c);
	return total;
}

/* Map n fresh frames (or frames[i % nframes]) at va, under one cursor. */
long map_range(struct vostd_vmspace *vs, unsigned long va, unsigned long n,
	       void **frames, unsigned long nframes, unsigned int prot)
{
	struct vostd_cursor cur;
	unsigned long i;

	vostd_cursor_init(&cur, vs, va, va + n * PAGE, CURSOR_BATCH);
	for (i = 0; i < n; i++) {
		void *f = frames ? frames[i % nframes] : vostd_frame_alloc();

		if (!f)
			return -ENOMEM;
		vostd_cursor_map(&cur, f, prot);
	}
	return vostd_cursor_finish(&cur);
}
