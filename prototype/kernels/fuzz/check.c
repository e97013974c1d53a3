// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: what a solo phase checks around a call, beyond its answer.
 *
 * A refused call changes nothing: before a call, the fuzzer asks about
 * what the call names (each space it passes, at each tenant address it
 * passes and the page after; each live block it passes), and after a
 * refusal asks again and wants the same answers.  vm_batch and vm_share
 * are the exceptions: each stops at the first operation or page that
 * fails, and those before it stand.  calibrate maps and unmaps pages of
 * its own to time them.
 *
 * A destroyed object is gone: after a free, a second free of the block
 * and a log out of it are refused; after a space's or an FPU context's
 * destruction, its handle is refused by every service that takes one.
 */
#include "fuzz.h"

static bool is_va(unsigned long a)
{
	return a >= EV_TENANT_BASE && a - EV_TENANT_BASE < EV_TENANT_SIZE;
}

static void probe(struct fuzz_view *v, long answer)
{
	if (v->n < FUZZ_VIEW_MAX)
		v->what[v->n++] = answer;
}

/* What a space maps at a page and the page after it. */
static void probe_va(struct fuzz_view *v, unsigned long vm, unsigned long va)
{
	probe(v, vostd_call(EV_SVC_VM_QUERY, vm, va, 0, 0, 0));
	probe(v, vostd_call(EV_SVC_VM_QUERY, vm, va + PAGE, 0, 0, 0));
}

/*
 * vm_batch and vm_share keep what they did before the first operation or
 * page that failed; calibrate maps and unmaps pages of its own.
 */
static bool changes_on_refusal(const struct fuzz_service *s)
{
	return s->nr == EV_SVC_VM_BATCH || s->nr == EV_SVC_VM_SHARE ||
	       s->nr == EV_SVC_CALIBRATE;
}

void fuzz_observe(struct fuzz_cpu *c, const unsigned long *a,
		  const struct fuzz_service *s, struct fuzz_view *v)
{
	unsigned int i, j;

	v->n = 0;
	if (changes_on_refusal(s))
		return;
	for (i = 0; i < s->nargs; i++) {
		if (a[i] && fuzz_tracked(OBJ_VM, a[i])) {
			probe(v, vostd_call(EV_SVC_VM_QUERY, a[i], EV_TENANT_BASE, 0, 0, 0));
			for (j = 0; j < s->nargs; j++)
				if (is_va(a[j]))
					probe_va(v, a[i], a[j] & ~(PAGE - 1));
		}
		if (fuzz_tracked(OBJ_BLOCK, a[i]))
			probe(v, fuzz_block_live(a[i], fuzz_block_size(a[i])));
	}
}

bool fuzz_unchanged(struct fuzz_cpu *c, const unsigned long *a,
		    const struct fuzz_service *s, const struct fuzz_view *before)
{
	struct fuzz_view after;
	unsigned int i;

	fuzz_observe(c, a, s, &after);
	for (i = 0; i < before->n; i++)
		if (after.what[i] != before->what[i]) {
			vostd_println("fuzz: probe %u was %ld, now %ld", i, before->what[i],
				      after.what[i]);
			return false;
		}
	return true;
}

/* After a destruction that succeeded: the object is refused everywhere. */
void fuzz_after_destroy(struct fuzz_cpu *c, const struct fuzz_service *s,
			const unsigned long *a)
{
	unsigned long h = a[0];
	long r1, r2;

	switch (s->nr) {
	case EV_SVC_MEM_FREE:
		r1 = vostd_call(EV_SVC_MEM_FREE, h, 0, 0, 0, 0);
		r2 = vostd_call(EV_SVC_LOG, h, 1, 0, 0, 0);
		if (r1 != -ENOENT || r2 != -EFAULT)
			fuzz_failed(c, "freed_block_still_answers", s, a, r1 != -ENOENT ? r1 : r2);
		break;
	case EV_SVC_VM_DESTROY:
		r1 = vostd_call(EV_SVC_VM_QUERY, h, EV_TENANT_BASE, 0, 0, 0);
		r2 = vostd_call(EV_SVC_VM_UNMAP, h, EV_TENANT_BASE, 1, 0, 0);
		if (r1 != -EBADF || r2 != -EBADF)
			fuzz_failed(c, "destroyed_space_still_answers", s, a,
				    r1 == -EBADF ? r2 : r1);
		break;
	case EV_SVC_FPU_DESTROY:
		r1 = vostd_call(EV_SVC_FPU_SWITCH, h, 0, 0, 0, 0);
		r2 = vostd_call(EV_SVC_FPU_DESTROY, h, 0, 0, 0, 0);
		if (r1 != -EBADF || r2 != -EBADF)
			fuzz_failed(c, "destroyed_fpu_still_answers", s, a,
				    r1 == -EBADF ? r2 : r1);
		break;
	}
}
