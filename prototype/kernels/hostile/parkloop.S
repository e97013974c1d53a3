/* SPDX-License-Identifier: GPL-2.0 */
/*
 * void park_loop(struct park_state *s, u64 n): n rounds of a mix of the
 * fourteen values of s, each held in a register of its own (every general
 * register but rsp and rcx, the count), the carry flag taken from one
 * instruction into the next.  A park (endovisor/park.c) anywhere in it
 * that changed a register or a flag changes the result.  parking.c.
 */
#include <linux/linkage.h>

	.text
SYM_FUNC_START(park_loop)
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	pushq	%rdi
	movq	%rsi, %rcx
	movq	8(%rdi), %rbx
	movq	16(%rdi), %rdx
	movq	24(%rdi), %rsi
	movq	32(%rdi), %rbp
	movq	40(%rdi), %r8
	movq	48(%rdi), %r9
	movq	56(%rdi), %r10
	movq	64(%rdi), %r11
	movq	72(%rdi), %r12
	movq	80(%rdi), %r13
	movq	88(%rdi), %r14
	movq	96(%rdi), %r15
	movq	(%rdi), %rax
	movq	104(%rdi), %rdi
	clc
1:
	adcq	%rbx, %rax
	rolq	$13, %rax
	adcq	%rax, %rdx
	xorq	%rdx, %rsi
	adcq	%rsi, %rdi
	rorq	$7, %rdi
	adcq	%rdi, %rbp
	xorq	%rbp, %r8
	adcq	%r8, %r9
	rolq	$3, %r9
	adcq	%r9, %r10
	xorq	%r10, %r11
	adcq	%r11, %r12
	rorq	$11, %r12
	adcq	%r12, %r13
	xorq	%r13, %r14
	adcq	%r14, %r15
	adcq	%r15, %rbx
	loop	1b
	xchgq	%rdi, (%rsp)
	movq	%rax, (%rdi)
	movq	%rbx, 8(%rdi)
	movq	%rdx, 16(%rdi)
	movq	%rsi, 24(%rdi)
	movq	%rbp, 32(%rdi)
	movq	%r8, 40(%rdi)
	movq	%r9, 48(%rdi)
	movq	%r10, 56(%rdi)
	movq	%r11, 64(%rdi)
	movq	%r12, 72(%rdi)
	movq	%r13, 80(%rdi)
	movq	%r14, 88(%rdi)
	movq	%r15, 96(%rdi)
	popq	%rax
	movq	%rax, 104(%rdi)
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	RET
SYM_FUNC_END(park_loop)
