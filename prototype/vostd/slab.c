// SPDX-License-Identifier: GPL-2.0
/*
 * The slab: small objects carved out of the sandbox's own frames, so that
 * an allocation and its free cross into the endovisor not at all.
 *
 * Six classes, 32 to 1024 bytes, each a power of two.  A class's frames
 * (slabs) each hold objects of its size after a header at the frame's
 * start, every object aligned to its size.  The header says which objects
 * are in use, one bit each: nothing of the allocator's lies in a free
 * object, so a write to an object after its free corrupts that object and
 * no list.  A class keeps a stack of its slabs that have a free object,
 * under a lock of its own; a slab is never given back, and its frame goes
 * back to the endovisor with the rest of the grant when the sandbox ends.
 *
 * A free finds its slab by the frame the pointer lies in, and asks a set
 * of the slab's frames (a hash set of their addresses) before it reads a
 * header, so a pointer the slab never gave out is answered from the
 * slab's own memory: it goes to the endovisor's mem_free.  The set is
 * read without a lock; it only grows, and a grown set replaces the old one
 * whole, which is kept, since a reader may still be in it.
 */
#include "mm.h"

#define SLAB_HEADER	64UL
#define SLAB_SET_MIN	64		/* slots of the first set */

struct vostd_slab_frame {
	u64 used[2];			/* an object's bit is set while it is given out */
	struct vostd_slab_frame *next;	/* on its class's stack of slabs with room */
	u32 cls;
	u32 nfree;
};

struct vostd_slab_class {
	vostd_spinlock_t lock;
	struct vostd_slab_frame *partial;	/* slabs with a free object */
	unsigned long frames;
} __aligned(64);

/* A set of frame addresses, open addressing, never more than half full. */
struct vostd_slab_set {
	unsigned long mask;
	struct vostd_slab_set *old;	/* the set it replaced, kept for its readers */
	unsigned long slots[];
};

struct vostd_slab {
	struct vostd_slab_class cls[VOSTD_SLAB_CLASSES];
	vostd_spinlock_t set_lock;
	unsigned long frames;		/* in the set */
	struct vostd_slab_set *set;
};

/*
 * The sandbox's slab.  Under emulation every call costs a lookup of the
 * emulator's, so the path of an allocation and a free is inline but for
 * the first use of the slot.
 */
static __always_inline struct vostd_slab *vostd_slab(void)
{
	struct vostd_slab *sl = __atomic_load_n(&vostd_slots()[VOSTD_SLOT_SLAB],
						__ATOMIC_ACQUIRE);

	return likely(sl) ? sl : vostd_global(VOSTD_SLOT_SLAB, sizeof(struct vostd_slab));
}

static __always_inline unsigned int slab_class(size_t size)
{
	return size <= (1UL << VOSTD_SLAB_MIN_SHIFT) ? 0 :
		64 - __builtin_clzl(size - 1) - VOSTD_SLAB_MIN_SHIFT;
}

static __always_inline unsigned int slab_shift(unsigned int cls)
{
	return cls + VOSTD_SLAB_MIN_SHIFT;
}

/* The offset of a slab's first object: past the header, aligned to its size. */
static __always_inline unsigned long slab_first(unsigned int cls)
{
	return max(SLAB_HEADER, 1UL << slab_shift(cls));
}

static __always_inline unsigned int slab_objects(unsigned int cls)
{
	return (VOSTD_PAGE_SIZE - slab_first(cls)) >> slab_shift(cls);
}

static __always_inline unsigned long slab_hash(unsigned long frame)
{
	return ((frame >> 12) * 0x9e3779b97f4a7c15UL) >> 32;
}

static __always_inline void slab_lock(vostd_spinlock_t *l)
{
	vostd_upcall_disable();
	vostd_spin_lock(l);
}

static __always_inline void slab_unlock(vostd_spinlock_t *l)
{
	vostd_spin_unlock(l);
	vostd_upcall_enable();
}

/* Is frame one of the slab's?  No lock: the set only grows. */
static __always_inline bool slab_set_has(struct vostd_slab *sl, unsigned long frame)
{
	struct vostd_slab_set *set = __atomic_load_n(&sl->set, __ATOMIC_ACQUIRE);
	unsigned long i, v;

	if (!set)
		return false;
	for (i = slab_hash(frame);; i++) {
		v = __atomic_load_n(&set->slots[i & set->mask], __ATOMIC_ACQUIRE);
		if (v == frame)
			return true;
		if (!v)
			return false;
	}
}

static void slab_set_put(struct vostd_slab_set *set, unsigned long frame)
{
	unsigned long i = slab_hash(frame);

	while (set->slots[i & set->mask])
		i++;
	__atomic_store_n(&set->slots[i & set->mask], frame, __ATOMIC_RELEASE);
}

/*
 * Add frame to the set, growing it first if it would be more than half
 * full.  The new set is allocated with the lock dropped; a vCPU that
 * grew it meanwhile makes ours unneeded.
 */
static bool slab_set_add(struct vostd_slab *sl, unsigned long frame)
{
	struct vostd_slab_set *set, *bigger;
	unsigned long slots, i;

	slab_lock(&sl->set_lock);
	for (;;) {
		set = sl->set;
		if (set && 2 * (sl->frames + 1) <= set->mask + 1)
			break;
		slots = set ? 2 * (set->mask + 1) : SLAB_SET_MIN;
		slab_unlock(&sl->set_lock);
		bigger = vostd_heap_alloc(sizeof(*bigger) + slots * sizeof(unsigned long), true);
		if (!bigger)
			return false;
		slab_lock(&sl->set_lock);
		if (sl->set != set) {		/* another vCPU grew it */
			slab_unlock(&sl->set_lock);
			vostd_heap_free(bigger);
			slab_lock(&sl->set_lock);
			continue;
		}
		bigger->mask = slots - 1;
		bigger->old = set;
		for (i = 0; set && i <= set->mask; i++)
			if (set->slots[i])
				slab_set_put(bigger, set->slots[i]);
		__atomic_store_n(&sl->set, bigger, __ATOMIC_RELEASE);
	}
	slab_set_put(set, frame);
	sl->frames++;
	slab_unlock(&sl->set_lock);
	return true;
}

/* A new slab of class cls, from the frame pool, known to the set. */
static struct vostd_slab_frame *slab_grow(struct vostd_slab *sl, unsigned int cls)
{
	struct vostd_slab_frame *f = vostd_frame_alloc();	/* zeroed */
	unsigned int n = slab_objects(cls);

	if (!f)
		return NULL;
	f->cls = cls;
	f->nfree = n;
	/* Bits past the last object are set: never given out. */
	if (n < 64)
		f->used[0] = ~0UL << n;
	f->used[1] = n <= 64 ? ~0UL : n < 128 ? ~0UL << (n - 64) : 0;
	if (!slab_set_add(sl, (unsigned long)f)) {
		vostd_frame_free(f);
		return NULL;
	}
	return f;
}

/* An object of up to VOSTD_SLAB_MAX bytes, or NULL: no frame for a slab. */
void *vostd_slab_alloc(size_t size, bool zero)
{
	struct vostd_slab *sl = vostd_slab();
	struct vostd_slab_class *c;
	struct vostd_slab_frame *f;
	unsigned int cls = slab_class(size), w, bit;
	void *p;

	if (unlikely(!sl))
		return NULL;
	c = &sl->cls[cls];
	slab_lock(&c->lock);
	while (unlikely(!c->partial)) {
		slab_unlock(&c->lock);
		f = slab_grow(sl, cls);
		if (!f)
			return NULL;
		slab_lock(&c->lock);
		f->next = c->partial;
		c->partial = f;
		c->frames++;
	}
	f = c->partial;
	w = ~f->used[0] ? 0 : 1;
	bit = __builtin_ctzl(~f->used[w]);
	f->used[w] |= 1UL << bit;
	if (!--f->nfree)
		c->partial = f->next;
	slab_unlock(&c->lock);
	p = (char *)f + slab_first(cls) + ((unsigned long)(w * 64 + bit) << slab_shift(cls));
	if (zero)
		vostd_memset(p, 0, 1UL << slab_shift(cls));
	return p;
}

/*
 * Give back an object: 0; -EINVAL for a pointer inside a slab that is not
 * an object's start; -ENOENT for an object not given out (a double free);
 * VOSTD_SLAB_NOT_MINE for a pointer in no slab.
 */
long vostd_slab_free(void *p)
{
	unsigned long off = (unsigned long)p & (VOSTD_PAGE_SIZE - 1);
	struct vostd_slab_frame *f = (void *)((unsigned long)p - off);
	struct vostd_slab *sl = vostd_slab();
	struct vostd_slab_class *c;
	unsigned int cls, i;
	u64 bit;

	/* A page-aligned pointer is a slab's header, never an object. */
	if (!off || unlikely(!sl) || !slab_set_has(sl, (unsigned long)f))
		return VOSTD_SLAB_NOT_MINE;
	cls = f->cls;
	if (off < slab_first(cls) || (off & ((1UL << slab_shift(cls)) - 1)))
		return -EINVAL;
	i = (off - slab_first(cls)) >> slab_shift(cls);
	bit = 1UL << (i & 63);
	c = &sl->cls[cls];
	slab_lock(&c->lock);
	if (unlikely(!(f->used[i / 64] & bit))) {
		slab_unlock(&c->lock);
		return -ENOENT;
	}
	f->used[i / 64] &= ~bit;
	if (!f->nfree++) {
		f->next = c->partial;
		c->partial = f;
	}
	slab_unlock(&c->lock);
	return 0;
}

/*
 * Does p lie in one of the slab's frames?  The checking mode asks before
 * it hands the slab a pointer no allocation of its own gave out.
 */
bool vostd_slab_owns(const void *p)
{
	struct vostd_slab *sl = vostd_slab();

	return sl && slab_set_has(sl, (unsigned long)p & ~(VOSTD_PAGE_SIZE - 1));
}

/* The frames the slab holds, all classes. */
unsigned long vostd_slab_frames(void)
{
	struct vostd_slab *sl = vostd_slab();

	return sl ? READ_ONCE(sl->frames) : 0;
}

/*
 * The slab's own state, its set and every set the set replaced, given back
 * to the heap: only once no vCPU runs sandbox code (vostd_boot, the last
 * vCPU out).  The slabs' frames go back with the grant.
 */
void vostd_slab_release(void)
{
	struct vostd_slab *sl = vostd_slots()[VOSTD_SLOT_SLAB];
	struct vostd_slab_set *set, *old;

	if (!sl)
		return;
	for (set = sl->set; set; set = old) {
		old = set->old;
		vostd_heap_free(set);
	}
	vostd_global_release(VOSTD_SLOT_SLAB);
}
