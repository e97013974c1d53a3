/* SPDX-License-Identifier: GPL-2.0 */
/* A tenant's first instruction: main's result is its exit code. */
	.text
	.globl	_start
_start:
	andq	$-16, %rsp
	call	main
	movq	%rax, %rdi
	xorl	%eax, %eax		/* SYS_EXIT */
	syscall
	ud2

/* A thread's first instruction: %rdi points at its function and argument. */
	.globl	thread_start
thread_start:
	andq	$-16, %rsp
	movq	(%rdi), %rax
	movq	8(%rdi), %rdi
	call	*%rax
	movq	%rax, %rdi
	xorl	%eax, %eax
	syscall
	ud2
