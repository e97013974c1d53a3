// SPDX-License-Identifier: GPL-2.0
/*
 * exec: a static executable from the file system into a fresh address
 * space, and the initial stack Linux gives a program.
 *
 * The loader takes static non-PIE executables (ET_EXEC, at the addresses
 * their program headers name, which must lie in the tenant region) and
 * static-PIE ones (ET_DYN without an interpreter, at LX_PIE_BASE).  A
 * program that wants an interpreter is refused with -ENOEXEC: there is no
 * dynamic linker here.  The new image is built beside the old one, in a
 * space of its own, so that an exec that fails leaves the caller as it
 * was; only then does the process give up its old memory.
 *
 * The stack holds, from its top down: the strings of argv and envp, the
 * program's path (AT_EXECFN), the platform name, 16 random bytes
 * (AT_RANDOM); then, 16-byte aligned, argc, argv, envp and the auxiliary
 * vector.  There is no vDSO (no AT_SYSINFO_EHDR), so the C library makes
 * real system calls for the clock too.
 */
#include <linux/elf.h>
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "syscalls.h"

#define AT_NULL		0
#define AT_PHDR		3
#define AT_PHENT	4
#define AT_PHNUM	5
#define AT_PAGESZ	6
#define AT_BASE		7
#define AT_FLAGS	8
#define AT_ENTRY	9
#define AT_UID		11
#define AT_EUID		12
#define AT_GID		13
#define AT_EGID		14
#define AT_PLATFORM	15
#define AT_HWCAP	16
#define AT_CLKTCK	17
#define AT_SECURE	23
#define AT_RANDOM	25
#define AT_EXECFN	31
#define AUXV_WORDS	(2 * 17)

/* Not a secret: xorshift on the cycle counter, for AT_RANDOM and getrandom. */
u64 lx_random(void)
{
	u64 x = lx()->random ^ vostd_cycles();

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	lx()->random = x;
	return x;
}

struct image {
	unsigned long entry, phdr, phnum, brk;
};

/*
 * One PT_LOAD segment, [start, end) once placed: the pages the file fills
 * whole are the file's own frames, shared copy-on-write (fs_map_pages);
 * the rest, the page where the file's part ends and the zeroed tail
 * (.bss), fresh frames with the file's bytes copied in.  A segment that
 * shares a page with another, or a file with no frames to spare, is all
 * copied.
 */
static long map_segment(struct proc *np, struct lx_node *nd, const Elf64_Phdr *ph,
			unsigned long bias, unsigned long start, unsigned long end, u8 prot)
{
	unsigned long file_end = ph->p_vaddr + bias + ph->p_filesz;
	unsigned long shared = max(start, file_end & ~PAGE_MASK_LOW), from;
	long err = -EEXIST;

	if (shared > start)
		err = fs_map_pages(nd, np, start, (ph->p_offset & ~PAGE_MASK_LOW) / PAGE,
				   (shared - start) / PAGE, prot);
	if (err && err != -EEXIST && err != -ENOMEM && err != -ENOSPC)
		return err;
	if (err)
		shared = start;		/* nothing shared: copy the whole segment */
	from = max(shared, ph->p_vaddr + bias);
	err = mem_map_anon(np, shared, end - shared, prot);
	if (!err && file_end > from) {
		long n = fs_copy_in(np, nd, from, ph->p_offset + (from - ph->p_vaddr - bias),
				    file_end - from);

		err = n < 0 ? n : (unsigned long)n != file_end - from ? -EIO : 0;
	}
	return err;
}

/* The ELF header and program headers, read from the file's start. */
struct elf_head {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	unsigned long size;		/* the file's, when they were read */
};

/*
 * The file's header and program headers into h, checked as Linux's
 * load_elf_binary checks them before it trusts them.
 */
static long read_head(struct lx_node *nd, struct elf_head *h)
{
	const Elf64_Ehdr *eh = &h->eh;
	unsigned long phsize;

	fs_lock();
	h->size = nd->size;
	fs_unlock();
	if (fs_read(NULL, nd, 0, sizeof(*eh), 0, &h->eh) != sizeof(*eh) ||
	    eh->e_ident[EI_MAG0] != ELFMAG0 ||
	    eh->e_ident[EI_MAG1] != ELFMAG1 || eh->e_ident[EI_MAG2] != ELFMAG2 ||
	    eh->e_ident[EI_MAG3] != ELFMAG3 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64 ||
	    (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum ||
	    eh->e_phnum > ARRAY_SIZE(h->ph) || eh->e_phoff > h->size ||
	    eh->e_phnum > (h->size - eh->e_phoff) / sizeof(Elf64_Phdr))
		return -ENOEXEC;
	phsize = eh->e_phnum * sizeof(Elf64_Phdr);
	if (fs_read(NULL, nd, eh->e_phoff, phsize, 0, h->ph) != (long)phsize)
		return -ENOEXEC;
	return 0;
}

/* Place the segments h names into np's empty space. */
static long place_elf(struct proc *np, struct lx_node *nd, const struct elf_head *h,
		      struct image *im)
{
	const Elf64_Ehdr *eh = &h->eh;
	unsigned long size = h->size, bias = 0, lo = ~0UL, hi = 0;
	const Elf64_Phdr *ph = h->ph;
	unsigned int i;
	long err;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP)
			return -ENOEXEC;	/* a dynamic executable: no interpreter here */
		if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz)
			continue;
		if (ph[i].p_filesz > ph[i].p_memsz || ph[i].p_offset > size ||
		    ph[i].p_filesz > size - ph[i].p_offset ||
		    ph[i].p_vaddr + ph[i].p_memsz < ph[i].p_vaddr ||
		    (ph[i].p_vaddr ^ ph[i].p_offset) & PAGE_MASK_LOW)
			return -ENOEXEC;
		lo = min(lo, ph[i].p_vaddr & ~PAGE_MASK_LOW);
		hi = max(hi, (unsigned long)(ph[i].p_vaddr + ph[i].p_memsz));
	}
	if (!hi)
		return -ENOEXEC;
	if (eh->e_type == ET_DYN)
		bias = LX_PIE_BASE - lo;
	if (!mem_in_region(lo + bias, hi - lo) || hi + bias + PAGE > LX_MMAP_BASE)
		return -ENOEXEC;	/* not where this kernel can put it */
	im->phdr = 0;
	for (i = 0; i < eh->e_phnum; i++, ph++) {
		unsigned long start, end;
		u8 prot = EV_PROT_READ;

		if (ph->p_type == PT_PHDR)
			im->phdr = ph->p_vaddr + bias;
		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		if (!im->phdr && ph->p_offset <= eh->e_phoff &&
		    eh->e_phoff - ph->p_offset < ph->p_filesz)
			im->phdr = ph->p_vaddr + (eh->e_phoff - ph->p_offset) + bias;
		if (ph->p_flags & PF_W)
			prot |= EV_PROT_WRITE;
		if (ph->p_flags & PF_X)
			prot |= EV_PROT_EXEC;
		start = (ph->p_vaddr + bias) & ~PAGE_MASK_LOW;
		end = (ph->p_vaddr + bias + ph->p_memsz + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
		err = map_segment(np, nd, ph, bias, start, end, prot);
		if (err)
			return err;
	}
	im->entry = eh->e_entry + bias;
	im->phnum = eh->e_phnum;
	im->brk = (hi + bias + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
	if (!mem_in_region(im->entry, 1))
		return -ENOEXEC;
	return 0;
}

/* Load the ELF file nd into np's empty space. */
static long load_elf(struct proc *np, struct lx_node *nd, struct image *im)
{
	struct elf_head *h = vostd_alloc(sizeof(*h), false);
	long err;

	if (!h)
		return -ENOMEM;
	err = read_head(nd, h) ?: place_elf(np, nd, h, im);
	vostd_free(h);
	return err;
}

/* The initial stack in np; the stack pointer the program starts with, and argv's bytes (args). */
static long build_stack(struct proc *np, const struct image *im, const char *path,
			const char *const *argv, const char *const *envp, unsigned long *sp,
			unsigned long *args)
{
	unsigned long argc = 0, envc = 0, top = LX_STACK_TOP - 16, i, words, at;
	unsigned long execfn, platform, random;
	u64 *vec, rnd[2] = { lx_random(), lx_random() };
	struct vma stack = { .start = LX_STACK_TOP - LX_STACK_MAX, .end = LX_STACK_TOP,
			     .prot = EV_PROT_READ | EV_PROT_WRITE, .flags = VMA_STACK };
	long err;

	/* The stack's area, its top filled now; the rest comes as it is touched. */
	err = mem_map_area(np, &stack, 0, 0, AREA_NOREPLACE, false);
	if (err < 0)
		return err;
	err = mem_advise(np, LX_STACK_TOP - LX_STACK_PAGES * PAGE, LX_STACK_PAGES * PAGE,
			 ADVISE_FILL);
	if (err)
		return err;
	while (argv[argc])
		argc++;
	while (envp[envc])
		envc++;
	words = 1 + argc + 1 + envc + 1 + AUXV_WORDS;
	vec = vostd_alloc(words * sizeof(u64), true);
	if (!vec)
		return -ENOMEM;
	/* The strings, from the top down. */
#define PUSH_STR(s, where) do {						\
		unsigned long n_ = fs_strlen(s) + 1;				\
		top -= n_;						\
		err = err ?: mem_user_copy(np, top, (void *)(s), n_, MEM_POKE); \
		where = top;						\
	} while (0)
	PUSH_STR(path, execfn);
	PUSH_STR("x86_64", platform);
	top = (top - 16) & ~15UL;
	random = top;
	err = err ?: mem_user_copy(np, random, rnd, sizeof(rnd), MEM_POKE);
	/* argv's strings from the last down, so that they lie in order: cmdline's bytes. */
	at = 1;
	args[1] = top;
	for (i = argc; i-- > 0;)
		PUSH_STR(argv[i], vec[at + i]);
	args[0] = top;
	at += argc + 1;
	for (i = 0; i < envc; i++)
		PUSH_STR(envp[i], vec[at + i]);
	at += envc + 1;
#undef PUSH_STR
	vec[0] = argc;
	{
		const u64 aux[AUXV_WORDS] = {
			AT_PHDR, im->phdr, AT_PHENT, sizeof(Elf64_Phdr), AT_PHNUM, im->phnum,
			AT_PAGESZ, PAGE, AT_BASE, 0, AT_FLAGS, 0, AT_ENTRY, im->entry,
			AT_UID, 0, AT_EUID, 0, AT_GID, 0, AT_EGID, 0, AT_SECURE, 0,
			AT_RANDOM, random, AT_EXECFN, execfn, AT_PLATFORM, platform,
			AT_CLKTCK, 100, AT_NULL, 0,
		};

		vostd_memcpy(vec + at, aux, sizeof(aux));
	}
	*sp = (top - words * sizeof(u64)) & ~15UL;
	if (*sp < LX_STACK_TOP - LX_STACK_PAGES * PAGE + PAGE)
		err = err ?: -E2BIG;
	err = err ?: mem_user_copy(np, *sp, vec, words * sizeof(u64), MEM_POKE);
	vostd_free(vec);
	return err;
}

/*
 * The process is named for its program, as Linux's comm is: the file's
 * last part, cut to 15 bytes.  The name is the process's own, so a log
 * line may read it while an exec writes it, and find at worst a mix of
 * two names, ended by the last byte, which stays 0.
 */
void lx_name(struct proc *p)
{
	struct lx_proc *lp = lxp(p);
	const char *s, *last = lp->exe;
	unsigned int i;

	for (s = lp->exe; *s; s++)
		if (*s == '/' && s[1])
			last = s + 1;
	for (i = 0; i < sizeof(lp->comm) - 1; i++) {
		WRITE_ONCE(lp->comm[i], *last);
		if (*last)
			last++;
	}
	p->name = lp->comm;
}

/*
 * Replace p's memory with the program at path; on success ctx starts it.
 * On failure p is untouched.
 */
long lx_exec(struct proc *p, struct ev_tenant_ctx *ctx, const char *path,
	     const char *const *argv, const char *const *envp)
{
	struct lx_proc *lp = lxp(p);
	char exe[LX_PATH_MAX];
	struct image im = {};
	unsigned long sp = 0, args[2] = {};
	struct lx_node *nd;
	struct proc *np;
	unsigned int i;
	long err;

	nd = fs_lookup_in(p, AT_FDCWD, path, LX_WALK_FOLLOW, &err);
	if (!nd)
		return err;
	/* Only a regular file with an execute bit runs, as for Linux's root. */
	if (!S_ISREG(nd->mode) || !(nd->mode & 0111)) {
		node_put(nd);
		return -EACCES;
	}
	np = vostd_alloc(sizeof(*np), true);
	if (!np) {
		node_put(nd);
		return -ENOMEM;
	}
	np->pid = p->pid;
	np->vs = vostd_vmspace_new();
	err = np->vs ? load_elf(np, nd, &im) : -ENOMEM;
	err = err ?: build_stack(np, &im, path, argv, envp, &sp, args);
	/* The file's own path, not /proc/self/exe's: a link names its target. */
	if (!err && fs_node_path(p, nd, exe, sizeof(exe)))
		vostd_memcpy(exe, path, fs_strlen(path) + 1);
	node_put(nd);
	if (err) {
		mem_release(np);
		vostd_free(np);
		return err;
	}
	/* The point of no return: the old memory goes, the new comes in. */
	kernelet_switch_mm(NULL);
	mem_release(p);
	mem_take(p, np);
	vostd_free(np);
	lp->brk_start = im.brk;
	lp->brk = im.brk;
	lp->arg_start = args[0];
	lp->arg_end = args[1];
	vostd_memcpy(lp->exe, exe, sizeof(exe));
	lx_name(p);
	/* Before the close on exec, which a parent may wait for: read by its setpgid. */
	WRITE_ONCE(lp->execed, true);
	lx_vfork_done(p);	/* a vfork's parent goes on */
	lx_close_on_exec(p);
	/* Handlers are the old program's: back to the default, but what is ignored stays so. */
	procs_lock();		/* senders read them under it */
	for (i = 0; i < LX_NSIG; i++)
		if (lp->act[i].handler != 1)
			lp->act[i] = (struct lx_sigaction){};
	procs_unlock();
	/*
	 * Every general register zero but the stack pointer, as Linux's loader
	 * leaves them (ELF_PLAT_INIT): rdx too, which names no function for
	 * atexit; FS's base zero, and the flags but IF, which tenant_run sets.
	 */
	*ctx = (struct ev_tenant_ctx){ .rip = im.entry, .rsp = sp };
	return 0;
}

/* Copy a NULL-terminated vector of strings in from the tenant. */
static long copy_vector(struct proc *p, unsigned long uvec, const char **vec, char *strs,
			unsigned int *used)
{
	unsigned int n = 0;

	if (!uvec) {
		vec[0] = NULL;
		return 0;
	}
	for (;;) {
		u64 ptr;

		if (mem_user_copy(p, uvec + n * 8, &ptr, 8, MEM_READ))
			return -EFAULT;
		if (!ptr)
			break;
		if (n + 1 >= LX_ARGS_MAX)
			return -E2BIG;
		vec[n++] = strs + *used;
		for (;;) {
			if (*used >= LX_STRS_MAX)
				return -E2BIG;
			if (mem_user_copy(p, ptr++, strs + *used, 1, MEM_READ))
				return -EFAULT;
			if (!strs[(*used)++])
				break;
		}
	}
	vec[n] = NULL;
	return 0;
}

struct exec_args {
	char path[LX_PATH_MAX];
	const char *argv[LX_ARGS_MAX], *envp[LX_ARGS_MAX];
	char strs[LX_STRS_MAX];
};

LX_PARTIAL(execve, "static ELF only (scripts, PT_INTERP: -ENOEXEC); -EAGAIN if threaded; 31 args");
LX_SYSCALL_DEFINE3(execve, unsigned long, upath, unsigned long, uargv, unsigned long, uenvp)
{
	struct vostd_fpu *fpu;
	struct exec_args *a;
	unsigned int used = 0;
	long err;

	/* Linux ends the other threads first; this kernel refuses instead. */
	if (READ_ONCE(t->p->threads) > 1) {
		vostd_println("linux: pid %ld: execve with %u threads is not supported",
			      t->p->pid, READ_ONCE(t->p->threads));
		return -EAGAIN;
	}
	/*
	 * The new program's FPU and vector registers are a new process's
	 * (Linux's fpu_flush_thread): a fresh context, made before lx_exec,
	 * since after its point of no return nothing may fail.
	 */
	a = vostd_alloc(sizeof(*a), false);
	fpu = a ? vostd_fpu_new(NULL) : NULL;
	if (!fpu) {
		vostd_free(a);
		return -ENOMEM;
	}
	err = fs_path_in(t->p, upath, a->path) ?:
	      copy_vector(t->p, uargv, a->argv, a->strs, &used) ?:
	      copy_vector(t->p, uenvp, a->envp, a->strs, &used) ?:
	      lx_exec(t->p, &t->ctx, a->path, a->argv, a->envp);
	vostd_free(a);
	if (err)
		vostd_fpu_destroy(fpu);
	else
		thread_set_fpu(t, fpu);
	if (!err) {	/* Linux's exec drops the alternate stack and the robust list too */
		t->altstack = (typeof(t->altstack)){};
		t->robust_list = 0;
		procs_lock();	/* and the POSIX timers (exit_itimers) */
		timers_clear_locked(lxp(t->p));
		procs_unlock();
	}
	return err;
}

/* p's first thread, on vCPU 0, in its list (signal.c) before it runs. */
static long lx_first_thread(struct proc *p, const struct ev_tenant_ctx *ctx)
{
	struct thread *t = thread_new(p, ctx, NULL, 0);

	return t ? lx_thread_run(t) : -ENOMEM;
}

/* The kernel's own first process: path with argv, on vCPU 0. */
struct proc *lx_spawn(const char *path, const char *const *argv)
{
	static const char *const envp[] = { "PATH=/bin", "HOME=/", "TERM=dumb", NULL };
	struct ev_tenant_ctx ctx = {};
	struct proc *p = proc_new(NULL);
	long err;

	if (!p)
		return NULL;
	p->kernel_waits = true;
	err = lx_proc_init(p, NULL) ?: lx_exec(p, &ctx, path, argv, envp);
	if (!err)
		err = lx_first_thread(p, &ctx);
	if (err < 0) {
		vostd_println("linux: cannot start %s: %ld", path, err);
		lx_proc_exit(p);
		proc_abandon(p);
		return NULL;
	}
	return p;
}
