/* SPDX-License-Identifier: GPL-2.0 */
/*
 * touch: the smallest tenant, a user-mode program that touches pages and
 * times each access with the cycle counter.
 *
 * It is position-independent machine code that the sandbox kernel copies
 * into a frame and maps executable in a tenant address space; it lives in
 * the kernel module's read-only data and never runs in kernel mode.  Its
 * registers at entry, set by the kernel proper:
 *
 *   %rdi  address of the first page      %r13  where to store each access's
 *   %rsi  number of pages                      cycles (8 bytes each), or 0
 *   %r12  stride in bytes                %r14  0 to read, 1 to write %r15b
 *
 * It leaves the cycles of the whole pass in %rbx and makes system call 0
 * (exit) with %rdi = 0.  Each access is bracketed by lfence; rdtsc, as the
 * Linux baseline's accesses are (prototype/baseline/baseline.c).
 */
	.section .rodata.tenant, "a"
	.globl	tenant_touch_start
	.globl	tenant_touch_end
	.balign	16
tenant_touch_start:
	lfence
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, %rbp		/* the pass's start */
	testq	%rsi, %rsi
	jz	3f
1:	lfence
	rdtsc
	movl	%eax, %ebx
	testq	%r14, %r14
	jnz	2f
	movzbl	(%rdi), %eax
	jmp	4f
2:	movb	%r15b, (%rdi)
4:	lfence
	rdtsc
	subl	%ebx, %eax
	testq	%r13, %r13
	jz	5f
	movq	%rax, (%r13)
	addq	$8, %r13
5:	addq	%r12, %rdi
	decq	%rsi
	jnz	1b
3:	lfence
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	subq	%rbp, %rax
	movq	%rax, %rbx		/* the pass's cycles */
	xorl	%eax, %eax		/* system call 0: exit */
	xorl	%edi, %edi
	syscall
	ud2
tenant_touch_end:
