/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crossing: how sandbox code enters Linux and comes back.
 *
 * Sandbox code runs on stacks the endovisor or the sandbox kernel allocated,
 * never on the carrier's Linux stack.  Linux code expects its own stack, so
 * every service call switches to it and back: a direct call of the
 * service's own crossing (EV_CROSS_ONE), which calls the service directly,
 * with one stack switch on each side.  ev_stub_enter is the
 * other direction, used once per vCPU run: it parks the Linux stack pointer
 * in the vCPU and starts sandbox code on a sandbox stack.
 *
 * Both find the calling vCPU through the per-CPU ev_cur_vcpu, which the
 * carrier's preempt notifier keeps right across Linux context switches, so
 * no pointer the sandbox hands over is trusted to name its vCPU.
 *
 * A service can set the vCPU's bail word to make the crossing leave sandbox
 * code instead of going back to it: the crossing then returns from the
 * Linux frame that entered sandbox code (ev_stub_enter or ev_stub_resume).
 * EV_BAIL_ABANDON, for a carrier that must stop (a fatal signal), returns
 * -EINTR and leaves the sandbox stack for good.  EV_BAIL_SUSPEND, for a
 * vCPU going to user mode, returns 0 and records the crossing's frame, so
 * that ev_stub_resume can later return from the crossing into the sandbox
 * kernel as if the service had just come back.  EV_BAIL_PARK does the
 * same for a carrier that must go to user mode for Linux to stop or
 * freeze it (park.c), and keeps the service's result for the resume.
 */
#include <linux/linkage.h>
#include <linux/errno.h>
#include <asm/percpu.h>
#include <asm/processor-flags.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include "ev_abi.h"
#include "ev_stub.h"

/*
 * Back on the Linux stack of the frame that entered sandbox code (rbx is
 * the vCPU), with the six registers that frame saved restored: what is
 * left is its return address.
 */
.macro EV_UNWIND_TO_ENTRY
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	/* Six saved registers and the entering frame's return address. */
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=56 type=UNWIND_HINT_TYPE_CALL
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
.endm

/*
 * From sandbox code into Linux's: put the flags of EV_LINUX_FLAGS_MASK
 * as Linux wants them.  Reading the flags is cheap; popf, which QEMU ends
 * a block of translated code at, is paid only when one was wrong.  r11,
 * which no C call keeps and no service takes, is the scratch.
 */
.macro EV_LINUX_FLAGS_FIX
	pushfq
	popq	%r11
	andl	$EV_LINUX_FLAGS_MASK, %r11d
	cmpl	$X86_EFLAGS_IF, %r11d
	je	.Lflags_ok_\@
	pushq	$EV_LINUX_FLAGS
	popfq
.Lflags_ok_\@:
.endm

	.text

/*
 * long ev_stub_enter(struct ev_vcpu *v, long (*fn)(void *), void *arg,
 *		      unsigned long sandbox_sp)
 *
 * Saves the callee-saved registers on the Linux stack, records that stack
 * pointer in v, and calls fn(arg) on the sandbox stack.  When fn returns,
 * the Linux stack pointer is taken from the vCPU again, not from anything
 * the sandbox could have changed, and the flags are made Linux's again.
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
	EV_LINUX_FLAGS_FIX
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	RET
SYM_FUNC_END(ev_stub_enter)

/*
 * The end of a crossing, once the service has returned its result in
 * %rax (rbx is the vCPU, rbp the crossing's frame on the sandbox stack):
 * back to the sandbox stack and to the caller, unless the service set the
 * bail word.  name keeps the labels of its two uses apart.
 */
.macro EV_CROSS_RETURN name
	movq	EV_VCPU_BAIL(%rbx), %rcx
	testq	%rcx, %rcx
	jnz	.L\name\()_bail
	leaq	-8(%rbp), %rsp
.L\name\()_out:
	popq	%rbx
	popq	%rbp
	UNWIND_HINT_SAVE
	RET
.L\name\()_not_a_carrier:
	movq	$-EPERM, %rax
	jmp	.L\name\()_out
.L\name\()_bail:
	cmpq	$EV_BAIL_ABANDON, %rcx
	je	2f
	cmpq	$EV_BAIL_PARK, %rcx
	jne	3f
	movq	%rax, EV_VCPU_PARK_RET(%rbx)
	movq	$1, EV_VCPU_PARKED(%rbx)
3:
	/*
	 * The service, being C, kept the sandbox's r12 .. r15; the crossing's
	 * frame keeps its rbx and rbp.  Both are needed to resume it.
	 */
	movq	%rbp, EV_VCPU_SANDBOX_FRAME(%rbx)
	movq	%r12, EV_VCPU_SANDBOX_R12(%rbx)
	movq	%r13, EV_VCPU_SANDBOX_R12+8(%rbx)
	movq	%r14, EV_VCPU_SANDBOX_R12+16(%rbx)
	movq	%r15, EV_VCPU_SANDBOX_R12+24(%rbx)
	movq	$0, EV_VCPU_BAIL(%rbx)
	xorl	%eax, %eax
	jmp	1f
2:
	movq	$-EINTR, %rax
1:
	/*
	 * Unwind to the entering frame and return from it.  From here on the
	 * stack is that frame's, which objtool cannot know.
	 */
	EV_UNWIND_TO_ENTRY
	/* The same state as any return: objtool takes it from .Lout's. */
	UNWIND_HINT_RESTORE
	RET
.endm

/*
 * The crossing's beginning: Linux's flags, a frame, and the vCPU in rbx
 * (none: -EPERM).
 */
.macro EV_CROSS_ENTER name
	EV_LINUX_FLAGS_FIX
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rbx
	movq	PER_CPU_VAR(ev_cur_vcpu), %rbx
	testq	%rbx, %rbx
	jz	.L\name\()_not_a_carrier
.endm

/*
 * long ev_stub_cross(unsigned long svc, unsigned long a0, ..., a4)
 *
 * Called by sandbox code, on a sandbox stack: a sandbox kernel links
 * against this symbol, so the call is a direct one.  Runs
 * ev_service_call(vcpu, a0, ..., a4, svc) on the carrier's Linux stack and
 * returns its result on the sandbox stack.  The sandbox stack pointer
 * lives in %rbp across the call, which the service, being C, preserves.
 * The service number goes on the Linux stack as ev_service_call's seventh
 * argument; ev_service_call picks the service with compares and direct
 * calls, so the crossing has no indirect branch.
 */
SYM_FUNC_START(ev_stub_cross)
	EV_CROSS_ENTER cross
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	pushq	%rdi
	movq	%rbx, %rdi
	call	ev_service_call
	EV_CROSS_RETURN cross
SYM_FUNC_END(ev_stub_cross)

/*
 * long ev_stub_cross_NAME(unsigned long svc, unsigned long a0, ..., a4)
 *
 * One for each service of ev_services.h: the crossing of ev_stub_cross,
 * with a direct call of ev_svc_NAME where ev_stub_cross calls
 * ev_service_call.  svc is not read (the argument registers line up with
 * ev_stub_cross's).  A sandbox kernel calls these when it knows the
 * service at compile time, which is almost always.
 */
.macro EV_CROSS_ONE name
SYM_FUNC_START(ev_stub_cross_\name)
	EV_CROSS_ENTER \name
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	movq	%rbx, %rdi
	call	ev_svc_\name
	EV_CROSS_RETURN \name
SYM_FUNC_END(ev_stub_cross_\name)
.endm

#define EV_SERVICE(nr, NAME, name, args)	EV_CROSS_ONE name
#include "ev_services.h"
#undef EV_SERVICE

/*
 * long ev_stub_cross_table(unsigned long svc, unsigned long a0, ..., a4)
 *
 * The crossing as it was before ev_stub_cross: the service found in
 * ev_service_table and called through a pointer (a retpoline, on this
 * kernel), the index clamped under speculation too.  Kept so that
 * calibration can time both in one boot (crossing.c); no sandbox calls it.
 */
SYM_FUNC_START(ev_stub_cross_table)
	EV_CROSS_ENTER table
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
	EV_CROSS_RETURN table
.Lno_such_service:
	movq	$-ENOSYS, %rax
	jmp	.Ltable_out
SYM_FUNC_END(ev_stub_cross_table)

/*
 * Where an interrupt sends a carrier that must die while it runs sandbox
 * code (kick.c): it leaves the sandbox stack for good, as a crossing with
 * EV_BAIL_ABANDON does, and the frame that entered sandbox code returns
 * -EINTR.  It is reached by an interrupt's return, never called, and has
 * no frame of its own until the Linux stack is back.
 */
SYM_CODE_START(ev_stub_abandon)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	movq	PER_CPU_VAR(ev_cur_vcpu), %rbx
	movq	$-EINTR, %rax
	EV_UNWIND_TO_ENTRY
	/* The interrupt's return put the sandbox's flags back; not on its stack. */
	EV_LINUX_FLAGS_FIX
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(ev_stub_abandon)

/*
 * The crossing ev_stub_park makes: to ev_vcpu_park, whose bail parks the
 * vCPU.  Not a service: no sandbox code can call it.
 */
SYM_FUNC_START_LOCAL(ev_stub_cross_park)
	EV_CROSS_ENTER park
	movq	EV_VCPU_LINUX_SP(%rbx), %rsp
	movq	%rbx, %rdi
	call	ev_vcpu_park
	EV_CROSS_RETURN park
SYM_FUNC_END(ev_stub_cross_park)

/*
 * Where an interrupt sends a carrier that must leave sandbox code for a
 * while, to be stopped or frozen by Linux in user mode (kick.c's
 * ev_park_divert): at whatever instruction of the sandbox kernel it was,
 * which the divert left in the vCPU's park_ip.  Every register goes on the
 * sandbox stack, as the interrupted code had it, and the park crossing
 * suspends there; when EV_RUN_VCPU runs again, ev_stub_resume finishes
 * that crossing, and the registers and flags come back and the carrier
 * returns to park_ip.  Sandbox code is built without a red zone, so the
 * stack below its pointer is free.  Reached by an interrupt's return,
 * never called.
 */
SYM_CODE_START(ev_stub_park)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	pushq	%rax			/* room for the return address */
	pushfq
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	PER_CPU_VAR(ev_cur_vcpu), %rax
	movq	EV_VCPU_PARK_IP(%rax), %rax
	movq	%rax, 16*8(%rsp)
	call	ev_stub_cross_park
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	popfq
	RET
SYM_CODE_END(ev_stub_park)

/*
 * long ev_stub_resume(struct ev_vcpu *v, long ret)
 *
 * Enters sandbox code again where a suspending crossing left it: saves the
 * Linux side exactly as ev_stub_enter does, so that the sandbox's next
 * crossings and its final return come back to this frame, restores the
 * sandbox's callee-saved registers as they were at the suspend, switches
 * to the crossing's frame on the sandbox stack and finishes the crossing
 * with ret as the service's result.
 */
SYM_CODE_START(ev_stub_resume)
	UNWIND_HINT_FUNC
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, EV_VCPU_LINUX_SP(%rdi)
	movq	%rsi, %rax
	movq	EV_VCPU_SANDBOX_R12(%rdi), %r12
	movq	EV_VCPU_SANDBOX_R12+8(%rdi), %r13
	movq	EV_VCPU_SANDBOX_R12+16(%rdi), %r14
	movq	EV_VCPU_SANDBOX_R12+24(%rdi), %r15
	movq	EV_VCPU_SANDBOX_FRAME(%rdi), %rbp
	leaq	-8(%rbp), %rsp
	/* Now on the sandbox stack, in ev_stub_cross's frame. */
	UNWIND_HINT_UNDEFINED
	popq	%rbx
	popq	%rbp
	RET
SYM_CODE_END(ev_stub_resume)
