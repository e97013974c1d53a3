/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vOSTD's assembly, linked into every sandbox kernel: the task switch, a
 * new task's first instructions, and the upcall entry.  It is sandbox
 * code, not the trusted stub's (prototype/stub/): none of it enters Linux.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include "ev_abi.h"

	.text

/*
 * void vostd_switch(unsigned long *save_sp, const unsigned long *next_sp)
 *
 * Saves the callee-saved registers on the current stack and the stack
 * pointer in *save_sp, then takes *next_sp and pops the registers the other
 * task saved there (the same shape as Linux's __switch_to_asm).  The
 * caller-saved registers are the C caller's to lose, so a switch costs six
 * pushes, six pops and two stack-pointer moves.
 */
SYM_FUNC_START(vostd_switch)
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	(%rsi), %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	RET
SYM_FUNC_END(vostd_switch)

/*
 * A new task's stack is laid out so that its first vostd_switch pops its
 * function into %r12 and its argument into %r13 and returns here.
 */
SYM_FUNC_START(vostd_task_entry)
	movq	%r12, %rdi
	movq	%r13, %rsi
	call	vostd_task_main
	ud2
SYM_FUNC_END(vostd_task_entry)

/*
 * The upcall entry.  The endovisor arrives here from an interrupt, with
 * every register as the interrupted code left it, the flags included, the
 * interrupted instruction's address in the vCPU's shared page (upcall_ip)
 * and the upcall mask raised.  First make that address a return address
 * on this stack, as if the interrupted instruction had called here, and
 * zero upcall_ip, which tells the endovisor the vCPU is past the door; then
 * save what C may clobber, and the flags, align the stack, run
 * vostd_upcall_taken, restore, and return to the interrupted instruction.
 *
 * The flags are saved before any instruction that sets them (lea does
 * not) and put back before the function part saves them again: an
 * upcall between a compare and its branch must not turn the branch.  The
 * first version made the return address with subq and andq, which set the
 * flags, and saved them after; a kick that landed there sent a system
 * call of the kernel proper to its switch's default, -ENOSYS, once time
 * slices made such kicks common.
 */
SYM_CODE_START(vostd_upcall_entry)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR	/* entered by iret, never by an indirect branch */
	leaq	-8(%rsp), %rsp
	pushfq
	pushq	%rax
	movq	%rsp, %rax
	andq	$~(EV_STACK_SIZE - 1), %rax
	movq	EV_STACK_BASE_SHARED(%rax), %rax
	pushq	EV_SHARED_UPCALL_IP(%rax)
	movq	$0, EV_SHARED_UPCALL_IP(%rax)	/* in: no longer at the door */
	popq	16(%rsp)	/* the slot: pop moves rsp before it addresses it */
	popq	%rax
	popfq
	/* From here it is a function called from the interrupted instruction. */
	UNWIND_HINT_FUNC
	pushfq
	cld			/* C wants the direction flag clear */
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	call	vostd_upcall_taken
	movq	%rbp, %rsp
	popq	%rbp
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
SYM_CODE_END(vostd_upcall_entry)
