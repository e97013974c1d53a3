// SPDX-License-Identifier: GPL-2.0
/*
 * sysvipc: System V IPC as Linux gives it, through glibc, on whatever
 * kernel runs it.  A shared memory segment attached, shared with a
 * fork's child, counted, detached and removed while attached; semaphore
 * sets changed by lists of operations applied whole or not at all,
 * sleepers counted and woken, SEM_UNDO taken back at exit, a removal
 * that wakes a sleeper; message queues by type, full and empty, a
 * receiver woken by a sender in another process; and the errors of
 * calls made wrongly.  It prints "sysvipc: ok" and exits 0 if everything
 * held, and names what did not otherwise.  The suite runs it on Linux
 * first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("sysvipc: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

static void check_err(long r, int err, const char *what)
{
	check(r == -1 && errno == err, what);
}

/* Let a child reach its sleep: a tenth of a second, several times over. */
static void settle(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < 3; i++)
		nanosleep(&ts, NULL);
}

static int child_status(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static void shm_tests(void)
{
	struct shmid_ds ds;
	time_t now = time(NULL);
	int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0640), id2;
	char *p, *q;
	pid_t pid;

	check(id >= 0, "shmget");
	check(shmctl(id, IPC_STAT, &ds) == 0, "shm IPC_STAT");
	check(ds.shm_segsz == 10000 && ds.shm_nattch == 0 && ds.shm_cpid == getpid() &&
	      ds.shm_lpid == 0 && (ds.shm_perm.mode & 0777) == 0640 && ds.shm_atime == 0 &&
	      ds.shm_ctime >= now && ds.shm_ctime <= now + 5, "shm IPC_STAT's fields");
	p = shmat(id, NULL, 0);
	check(p != (void *)-1, "shmat");
	if (p == (void *)-1)
		return;
	check(p[0] == 0 && p[9999] == 0 && p[12287] == 0, "a new segment reads zeros to its page's end");
	strcpy(p, "parent");
	check(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1 && ds.shm_lpid == getpid(),
	      "one attach counted");
	pid = fork();
	if (pid == 0) {
		int ok = !strcmp(p, "parent") && !shmctl(id, IPC_STAT, &ds) && ds.shm_nattch == 2;

		strcpy(p + 100, "child");
		_exit(ok ? 0 : 1);
	}
	check(child_status(pid) == 0, "a fork's child shares the attach, counted twice");
	check(!strcmp(p + 100, "child"), "the child's write is the parent's");
	check(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1, "the child's attach went with it");
	/* A second attach, and the errors of attaching where something is. */
	q = shmat(id, NULL, SHM_RDONLY);
	check(q != (void *)-1 && q != p && !strcmp(q, "parent"), "a second, read-only attach");
	check_err(mprotect(q, 4096, PROT_READ | PROT_WRITE), EACCES,
		  "a read-only attach made writable");
	check_err((long)shmat(id, p, 0), EINVAL, "shmat over an attach without SHM_REMAP");
	check_err((long)shmat(id, p + 1, 0), EINVAL, "shmat at an unaligned address");
	check(shmat(id, q + 1, SHM_RND | SHM_REMAP | SHM_RDONLY) == q, "SHM_RND|SHM_REMAP over itself");
	check(shmdt(q) == 0, "shmdt the second");
	check_err(shmdt(q), EINVAL, "shmdt where nothing is attached");
	check_err(shmdt(p + 1), EINVAL, "shmdt unaligned");
	/* Removed while attached: the memory stays until the detach. */
	check(shmctl(id, IPC_RMID, NULL) == 0, "shm IPC_RMID while attached");
	check(!strcmp(p, "parent"), "removed, still attached, still there");
	check(shmdt(p) == 0, "shmdt after IPC_RMID");
	check_err(shmctl(id, IPC_STAT, &ds), EINVAL, "the removed, detached segment is gone");
	/* Keys: made, found, refused. */
	key_t key = ftok("/", 'S');

	id = shmget(key, 4096, IPC_CREAT | 0600);
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);	/* a left-over of an earlier run */
	id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	check(id >= 0, "shmget with a key");
	check_err(shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600), EEXIST, "shmget IPC_EXCL again");
	id2 = shmget(key, 0, 0);
	check(id2 == id, "shmget of the key finds it");
	check_err(shmget(key, 8192, 0), EINVAL, "shmget larger than the segment");
	check(shmctl(id, IPC_RMID, NULL) == 0, "shm IPC_RMID");
	check_err(shmget(key, 0, 0), ENOENT, "shmget of a removed key");
	check_err(shmget(IPC_PRIVATE, 0, 0600), EINVAL, "shmget of 0 bytes");
	check_err(shmctl(id, IPC_STAT, &ds), EINVAL, "shmctl of a removed id");
	check_err(shmctl(-1, IPC_STAT, &ds), EINVAL, "shmctl of -1");
	id = shmget(IPC_PRIVATE, 4096, 0600);
	check_err(shmctl(id, IPC_STAT, NULL), EFAULT, "shm IPC_STAT to NULL");
	check_err(shmctl(id, 12345, &ds), EINVAL, "shmctl of an unknown command");
	check(shmctl(id, IPC_RMID, NULL) == 0, "shm IPC_RMID of a fresh one");
}

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static int semval(int id, int num)
{
	return semctl(id, num, GETVAL);
}

static int sem_do(int id, unsigned short num, short op, short flg)
{
	struct sembuf sb = { num, op, flg };

	return semop(id, &sb, 1);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void sem_tests(void)
{
	unsigned short vals[3] = { 1, 2, 3 }, got[3];
	struct sembuf two[2], many[501];
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct semid_ds ds;
	union semun arg;
	int id = semget(IPC_PRIVATE, 3, 0600);
	pid_t pid;

	check(id >= 0, "semget");
	arg.buf = &ds;
	check(semctl(id, 0, IPC_STAT, arg) == 0 && ds.sem_nsems == 3 && ds.sem_otime == 0 &&
	      (ds.sem_perm.mode & 0777) == 0600, "sem IPC_STAT");
	arg.array = vals;
	check(semctl(id, 0, SETALL, arg) == 0, "SETALL");
	arg.array = got;
	check(semctl(id, 0, GETALL, arg) == 0 && got[0] == 1 && got[1] == 2 && got[2] == 3, "GETALL");
	/* Two changes, the second of which cannot be made: neither is. */
	two[0] = (struct sembuf){ 0, -1, IPC_NOWAIT };
	two[1] = (struct sembuf){ 1, -5, IPC_NOWAIT };
	check_err(semop(id, two, 2), EAGAIN, "semop that would wait, IPC_NOWAIT");
	check(semval(id, 0) == 1 && semval(id, 1) == 2, "nothing applied of a list that failed");
	two[1].sem_op = -2;
	check(semop(id, two, 2) == 0 && semval(id, 0) == 0 && semval(id, 1) == 0, "both applied");
	check(semctl(id, 1, GETPID) == getpid(), "GETPID");
	check_err(sem_do(id, 2, 32767, 0), ERANGE, "past SEMVMX");
	check_err(sem_do(id, 3, 1, 0), EFBIG, "a counter past the set's");
	memset(many, 0, sizeof(many));
	check_err(semop(id, many, 501), E2BIG, "more than SEMOPM changes");
	check_err(semop(id, two, 0), EINVAL, "no changes");
	check_err(semtimedop(id, two, 1, &ts), EAGAIN, "semtimedop runs out");
	arg.val = 40000;
	check_err(semctl(id, 0, SETVAL, arg), ERANGE, "SETVAL past SEMVMX");
	check_err(semctl(id, 7, GETVAL), EINVAL, "GETVAL of a counter past the set's");
	/* A sleeper counted, and woken by another process's change. */
	pid = fork();
	if (pid == 0)
		_exit(sem_do(id, 0, -1, 0) == 0 ? 0 : 1);
	settle();
	check(semctl(id, 0, GETNCNT) == 1, "GETNCNT counts the sleeper");
	check(sem_do(id, 0, 1, 0) == 0, "the change that wakes it");
	check(child_status(pid) == 0 && semval(id, 0) == 0, "the sleeper took it");
	/* Waiting for zero. */
	arg.val = 1;
	semctl(id, 2, SETVAL, arg);
	pid = fork();
	if (pid == 0)
		_exit(sem_do(id, 2, 0, 0) == 0 ? 0 : 1);
	settle();
	check(semctl(id, 2, GETZCNT) == 1, "GETZCNT counts the sleeper");
	check(sem_do(id, 2, -1, 0) == 0 && child_status(pid) == 0, "woken at zero");
	/* SEM_UNDO: what a process added goes as it ends. */
	pid = fork();
	if (pid == 0)
		_exit(sem_do(id, 1, 5, SEM_UNDO) == 0 && semval(id, 1) == 5 ? 0 : 1);
	check(child_status(pid) == 0 && semval(id, 1) == 0, "SEM_UNDO taken back at exit");
	/* A signal ends the sleep with EINTR, SA_RESTART or not. */
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	check_err(sem_do(id, 0, -1, 0), EINTR, "semop cut short by a handler");
	/* Removed under a sleeper: EIDRM. */
	pid = fork();
	if (pid == 0)
		_exit(sem_do(id, 0, -1, 0) == -1 && errno == EIDRM ? 0 : 1);
	settle();
	check(semctl(id, 0, IPC_RMID) == 0, "sem IPC_RMID");
	check(child_status(pid) == 0, "the sleeper woke to EIDRM");
	check_err(semval(id, 0), EINVAL, "GETVAL of a removed set");
	/*
	 * SETALL of a set that is gone, from a megabyte that could be read:
	 * counting its counters once answered a number that was -EINVAL,
	 * and the copy ran over the kernel's stack.
	 */
	arg.array = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check(arg.array != MAP_FAILED, "a megabyte for SETALL");
	check_err(semctl(id, 0, SETALL, arg), EINVAL, "SETALL of a removed set");
	check_err(semctl(-1, 0, SETALL, arg), EINVAL, "SETALL of -1");
	munmap(arg.array, 1 << 20);
	check_err(semget(IPC_PRIVATE, 0, 0600), EINVAL, "semget of no counters");
	check_err(semget(IPC_PRIVATE, -1, 0600), EINVAL, "semget of -1 counters");
}

struct text {
	long type;
	char text[64];
};

static int msg_put(int id, long type, const char *s, int flg)
{
	struct text m = { type, "" };

	strcpy(m.text, s);
	return msgsnd(id, &m, strlen(s) + 1, flg);
}

static void msg_tests(void)
{
	struct msqid_ds ds;
	struct text m;
	int id = msgget(IPC_PRIVATE, 0600);
	pid_t pid;

	check(id >= 0, "msgget");
	check(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 0 && ds.msg_qbytes > 0 &&
	      ds.msg_lspid == 0, "msg IPC_STAT");
	check(msg_put(id, 3, "three", 0) == 0 && msg_put(id, 1, "one", 0) == 0 &&
	      msg_put(id, 2, "two", 0) == 0, "msgsnd");
	check(msgctl(id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 3 && ds.msg_cbytes == 14 &&
	      ds.msg_lspid == getpid(), "three queued");
	check(msgrcv(id, &m, sizeof(m.text), 2, 0) == 4 && m.type == 2 && !strcmp(m.text, "two"),
	      "msgrcv by type");
	check(msgrcv(id, &m, sizeof(m.text), -3, 0) == 4 && m.type == 1, "msgrcv of the lowest type");
	check_err(msgrcv(id, &m, 2, 0, 0), E2BIG, "msgrcv into too small a buffer");
	check(msgrcv(id, &m, 2, 0, MSG_NOERROR) == 2 && m.type == 3 && !memcmp(m.text, "th", 2),
	      "MSG_NOERROR cuts it");
	check_err(msgrcv(id, &m, sizeof(m.text), 0, IPC_NOWAIT), ENOMSG, "msgrcv of none");
	msg_put(id, 5, "five", 0);
	msg_put(id, 6, "six", 0);
	check(msgrcv(id, &m, sizeof(m.text), 5, MSG_EXCEPT) == 4 && m.type == 6, "MSG_EXCEPT");
	check(msgrcv(id, &m, sizeof(m.text), 0, 0) == 5 && m.type == 5, "the rest");
	/* Full: a sender waits, or is refused. */
	ds.msg_qbytes = 10;
	check(msgctl(id, IPC_SET, &ds) == 0, "msg IPC_SET");
	check(msg_put(id, 1, "123456789", 0) == 0, "fill the queue");
	check_err(msg_put(id, 1, "x", IPC_NOWAIT), EAGAIN, "msgsnd to a full queue");
	/* A receiver in another process sleeps until a message of its type. */
	pid = fork();
	if (pid == 0) {
		struct text r;

		_exit(msgrcv(id, &r, sizeof(r.text), 9, 0) == 5 && !strcmp(r.text, "nine") ? 0 : 1);
	}
	settle();
	check(msgrcv(id, &m, sizeof(m.text), 1, 0) == 10, "empty it");
	check(msg_put(id, 9, "nine", 0) == 0 && child_status(pid) == 0, "the sleeper got its type");
	check_err(msg_put(id, 0, "zero", 0), EINVAL, "msgsnd of type 0");
	check_err(msgsnd(id, &m, 100000, 0), EINVAL, "msgsnd past MSGMAX");
	check_err(msgrcv(id, &m, (size_t)-1, 0, IPC_NOWAIT), EINVAL, "msgrcv of a negative size");
	pid = fork();
	if (pid == 0)
		_exit(msgrcv(id, &m, sizeof(m.text), 0, 0) == -1 && errno == EIDRM ? 0 : 1);
	settle();
	check(msgctl(id, IPC_RMID, NULL) == 0, "msg IPC_RMID");
	check(child_status(pid) == 0, "the receiver woke to EIDRM");
	check_err(msg_put(id, 1, "gone", 0), EINVAL, "msgsnd to a removed queue");
}

int main(void)
{
	shm_tests();
	sem_tests();
	msg_tests();
	if (!failed)
		printf("sysvipc: ok\n");
	return failed;
}
