// SPDX-License-Identifier: GPL-2.0
/* The hostile kernel's tenant runner: see tenant.h. */
#include "tenant.h"

void htenant_reset(struct htenant *t)
{
	*t->ctx = (struct ev_tenant_ctx){ .rip = HT_CODE_VA, .rsp = HT_STACK_VA + PAGE };
}

int htenant_setup(struct htenant *t, const u8 *code, const u8 *end)
{
	size_t i, len = end - code;
	long r;

	*t = (struct htenant){};
	if (len > PAGE)
		return -EINVAL;
	t->vm = call(EV_SVC_VM_CREATE, 0, 0, 0, 0);
	t->code = vostd_frame_alloc();
	t->stack = vostd_frame_alloc();
	t->ctx = vostd_alloc(sizeof(*t->ctx), true);
	if (vostd_is_err(t->vm) || !t->code || !t->stack || !t->ctx) {
		r = vostd_is_err(t->vm) ? t->vm : -ENOMEM;
		goto fail;
	}
	for (i = 0; i < len; i++)
		((u8 *)t->code)[i] = code[i];
	r = call(EV_SVC_VM_MAP, t->vm, HT_CODE_VA, (unsigned long)t->code,
		 EV_PROT_READ | EV_PROT_EXEC);
	if (!r)
		r = call(EV_SVC_VM_MAP, t->vm, HT_STACK_VA, (unsigned long)t->stack, RW);
	if (r)
		goto fail;
	htenant_reset(t);
	return 0;
fail:
	htenant_teardown(t);
	return r;
}

long htenant_run(struct htenant *t)
{
	return call(EV_SVC_TENANT_RUN, t->vm, (unsigned long)t->ctx, 0, 0);
}

long htenant_run_past_kicks(struct htenant *t)
{
	long trap;

	do
		trap = htenant_run(t);
	while (trap == EV_TRAP_KICK);
	return trap;
}

void htenant_teardown(struct htenant *t)
{
	if (t->vm > 0) {
		/* The carrier holds the space it last ran: give it back first. */
		call(EV_SVC_VM_ACTIVATE, 0, 0, 0, 0);
		call(EV_SVC_VM_DESTROY, t->vm, 0, 0, 0);
	}
	if (t->code)
		vostd_frame_free(t->code);
	if (t->stack)
		vostd_frame_free(t->stack);
	if (t->ctx)
		vostd_free(t->ctx);
	*t = (struct htenant){};
}
