/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crossing: how sandbox code enters Linux and comes back.
 *
 * Sandbox code runs on stacks the endovisor or the sandbox kernel allocated,
 * never on the carrier's Linux stack.  Linux code expects its own stack, so
 * every service call switches to it and back: an indirect call through the
 * service table with one stack switch on each side.  ev_stub_enter is the
 * other direction, used once per vCPU run: it parks the Linux stack pointer
 * in the vCPU and starts sandbox code on a sandbox stack.
 *
 * Both find the calling vCPU through the per-CPU ev_cur_vcpu, which the
 * carrier's preempt notifier keeps right across Linux context switches, so
 * no pointer the sandbox hands over is trusted to name its vCPU.
 *
 * A service that finds the carrier must stop carrying (a fatal signal) sets
 * the vCPU's bail word; the crossing then does not go back to sandbox code
 * but returns from ev_stub_enter with -EINTR, abandoning the sandbox stack.
 */
#include <linux/linkage.h>
#include <linux/errno.h>
#include <asm/percpu.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include "ev_abi.h"
#include "ev_stub.h"

	.text

/*
 * long ev_stub_enter(struct ev_vcpu *v, long (*fn)(void *), void *arg,
 *		      unsigned long sandbox_sp)
 *
 * Saves the callee-saved registers on the Linux stack, records that stack
 * pointer in v, and calls fn(arg) on the sandbox stack.  When fn returns,
 * the Linux stack pointer is taken from the vCPU again, not from anything
 * the sandbox could have changed.
 */
SYM_FUNC_START(ev_stub_enter)
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, EV_VCPU_LINUX_SP(%rdi)
	movq	%rcx, %rsp
	movq	%rdx, %rdi
	CALL_NOSPEC rsi
	movq	PER_CPU_VAR(ev_cur_vcpu), %rbx
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	RET
SYM_FUNC_END(ev_stub_enter)

/*
 * long ev_stub_cross(unsigned long svc, unsigned long a0, ..., a4)
 *
 * Called by sandbox code, on a sandbox stack.  Runs
 * ev_service_table[svc](vcpu, a0, ..., a4) on the carrier's Linux stack and
 * returns its result on the sandbox stack.  The sandbox stack pointer lives
 * in %rbp across the call, which the service, being C, preserves.
 */
SYM_FUNC_START(ev_stub_cross)
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rbx
	movq	PER_CPU_VAR(ev_cur_vcpu), %rbx
	testq	%rbx, %rbx
	jz	.Lnot_a_carrier
	cmpq	$EV_NR_SERVICES, %rdi
	jae	.Lno_such_service
	/* Clamp the index under speculation too (array_index_nospec). */
	sbbq	%rax, %rax
	andq	%rax, %rdi
	leaq	ev_service_table(%rip), %rax
	movq	(%rax, %rdi, 8), %rax
	movq	%rbx, %rdi
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	CALL_NOSPEC rax
	cmpq	$0, EV_VCPU_BAIL(%rbx)
	jne	.Lbail
	leaq	-8(%rbp), %rsp
.Lout:
	popq	%rbx
	popq	%rbp
	UNWIND_HINT_SAVE
	RET
.Lno_such_service:
	movq	$-ENOSYS, %rax
	jmp	.Lout
.Lnot_a_carrier:
	movq	$-EPERM, %rax
	jmp	.Lout
.Lbail:
	/*
	 * Unwind to ev_stub_enter's frame and return from it.  From here on
	 * the stack is ev_stub_enter's, which objtool cannot know.
	 */
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	/* Six saved registers and ev_stub_enter's return address. */
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=56 type=UNWIND_HINT_TYPE_CALL
	movq	$-EINTR, %rax
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	/* The same state as any return: objtool takes it from .Lout's. */
	UNWIND_HINT_RESTORE
	RET
SYM_FUNC_END(ev_stub_cross)
