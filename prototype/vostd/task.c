// SPDX-License-Identifier: GPL-2.0
/*
 * Task stacks.  A stack is one heap block of EV_STACK_SIZE, which the
 * endovisor's kmalloc hands out aligned to its size, so that code on it finds
 * the ev_stack_base at its bottom by masking its stack pointer.  It is
 * the endovisor's block itself, from vostd_heap_alloc, not whatever
 * vostd_alloc makes of a request this large: a stack rests on the block's
 * bounds and alignment, and the checking mode (sanitize.c) wraps an
 * object in redzones and aligns it to a page at most.
 */
#include "vostd.h"

void vostd_task_entry(void);

struct ev_stack_base *vostd_stack_alloc(struct ev_vcpu_shared *shared, void *owner)
{
	struct ev_stack_base *base = vostd_heap_alloc(EV_STACK_SIZE, false);

	if (!base)
		return NULL;
	if ((unsigned long)base & (EV_STACK_SIZE - 1)) {
		vostd_heap_free(base);
		return NULL;
	}
	base->magic = EV_STACK_MAGIC;
	base->shared = shared;
	base->owner = owner;
	return base;
}

void vostd_stack_free(struct ev_stack_base *stack)
{
	vostd_heap_free(stack);
}

bool vostd_stack_intact(struct ev_stack_base *stack)
{
	return stack->magic == EV_STACK_MAGIC;
}

/*
 * The first frame: what vostd_switch pops (r15, r14, r13 = arg, r12 = fn,
 * rbx, rbp), then the address it returns to, placed so that the stack is
 * 16-byte aligned when vostd_task_entry calls into C.  Returns the stack
 * pointer to switch to.
 */
unsigned long vostd_stack_frame(struct ev_stack_base *stack,
				void (*fn)(void *), void *arg)
{
	unsigned long *sp = (unsigned long *)((unsigned long)stack + EV_STACK_SIZE);

	*--sp = 0;
	*--sp = 0;
	*--sp = (unsigned long)vostd_task_entry;
	*--sp = 0;			/* rbp */
	*--sp = 0;			/* rbx */
	*--sp = (unsigned long)fn;	/* r12 */
	*--sp = (unsigned long)arg;	/* r13 */
	*--sp = 0;			/* r14 */
	*--sp = 0;			/* r15 */
	return (unsigned long)sp;
}
