/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux: a kernel proper that speaks Linux's x86-64 system-call ABI, on
 * proc's processes (prototype/kernels/proc/: the process table, threads,
 * fork's copy-on-write, faults).  What is Linux's here: the ELF loader and
 * the initial stack (exec.c), the numbers, arguments and errno convention
 * of the system calls (syscall.c's table of syscalls.h's entries, each
 * defined in the file of what it works on: sys_*.c and the rest), and a
 * file system in memory (fs.c, its paths namei.c) whose first contents
 * are a cpio image (image.c), with the sandbox's log as the console
 * (console.c), devices (dev.c), open files and descriptors (fdtable.c)
 * and pipes (pipe.c).
 */
#ifndef LINUX_H
#define LINUX_H

#include <asm/resource.h>

#include "../proc/proc.h"

/*
 * From here on, the kernel proper's own code is built with -Wsign-compare
 * (Linux's headers above are not: their inline functions trip it).  A
 * conditional of an unsigned count and a negative errno has the count's
 * unsigned type; sem_count's once made -EINVAL a count of 2^32 - 22.
 */
#pragma GCC diagnostic warning "-Wsign-compare"

/* Where a process's memory goes, all inside the tenant region. */
#define LX_PIE_BASE	(EV_TENANT_BASE + 0x10000000UL)	/* a static-PIE's load address */
#define LX_BRK_MAX	(256UL << 20)			/* the heap brk may grow to */
#define LX_MMAP_BASE	(EV_TENANT_BASE + 0x100000000UL)
#define LX_STACK_TOP	(EV_TENANT_BASE + 0x800000000UL)
#define LX_STACK_MAX	(8UL << 20)	/* the stack's area: Linux's default RLIMIT_STACK */
#define LX_STACK_PAGES	64		/* its top, which exec fills; the rest comes when touched */
#define LX_MMAP_END	(LX_STACK_TOP - 0x10000000UL)
/*
 * Linux's TASK_SIZE_MAX, with four levels of page table: the end of user
 * space but for its last page.
 */
#define LX_USER_END	((1UL << 47) - PAGE)

/* What uname says the system is, and /proc/sys/kernel says again. */
#define LX_UTS_SYSNAME	"Linux"
#define LX_UTS_NODENAME	"endovisor"
#define LX_UTS_RELEASE	"6.12.0-endovisor"

/* Descriptors a process may have: Linux's default RLIMIT_NOFILE (INR_OPEN_CUR). */
#define LX_FDS		1024
#define LX_ARGS_MAX	32		/* argv or envp entries exec takes */
#define LX_STRS_MAX	4096		/* their bytes */
#define LX_PATH_MAX	256
#define LX_NSIG		64
#define LX_PROCS_MAX	EV_MAX_VMS	/* live processes: one per space a sandbox may have */
#define LX_THREADS_MAX	16		/* threads per process */
#define LX_CHUNK	256		/* bytes a read or write copies on the stack at once */

/*
 * A node of the file system (Linux's inode): a file, a directory, a
 * symbolic link or a device, in fs.c's tree.  It is counted: each entry
 * of a directory that names it, each open file, each process's working
 * directory and each call under way on it holds a reference, and the last
 * put frees it, so a file unlinked while open lives until its last close.
 * Every field but refs is under the file system's lock (fs_lock).
 */
struct lx_node {
	u32 refs;
	u32 nlink;			/* entries naming it; a directory: 2 + its subdirectories */
	u32 mode;			/* S_IF* and permissions */
	u32 uid, gid;
	u32 rdev;			/* a device's major << 8 | minor (dev.c) */
	unsigned long ino;
	unsigned long size;
	/*
	 * The contents: the image's bytes, until the first change, then a
	 * frame a page (NULL: a hole, read as zeros); a symbolic link's
	 * target is in data, its own if data_owned.
	 */
	const char *data;
	bool data_owned;
	struct frame **pages;
	unsigned long npages;		/* pages' length */
	/* Its shared maps' object (fs_shared), while one lives: no reference. */
	struct mem_shared *shm;
	/* A directory's parent; a file's, where it was last linked.  Holds a reference. */
	struct lx_node *parent;
	struct lx_dirent *ents;		/* a directory's entries, oldest first */
	u64 next_cookie;		/* the next entry's place in the directory */
	struct lx_lock *locks;		/* its POSIX record locks (locks.c) */
	u64 atime, mtime, ctime;	/* ns, on lx_now_ns's clock */
};

/* An entry of a directory: a name, and a reference to the node it names. */
struct lx_dirent {
	struct lx_dirent *next;
	struct lx_node *node;
	u64 cookie;			/* its place, which getdents64's position counts in */
	u8 len;
	char name[];			/* NUL-terminated */
};

/*
 * A task blocked on a pipe: a node on its own stack, linked into the
 * pipe's queue for its end while it waits.  A wake takes every node off the
 * queue; a task woken otherwise (a kill) takes its own off.
 */
struct lx_waiter {
	kl_tid_t tid;
	struct lx_waiter *next;
	bool queued;
};

struct lx_pipe {
	vostd_spinlock_t lock;
	char buf[4096];
	unsigned int head, len;
	u32 readers, writers;
	u32 keeps;			/* a socket's: it stays in memory (socket.c) */
	struct lx_waiter *reading, *writing;	/* blocked on it, each end */
};

struct lx_file;
struct lx_sock;

/*
 * What a stat finds, before stat or statx writes it in its own layout
 * (Linux's kstat); times in ns.
 */
struct lx_kstat {
	u64 dev, ino, nlink, rdev, size, blocks;
	u32 mode, uid, gid;
	u64 atime, mtime, ctime;
};

/*
 * What an open file does, by what it is (Linux's file_operations): a node
 * of the file system (sys_fs.c), a device (dev.c), the console
 * (console.c), an end of a pipe (pipe.c).  read's and write's off is
 * where a pread64 or pwrite64 works, or -1 for the file's position, which
 * moves on.  poll says what the file is ready for (POLL* bits) and, given
 * waiters (two of them: a socket queues one on each of its pipes, any
 * other file the first alone), queues them to be woken when that changes;
 * unpoll takes them off again.  A NULL poll is a file always ready to
 * read and write.  A file that cannot be read or
 * written was refused before by its O_ACCMODE; a NULL getdents64 is
 * -ENOTDIR, a NULL ioctl -ENOTTY for every request ioctl does not answer
 * for all files, a NULL release nothing to do.
 */
struct lx_file_ops {
	long (*read)(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		     long off);
	long (*write)(struct thread *t, struct lx_file *f, unsigned long buf, unsigned long len,
		      long off);
	long (*lseek)(struct lx_file *f, long off, long whence);
	long (*stat)(struct thread *t, struct lx_file *f, struct lx_kstat *ks);
	long (*getdents64)(struct thread *t, struct lx_file *f, unsigned long buf,
			   unsigned long len);
	unsigned int (*poll)(struct lx_file *f, struct lx_waiter *w);
	void (*unpoll)(struct lx_file *f, struct lx_waiter *w);
	long (*ioctl)(struct thread *t, struct lx_file *f, unsigned long cmd, unsigned long arg);
	void (*release)(struct lx_file *f);
};

extern const struct lx_file_ops lx_node_fops, lx_console_fops;
extern const struct lx_file_ops lx_pipe_read_fops, lx_pipe_write_fops;
extern const struct lx_file_ops lx_sock_fops;			/* socket.c */

/* pipe.c: a pipe's ring, for its files and for sockets' (socket.c) */
struct lx_pipe *lx_pipe_new(void);
void lx_pipe_drop(struct lx_pipe *pp, bool reader);
long lx_pipe_read(struct thread *t, struct lx_pipe *pp, unsigned long buf, unsigned long len,
		  bool nonblock);
long lx_pipe_write(struct thread *t, struct lx_pipe *pp, unsigned long buf, unsigned long len,
		   bool nonblock, bool sigpipe);
unsigned int lx_pipe_poll(struct lx_pipe *pp, bool reader, struct lx_waiter *w);
void lx_pipe_unpoll(struct lx_pipe *pp, bool reader, struct lx_waiter *w);
long lx_pipe_send_rec(struct thread *t, struct lx_pipe *pp, const void *name,
		      unsigned int namelen, const void *data, unsigned int len, bool nonblock);
long lx_pipe_recv_rec(struct thread *t, struct lx_pipe *pp, void *name, unsigned int *namelen,
		      void *data, unsigned int size, bool nonblock);
void lx_pipe_hold(struct lx_pipe *pp, bool reader);
void lx_pipe_keep(struct lx_pipe *pp, bool keep);
long lx_no_lseek(struct lx_file *f, long off, long whence);	/* sys_fs.c: -ESPIPE */
long lx_seek_base(struct lx_file *f, long whence);		/* sys_fs.c */
long lx_dirent_out(struct thread *t, unsigned long ubuf, unsigned long len, unsigned long *out,
		   u64 ino, s64 next, u8 type, const char *name, unsigned int nlen);

/*
 * An open file: counted by the descriptors that name it and the calls
 * under way on it (fd_get), freed at the last put.  An end of a pipe
 * holds its pipe open.
 */
struct lx_file {
	u32 refs;
	const struct lx_file_ops *ops;
	u32 flags;			/* O_* flags, as F_GETFL reads them */
	struct lx_node *node;		/* what it opened, with a reference; NULL: a pipe's end */
	unsigned long pos;		/* a file's offset; a directory's next entry */
	struct lx_pipe *pipe;
	void *priv;			/* what else a file is: an eventfd's counter */
	u64 id;				/* never another open file's: epoll's items name it */
};

/*
 * One descriptor a wait is on (poll.c, epoll.c): its file, held across
 * the wait, and its waiter.  poll gives POLLERR and POLLHUP whether asked
 * or not; select only what its sets ask.
 */
struct poll_ent {
	int fd;
	short events, always, revents;
	struct lx_file *f;
	struct lx_waiter w[2];	/* a socket waits on its two pipes; any other file on one */
};

long poll_files(struct thread *t, struct poll_ent *e, unsigned int n, s64 ns, u64 *left);
void poll_put(struct poll_ent *e, unsigned int n);
long poll_time_in(struct thread *t, unsigned long u, bool usec, s64 *ns);
long poll_mask_in(struct thread *t, unsigned long uset, unsigned long size);
void poll_mask_done(struct thread *t, long ret);

struct lx_sigaction {
	u64 handler, flags, restorer, mask;
};

/* A process's descriptors (Linux's files_struct). */
struct lx_fdtable {
	vostd_spinlock_t lock;		/* held in a guard, never across a sleep */
	struct lx_file *fd[LX_FDS];	/* each holds a reference; fdtable.c's FD_RESERVED: taken */
	u64 cloexec[LX_FDS / 64];	/* a bit per fd */
	unsigned int top;		/* past the highest fd ever given out: loops stop here */
};

#define LX_TIMERS_MAX	32		/* POSIX timers per process (timers.c) */

/* A POSIX timer: under the table's lock. */
struct lx_timer {
	bool used;
	s32 signo, notify;		/* its sigevent's */
	long tid;			/* SIGEV_THREAD_ID's thread */
	u64 value;			/* sigev_value, the signal's si_value */
	u64 at, every;			/* lx_now_ns's ns (0: disarmed), and the interval */
	u32 overrun, overrun_last;	/* expiries not sent; and at the last send */
};

/* A process's Linux state (struct proc's os). */
struct lx_proc {
	struct lx_fdtable files;
	unsigned long brk_start, brk;
	unsigned long arg_start, arg_end;	/* argv's strings, which exec put on the stack */
	struct lx_node *cwd;		/* the working directory, with a reference */
	struct lx_node *root;		/* its root (chroot), with a reference; both: fs_lock */
	char exe[LX_PATH_MAX];		/* the program it runs: /proc/self/exe */
	char comm[16];			/* its name (proc's name), the last byte always 0 */
	struct lx_sigaction act[LX_NSIG];	/* under the table's lock */
	u64 sigpending;			/* sent to the process, for any thread to take */
	struct lx_sigq *sigqueued;	/* real-time ones behind those (sigqueue.c) */
	bool stopped;			/* by a stop signal, until a SIGCONT (jobctl.c) */
	u32 conts;			/* SIGCONTs sent: a stop taken before one is void */
	struct ksiginfo siginfo[LX_NSIG];
	/* ITIMER_REAL (itimer.c): when, in lx_now_ns's ns (0: disarmed), and how often */
	u64 alarm_at, alarm_every;
	/*
	 * ITIMER_VIRTUAL's and ITIMER_PROF's (itimer.c), by which - 1: when,
	 * in the process's user or all CPU time in ns (0: disarmed), and how often
	 */
	u64 cpu_timer_at[2], cpu_timer_every[2];
	struct lx_timer timers[LX_TIMERS_MAX];
	u64 timer_next;			/* the earliest armed timer's at; 0: none */
	u32 umask;
	/* Resource limits, soft and hard (sys.c): NOFILE, AS, DATA, SIGPENDING acted on */
	u64 rlim[RLIM_NLIMITS][2];
	long pgid, sid;			/* its process group and session (sys.c) */
	bool execed;			/* it has run execve: setpgid moves it no more */
	kl_tid_t vfork_waiter;		/* a vfork's parent, until this child's exec or end */
	/* its live threads, under the table's lock (signal.c) */
	struct thread *threads[LX_THREADS_MAX];
	vostd_spinlock_t con_lock;	/* line and line_len, written by any of its threads */
	char line[200];			/* console output not yet ended by a newline */
	unsigned int line_len;
};

/*
 * System V IPC (ipc.c): shared memory segments (shm.c), semaphore sets
 * (sem.c) and message queues (msg.c), each kind a table of LX_IPC_IDS.
 */
#define LX_IPC_SHM	0
#define LX_IPC_SEM	1
#define LX_IPC_MSG	2
#define LX_IPC_KINDS	3
#define LX_IPC_IDS	64		/* objects of each kind per sandbox */

/*
 * What every SysV object has (Linux's kern_ipc_perm).  Its table holds a
 * reference, and so does each task that sleeps on it; every field but
 * refs is under ipc_lock.
 */
struct lx_ipc_obj {
	u32 refs;
	int kind, id;
	s32 key;
	u32 uid, gid, cuid, cgid, mode;
	u64 ctime;			/* seconds, on time()'s clock (ipc_now) */
	bool removed;			/* IPC_RMID: its sleepers end with -EIDRM */
	struct lx_waiter *waiters;	/* semop's, msgsnd's and msgrcv's sleepers */
};

struct lx_sem_undo;

static inline unsigned long page_up(unsigned long len)
{
	return (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
}

/* The endovisor's quotas run out as -ENOSPC: to a program, memory ran out. */
static inline long lx_mm_err(long err)
{
	return err == -ENOSPC ? -ENOMEM : err;
}

/*
 * What a transfer cut short answers: the bytes it moved, else err.  done
 * is unsigned, and so would `done ?: err` be, err included.
 */
static inline long lx_done_or(unsigned long done, long err)
{
	return done ? (long)done : err;
}

/* The sandbox's state: proc's table first, since procs() returns it. */
struct lx_globals {
	struct procs ps;
	vostd_spinlock_t fs_spin;	/* the file system's tree and every node (fs.c: fs_lock) */
	struct lx_node *root;
	unsigned long next_ino;
	u64 next_file_id;		/* the last open file's id (fdtable.c's file_new) */
	u32 fs_nodes;			/* nodes alive, against LX_FS_NODES */
	unsigned long fs_frames;	/* frames files hold, against LX_FS_FRAMES */
	struct lx_waiter *lock_waiters;	/* waiting for a record lock, under fs_lock */
	u64 calls[512];			/* system calls made, by number */
	u64 unknown;			/* calls past the table */
	u8 enosys_logged[512 / 8 + 1];	/* and one bit for every number past 511 */
	u64 random;			/* lx_random's state */
	bool trace;			/* log every call: a label that begins with strace */
	struct lx_futex_waiter *futexes;	/* every thread waiting on a futex (futex.c) */
	kl_tid_t ticker;		/* its task, 0: none yet or ended; LX_TICKER_MAKING */
	bool ticker_stop;		/* the sandbox ends: so does the ticker */
	vostd_spinlock_t sock_spin;	/* the named sockets and every socket's state (sock_lock) */
	struct lx_sock *socks;		/* the named sockets */
	struct lx_waiter *connecting;	/* connects waiting for room in a listener's queue */
	u32 next_port;			/* where sock_autobind_locked looks first */
	u32 socks_live;			/* sockets not yet freed: none at the sandbox's end */
	vostd_spinlock_t ipc_spin;	/* every SysV object (ipc.c: ipc_lock) */
	struct lx_ipc_obj *ipc[LX_IPC_KINDS][LX_IPC_IDS];
	u16 ipc_seq[LX_IPC_KINDS];	/* the last id's sequence, by kind */
	unsigned long msg_bytes;	/* messages queued, with their headers (msg.c) */
	u64 sigqueued;			/* real-time signals pending (sigqueue.c) */
	struct lx_sem_undo *sem_undos;	/* SEM_UNDO's adjustments, by process (sem.c) */
};

static inline struct lx_globals *lx(void)
{
	return (struct lx_globals *)procs();
}

static inline struct lx_proc *lxp(struct proc *p)
{
	return p->os;
}

/* image.c: the tree's first contents */
long fs_init(void);
void fs_exit(void);

/* fs.c: the tree, the contents of files, and paths */
#define LX_NAME_MAX	255
#define LX_FS_NODES	4096			/* nodes per sandbox */
#define LX_FS_FRAMES	(EV_GRANT_QUOTA / 2)	/* frames files may hold: half the grant */
#define LX_FILE_MAX	(256UL << 20)		/* a file's greatest size */
void fs_lock(void);
void fs_unlock(void);
void node_get(struct lx_node *nd);
void node_put(struct lx_node *nd);
struct lx_node *fs_node_new(u32 mode);
long fs_link_locked(struct lx_node *dir, const char *name, unsigned int len,
		    struct lx_node *nd);
struct lx_dirent *fs_find_locked(struct lx_node *dir, const char *name, unsigned int len);
void fs_unlink_locked(struct lx_node *dir, struct lx_dirent *e);
struct lx_node *fs_reparent_locked(struct lx_node *nd, struct lx_node *dir);
struct lx_node *fs_replace_locked(struct lx_node *dir, struct lx_dirent *e, struct lx_node *nd);
void fs_touch_locked(struct lx_node *nd, bool modified);
long fs_shared(struct lx_node *nd, unsigned long first, unsigned long n, struct mem_shared **out);
long fs_copy_in(struct proc *np, struct lx_node *nd, unsigned long va, unsigned long off,
		unsigned long len);
long fs_read(struct proc *p, struct lx_node *nd, unsigned long off, unsigned long len,
	     unsigned long va, void *kbuf);
long fs_write(struct proc *p, struct lx_node *nd, unsigned long *pos, unsigned long va,
	      unsigned long len, bool append);
long fs_truncate(struct lx_node *nd, unsigned long size);
long fs_map_pages(struct lx_node *nd, struct proc *np, unsigned long va, unsigned long first,
		  unsigned long n, u8 prot);
long fs_node_path(struct proc *p, struct lx_node *nd, char *buf, unsigned int size);
void fs_node_free_all(struct lx_node *root);
unsigned int fs_strlen(const char *s);
extern const char lx_zero_page[PAGE];

/* namei.c: paths, walked from a directory, symbolic links followed */
#define LX_WALK_FOLLOW	1		/* a link at the end is followed too */
#define LX_WALK_EMPTY	2		/* an empty path names the start (AT_EMPTY_PATH) */
struct lx_node *fs_walk_locked(struct lx_node *root, struct lx_node *start, const char *path,
			       bool follow, char *name, unsigned int *len, long *err);
struct lx_node *fd_node(struct proc *p, long fd, long *err);
struct lx_node *fs_lookup_in(struct proc *p, long dfd, const char *path, int how, long *err);
struct lx_node *fs_lookup_at(struct proc *p, long dfd, unsigned long upath, int how,
			     long *err);
int fs_at_walk(long flags);
long fs_mknod_in(struct proc *p, const char *path, u32 mode, struct lx_node **made);
struct lx_node *fs_parent_in(struct proc *p, long dfd, const char *path, char *name,
			     unsigned int *len, long *err);
struct lx_node *fs_parent_at(struct proc *p, long dfd, unsigned long upath, char *name,
			     unsigned int *len, long *err);
long fs_path_in(struct proc *p, unsigned long upath, char *path);	/* copy in */
bool fs_self_exe(const char *path);
bool fs_last_norm(const char *name, unsigned int len);

/* procfs.c: /proc/self's fd, maps (and exe, namei.c's) */
const char *proc_self(struct proc *p, const char *path);
long proc_open(struct thread *t, const char *rest, long flags);
long proc_readlink(struct thread *t, const char *rest, char *buf, unsigned int size);
long proc_stat(struct thread *t, const char *rest, struct lx_kstat *ks, bool follow);
const char *proc_file(struct proc *p, const char *path);
long proc_exists(struct thread *t, const char *rest);

/* locks.c: fcntl's record locks */
long lx_fcntl_lock(struct thread *t, struct lx_file *f, long cmd, unsigned long uarg);
void lx_locks_release(struct proc *p, struct lx_node *nd);

/* dev.c: the devices of /dev */
const struct lx_file_ops *dev_fops(u32 rdev);
bool dev_is_zero(const struct lx_file *f);

/* console.c: lx_console_fops */
void console_flush(struct proc *p);

/* fdtable.c */
struct lx_file *file_new(const struct lx_file_ops *ops);
void file_get(struct lx_file *f);
void file_put(struct lx_file *f);
void file_free_priv(struct lx_file *f);
long fd_reserve(struct proc *p, int from);
void fd_commit(struct proc *p, int fd, struct lx_file *f, bool cloexec);
void fd_set_cloexec(struct proc *p, int fd, bool on);
void fd_unreserve(struct proc *p, int fd);
long fd_install(struct proc *p, struct lx_file *f, int from, bool cloexec);
struct lx_file *fd_get(struct proc *p, long fd);
void fd_put(struct lx_file *f);
long fd_close(struct proc *p, long fd);
long lx_proc_init(struct proc *p, struct proc *parent);
void lx_rlimit_init(struct lx_proc *lp);			/* sys.c */
void lx_proc_exit(struct proc *p);
void lx_proc_free(struct proc *p);
void lx_close_on_exec(struct proc *p);

/* pipe.c: lx_pipe_read_fops, lx_pipe_write_fops */

/* sys_stat.c */
long lx_stat_fill(struct lx_kstat *ks, u32 mode, unsigned long ino, u32 rdev);
long lx_stat_node(struct lx_kstat *ks, struct lx_node *nd);

/* sys_proc.c */
long lx_thread_run(struct thread *c);
void lx_vfork_done(struct proc *p);

/* exec.c */
long lx_exec(struct proc *p, struct ev_tenant_ctx *ctx, const char *path,
	     const char *const *argv, const char *const *envp);
struct proc *lx_spawn(const char *path, const char *const *argv);
u64 lx_random(void);
void lx_name(struct proc *p);

/* syscall.c */
const char *syscall_name(unsigned long nr);

/* sys_signal.c */
void lx_kill(struct proc *p, long sig, const char *why, long from);

/* signal.c */
#define LX_SIGHUP	1
#define LX_SIGKILL	9
#define LX_SIGSEGV	11
#define LX_SIGPIPE	13
#define LX_SIGCHLD	17
#define LX_SIGCONT	18
#define LX_SIGSTOP	19
#define LX_SIG_DFL	0
#define LX_SIG_IGN	1
#define LX_SIGBIT(sig)	(1ULL << ((sig) - 1))
#define LX_UNBLOCKABLE	(LX_SIGBIT(LX_SIGKILL) | LX_SIGBIT(LX_SIGSTOP))
#define SI_USER		0
#define SI_KERNEL	0x80
#define SI_QUEUE	-1
#define SI_TIMER	-2
#define SI_TKILL	-6
#define LX_SEND_FATAL	1		/* lx_send_locked: the signal ends the process */
#define LX_SIGRTMIN	32		/* the first real-time signal: these queue */
#define LX_SIGQUEUE_MAX	1024		/* RLIMIT_SIGPENDING at first */

#define LX_SS_ONSTACK		1
#define LX_SS_DISABLE		2
#define LX_SS_AUTODISARM	BIT(31)
#define LX_MINSIGSTKSZ		2048

/* Linux's stack_t. */
struct lx_stack {
	u64 sp;
	s32 flags;
	u32 pad;
	u64 size;
};

long lx_thread_add(struct thread *t);
void lx_thread_remove(struct thread *t);
struct thread *lx_thread_find(struct proc *p, long tid);
struct proc *lx_pid_find(long pid);		/* sys.c */
int lx_send_locked(struct proc *p, struct thread *to, const struct ksiginfo *info,
		   int *kick);
void lx_send_done(struct proc *p, int sig, int ret, int kick, long from);

/*
 * Sends decided under the table's lock and finished after it (a kill's
 * targets, the ticker's): the processes a signal ends, each held by a
 * reference between, and the vCPUs to kick, one bit each.  It lives on
 * the sender's stack, hence no more than a process and a byte a send.
 */
struct lx_sends {
	unsigned int n;
	u8 sig[LX_PROCS_MAX];
	struct proc *fatal[LX_PROCS_MAX];
	u64 kicks;
};

void lx_sends_keep(struct lx_sends *s, struct proc *p, int sig, int ret, int kick);
void lx_sends_done(struct lx_sends *s, long from);
struct ksiginfo lx_sent_by(struct thread *t, int sig, int code);
bool lx_handler_ignores(u64 handler, int sig);
void lx_signal_thread(struct thread *t, int sig, int code);
int lx_child_exited(struct proc *p, bool *autoreap);
void lx_signal_wake(struct thread *t, int *kick);

/* jobctl.c */
void lx_prepare_locked(struct proc *p, int sig, int *kick);
void lx_stop_group(struct thread *t, int sig, u32 conts);
void lx_stop_wait(struct thread *t);
void lx_hup_orphans(struct proc *p);
void lx_itimer_check(struct thread *t);		/* itimer.c */
long lx_ticker_start(struct thread *t);
void lx_ticker_stop(void);
#define LX_TICKER_MAKING	((kl_tid_t)-1)	/* lx()->ticker while an arming makes it */
void timers_fire_locked(struct proc *c, u64 now, struct lx_sends *s);	/* timers.c */
void timers_clear_locked(struct lx_proc *lp);
void lx_recalc_locked(struct thread *t);
int lx_dequeue_locked(struct thread *t, u64 allowed, struct ksiginfo *info);
void lx_set_mask(struct thread *t, u64 mask);
int lx_sigq_send_locked(u64 *pending, struct lx_sigq **q, struct ksiginfo *slots,
			struct proc *p, const struct ksiginfo *info);	/* sigqueue.c */
void lx_sigq_take_locked(u64 *pending, struct lx_sigq **q, struct ksiginfo *slots, int sig,
			 struct ksiginfo *info);
void lx_sigq_drop_locked(u64 *pending, struct lx_sigq **q, u64 bits);
void lx_deliver(struct thread *t);
bool lx_trap_signal(struct thread *t, u32 sig, int code, unsigned long addr);
void lx_syscall_done(struct thread *t, unsigned long nr, long ret);
bool lx_on_altstack(struct thread *t, unsigned long sp);
s32 lx_altstack_flags(struct thread *t, unsigned long sp);
long lx_set_altstack(struct thread *t, struct lx_stack *ss);	/* sys_signal.c */

/* sys_time.c */
#define NS_PER_SEC	1000000000ULL
/* The longest sleep: a longer one ends after it (about 32 years). */
#define LX_SLEEP_MAX_S	1000000000ULL
u64 lx_now_ns(void);
u64 lx_cycles_at(u64 ns);
/* A tick of the guest's Linux (CONFIG_HZ 250): its coarse clocks' resolution */
#define LX_TICK_NS	(NS_PER_SEC / 250)

/* cputime.c */
#define LX_RUSAGE_WORDS	18		/* Linux's struct rusage, in u64s */
void lx_proc_cpu_locked(struct proc *p, struct proc_cpu *cpu);
long lx_clock_read(struct thread *t, s32 clk, bool gettime, u64 *ns);
void lx_rusage(const struct proc_cpu *cpu, u64 ru[LX_RUSAGE_WORDS]);

/* ipc.c, and each kind's file */
u64 ipc_now(void);
void ipc_lock(void);
void ipc_unlock(void);
void ipc_hold(struct lx_ipc_obj *o);
void ipc_put(struct lx_ipc_obj *o);
struct lx_ipc_obj *ipc_find_locked(int kind, int id);
long ipc_get(int kind, s32 key, int flg, struct lx_ipc_obj *fresh, long fresh_err,
	     long (*fits)(struct lx_ipc_obj *o, unsigned long want), unsigned long want);
void ipc_remove_locked(struct lx_ipc_obj *o);
struct ipc64_perm;
void ipc_perm_out(const struct lx_ipc_obj *o, struct ipc64_perm *out);
void ipc_perm_in(struct lx_ipc_obj *o, const struct ipc64_perm *in);
long ipc_wait_locked(struct thread *t, struct lx_ipc_obj *o, u64 deadline);
void ipc_exit(void);
void shm_obj_free(struct lx_ipc_obj *o);
void sem_obj_free(struct lx_ipc_obj *o);
void msg_obj_free(struct lx_ipc_obj *o);
void sem_proc_exit(struct proc *p);

/* sleep.c */
void lx_queue(struct lx_waiter **q, struct lx_waiter *w);
void lx_unqueue(struct lx_waiter **q, struct lx_waiter *w);
void lx_wake_all(struct lx_waiter **q);
void lx_block_on(struct thread *t, vostd_spinlock_t *lock, struct lx_waiter **q);
void lx_sleep_until(struct thread *t, const bool *flag, bool until, u64 deadline);
void lx_sleeping(struct thread *t);
void lx_awake(struct thread *t);
void lx_wake_sleepers(struct proc *p);
void lx_wake_sleepers_locked(struct proc *p);

/* futex.c */
void lx_thread_exit(struct thread *t);

#endif /* LINUX_H */
