// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: attacks on what the endovisor's quotas count.
 *
 *   memory_cases    on vCPU 0, while memory_race_ap on vCPU 1 creates a
 *                   space and destroys it, over and over: vCPU 0 batches
 *                   maps into whichever space vCPU 1 has now.  A batch
 *                   that takes the handle before the destroy and the lock
 *                   after it must be refused, not map into a zapped space
 *                   whose pages would count for ever; so once vCPU 1
 *                   stops, the whole of EV_MAP_QUOTA must map again.
 *   fill heap       1-byte blocks until mem_alloc says no, then held until
 *                   the launcher is killed, for hostile.sh to measure the
 *                   Slab they hold against EV_MEM_QUOTA
 *   fill tables     spaces whose tenant touches an address in a fresh GiB
 *                   of the region at each run (Linux's fault path allocates
 *                   a PMD for it before the endovisor hears of the fault),
 *                   then maps at 2 MiB strides (a page table each) until
 *                   refused; held until killed, for hostile.sh to measure
 *                   PageTables against EV_PT_QUOTA
 */
#include "hostile.h"
#include "tenant.h"

#define GIB		BIT(30)
#define RACE_VA		(EV_TENANT_BASE + GIB)		/* vCPU 0's batches */
#define RACE_OPS	512
#define CHURN_VA	(EV_TENANT_BASE + 2 * GIB)	/* vCPU 1's maps */
#define CHURN_OPS	1024
#define CHURN_ROUNDS	300		/* spaces vCPU 1 creates and destroys */
/* Past EV_MEM_QUOTA if the quota counted only the bytes asked for. */
#define FILL_BLOCKS	2000000

/* n map ops of frame at consecutive pages from va, or NULL. */
static struct ev_vm_op *map_ops(struct ev_vm_op *ops, unsigned long va, unsigned int n,
				void *frame)
{
	unsigned int i;

	if (!ops)
		ops = vostd_alloc(n * sizeof(*ops), false);
	if (!ops)
		return NULL;
	for (i = 0; i < n; i++)
		ops[i] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RW,
					    .va = va + i * PAGE, .frame = (unsigned long)frame };
	return ops;
}

/*
 * Map frame at page after page of a new space until a map is refused: the
 * pages mapped, and the refusal in *err.  The space goes after.
 */
long map_until_refused(void *frame, long *err)
{
	struct ev_vm_op *ops = map_ops(NULL, EV_TENANT_BASE, EV_BATCH_MAX, frame);
	long vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0), n = 0, r = -ENOMEM;
	unsigned int i;

	while (ops && !vostd_is_err(vm)) {
		map_ops(ops, EV_TENANT_BASE + n * PAGE, EV_BATCH_MAX, frame);
		r = call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, EV_BATCH_MAX, 0);
		if (vostd_is_err(r)) {
			/* The ops before the failed one stay done. */
			for (i = 0; i < EV_BATCH_MAX && !(ops[i].op & EV_VM_OP_FAILED); i++)
				;
			n += i;
			break;
		}
		n += r;
	}
	*err = vostd_is_err(vm) ? vm : r;
	if (!vostd_is_err(vm))
		call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	vostd_free(ops);
	return n;
}

/*
 * vCPU 1: spaces created, mapped into and destroyed while vCPU 0 batches.
 * Its own batch holds the space's lock a while, so that vCPU 0's, holding
 * the handle, waits for the lock; the destroy comes straight after.
 */
void memory_race_ap(struct hostile_mem *m)
{
	void *frame = vostd_frame_alloc();
	struct ev_vm_op *ops = map_ops(NULL, CHURN_VA, CHURN_OPS, frame);

	while (!READ_ONCE(m->race_go))
		vostd_idle();
	for (m->race_rounds = 0; frame && ops && m->race_rounds < CHURN_ROUNDS;
	     m->race_rounds++) {
		long vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);

		if (vostd_is_err(vm))
			break;
		WRITE_ONCE(m->race_vm, vm);
		if (!m->race_rounds)
			vostd_kick(0);
		map_ops(ops, CHURN_VA, CHURN_OPS, frame);
		call(EV_SVC_VM_BATCH, vm, (unsigned long)ops, CHURN_OPS, 0);
		call(EV_SVC_VM_DESTROY, vm, 0, 0, 0);
	}
	WRITE_ONCE(m->race_done, 1);
	vostd_kick(0);
	vostd_free(ops);
	if (frame)
		vostd_frame_free(frame);
}

void memory_cases(struct hostile_mem *m)
{
	void *frame = vostd_frame_alloc();
	struct ev_vm_op *ops = map_ops(NULL, RACE_VA, RACE_OPS, frame);
	long done = 0, refused = 0, other = 0, err = 0, n;

	if (!frame || !ops) {
		expect("race_setup", 0, -ENOMEM);
		return;
	}
	n = map_until_refused(frame, &err);
	expect("map_quota_whole", EV_MAP_QUOTA, n);
	expect("map_quota_then_nospc", -ENOSPC, err);

	WRITE_ONCE(m->race_go, 1);
	vostd_kick(1);
	while (!READ_ONCE(m->race_vm) && !READ_ONCE(m->race_done))
		vostd_idle();
	while (!READ_ONCE(m->race_done)) {
		long r;

		map_ops(ops, RACE_VA, RACE_OPS, frame);
		r = call(EV_SVC_VM_BATCH, READ_ONCE(m->race_vm), (unsigned long)ops, RACE_OPS, 0);
		if (r == RACE_OPS)
			done++;
		else if (r == -EBADF)
			refused++;
		else
			other++;
	}
	vostd_println("hostile: race spaces=%u batches=%ld done=%ld refused=%ld other=%ld",
		      m->race_rounds, done + refused + other, done, refused, other);
	expect("race_ran", CHURN_ROUNDS, m->race_rounds);
	/* Nothing a batch mapped into a destroyed space still counts. */
	n = map_until_refused(frame, &err);
	expect("race_map_quota_whole_after", EV_MAP_QUOTA, n);
	expect("race_map_quota_then_nospc", -ENOSPC, err);
	vostd_free(ops);
	vostd_frame_free(frame);
}

/* 1-byte blocks until the quota says no; they go when the sandbox does. */
static void fill_heap(void)
{
	long n = 0, r = 0;

	while (n < FILL_BLOCKS) {
		r = call(EV_SVC_MEM_ALLOC, 1, 0, 0, 0);
		if (vostd_is_err(r))
			break;
		n++;
	}
	vostd_println("hostile: fill heap holding blocks=%ld last=%ld", n, vostd_is_err(r) ? r : 0);
}

/* A tenant that writes a byte at rdi: a fault, since nothing is mapped there. */
HT_CODE(ht_touch, "movb $0, (%rdi)\n\tud2");

/*
 * Faults in fresh GiBs, as many as tenant_run allows, in space after
 * space; then a map at every 2 MiB of those GiBs until one is refused.
 */
static void fill_tables(void)
{
	struct htenant *t = vostd_alloc(EV_MAX_VMS * sizeof(*t), true);
	long faults = 0, maps = 0, run = 0, map = 0;
	unsigned int n, i;
	unsigned long g, va;

	for (n = 0; t && n < EV_MAX_VMS && run != -ENOSPC; n++) {
		run = htenant_setup(&t[n], ht_touch, ht_touch_end);
		if (run)
			break;
		for (g = 1; g < EV_TENANT_SIZE / GIB; g++) {
			htenant_reset(&t[n]);
			t[n].ctx->rdi = EV_TENANT_BASE + g * GIB;
			run = htenant_run(&t[n]);
			if (run != EV_TRAP_FAULT)
				break;
			faults++;
		}
	}
	for (i = 0; i < n && !map; i++)
		for (va = EV_TENANT_BASE + GIB; va < EV_TENANT_BASE + EV_TENANT_SIZE && !map;
		     va += 2UL << 20) {
			map = call(EV_SVC_VM_MAP, t[i].vm, va, (unsigned long)t[i].code,
				   EV_PROT_READ);
			if (!map)
				maps++;
		}
	vostd_println("hostile: fill tables holding spaces=%u faults=%ld maps=%ld run=%ld map=%ld",
		      n, faults, maps, run, map);
}

/* fill WHAT: take what WHAT's quota gives, say so, and hold it until killed. */
void memory_fill(const char *what)
{
	while (*what == ' ')
		what++;
	if (vostd_has_prefix(what, "heap")) {
		fill_heap();
	} else if (vostd_has_prefix(what, "tables")) {
		fill_tables();
	} else {
		vostd_println("hostile: fill what? '%s' (want heap or tables)", what);
		return;
	}
	/* Only a fatal signal to the launcher ends the wait: -EINTR. */
	while (call(EV_SVC_VCPU_IDLE, 0, 0, 0, 0) != -EINTR)
		;
}
