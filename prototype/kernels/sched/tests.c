// SPDX-License-Identifier: GPL-2.0
/*
 * The sched kernel's functional tests, one EVTEST line each: yields in
 * order, a wake by priority, a wake across vCPUs, a kick of an idle
 * vCPU, a stale task id, a kick that races a yield, a guard, and flags
 * that upcalls leave as they were.
 */
#include "sched.h"

static void check(const char *name, bool ok, const char *why)
{
	vostd_test(name, ok, "%s", ok ? "" : why);
}

struct order {
	char log[64];
	u32 len;
	unsigned int rounds;
	struct join join;
};

static void order_task(void *arg)
{
	struct order *o = arg;
	char me = kl_self_name()[0];
	unsigned int i;

	for (i = 0; i < o->rounds; i++) {
		o->log[__atomic_fetch_add(&o->len, 1, __ATOMIC_RELAXED)] = me;
		kl_yield();
	}
	join_done(&o->join);
}

/* Two tasks of one priority yielding to each other alternate. */
static void test_yield(void)
{
	struct order o = { .rounds = 8, .join = { 2, kl_self() } };
	bool ok = true;
	unsigned int i;

	kl_spawn("a", order_task, &o, KL_PRIO_NORMAL, 0);
	kl_spawn("b", order_task, &o, KL_PRIO_NORMAL, 0);
	join_wait(&o.join);
	for (i = 1; i < o.len; i++)
		ok &= o.log[i] != o.log[i - 1];
	o.log[o.len] = 0;
	check("yield", ok && o.len == 16, o.log);
}

struct flagged {
	volatile u32 flag, stop;
	kl_tid_t t;
	struct join join;
};

static void set_flag_after_block(void *arg)
{
	struct flagged *f = arg;

	kl_block();
	f->flag = 1;
	join_done(&f->join);
}

/* A high-priority task woken on its own vCPU runs before kl_wake returns. */
static void test_prio_wake(void)
{
	struct flagged f = { .join = { 1, kl_self() } };
	bool ran;

	f.t = kl_spawn("high", set_flag_after_block, &f, KL_PRIO_HIGH, 0);
	kl_yield();		/* it runs and blocks */
	kl_wake(f.t);
	ran = f.flag;
	join_wait(&f.join);
	check("prio_wake", ran, "kl_wake returned before the high task ran");
}

static void spinner(void *arg)
{
	struct flagged *f = arg;

	while (!f->stop)
		asm volatile("pause");
	join_done(&f->join);
}

/*
 * A task on vCPU 1, woken from vCPU 0 while vCPU 1 runs a spinning
 * lower-priority task: only the kick's upcall can make it run.
 */
static void test_remote_wake(void)
{
	struct flagged f = { .join = { 2, kl_self() } };
	struct kl_cpu_stats before, after;
	bool ran;

	kl_spawn("spin", spinner, &f, KL_PRIO_LOW, 1);
	f.t = kl_spawn("high", set_flag_after_block, &f, KL_PRIO_HIGH, 1);
	spin_cycles(ms_cycles(20));	/* it blocks; the spinner takes vCPU 1 */
	kl_stats(1, &before);
	kl_wake(f.t);
	ran = wait_flag(&f.flag, 2000);
	kl_stats(1, &after);
	f.stop = 1;
	join_wait(&f.join);
	check("remote_wake", ran && after.upcall_resched > before.upcall_resched,
	      ran ? "it ran, but not through an upcall" : "it did not run within 2 s");
}

/*
 * vCPU 1 asleep in vcpu_idle: a wake from vCPU 0 kicks it awake.  Before
 * the wake, vCPU 1 must be inside one vcpu_idle call that does not end for
 * 10 ms of vCPU 0's time; the wake must send a kick; and that very call
 * must end because of a kick (vcpu_idle returns 0 only for a kick, or after
 * a park for a stop or the freezer, which this test does not make),
 * having lasted at least those 10 ms on vCPU 1's own clock.
 */
static void test_idle_kick(void)
{
	struct flagged f = { .join = { 1, kl_self() } };
	struct kl_cpu_stats spawned, before0, after0, before1, still1, after1;
	u64 end = vostd_cycles() + ms_cycles(2000);
	bool ran, asleep, kicked, woken;

	kl_stats(1, &spawned);
	f.t = kl_spawn("sleeper", set_flag_after_block, &f, KL_PRIO_NORMAL, 1);
	/*
	 * It blocks and vCPU 1 goes idle: wait up to 2 s for an idle call
	 * begun after the spawn, rather than guess how long that takes (a
	 * preempted carrier, a debug kernel).  One begun before it is the
	 * idle the spawn's own kick ends.
	 */
	do {
		spin_cycles(ms_cycles(1));
		kl_stats(1, &before1);
	} while ((before1.idles == spawned.idles || before1.idles != before1.idles_done + 1) &&
		 vostd_cycles() < end);
	spin_cycles(ms_cycles(10));
	kl_stats(1, &still1);
	kl_stats(0, &before0);
	kl_wake(f.t);
	ran = wait_flag(&f.flag, 2000);
	kl_stats(0, &after0);
	kl_stats(1, &after1);
	join_wait(&f.join);
	asleep = before1.idles == before1.idles_done + 1 &&
		 still1.idles == before1.idles && still1.idles_done == before1.idles_done;
	kicked = after0.kicks_sent == before0.kicks_sent + 1;
	woken = after1.idles_done > still1.idles_done &&
		after1.idle_wakes == still1.idle_wakes + 1 &&
		after1.idle_last >= ms_cycles(10);
	vostd_println("idle_kick asleep=%d kicked=%d woken=%d idle_cycles=%llu",
		      asleep, kicked, woken, after1.idle_last);
	check("idle_kick", ran && asleep && kicked && woken,
	      !ran ? "it did not run within 2 s" :
	      !asleep ? "vCPU 1 was not in one vcpu_idle call throughout" :
	      !kicked ? "the wake sent no kick" :
			"vCPU 1's idle call did not end by a kick after 10 ms");
}

static void brief(void *arg)
{
}

/*
 * An id outlives its task harmlessly: once the task has ended and been
 * freed, a wake with its id finds nothing, even after a new task has
 * taken its slot in the table (the freed slot is the next handed out).
 */
static void test_stale_id(void)
{
	struct flagged f = { .join = { 1, kl_self() } };
	kl_tid_t old, fresh;
	int stale, stale2;

	old = kl_spawn("brief", brief, NULL, KL_PRIO_NORMAL, 1);
	spin_cycles(ms_cycles(20));	/* it ends; vCPU 1's idle loop frees it */
	stale = kl_wake(old);
	fresh = kl_spawn("fresh", set_flag_after_block, &f, KL_PRIO_NORMAL, 1);
	f.t = fresh;
	spin_cycles(ms_cycles(20));	/* it blocks */
	stale2 = kl_wake(old);
	spin_cycles(ms_cycles(10));
	vostd_println("stale_id old=%x fresh=%x wake_old=%d then=%d flag=%u",
		      old, fresh, stale, stale2, f.flag);
	check("stale_id", old && fresh && fresh != old &&
	      (old - fresh) % KL_MAX_TASKS == 0 && stale == -ESRCH &&
	      stale2 == -ESRCH && !f.flag,
	      "a wake with an ended task's id did not fail, woke another task, or the slot was not reused");
	kl_wake(fresh);
	join_wait(&f.join);
}

struct race {
	volatile u32 stop;
	u32 woken;
	unsigned int rounds;
	kl_tid_t high;
	struct join join;
};

static void race_high(void *arg)
{
	struct race *r = arg;

	for (;;) {
		kl_block();
		if (r->stop)
			break;
		__atomic_add_fetch(&r->woken, 1, __ATOMIC_RELEASE);
	}
	join_done(&r->join);
}

static void race_yielder(void *arg)
{
	struct race *r = arg;

	while (!r->stop)
		kl_yield();
	join_done(&r->join);
}

/*
 * The reschedule window: vCPU 1 runs a task that yields all the time, so
 * the woken task is often picked by that yield before the kick lands.  The
 * upcall must then find nothing to do, and no wake may be lost.
 */
static void test_kick_race(void)
{
	struct race r = { .rounds = 500, .join = { 2, kl_self() } };
	struct kl_cpu_stats before, after;
	unsigned int i;
	bool ok = true;

	r.high = kl_spawn("high", race_high, &r, KL_PRIO_HIGH, 1);
	kl_spawn("yielder", race_yielder, &r, KL_PRIO_LOW, 1);
	spin_cycles(ms_cycles(20));
	kl_stats(1, &before);
	for (i = 1; i <= r.rounds && ok; i++) {
		u64 end = vostd_cycles() + ms_cycles(2000);

		kl_wake(r.high);
		while (__atomic_load_n(&r.woken, __ATOMIC_ACQUIRE) < i && ok)
			ok = vostd_cycles() < end;
	}
	spin_cycles(ms_cycles(20));	/* let late kicks land */
	kl_stats(1, &after);
	r.stop = 1;
	kl_wake(r.high);
	join_wait(&r.join);
	vostd_println("kick_race rounds=%u woken=%u upcalls=%llu resched=%llu spurious=%llu",
		      r.rounds, r.woken, after.upcalls - before.upcalls,
		      after.upcall_resched - before.upcall_resched,
		      after.upcall_spurious - before.upcall_spurious);
	check("kick_race", ok && r.woken == r.rounds &&
	      after.upcall_spurious > before.upcall_spurious,
	      ok ? "no upcall found the note taken: the window was not exercised" :
		   "a wake was lost");
}

static void guard_holder(void *arg)
{
	struct flagged *f = arg;
	struct kl_cpu_stats before, after;
	bool ran_inside;

	kl_guard_begin();
	kl_wake(f->t);			/* higher priority, same vCPU: must wait */
	spin_cycles(ms_cycles(5));
	kl_stats(0, &before);
	kl_yield();			/* refused inside a guard */
	kl_stats(0, &after);
	ran_inside = f->flag;
	kl_guard_end();			/* now it runs */
	check("guard", !ran_inside && f->flag && after.refused == before.refused + 1,
	      ran_inside ? "the woken task ran inside the guard" :
			   "the woken task did not run at the guard's end");
	join_done(&f->join);
}

/* A guard keeps the kernelet from switching, and its end lets the wake in. */
static void test_guard(void)
{
	struct flagged f = { .join = { 2, kl_self() } };

	f.t = kl_spawn("high", set_flag_after_block, &f, KL_PRIO_HIGH, 0);
	kl_yield();
	kl_spawn("holder", guard_holder, &f, KL_PRIO_NORMAL, 0);
	join_wait(&f.join);
}

#define FLAGS_ROUNDS	10000		/* branches between looks at stop */
#define FLAGS_UPCALLS	10		/* upcalls the task must take */
#define FLAGS_MAX_MS	5000		/* kicking up to this long for them */

struct flags_run {
	u32 stop;		/* READ_ONCE, WRITE_ONCE */
	unsigned long bad, branches;
	struct join join;
};

/*
 * Set the zero flag, wait a few instructions and branch on it, many
 * times, until told to stop: an upcall that lands in between must leave
 * it set.  vostd's upcall entry once set the flags itself before it
 * saved them.
 */
static void flags_task(void *arg)
{
	struct flags_run *r = arg;
	unsigned long bad = 0, n;

	while (!READ_ONCE(r->stop)) {
		n = FLAGS_ROUNDS;
		asm volatile("1:\n\t"
			     "xorl %%eax, %%eax\n\t"
			     ".rept 32\n\tnop\n\t.endr\n\t"
			     "jz 2f\n\t"
			     "incq %[bad]\n"
			     "2:\n\t"
			     "decq %[n]\n\t"
			     "jnz 1b"
			     : [bad] "+r"(bad), [n] "+r"(n) : : "rax", "cc");
		r->branches += FLAGS_ROUNDS;
	}
	r->bad = bad;
	join_done(&r->join);
}

/*
 * vCPU 0 kicks vCPU 1 without letup while vCPU 1's task branches on its
 * flags, until the task has taken FLAGS_UPCALLS upcalls.  It does not
 * stop after a fixed count of branches: on a loaded host the guest's two
 * processors do not always run at once, and a task that finished within
 * one of the other's absences would have taken no upcall at all.
 */
static void test_upcall_flags(void)
{
	struct flags_run r = { .join = { 1, kl_self() } };
	u64 end = vostd_cycles() + vostd_ns_to_cycles(FLAGS_MAX_MS * 1000000ULL);
	struct kl_cpu_stats before, after;
	char why[96];

	kl_stats(1, &before);
	kl_spawn("flags", flags_task, &r, KL_PRIO_NORMAL, 1);
	do {
		vostd_kick(1);
		kl_stats(1, &after);
	} while (after.upcalls < before.upcalls + FLAGS_UPCALLS && vostd_cycles() < end);
	WRITE_ONCE(r.stop, 1);
	join_wait(&r.join);
	kl_stats(1, &after);
	vostd_snprintf(why, sizeof(why), "%lu of %lu branches turned, %llu upcalls", r.bad,
		       r.branches, after.upcalls - before.upcalls);
	check("upcall_flags", !r.bad && after.upcalls >= before.upcalls + FLAGS_UPCALLS, why);
}

void tests(void)
{
	test_yield();
	test_prio_wake();
	test_remote_wake();
	test_idle_kick();
	test_stale_id();
	test_kick_race();
	test_guard();
	test_upcall_flags();
	vostd_tests_end();
}
