/* SPDX-License-Identifier: GPL-2.0 */
/* What the fuzzer's files share: the services' table, the objects, a call. */
#ifndef FUZZ_H
#define FUZZ_H

#include "mm.h"

#define PAGE		VOSTD_PAGE_SIZE
#define FUZZ_POOL	8	/* objects of a kind one owner keeps */
#define FUZZ_OWNERS	3	/* the pools: each vCPU's own, and the shared */
#define FUZZ_FRAMES	16	/* frames one owner keeps */
#define FUZZ_SCRATCH	(4 * PAGE)	/* a vCPU's buffer for the services' pointers */
#define FUZZ_MAX_ERRS	12

/*
 * The kinds of the services' arguments: each is the name the list of the
 * services gives the argument (abi/ev_services.h), and kinds.c says what
 * values each is drawn from.
 */
enum fuzz_kind {
	K_buf, K_len, K_size, K_flags, K_address, K_vcpu, K_entry, K_count,
	K_out, K_vm, K_va, K_frame, K_prot, K_pages, K_ops, K_dst, K_src,
	K_ctx, K_stamps, K_what, K_a0, K_a1, K_a2, K_a3, K_fpu,
};

/* The kinds of object the pools keep. */
enum fuzz_obj { OBJ_BLOCK, OBJ_VM, OBJ_FPU };

/* One service, from the generated table (services.sh). */
struct fuzz_service {
	unsigned long nr;		/* EV_SVC_* */
	const char *name;
	unsigned int nargs;
	u8 kinds[5];
	short errs[FUZZ_MAX_ERRS];	/* the errors it documents; 0 ends them */
};

/* In the list's order, which is the services' numbers': fuzz_services[EV_SVC_X]. */
extern const struct fuzz_service fuzz_services[];
extern const unsigned int fuzz_nr_services;

/*
 * Objects in a pool: a vCPU's own, or the shared ones, which both use.
 * 0 is an empty slot.  A destroyed object's handle or address goes to the
 * dead ones, to be passed again.  Slots change by atomic exchange, since
 * in a race phase either vCPU may destroy an object in any pool.
 */
struct fuzz_objs {
	long blocks[FUZZ_POOL];
	long vms[FUZZ_POOL];
	long fpus[FUZZ_POOL];
	long frames[FUZZ_FRAMES];
	long dead_blocks[FUZZ_POOL], dead_vms[FUZZ_POOL], dead_fpus[FUZZ_POOL];
};

/* The sizes of the blocks a vCPU was given, newest last: a ring. */
#define FUZZ_SIZES	64
#define FUZZ_FRESH	64
struct fuzz_sizes {
	unsigned int next;
	long addr[FUZZ_SIZES];
	unsigned long size[FUZZ_SIZES];
};

/* A vCPU's fuzzing: its random state, its objects and its counts. */
struct fuzz_cpu {
	u64 rng;
	unsigned int id;
	bool strict;		/* a solo phase: every check is made */
	struct fuzz_objs own;
	struct fuzz_sizes sizes;
	char *scratch;		/* FUZZ_SCRATCH bytes of its own, for pointers */
	long active_vm;		/* the space it last activated, or 0 */
	/* blocks made in this solo phase and not freed, with their sizes */
	unsigned int nfresh;
	long fresh[FUZZ_FRESH];
	unsigned long fresh_size[FUZZ_FRESH];
	u64 calls, refused, checks;
};

/*
 * The run, in the sandbox's globals.  Rounds of two phases: in a race
 * phase both vCPUs call at once on all the objects; in a solo phase vCPU
 * 0 calls alone, every answer checked against what it knows is live,
 * while vCPU 1 only kicks it (a tenant that loops ends at the kick).
 */
struct fuzz {
	u64 seed, deadline;
	unsigned long other_block, other_frame;	/* another sandbox's, or 0 */
	u64 skip;		/* a bit for each service not to call */
	struct fuzz_objs shared;
	struct fuzz_cpu cpu[2];
	long frames_granted;	/* frames are never given back */
	u32 phase;		/* odd: race phase (phase + 1) / 2; even: solo */
	u32 ap_phase;		/* the last race phase vCPU 1 finished */
	u32 stop, ap_ready;
	u64 rounds;
};

static inline struct fuzz *F(void)
{
	return vostd_global(VOSTD_SLOT_KERNEL, sizeof(struct fuzz));
}

static inline u64 fuzz_rand(struct fuzz_cpu *c)
{
	/* xorshift64*: enough for drawing arguments, and one u64 of state */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dULL;
}

static inline unsigned long fuzz_below(struct fuzz_cpu *c, unsigned long n)
{
	return fuzz_rand(c) % n;
}

/* kinds.c */
unsigned long fuzz_draw(struct fuzz_cpu *c, enum fuzz_kind k);

/* objects.c */
void fuzz_record(struct fuzz_cpu *c, const struct fuzz_service *s,
		 const unsigned long *a, long r);
bool fuzz_check_answer(struct fuzz_cpu *c, const struct fuzz_service *s,
		       const unsigned long *a, long r);
void fuzz_revalidate(struct fuzz_cpu *c);
void fuzz_evict_all(struct fuzz_cpu *c);
long fuzz_block_size(long addr);
bool fuzz_tracked(enum fuzz_obj what, long v);
bool fuzz_block_live(long b, long size);

/* check.c */
struct fuzz_view;
void fuzz_observe(struct fuzz_cpu *c, const unsigned long *a,
		  const struct fuzz_service *s, struct fuzz_view *v);
bool fuzz_unchanged(struct fuzz_cpu *c, const unsigned long *a,
		    const struct fuzz_service *s, const struct fuzz_view *before);
void fuzz_after_destroy(struct fuzz_cpu *c, const struct fuzz_service *s,
			const unsigned long *a);

/* main.c: a failed check, with the call that failed it */
void fuzz_failed(struct fuzz_cpu *c, const char *check, const struct fuzz_service *s,
		 const unsigned long *a, long r);
long fuzz_call(const struct fuzz_service *s, const unsigned long *a);

/* What a strict call's refusal must leave as it was (check.c). */
#define FUZZ_VIEW_MAX	24
struct fuzz_view {
	unsigned int n;
	long what[FUZZ_VIEW_MAX];	/* each probe's answer */
};

#endif /* FUZZ_H */
