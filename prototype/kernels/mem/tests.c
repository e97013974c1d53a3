// SPDX-License-Identifier: GPL-2.0
/*
 * The mem kernel's test cases: the refusals, faults on first touch and
 * after protect, the flush, a tenant's fault, copy-on-write after fork,
 * the bounds; one EVTEST line each.
 */
#include "mem.h"

static int a_static;

/*
 * Did the report a test case expected come?  Always, without the checking
 * mode, where the case's return values say all.
 */
static bool reported(void)
{
	struct vostd_san_report r;

	return !vostd_checking() || vostd_san_expected(&r);
}

/* The endovisor's refusals, on its own blocks (the slab's are below). */
static void test_heap(void)
{
	char *p = vostd_heap_alloc(64, false);
	long r;

	r = vostd_heap_free(&a_static);
	check("free_never_given", r == -ENOENT,
	      "a free of memory the heap never gave out returned", r);
	r = vostd_heap_free(p + 8);
	check("free_interior", r == -EINVAL, "a free of a pointer inside a block returned", r);
	r = vostd_heap_free(p);
	check("free", r == 0, "a free of a block returned", r);
	r = vostd_heap_free(p);
	check("free_double", r == -ENOENT, "a second free of the block returned", r);
}

#define SLAB_MANY	300	/* 64-byte objects: several slabs */

/*
 * The slab: its refusals, its alignment and zeroing, and what is still
 * the endovisor's to refuse.
 */
static void test_slab(void)
{
	char *p = vostd_alloc(64, false), *q;
	void **many = vostd_alloc(SLAB_MANY * sizeof(void *), true);
	unsigned long size, frames = vostd_slab_frames(), bad = 0;
	long r;
	int i;

	check("slab_object", p && vostd_slab_frames() > 0,
	      "a 64-byte object, the slab's frames:", vostd_slab_frames());
	r = vostd_heap_free(p);
	check("slab_object_not_a_block", r == -ENOENT, "mem_free of a slab object returned", r);
	vostd_san_expect(VOSTD_SAN_INVALID_FREE);
	r = vostd_free(&a_static);
	check("slab_free_never_given", r == -ENOENT && reported(),
	      "a free of a static returned", r);
	vostd_san_expect(VOSTD_SAN_INVALID_FREE);
	r = vostd_free(p + 8);
	check("slab_free_interior", r == -EINVAL && reported(),
	      "a free of a pointer inside an object returned", r);
	vostd_memset(p, 0xff, 64);
	r = vostd_free(p);
	check("slab_free", r == 0, "a free of an object returned", r);
	vostd_san_expect(VOSTD_SAN_DOUBLE_FREE);
	r = vostd_free(p);
	check("slab_free_double", r == -ENOENT && reported(),
	      "a second free of the object returned", r);
	/* The checking mode's quarantine holds the object: another one comes. */
	q = vostd_alloc(64, true);
	for (i = 0; q && i < 64; i++)
		bad |= q[i];
	check("slab_zeroed", (q == p || vostd_checking()) && !bad,
	      "the object given again (same one, zeroed) differs by", bad);
	vostd_free(q);
	for (size = 1; size <= 2 * VOSTD_SLAB_MAX; size = size * 2 + 1) {
		unsigned long align = max(32UL, 1UL << (64 - __builtin_clzl((size - 1) | 1)));

		q = vostd_alloc(size, false);
		if (!q || ((unsigned long)q & (align - 1)))
			bad = size;
		vostd_free(q);
	}
	check("slab_aligned", !bad, "an object not aligned to its size, of size", bad);
	for (i = 0; many && i < SLAB_MANY; i++) {
		many[i] = vostd_alloc(64, false);
		if (!many[i])
			bad++;
	}
	check("slab_many", many && !bad && vostd_slab_frames() > frames + 3,
	      "objects held; the slab's frames grew by", vostd_slab_frames() - frames);
	/* A second free of each, but where it is a report (planted_double_free has one). */
	for (i = 0; many && i < SLAB_MANY; i++)
		bad |= vostd_free(many[i]) != 0 ||
		       (!vostd_checking() && vostd_free(many[i]) != -ENOENT);
	check("slab_many_freed", !bad, "a free, or a second free, of the objects went wrong", bad);
	vostd_free(many);
}

/* The services take a slab object as the sandbox's memory, to read and to write. */
static void test_slab_copies(struct tenant *t)
{
	char *from = vostd_alloc(64, false), *to = vostd_alloc(64, true);
	long r = -ENOMEM;
	int i, bad = 0;

	if (from && to) {
		for (i = 0; i < 64; i++)
			from[i] = i;
		r = vostd_copy_to_user(t->vs, DATA_VA, from, 64) ?:
			vostd_copy_from_user(t->vs, to, DATA_VA, 64);
		for (i = 0; i < 64; i++)
			bad |= to[i] != i;
	}
	check("slab_copies", !r && !bad, "copies out of and into slab objects returned", r ?: bad);
	vostd_free(from);
	vostd_free(to);
}

static void test_refusals(struct tenant *t)
{
	void *block = vostd_alloc(PAGE, false);
	char buf[64];
	long r;

	/* A page-aligned heap block is kernel memory, but no frame of the grant. */
	r = vostd_vm_map(t->vs, DATA_VA + 100 * PAGE, block, RW);
	check("map_outside_grant", r == -EACCES, "a map of a frame outside the grant returned", r);
	r = vostd_vm_map(t->vs, DATA_VA, t->code, RW);
	check("map_over_mapping", r == -EEXIST, "a map over an existing mapping returned", r);
	r = vostd_vm_protect(t->vs, DATA_VA + 200 * PAGE, 1, RO);
	check("protect_unmapped", r == -ENOENT, "a protect of an unmapped page returned", r);
	r = vostd_vm_unmap(t->vs, DATA_VA + 200 * PAGE, 1);
	check("unmap_unmapped", r == -ENOENT, "an unmap of an unmapped page returned", r);
	r = vostd_copy_from_user(t->vs, buf, DATA_VA + 300 * PAGE, sizeof(buf));
	check("copy_unmapped", r == -EFAULT, "a copy from an unmapped address returned", r);
	r = vostd_copy_from_user(t->vs, buf, (unsigned long)buf, sizeof(buf));
	check("copy_kernel", r == -EFAULT, "a copy from a kernel address returned", r);
	vostd_free(block);
}

/* Resolve a fault by mapping a fresh frame where it fell. */
static long map_on_fault(struct tenant *t, unsigned long addr, bool write)
{
	void *f = vostd_frame_alloc();

	return f ? vostd_vm_map(t->vs, addr & ~(PAGE - 1), f, RW) : -ENOMEM;
}

/*
 * Copy-on-write: a write to a shared read-only page gets its own copy.  The
 * shared frame is found by asking the page table what is mapped there.
 */
static long cow_fault(struct tenant *t, unsigned long addr, bool write)
{
	unsigned long va = addr & ~(PAGE - 1);
	unsigned int prot;
	void *shared, *copy;
	long r;

	t->traps++;
	if (!write || va < DATA_VA)
		return -EFAULT;
	r = vostd_vm_query(t->vs, va, &shared, &prot);
	if (r)
		return r;	/* nothing there to copy: a plain fault */
	if (prot & EV_PROT_WRITE)
		return 0;	/* made writable meanwhile: retry */
	copy = vostd_frame_alloc();
	if (!copy)
		return -ENOMEM;
	vostd_memcpy(copy, shared, PAGE);
	if (vostd_vm_unmap(t->vs, va, 1))
		return -EFAULT;
	return vostd_vm_map(t->vs, va, copy, RW);
}

/* Note the fault, and let the write through by making the page writable. */
static long note_fault(struct tenant *t, unsigned long addr, bool write)
{
	t->traps++;
	t->fault_addr = addr;
	t->fault_write = write;
	return vostd_vm_protect(t->vs, addr & ~(PAGE - 1), 1, RW);
}

/*
 * A protect must reach the TLB.  The tenant writes a page, so the TLB holds
 * a writable entry for it; the kernel proper protects the page read-only
 * while the carrier holds the tenant's address space; the tenant's next
 * write must trap to the kernel proper as a write fault.  Without the
 * flush, the old entry would let the write through.
 */
static void test_flush(void)
{
	struct tenant *t = tenant_new(1);
	u64 faults;
	long r;

	if (!t || map_range(t->vs, DATA_VA, 1, NULL, 0, RW) ||
	    !touch(t, DATA_VA, 1, true, NULL, &faults, note_fault)) {
		check("protect_flush", false, "could not set up the tenant", 0);
		return;
	}
	check("write_no_faults", t->traps == 0, "a write to a writable page trapped", t->traps);
	r = vostd_vm_activate(t->vs);
	if (!r)
		r = vostd_vm_protect(t->vs, DATA_VA, 1, RO);
	if (r || !touch(t, DATA_VA, 1, true, NULL, &faults, note_fault)) {
		check("protect_flush", false, "the write after the protect did not complete", r);
	} else {
		check("protect_flush", t->traps == 1 && t->fault_write && t->fault_addr == DATA_VA,
		      "write faults trapped after the protect:", t->traps);
	}
	tenant_free(t);
}

/*
 * Map frame at count pages from va, stride bytes apart, with vm_batch,
 * until a map is refused: how many were mapped, and *err the refusal (0 if
 * none was).
 */
static unsigned long map_until_refused(struct vostd_vmspace *vs, unsigned long va,
				       unsigned long stride, void *frame,
				       unsigned long count, long *err)
{
	struct ev_vm_op *ops = vostd_alloc(EV_BATCH_MAX * sizeof(*ops), false);
	unsigned long done = 0, i, n;

	*err = ops ? 0 : -ENOMEM;
	while (ops && done < count && !*err) {
		n = min(count - done, (unsigned long)EV_BATCH_MAX);
		for (i = 0; i < n; i++)
			ops[i] = (struct ev_vm_op){ .op = EV_VM_OP_MAP, .prot = RO,
						    .va = va + (done + i) * stride,
						    .frame = (unsigned long)frame };
		*err = vostd_call(EV_SVC_VM_BATCH, vs->handle, (unsigned long)ops, n, 0, 0);
		if (*err >= 0) {
			*err = 0;
			done += n;
			continue;
		}
		for (i = 0; i < n && !(ops[i].op & EV_VM_OP_FAILED); i++)
			done++;
	}
	if (ops)
		vostd_free(ops);
	return done;
}

/*
 * The page tables k maps at 2 MiB strides from a 1 GiB boundary make Linux
 * allocate in a new space: a page table each, a middle table per GiB, and
 * one upper table.
 */
static unsigned long tables_for(unsigned long k)
{
	return k + (k + 511) / 512 + 1;
}

/*
 * The sandbox's bounds on what its spaces make Linux hold.  Run when it
 * has no other space, so that the whole of each bound is this test's.
 */
static void test_bounds(void)
{
	struct vostd_vmspace *vs = vostd_vmspace_new();
	void *frame = vostd_frame_alloc();
	unsigned long n, want;
	long r;

	if (!vs || !frame) {
		check("map_bound", false, "could not set up a space", 0);
		return;
	}
	/* One frame at every page, past the bound on mapped pages. */
	n = map_until_refused(vs, DATA_VA, PAGE, frame, EV_MAP_QUOTA + 1, &r);
	check("map_bound", r == -ENOSPC && n == EV_MAP_QUOTA,
	      "pages mapped before a map past the bound was refused:", n);
	vostd_vmspace_destroy(vs);
	vs = vostd_vmspace_new();
	r = vs ? vostd_vm_map(vs, DATA_VA, frame, RO) : -ENOMEM;
	check("map_bound_released", r == 0, "a map after the space was destroyed returned", r);
	if (vs)
		vostd_vmspace_destroy(vs);

	/* One frame every 2 MiB, each map a page table of its own. */
	vs = vostd_vmspace_new();
	if (!vs) {
		check("table_bound", false, "could not set up a space", 0);
		return;
	}
	for (want = 0; tables_for(want + 1) <= EV_PT_QUOTA; want++)
		;
	n = map_until_refused(vs, EV_TENANT_BASE + GIB, PMD_SPAN, frame, EV_PT_QUOTA, &r);
	check("table_bound", r == -ENOSPC && n == want,
	      "sparse maps before the bound on page tables refused one:", n);
	vostd_vmspace_destroy(vs);
	vostd_frame_free(frame);
}

void tests(void)
{
	struct tenant *t = tenant_new(8), *child, *cow_parent;
	unsigned long pt_calls;
	void *frames[4];
	u64 faults, s[8];
	char before[1], after[1];
	long r;
	int i;

	test_heap();
	test_slab();
	if (!t) {
		check("tenant", false, "could not set up a tenant", 0);
		return;
	}
	if (map_range(t->vs, DATA_VA, 8, NULL, 0, RW) ||
	    !touch(t, DATA_VA, 8, false, s, &faults, NULL))
		check("first_touch", false, "the tenant did not run", 0);
	else
		check("first_touch_no_faults", faults == 0,
		      "first touch of mapped pages faulted", faults);
	test_slab_copies(t);
	test_refusals(t);
	r = vostd_vm_protect(t->vs, DATA_VA, 8, RO);
	check("protect", r == 0, "protect returned", r);
	if (touch(t, DATA_VA, 8, false, s, &faults, NULL))
		check("protect_no_faults", faults == 0, "reads after protect faulted", faults);
	else
		check("protect_no_faults", false,
		      "the tenant's reads after protect did not finish", 0);
	/* A touch of pages nobody mapped: each faults to the kernel proper. */
	if (touch(t, DATA_VA + 400 * PAGE, 4, false, NULL, &faults, map_on_fault))
		check("tenant_fault", faults == 4,
		      "page faults resolved by the kernel proper:", faults);
	else
		check("tenant_fault", false, "the faulting tenant did not finish", 0);
	tenant_free(t);

	test_flush();

	/* Fork four pages, then write in the child. */
	cow_parent = tenant_new(4);
	for (i = 0; i < 4; i++)
		frames[i] = vostd_frame_alloc();
	if (!cow_parent || map_range(cow_parent->vs, DATA_VA, 4, frames, 4, RW)) {
		check("cow", false, "could not set up the parent", 0);
		return;
	}
	vostd_copy_to_user(cow_parent->vs, DATA_VA, "P", 1);
	child = fork_space(cow_parent, 4, &pt_calls);
	if (!child || !touch(child, DATA_VA, 4, true, NULL, &faults, cow_fault)) {
		check("cow", false, "the child's writes did not complete", 0);
		return;
	}
	vostd_copy_from_user(cow_parent->vs, before, DATA_VA, 1);
	vostd_copy_from_user(child->vs, after, DATA_VA, 1);
	check("cow_fault_count", faults == 4 && child->traps == 4,
	      "the child's writes faulted this many times:", faults);
	check("cow_parent_kept", before[0] == 'P', "the parent's page changed to", before[0]);
	check("cow_child_copy", after[0] == 0x5a, "the child's page holds", after[0]);
	r = vostd_copy_to_user(cow_parent->vs, DATA_VA, "Q", 1);
	check("copy_to_readonly", r == -EFAULT,
	      "a copy into the parent's read-only page returned", r);
	tenant_free(child);
	tenant_free(cow_parent);
	for (i = 0; i < 4; i++)
		vostd_frame_free(frames[i]);
	test_bounds();
	planted_bugs();
	vostd_tests_end();
}
