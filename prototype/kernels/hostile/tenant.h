/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal tenant runner for the hostile cases: a few bytes of x86 code in
 * a frame of a space of its own, a stack, and tenant_run called directly,
 * so that a case decides itself what each trap leads to.
 */
#ifndef HOSTILE_TENANT_H
#define HOSTILE_TENANT_H

#include "hostile.h"

#define HT_CODE_VA	(EV_TENANT_BASE + 0x400000)	/* read and execute */
#define HT_STACK_VA	(EV_TENANT_BASE + 0x800000)	/* one page, read and write */

struct htenant {
	long vm;			/* its space */
	void *code, *stack;		/* their frames */
	struct ev_tenant_ctx *ctx;	/* in the heap: tenant_run writes it back */
};

/*
 * Tenant code between two labels of a top-level asm block, in read-only
 * data: HT_CODE(name, "instructions") defines name[] and name_end[].
 */
#define HT_CODE(name, insns)						\
	extern const u8 name[], name##_end[];				\
	asm(".pushsection .rodata\n" #name ":\n" insns "\n"		\
	    #name "_end:\n.popsection")

/* 0, or -errno with nothing left held. */
int htenant_setup(struct htenant *t, const u8 *code, const u8 *end);
/* Registers as at the tenant's start: rip at the code, rsp at the stack's top. */
void htenant_reset(struct htenant *t);
/* tenant_run: the trap (EV_TRAP_*), or -errno. */
long htenant_run(struct htenant *t);
/* The same, run again after each kick (vostd_call has taken it): the first other trap. */
long htenant_run_past_kicks(struct htenant *t);
void htenant_teardown(struct htenant *t);

#endif /* HOSTILE_TENANT_H */
