// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a sandbox kernel that calls the services with generated arguments
 * for a bounded time, on two vCPUs, and checks every answer it can.
 *
 *   fuzz SEED MS [BLOCK FRAME [SKIP]]
 *
 * SEED seeds each vCPU's random state (so a run is drawn again with the
 * same seed, though two vCPUs' interleaving is the machine's); MS bounds
 * the run; BLOCK and FRAME, in hex, are another sandbox's, which every
 * service must refuse to touch; SKIP, in hex, has a bit set for each
 * service number not to call, to narrow down what a failure needs.
 * Which services there are, how many
 * arguments each takes, what kind each argument is and which errors each
 * may return all come from the list of the services (abi/ev_services.h),
 * through services.sh; kinds.c draws each kind's values, objects.c keeps
 * the objects the services make and checks each answer, check.c what a
 * solo phase checks around a call.
 *
 * A failed check is an EVTEST fuzz FAIL line naming the call; the run
 * ends with a line of counts, one EVTEST line per vCPU, and the summary.
 */
#include "fuzz.h"

#define FUZZ_KINDS(...)		{ __VA_ARGS__ }
#define FUZZ_ERRORS(...)	{ __VA_ARGS__ }
#define FUZZ_SERVICE(NAME, sname, n, skinds, serrs)				\
	{ .nr = EV_SVC_##NAME, .name = #sname, .nargs = n, .kinds = skinds, .errs = serrs },

const struct fuzz_service fuzz_services[] = {
#include "services_table.h"
};

#undef FUZZ_SERVICE

const unsigned int fuzz_nr_services = ARRAY_SIZE(fuzz_services);
static_assert(ARRAY_SIZE(fuzz_services) == EV_NR_SERVICES);

#define RACE_CALLS	400	/* calls each vCPU makes in a race phase */
#define SOLO_CALLS	400	/* calls vCPU 0 makes in a solo phase */
#define KICK_NS		1000000	/* how often vCPU 1 kicks vCPU 0 in a solo phase */

/* Numbers past the list's: -ENOSYS, and nothing else. */
static const struct fuzz_service no_service = {
	.nr = EV_NR_SERVICES, .name = "no_service", .nargs = 5,
	.kinds = { K_a0, K_a1, K_a2, K_a3, K_a0 }, .errs = { -ENOSYS },
};

long fuzz_call(const struct fuzz_service *s, const unsigned long *a)
{
	return vostd_call(s->nr, a[0], a[1], a[2], a[3], a[4]);
}

void fuzz_failed(struct fuzz_cpu *c, const char *check, const struct fuzz_service *s,
		 const unsigned long *a, long r)
{
	vostd_fail(check, "vCPU %u call %llu %s(%lx, %lx, %lx, %lx, %lx) = %ld seed=%llu",
		   c->id, c->calls, s->name, a[0], a[1], a[2], a[3], a[4], r, F()->seed);
}

static const struct fuzz_service *pick(struct fuzz_cpu *c)
{
	const struct fuzz_service *s;

	if (!fuzz_below(c, 64))
		return &no_service;
	/* calibrate times loops of a thousand, log writes lines: rarely */
	do {
		s = &fuzz_services[fuzz_below(c, fuzz_nr_services)];
	} while (((s->nr == EV_SVC_CALIBRATE || s->nr == EV_SVC_LOG) && fuzz_below(c, 8)) ||
		 (F()->skip & BIT_ULL(s->nr)));
	return s;
}

/*
 * vcpu_idle sleeps until a kick: it is called with a kick of its own
 * pending and upcalls masked, so that vOSTD does not take the kick first,
 * and returns at once.
 */
static long call_idle(struct fuzz_cpu *c, const struct fuzz_service *s,
		      const unsigned long *a)
{
	long r;

	vostd_upcall_disable();
	vostd_call(EV_SVC_VCPU_KICK, c->id, 0, 0, 0, 0);
	r = fuzz_call(s, a);
	vostd_upcall_enable();
	return r;
}

static void one_call(struct fuzz_cpu *c)
{
	const struct fuzz_service *s = pick(c);
	unsigned long a[5] = { 0 };
	struct fuzz_view before;
	unsigned int i;
	long r;

	for (i = 0; i < s->nargs; i++)
		a[i] = fuzz_draw(c, s->kinds[i]);
	if (c->strict)
		fuzz_observe(c, a, s, &before);
	c->calls++;
	r = s->nr == EV_SVC_VCPU_IDLE ? call_idle(c, s, a) : fuzz_call(s, a);
	if (vostd_is_err(r))
		c->refused++;
	if (!fuzz_check_answer(c, s, a, r))
		return;
	if (vostd_is_err(r)) {
		if (c->strict && !fuzz_unchanged(c, a, s, &before))
			fuzz_failed(c, "refusal_changed_state", s, a, r);
		return;
	}
	fuzz_record(c, s, a, r);
	if (c->strict)
		fuzz_after_destroy(c, s, a);
}

/*
 * Waits for *v to reach want, kicking the other vCPU every KICK_NS: it may
 * be in a tenant that loops, which only a kick ends.
 */
static void await_kicking(u32 *v, u32 want, unsigned int other)
{
	u64 next = vostd_cycles() + vostd_ns_to_cycles(KICK_NS);

	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
		if (vostd_cycles() >= next) {
			vostd_call(EV_SVC_VCPU_KICK, other, 0, 0, 0, 0);
			next = vostd_cycles() + vostd_ns_to_cycles(KICK_NS);
		}
		asm volatile("pause");
	}
}

static void fuzz_cpu_init(struct fuzz_cpu *c, unsigned int id, u64 seed)
{
	unsigned int i;

	c->id = id;
	c->rng = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ (id + 1) * 0xbf58476d1ce4e5b9ULL;
	if (!c->rng)
		c->rng = 1;
	/*
	 * A block of the endovisor's, not one of vOSTD's: the services write
	 * through pointers into it, and the fuzzer never reads it.  What it
	 * holds at first is no instruction a tenant could loop on.
	 */
	c->scratch = (char *)vostd_call(EV_SVC_MEM_ALLOC, FUZZ_SCRATCH, 0, 0, 0, 0);
	if (vostd_is_err((long)c->scratch)) {
		c->scratch = NULL;
		return;
	}
	for (i = 0; i < FUZZ_SCRATCH; i++)
		c->scratch[i] = 0xcc;	/* int3 */
}

static void report(struct fuzz_cpu *c)
{
	vostd_println("fuzz: vCPU %u: %llu calls, %llu refused, %llu answers checked",
		      c->id, c->calls, c->refused, c->checks);
	vostd_test(c->id ? "vcpu1_calls" : "vcpu0_calls", c->calls > 0, "calls=%llu", c->calls);
}

static long fuzz_main(void)
{
	const char *args = vostd_vcpu()->args;
	struct fuzz *f = F();
	struct fuzz_cpu *c;
	u64 t0 = vostd_cycles();
	u32 phase;

	if (!f)
		return -ENOMEM;
	if (!vostd_has_prefix(args, "fuzz ") || vostd_nr_cpus() != 2) {
		vostd_println("fuzz: want 'fuzz SEED MS [BLOCK FRAME [SKIP]]' on two vCPUs");
		WRITE_ONCE(f->stop, 1);
		return -EINVAL;
	}
	args += 5;
	f->seed = vostd_parse_ulong(&args, 10);
	f->deadline = t0 + vostd_ns_to_cycles(vostd_parse_ulong(&args, 10) * 1000000);
	f->other_block = vostd_parse_ulong(&args, 16);
	f->other_frame = vostd_parse_ulong(&args, 16);
	f->skip = vostd_parse_ulong(&args, 16);
	vostd_println("fuzz: seed=%llu, %u services, other block %lx frame %lx, skipping %llx",
		      f->seed, fuzz_nr_services, f->other_block, f->other_frame, f->skip);
	fuzz_cpu_init(&f->cpu[0], 0, f->seed);
	fuzz_cpu_init(&f->cpu[1], 1, f->seed);
	if (!f->cpu[0].scratch || !f->cpu[1].scratch) {
		vostd_fail("setup", "no scratch blocks");
		WRITE_ONCE(f->stop, 1);
		return 0;
	}
	c = &f->cpu[0];
	__atomic_store_n(&f->ap_ready, 1, __ATOMIC_RELEASE);
	/* one round at least, however short the time */
	for (phase = 1; phase == 1 || vostd_cycles() < f->deadline; phase += 2) {
		unsigned int i;

		/* a race phase: both vCPUs */
		c->strict = false;
		__atomic_store_n(&f->phase, phase, __ATOMIC_RELEASE);
		for (i = 0; i < RACE_CALLS; i++)
			one_call(c);
		await_kicking(&f->ap_phase, phase, 1);
		/* a solo phase: vCPU 1 only kicks */
		__atomic_store_n(&f->phase, phase + 1, __ATOMIC_RELEASE);
		fuzz_revalidate(c);
		c->strict = true;
		for (i = 0; i < SOLO_CALLS; i++)
			one_call(c);
		f->rounds++;
	}
	c->strict = false;
	WRITE_ONCE(f->stop, 1);
	await_kicking(&f->ap_phase, ~0u, 1);
	fuzz_evict_all(c);
	vostd_println("fuzz: %llu rounds of %u racing calls a vCPU and %u alone, in %llu ms",
		      f->rounds, RACE_CALLS, SOLO_CALLS,
		      vostd_cycles_to_ns(vostd_cycles() - t0) / 1000000);
	report(c);
	report(&f->cpu[1]);
	vostd_tests_end();
	return 0;
}

static long fuzz_ap_main(void)
{
	struct fuzz *f = F();
	struct fuzz_cpu *c = &f->cpu[1];
	u32 phase;

	if (!f)
		return -ENOMEM;
	while (!__atomic_load_n(&f->ap_ready, __ATOMIC_ACQUIRE) && !READ_ONCE(f->stop))
		asm volatile("pause");
	while (!READ_ONCE(f->stop)) {
		unsigned int i;
		u64 next;

		phase = __atomic_load_n(&f->phase, __ATOMIC_ACQUIRE);
		if (!(phase & 1) || phase == __atomic_load_n(&f->ap_phase, __ATOMIC_ACQUIRE)) {
			/*
			 * A solo phase, or this race phase done: a kick now
			 * and then ends a tenant of vCPU 0's that loops.
			 */
			next = vostd_cycles() + vostd_ns_to_cycles(KICK_NS);
			while (vostd_cycles() < next && READ_ONCE(f->phase) == phase &&
			       !READ_ONCE(f->stop))
				asm volatile("pause");
			vostd_call(EV_SVC_VCPU_KICK, 0, 0, 0, 0, 0);
			continue;
		}
		for (i = 0; i < RACE_CALLS; i++)
			one_call(c);
		__atomic_store_n(&f->ap_phase, phase, __ATOMIC_RELEASE);
	}
	fuzz_evict_all(c);
	__atomic_store_n(&f->ap_phase, ~0u, __ATOMIC_RELEASE);
	return 0;
}

VOSTD_KERNEL(fuzz, fuzz_main, fuzz_ap_main);
