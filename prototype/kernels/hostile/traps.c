// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants' traps under fire.  Whatever else happens to a carrier while its
 * tenant runs (a kick from another vCPU, a kill, a first entry from the
 * launcher's own system call), every trap must reach the kernel proper as
 * itself, the launcher must never see a tenant's signal or registers, and
 * a kill must end the carrier soon.
 *
 *   race       vCPU 0 runs a tenant looping on ud2, stepping over each,
 *              then one looping on system calls, while vCPU 1 kicks it
 *              without letup: every exception and every call must arrive
 *              as its own trap, none hidden by a kick
 *   racekill   the same for ever, for the suite to kill the launcher
 *   firstrun   each vCPU's first tenant: its rax arrives whole (the
 *              launcher's system call returns an int), it finds the FPU
 *              registers in their initial state whatever the launcher had
 *              there, and it leaves them dirty for the launcher to check
 *              that it gets its own back
 *   calloop    a vCPU that calls a long service without end, to be killed
 *   ctxfree    vCPU 0 runs a tenant that spins, its context in a heap
 *              block, while vCPU 1 frees the block and then kicks it:
 *              the run must end in -EFAULT, since the trap has nowhere to
 *              write the registers back (found by the fuzzer returning
 *              -EFAULT as the unsigned 32-bit 0xfffffff2)
 */
#include <linux/signal.h>

#include "tenant.h"
#include "traps.h"

#define RACE_ROUNDS	2000	/* exceptions */
#define RACE_CALLS	10000
#define NR_COUNTED	42	/* the loop's call: answered 7 */
#define NR_REPORT	46	/* firstrun: rdi rax, rsi MXCSR, rdx FCW, r10|r8 the xmm OR */
#define NR_DONE		47
#define CTXFREE_ROUNDS	20
#define CTXFREE_WAIT_NS	2000000	/* vCPU 1's wait, so that the tenant runs when the block goes */

HT_CODE(ht_spin,
	"1:	jmp 1b");

HT_CODE(ht_ud2_loop,
	"1:	ud2\n"
	"	jmp 1b");

/* r12 counts the calls answered 7; any other answer stops it at ud2. */
HT_CODE(ht_call_loop,
	"1:	mov $42, %eax\n"
	"	syscall\n"
	"	cmp $7, %rax\n"
	"	jne 2f\n"
	"	inc %r12\n"
	"	jmp 1b\n"
	"2:	ud2");

HT_CODE(ht_firstrun,
	"	mov %rax, %rdi\n"
	"	sub $16, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	mov (%rsp), %esi\n"
	"	movzwl 4(%rsp), %edx\n"
	"	por %xmm1, %xmm0\n	por %xmm2, %xmm0\n	por %xmm3, %xmm0\n"
	"	por %xmm4, %xmm0\n	por %xmm5, %xmm0\n	por %xmm6, %xmm0\n"
	"	por %xmm7, %xmm0\n	por %xmm8, %xmm0\n	por %xmm9, %xmm0\n"
	"	por %xmm10, %xmm0\n	por %xmm11, %xmm0\n	por %xmm12, %xmm0\n"
	"	por %xmm13, %xmm0\n	por %xmm14, %xmm0\n	por %xmm15, %xmm0\n"
	"	movq %xmm0, %r10\n"
	"	pshufd $0x4e, %xmm0, %xmm0\n"
	"	movq %xmm0, %r8\n"
	"	mov $46, %eax\n"
	"	syscall\n"
	/* Round toward zero, 53-bit x87 precision, all ones in xmm0 and xmm15. */
	"	movl $0x7f80, (%rsp)\n"
	"	ldmxcsr (%rsp)\n"
	"	movw $0x27f, 4(%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	pcmpeqd %xmm15, %xmm15\n"
	"	pcmpeqd %xmm0, %xmm0\n"
	"	mov $47, %eax\n"
	"	syscall\n"
	"	ud2");

/* The ud2 tenant until rounds exceptions: how many arrived as such. */
static u32 race_ud2(u32 rounds, u32 *kicks)
{
	struct htenant t;
	u32 exceptions = 0;
	long trap;

	if (htenant_setup(&t, ht_ud2_loop, ht_ud2_loop_end))
		return 0;
	while (exceptions < rounds) {
		trap = htenant_run(&t);
		if (trap == EV_TRAP_KICK) {
			(*kicks)++;
		} else if (trap == EV_TRAP_EXCEPTION && t.ctx->signal == SIGILL) {
			t.ctx->rip += 2;	/* over the ud2 */
			exceptions++;
		} else {
			vostd_println("hostile: race: ud2 gave trap %ld signal %u", trap,
				      t.ctx->signal);
			break;
		}
	}
	htenant_teardown(&t);
	return exceptions;
}

/* The call loop until rounds calls: how many arrived as calls; *inside as the tenant counted. */
static u32 race_calls(u32 rounds, u32 *kicks, long *inside)
{
	struct htenant t;
	u32 calls = 0;
	long trap;

	*inside = -1;
	if (htenant_setup(&t, ht_call_loop, ht_call_loop_end))
		return 0;
	while (calls < rounds) {
		trap = htenant_run(&t);
		if (trap == EV_TRAP_KICK) {
			(*kicks)++;
		} else if (trap == EV_TRAP_SYSCALL && t.ctx->syscall_nr == NR_COUNTED) {
			t.ctx->rax = 7;
			calls++;
		} else {
			/* A call lost: Linux answered it, and the tenant stopped at ud2. */
			vostd_println("hostile: race: call %u gave trap %ld nr %llu signal %u",
				      calls, trap, t.ctx->syscall_nr, t.ctx->signal);
			break;
		}
	}
	*inside = t.ctx->r12;
	htenant_teardown(&t);
	return calls;
}

static long race(bool forever)
{
	u32 kicks = 0, calls;
	long inside;

	if (forever) {
		race_ud2(200, &kicks);
		vostd_println("hostile: racekill running");
		for (;;) {
			race_calls(200, &kicks, &inside);
			race_ud2(200, &kicks);
		}
	}
	expect("race_ud2_each_an_exception", RACE_ROUNDS, race_ud2(RACE_ROUNDS, &kicks));
	calls = race_calls(RACE_CALLS, &kicks, &inside);
	expect("race_calls_each_a_call", RACE_CALLS, calls);
	/* The last call's answer is not yet counted inside. */
	expect("race_calls_counted_inside", (long)calls - 1, inside);
	vostd_println("hostile: %s: %u kick traps among them", __func__, kicks);
	WRITE_ONCE(H()->race_done, 1);
	return 0;
}

/* vCPU 1 in race and racekill: kicks vCPU 0 with a varying gap, until told. */
static long race_kicker(void)
{
	u32 gap = 1, i;

	while (!READ_ONCE(H()->race_done)) {
		call(EV_SVC_VCPU_KICK, 0, 0, 0, 0);
		gap = gap * 1103515245 + 12345;
		for (i = 0; i < (gap >> 28); i++)
			asm volatile("pause");
	}
	return 0;
}

static void firstrun(void)
{
	unsigned int cpu = vostd_cpu_id();
	unsigned long want = cpu ? 0x123456789abcdef0UL : (unsigned long)-515L;
	struct htenant t;
	char name[48];
	long trap;
	int r;

	r = htenant_setup(&t, ht_firstrun, ht_firstrun_end);
	if (r) {
		expect("firstrun_setup", 0, r);
		return;
	}
	t.ctx->rax = want;
	trap = htenant_run_past_kicks(&t);
	vostd_snprintf(name, sizeof(name), "firstrun%u_report", cpu);
	expect(name, NR_REPORT, trap == EV_TRAP_SYSCALL ? (long)t.ctx->syscall_nr : -trap);
	vostd_snprintf(name, sizeof(name), "firstrun%u_rax_whole", cpu);
	expect(name, want, t.ctx->rdi);
	vostd_snprintf(name, sizeof(name), "firstrun%u_mxcsr_initial", cpu);
	expect(name, 0x1f80, t.ctx->rsi);
	vostd_snprintf(name, sizeof(name), "firstrun%u_fcw_initial", cpu);
	expect(name, 0x37f, t.ctx->rdx);
	vostd_snprintf(name, sizeof(name), "firstrun%u_xmm_zero", cpu);
	expect(name, 0, t.ctx->r10 | t.ctx->r8);
	/* Dirty them, and return without an fpu_switch: the launcher checks. */
	t.ctx->rax = 0;
	trap = htenant_run_past_kicks(&t);
	vostd_snprintf(name, sizeof(name), "firstrun%u_dirtied", cpu);
	expect(name, NR_DONE, trap == EV_TRAP_SYSCALL ? (long)t.ctx->syscall_nr : -trap);
	htenant_teardown(&t);
}

/* Reports %fs:0 in rdi, then reads it again after the call. */
HT_CODE(ht_fs_read,
	"	mov %fs:0, %rdi\n"
	"	mov $48, %eax\n"
	"	syscall\n"
	"	mov %fs:0, %rdi\n"
	"	mov $49, %eax\n"
	"	syscall\n"
	"	ud2");

/*
 * A tenant's FS base is its own: tenant_run loads it, the trap reports it
 * and takes it away, and a run with none gets none, whatever ran before.
 * The launcher's own FS (its thread-local storage) must survive all this:
 * the suite goes on only if the launcher does.
 */
void fs_base_cases(void)
{
	const unsigned long word = 0x5ca1ab1e0ddba11UL;
	struct htenant t;
	long trap;
	int r;

	r = htenant_setup(&t, ht_fs_read, ht_fs_read_end);
	if (r) {
		expect("fs_base_setup", 0, r);
		return;
	}
	*(unsigned long *)t.stack = word;
	t.ctx->fs_base = HT_STACK_VA;
	trap = htenant_run_past_kicks(&t);
	expect("fs_base_loaded", 48, trap == EV_TRAP_SYSCALL ? (long)t.ctx->syscall_nr : -trap);
	expect("fs_base_read_through", word, t.ctx->rdi);
	expect("fs_base_reported", HT_STACK_VA, t.ctx->fs_base);
	/* The next run names no FS base: reading %fs:0 reads address 0 and faults. */
	t.ctx->fs_base = 0;
	trap = htenant_run_past_kicks(&t);
	expect("fs_base_not_passed_on", EV_TRAP_EXCEPTION, trap);
	expect("fs_base_not_passed_on_signal", SIGSEGV, t.ctx->signal);
	expect("fs_base_zero_after", 0, t.ctx->fs_base);
	htenant_teardown(&t);
}

/*
 * vCPU 0 in ctxfree: each round a context in a block of its own, handed to
 * vCPU 1 through H()->ctxfree_blk before the run; every run must end in
 * -EFAULT, whether the block went before tenant_run checked it or while
 * the tenant spun.
 */
static void ctxfree(void)
{
	struct hostile *h = H();
	struct htenant t;
	u32 i, wrong = 0;
	long trap;

	if (htenant_setup(&t, ht_spin, ht_spin_end)) {
		expect("ctxfree_setup", 0, -ENOMEM);
		WRITE_ONCE(h->race_done, 1);
		return;
	}
	for (i = 0; i < CTXFREE_ROUNDS; i++) {
		struct ev_tenant_ctx *ctx = (void *)call(EV_SVC_MEM_ALLOC, sizeof(*ctx), 0, 0, 0);

		if (vostd_is_err((long)ctx))
			break;
		*ctx = (struct ev_tenant_ctx){ .rip = HT_CODE_VA, .rsp = HT_STACK_VA + PAGE };
		__atomic_store_n(&h->ctxfree_blk, (long)ctx, __ATOMIC_RELEASE);
		trap = call(EV_SVC_TENANT_RUN, t.vm, (unsigned long)ctx, 0, 0);
		/* vCPU 1 has freed the block: it clears the slot after its kick */
		while (__atomic_load_n(&h->ctxfree_blk, __ATOMIC_ACQUIRE))
			asm volatile("pause");
		if (trap != -EFAULT) {
			vostd_println("hostile: %s: round %u's run gave %ld", __func__, i, trap);
			wrong++;
		}
	}
	expect("ctxfree_runs_not_efault", 0, wrong);
	expect("ctxfree_rounds", CTXFREE_ROUNDS, i);
	WRITE_ONCE(h->race_done, 1);
	htenant_teardown(&t);
}

/* vCPU 1 in ctxfree: free each round's block while the tenant spins, then kick. */
static void ctxfree_ap(void)
{
	struct hostile *h = H();
	long blk;
	u64 until;

	while (!READ_ONCE(h->race_done)) {
		blk = __atomic_load_n(&h->ctxfree_blk, __ATOMIC_ACQUIRE);
		if (!blk)
			continue;
		until = vostd_cycles() + vostd_ns_to_cycles(CTXFREE_WAIT_NS);
		while (vostd_cycles() < until)
			asm volatile("pause");
		call(EV_SVC_MEM_FREE, blk, 0, 0, 0);
		call(EV_SVC_VCPU_KICK, 0, 0, 0, 0);
		__atomic_store_n(&h->ctxfree_blk, 0, __ATOMIC_RELEASE);
	}
}

bool traps_mode(const char *args)
{
	return vostd_has_prefix(args, "race") || vostd_has_prefix(args, "firstrun") ||
	       vostd_has_prefix(args, "calloop") || vostd_has_prefix(args, "ctxfree");
}

long traps_main(const char *args)
{
	struct hostile *h = H();

	if (vostd_has_prefix(args, "racekill"))
		return race(true);
	if (vostd_has_prefix(args, "race")) {
		race(false);
	} else if (vostd_has_prefix(args, "ctxfree")) {
		ctxfree();
	} else if (vostd_has_prefix(args, "firstrun")) {
		firstrun();
		while (vostd_nr_cpus() > 1 && !READ_ONCE(h->race_done))
			vostd_idle();
	} else {
		vostd_println("hostile: calloop running");
		for (;;)
			call(EV_SVC_CALIBRATE, EV_CAL_HEAP, 0, 0, 0);
	}
	return vostd_tests_end();
}

long traps_ap_main(const char *args)
{
	if (vostd_has_prefix(args, "race"))
		return race_kicker();
	if (vostd_has_prefix(args, "ctxfree"))
		ctxfree_ap();
	if (vostd_has_prefix(args, "firstrun")) {
		firstrun();
		WRITE_ONCE(H()->race_done, 1);
		call(EV_SVC_VCPU_KICK, 0, 0, 0, 0);
	}
	return 0;
}
