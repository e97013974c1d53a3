// SPDX-License-Identifier: GPL-2.0
/*
 * threads: glibc's threads, unmodified, on whatever kernel runs it.  Four
 * threads add to a counter under a mutex held across a yield, so that the
 * others wait for it on a futex; two threads pass a turn back and forth
 * through a condition variable; each thread keeps a thread-local variable
 * of its own (its FS base); thread ids are the pid for the first thread
 * and distinct for the rest; and a process ends as a whole when one of its
 * threads calls exit, or when it is killed, while its other threads sleep;
 * and a robust mutex whose owner ends holding it comes to the next locker
 * with EOWNERDEAD, whether that locker was waiting for it or came after,
 * plain or priority-inheritance; and a priority-inheritance mutex is
 * contended, tried and relocked, and comes to its sleeper, marked, when its
 * owner ends; and a futex's waiter, moved to another
 * word by FUTEX_CMP_REQUEUE, is woken there by FUTEX_WAKE_OP and not at
 * its first word.
 * It prints "threads: ok" and exits 0 if everything held, and names what
 * did not otherwise.  The suite runs it on Linux and in the sandbox.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ADDERS		4
#define ADDS		2000
#define TURNS		200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn;
static __thread long mine;
static long tids[ADDERS];
static pthread_mutex_t robust;
static volatile int robust_held;
static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("threads: FAIL %s\n", what);
		failed = 1;
	}
}

/* Adds ADDS times under the lock; returns its own thread-local count. */
static void *adder(void *arg)
{
	long id = (long)arg, i;

	mine = id * 100000;
	tids[id] = syscall(SYS_gettid);
	for (i = 0; i < ADDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		if (i % 64 == 0)
			sched_yield();	/* the others meet a held lock */
		pthread_mutex_unlock(&lock);
		mine++;
	}
	return (void *)mine;
}

/* Takes the turn from the main thread and gives it back, TURNS times. */
static void *ponger(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < TURNS; i++) {
		pthread_mutex_lock(&lock);
		while (turn != 1)
			pthread_cond_wait(&cond, &lock);
		turn = 0;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* Sleeps on a condition nobody signals. */
static void *sleeper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&cond, &lock);
	return NULL;
}

/* Ends the whole process from a thread that is not the first. */
static void *exiter(void *arg)
{
	(void)arg;
	exit(9);
}

/* Writes through a null pointer the compiler cannot see is null. */
static void *crasher(void *arg)
{
	volatile int *volatile null = NULL;

	(void)arg;
	usleep(10000);
	*null = 1;
	return NULL;
}

/* Waits for any child; with two of these, two threads wait at once. */
static void *waiter(void *arg)
{
	(void)arg;
	wait(NULL);
	return NULL;
}

/*
 * A child whose first thread waits for a sleeper that never ends, while
 * a third thread ends the process (how = 'e'), or the first thread ends
 * it itself (how = 'm'), or its parent kills it (how = 'k'), or a third
 * thread crashes (how = 'c'), or two threads wait for a grandchild while
 * a third ends the process (how = 'w'): the status its parent sees.
 */
static int child_status(char how)
{
	int status = -1, ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		pthread_t s, e;

		/* A fresh lock: the parent's may have been copied held. */
		pthread_mutex_init(&lock, NULL);
		pthread_cond_init(&cond, NULL);
		pthread_create(&s, NULL, sleeper, NULL);
		if (how == 'e')
			pthread_create(&e, NULL, exiter, NULL);
		if (how == 'm')
			exit(7);
		if (how == 'c')
			pthread_create(&e, NULL, crasher, NULL);
		if (how == 'w') {
			pthread_t w1, w2;

			if (fork() == 0) {
				usleep(200000);
				_exit(0);
			}
			pthread_create(&w1, NULL, waiter, NULL);
			pthread_create(&w2, NULL, waiter, NULL);
			usleep(20000);
			exit(5);
		}
		write(ready[1], "r", 1);
		pthread_join(s, NULL);
		_exit(1);	/* not reached: nothing ends the sleeper */
	}
	close(ready[1]);
	if (how == 'k') {
		/* Once the child says it is about to join, both its threads sleep soon. */
		check(read(ready[0], &c, 1) == 1, "the child did not start");
		usleep(10000);
		kill(pid, SIGTERM);
	}
	close(ready[0]);
	waitpid(pid, &status, 0);
	return status;
}

static int word_a, word_b;
static long waited = -1;

static long futex(int *uaddr, int op, int val, long val2, int *uaddr2, int val3)
{
	return syscall(SYS_futex, uaddr, op, val, val2, uaddr2, val3);
}

static pthread_mutex_t pi;
static long pi_counter;
static int pi_word;

/* Adds under the priority-inheritance mutex, holding it across a yield. */
static void *pi_adder(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 2000; i++) {
		pthread_mutex_lock(&pi);
		pi_counter++;
		if (!(i % 64))
			sched_yield();	/* the other thread finds it held, and sleeps */
		pthread_mutex_unlock(&pi);
	}
	return NULL;
}

static void *pi_trier(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_trylock(&pi);
}

/*
 * A priority-inheritance mutex (FUTEX_LOCK_PI, FUTEX_UNLOCK_PI): two
 * threads contend, a trylock of a held one is EBUSY, a relock of an
 * error-checking one EDEADLK.
 */
static void pi_mutexes(void)
{
	pthread_mutexattr_t a;
	pthread_t x, y;
	void *r;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	check(!pthread_mutex_init(&pi, &a), "pthread_mutex_init of a PI mutex");
	check(!pthread_create(&x, NULL, pi_adder, NULL) && !pthread_create(&y, NULL, pi_adder, NULL),
	      "pthread_create");
	check(!pthread_join(x, NULL) && !pthread_join(y, NULL), "pthread_join");
	check(pi_counter == 4000, "the PI mutex let two threads in");
	check(!pthread_mutex_lock(&pi), "a PI mutex locks");
	check(pthread_mutex_lock(&pi) == EDEADLK, "a PI mutex relocked by its owner is not EDEADLK");
	check(!pthread_create(&x, NULL, pi_trier, NULL) && !pthread_join(x, &r) && (long)r == EBUSY,
	      "a held PI mutex's trylock is not EBUSY");
	check(!pthread_mutex_unlock(&pi), "a PI mutex unlocks");
	check(pthread_mutex_unlock(&pi) == EPERM, "an unlocked PI mutex's unlock is not EPERM");
	check(syscall(SYS_futex, &pi_counter, FUTEX_LOCK_PI | FUTEX_CLOCK_REALTIME, 0, NULL) == -1 &&
	      errno == ENOSYS, "FUTEX_LOCK_PI with FUTEX_CLOCK_REALTIME is not ENOSYS");
}

/*
 * Owns pi_word, as a user-space lock does, until the first thread sleeps
 * on it; then marks it as musl's pthread_exit marks a robust mutex its
 * thread ends holding (no owner, the owner died) and ends.
 */
static void *pi_word_owner(void *arg)
{
	int i;

	(void)arg;
	__atomic_store_n(&pi_word, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (i = 0; i < 100000 && !(__atomic_load_n(&pi_word, __ATOMIC_SEQ_CST) & FUTEX_WAITERS); i++)
		sched_yield();
	__atomic_exchange_n(&pi_word, FUTEX_OWNER_DIED, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * The sleeper on a priority-inheritance lock whose owner ends gets it,
 * marked that its owner died, though the owner cleared its tid from the
 * word first: the kernel knows the owner it slept for, as Linux's
 * pi_state does.
 */
static void pi_owner_ends(void)
{
	pthread_t x;
	int tid = (int)syscall(SYS_gettid);

	check(!pthread_create(&x, NULL, pi_word_owner, NULL), "pthread_create of the PI word's owner");
	while (!__atomic_load_n(&pi_word, __ATOMIC_SEQ_CST))
		sched_yield();
	check(futex(&pi_word, FUTEX_LOCK_PI_PRIVATE, 0, 0, NULL, 0) == 0,
	      "FUTEX_LOCK_PI after its owner ended");
	check((pi_word & FUTEX_TID_MASK) == tid && (pi_word & FUTEX_OWNER_DIED),
	      "a PI lock whose owner ended is not its sleeper's, marked");
	check(!pthread_join(x, NULL), "pthread_join of the PI word's owner");
}

/* Takes the robust mutex and ends holding it, after a while if asked. */
static void *robust_owner(void *wait)
{
	pthread_mutex_lock(&robust);
	__atomic_store_n(&robust_held, 1, __ATOMIC_SEQ_CST);
	if (wait)
		usleep(50000);	/* long enough for the first thread to wait on it */
	return NULL;
}

/*
 * A robust mutex's owner ends holding it: the kernel walks the list glibc
 * gave it (set_robust_list), marks the mutex's word, and wakes a waiter.
 */
static void robust_mutexes(int protocol)
{
	pthread_mutexattr_t a;
	pthread_t o;
	long wait;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_setprotocol(&a, protocol);
	pthread_mutex_init(&robust, &a);
	for (wait = 0; wait < 2; wait++) {
		robust_held = 0;
		check(!pthread_create(&o, NULL, robust_owner, (void *)wait), "pthread_create");
		if (!wait)
			check(!pthread_join(o, NULL), "pthread_join of a robust mutex's owner");
		while (!__atomic_load_n(&robust_held, __ATOMIC_SEQ_CST))
			sched_yield();
		check(pthread_mutex_lock(&robust) == EOWNERDEAD,
		      wait ? "a waiter was not told its robust mutex's owner died" :
			     "a robust mutex's owner died and the next lock did not say so");
		check(!pthread_mutex_consistent(&robust), "pthread_mutex_consistent");
		check(!pthread_mutex_unlock(&robust), "unlock of a consistent robust mutex");
		if (wait)
			check(!pthread_join(o, NULL), "pthread_join of a robust mutex's owner");
	}
	check(!pthread_mutex_lock(&robust) && !pthread_mutex_unlock(&robust),
	      "a robust mutex made consistent locks again");
}

static void *word_waiter(void *arg)
{
	(void)arg;
	waited = futex(&word_a, FUTEX_WAIT_PRIVATE, 0, 0, NULL, 0);
	return NULL;
}

/*
 * A waiter on word_a moved to word_b, as a condition variable hands its
 * waiters to its mutex: a wake of word_a finds nobody, and FUTEX_WAKE_OP,
 * setting word_b to 1 and seeing 0 before, wakes it there.
 */
static void futex_requeue_and_wake_op(void)
{
	pthread_t w;
	long moved = 0;
	int i;

	check(!pthread_create(&w, NULL, word_waiter, NULL), "pthread_create of the word waiter");
	for (i = 0; i < 10000 && moved == 0; i++) {
		moved = futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 0, 1, &word_b, 0);
		if (moved == 0)
			sched_yield();
	}
	check(moved == 1, "FUTEX_CMP_REQUEUE did not move the waiter");
	check(futex(&word_a, FUTEX_WAKE_PRIVATE, 1, 0, NULL, 0) == 0,
	      "a wake of the first word found a moved waiter");
	check(futex(&word_a, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word_b,
		    FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0)) == 1,
	      "FUTEX_WAKE_OP did not wake the moved waiter");
	check(!pthread_join(w, NULL), "pthread_join of the word waiter");
	check(waited == 0 && word_b == 1, "the moved waiter or FUTEX_WAKE_OP's word is wrong");
}

int main(void)
{
	pthread_t t[ADDERS], p;
	long i, j;
	void *ret;
	int st;

	check(syscall(SYS_gettid) == getpid(), "the first thread's id is not the pid");
	mine = -1;
	for (i = 0; i < ADDERS; i++)
		check(!pthread_create(&t[i], NULL, adder, (void *)i), "pthread_create");
	for (i = 0; i < ADDERS; i++) {
		check(!pthread_join(t[i], &ret), "pthread_join");
		check((long)ret == i * 100000 + ADDS, "a thread-local variable is shared");
	}
	check(counter == ADDERS * ADDS, "the mutex let two threads in");
	check(mine == -1, "the first thread's thread-local variable changed");
	for (i = 0; i < ADDERS; i++) {
		check(tids[i] > 0 && tids[i] != getpid(), "a thread's id is the pid");
		for (j = 0; j < i; j++)
			check(tids[i] != tids[j], "two threads have one id");
	}

	check(!pthread_create(&p, NULL, ponger, NULL), "pthread_create");
	for (i = 0; i < TURNS; i++) {
		pthread_mutex_lock(&lock);
		turn = 1;
		pthread_cond_broadcast(&cond);
		while (turn != 0)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	check(!pthread_join(p, NULL), "pthread_join of the ponger");

	robust_mutexes(PTHREAD_PRIO_NONE);
	robust_mutexes(PTHREAD_PRIO_INHERIT);
	pi_mutexes();
	pi_owner_ends();
	futex_requeue_and_wake_op();
	st = child_status('e');
	check(WIFEXITED(st) && WEXITSTATUS(st) == 9, "exit in a thread did not end the process with 9");
	st = child_status('m');
	check(WIFEXITED(st) && WEXITSTATUS(st) == 7, "exit in the first thread did not end the process with 7");
	st = child_status('k');
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "a kill did not end a process of sleeping threads");
	st = child_status('c');
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "a thread's crash did not end a process of sleeping threads");
	st = child_status('w');
	check(WIFEXITED(st) && WEXITSTATUS(st) == 5, "exit did not end a process with two threads in wait");

	printf("threads: %s counter=%ld turns=%d\n", failed ? "FAIL" : "ok", counter, TURNS);
	return failed;
}
