// SPDX-License-Identifier: GPL-2.0
/*
 * files: a writable file system, through glibc, on whatever kernel runs
 * it.  In a directory of its own under /tmp: files created, written,
 * appended to, read back, truncated, made sparse and sought past 2 GiB;
 * unlinked while open and still read; renamed, over another and not into
 * themselves; hard and symbolic links, a link in the middle of a path;
 * directories made, listed, refused when full and removed, the working
 * directory among them; times set and left; the file system's statfs;
 * stdio over files (fdopen, fscanf, ungetc, ftello after an append,
 * tmpfile); a file's position shared with a child; the devices; a
 * program copied into a file and run from it; record locks (fcntl's
 * F_GETLK, F_SETLK and F_SETLKW) between a parent and a child, and
 * dropped at the close of any descriptor of the file; /proc/self's fd
 * directory and its links, and maps, which pthread_getattr_np reads; and
 * /proc's root, cmdline, osrelease and what /proc refuses.  With the argument
 * "sandbox" it checks what a kernel may leave out (O_TMPFILE, which the
 * guest's own root may not have) and the sandbox's bound on files' frames.
 * It prints "files: ok" and exits 0 if everything held, and names what
 * did not otherwise.  The suite runs it on Linux first.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed, strict;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("files: FAIL %s (errno %d)\n", what, errno);
		failed = 1;
	}
}

/* A call that must fail with want. */
static void check_err(long r, int want, const char *what)
{
	if (r != -1 || errno != want) {
		printf("files: FAIL %s: %ld, errno %d, want %d\n", what, r, errno, want);
		failed = 1;
	}
}

static long size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	check(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s), path);
	close(fd);
}

static int has(const char *path, const char *s)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	close(fd);
	return n == (ssize_t)strlen(s) && !memcmp(buf, s, n);
}

/* Create, write, read back, append, truncate, seek. */
static void contents(void)
{
	char buf[64], zeros[8] = { 0 };
	struct stat st;
	int fd;

	umask(022);
	fd = open("a", O_RDWR | O_CREAT | O_EXCL, 0666);
	check(fd >= 0, "open O_CREAT|O_EXCL");
	check(write(fd, "hello", 5) == 5, "write");
	check(fstat(fd, &st) == 0 && st.st_size == 5 && S_ISREG(st.st_mode) &&
	      (st.st_mode & 07777) == 0644 && st.st_nlink == 1, "fstat of a new file");
	check(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, 64) == 5 && !memcmp(buf, "hello", 5),
	      "read back");
	check(read(fd, buf, 64) == 0, "read at the end");
	check_err(open("a", O_RDWR | O_CREAT | O_EXCL, 0666), EEXIST, "O_EXCL of a file there");
	check(pwrite(fd, "J", 1, 0) == 1 && pread(fd, buf, 5, 0) == 5 && !memcmp(buf, "Jello", 5),
	      "pwrite and pread");
	close(fd);

	fd = open("a", O_WRONLY | O_APPEND);
	check(fd >= 0 && write(fd, "!", 1) == 1 && lseek(fd, 0, SEEK_CUR) == 6, "O_APPEND");
	/* Linux appends a pwrite to an O_APPEND file, whatever its offset. */
	check(pwrite(fd, "?", 1, 0) == 1 && size_of("a") == 7, "pwrite with O_APPEND");
	close(fd);
	check(has("a", "Jello!?"), "what the appends left");

	fd = open("a", O_RDWR | O_TRUNC);
	check(fd >= 0 && size_of("a") == 0, "O_TRUNC");
	check(write(fd, "abcdefgh", 8) == 8 && ftruncate(fd, 3) == 0 && size_of("a") == 3,
	      "ftruncate down");
	check(ftruncate(fd, 10) == 0 && pread(fd, buf, 64, 0) == 10 && !memcmp(buf, "abc", 3) &&
	      !memcmp(buf + 3, zeros, 7), "ftruncate up reads zeros");
	check_err(ftruncate(fd, -1), EINVAL, "ftruncate to a negative size");
	/* Sparse: a write far past the end, the gap read as zeros. */
	check(pwrite(fd, "z", 1, (1 << 20) + 5) == 1 && size_of("a") == (1 << 20) + 6,
	      "a write past the end");
	check(pread(fd, buf, 8, 4096) == 8 && !memcmp(buf, zeros, 8), "a hole reads zeros");
	check(lseek(fd, 0x80000001L, SEEK_SET) == 0x80000001L &&
	      lseek(fd, 1, SEEK_CUR) == 0x80000002L, "lseek past 2 GiB");
	check(lseek(fd, 0, SEEK_END) == (1 << 20) + 6, "SEEK_END");
	check_err(lseek(fd, -1, SEEK_SET), EINVAL, "lseek before the start");
	close(fd);
	check(truncate("a", 2) == 0 && has("a", "ab"), "truncate by path");
	check_err(truncate(".", 0), EISDIR, "truncate of a directory");
	check_err(open("a/", O_RDONLY), ENOTDIR, "a file with a slash after it");
	check_err(open(".", O_RDWR), EISDIR, "a directory opened to write");
	check_err(open(".", O_CREAT | O_RDONLY, 0644), EISDIR, "O_CREAT of a directory");
	check_err(open("a", O_RDONLY | O_DIRECTORY), ENOTDIR, "O_DIRECTORY of a file");
	check_err(open("nothing", O_RDONLY), ENOENT, "a file that is not there");
	check_err(open("nodir/x", O_RDWR | O_CREAT, 0644), ENOENT, "O_CREAT in no directory");
	check(fsync(STDIN_FILENO) == -1 && errno == EINVAL, "fsync of the console");
	fd = open("a", O_RDONLY);
	check(fsync(fd) == 0 && fdatasync(fd) == 0, "fsync of a file");
	close(fd);
}

/* A file unlinked while open lives until its last close. */
static void unlinked(void)
{
	struct stat st;
	char buf[8];
	int fd = open("u", O_RDWR | O_CREAT, 0600);

	check(fd >= 0 && write(fd, "alive", 5) == 5, "a file to unlink");
	check(unlink("u") == 0, "unlink");
	check_err(stat("u", &st), ENOENT, "stat after unlink");
	check(fstat(fd, &st) == 0 && st.st_nlink == 0 && st.st_size == 5, "fstat after unlink");
	check(pread(fd, buf, 5, 0) == 5 && !memcmp(buf, "alive", 5), "read after unlink");
	check(write(fd, "!", 1) == 1, "write after unlink");
	close(fd);
	check_err(unlink("u"), ENOENT, "unlink twice");
	check_err(unlink("."), EISDIR, "unlink of .");
}

/* Names: rename, link, symlink, directories. */
static void names(void)
{
	char buf[PATH_MAX];
	struct stat st, st2;
	int fd;

	put("r1", "one");
	put("r2", "two");
	check(rename("r1", "r3") == 0 && has("r3", "one") && size_of("r1") == -1, "rename");
	check(rename("r3", "r2") == 0 && has("r2", "one") && size_of("r3") == -1,
	      "rename over a file");
	check(rename("r2", "r2") == 0 && has("r2", "one"), "rename onto itself");
	check_err(rename("r9", "r8"), ENOENT, "rename of nothing");
	check(mkdir("d", 0755) == 0 && stat("d", &st) == 0 && S_ISDIR(st.st_mode) &&
	      st.st_nlink == 2, "mkdir");
	check_err(mkdir("d", 0755), EEXIST, "mkdir of a directory there");
	check_err(mkdir("r2", 0755), EEXIST, "mkdir of a file there");
	check(mkdir("d/e", 0700) == 0 && stat("d", &st) == 0 && st.st_nlink == 3,
	      "a subdirectory counts in its parent's links");
	check_err(rename("d", "d/e/f"), EINVAL, "a directory into itself");
	check_err(rename("r2", "d"), EISDIR, "a file over a directory");
	check_err(rename("d", "r2"), ENOTDIR, "a directory over a file");
	check_err(rmdir("d"), ENOTEMPTY, "rmdir of a full directory");
	check_err(rmdir("r2"), ENOTDIR, "rmdir of a file");
	check_err(rmdir("."), EINVAL, "rmdir of .");
	check(rename("d/e", "e") == 0 && stat("d", &st) == 0 && st.st_nlink == 2 &&
	      stat("e", &st) == 0 && S_ISDIR(st.st_mode), "a directory moved up");
	check(rmdir("e") == 0 && rmdir("d") == 0 && size_of("d") == -1, "rmdir");

	check(link("r2", "l2") == 0 && stat("r2", &st) == 0 && st.st_nlink == 2 &&
	      stat("l2", &st2) == 0 && st.st_ino == st2.st_ino, "link");
	check_err(link("r2", "l2"), EEXIST, "link over a name");
	check_err(link(".", "dl"), EPERM, "link of a directory");
	check(unlink("r2") == 0 && has("l2", "one"), "one name of two unlinked");

	check(symlink("l2", "s") == 0 && has("s", "one"), "symlink");
	check(readlink("s", buf, sizeof(buf)) == 2 && !memcmp(buf, "l2", 2), "readlink");
	check(lstat("s", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 2, "lstat");
	check_err(readlink("l2", buf, sizeof(buf)), EINVAL, "readlink of a file");
	check_err(open("s", O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW of a link");
	check(symlink("loop", "loop") == 0, "a link to itself");
	check_err(open("loop", O_RDONLY), ELOOP, "a loop of links");
	check(mkdir("real", 0755) == 0 && symlink("real", "via") == 0, "a link to a directory");
	fd = open("via/f", O_WRONLY | O_CREAT, 0644);
	check(fd >= 0 && write(fd, "deep", 4) == 4, "a file made through a link mid-path");
	close(fd);
	check(has("real/f", "deep"), "what the link mid-path made");
	check(symlink("nowhere", "dangling") == 0 && size_of("dangling") == -1 &&
	      lstat("dangling", &st) == 0, "a dangling link");
}

/* Whether the directory dir has an entry named name, or fd's number. */
static int listed_name(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)))
		found |= !strcmp(e->d_name, name);
	if (d)
		closedir(d);
	return found;
}

static int listed_in(const char *dir, int fd)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", fd);
	return listed_name(dir, name);
}

/* The entries of "." that are not "." or "..", counted, and whether want is one. */
static int listed(const char *want, int *count)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int found = 0;

	*count = 0;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		(*count)++;
		found |= !strcmp(e->d_name, want);
	}
	if (d)
		closedir(d);
	return found;
}

/* Listing, a name past NAME_MAX, the working directory. */
static void directories(const char *top)
{
	char name[300], buf[PATH_MAX];
	int n, m;

	check(listed("real", &n) && n >= 5, "readdir");
	check(mkdir("gone", 0755) == 0 && listed("gone", &m) && m == n + 1, "readdir sees mkdir");
	check(rmdir("gone") == 0 && !listed("gone", &m) && m == n, "readdir sees rmdir");
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	check_err(open(name, O_RDWR | O_CREAT, 0644), ENAMETOOLONG, "a name past NAME_MAX");
	name[255] = 0;
	n = open(name, O_RDWR | O_CREAT, 0644);
	check(n >= 0 && listed(name, &m), "a name of NAME_MAX bytes");
	close(n);
	unlink(name);
	check(chdir("real") == 0 && getcwd(buf, sizeof(buf)) &&
	      !strncmp(buf, top, strlen(top)) && !strcmp(buf + strlen(top), "/real"), "chdir");
	check(has("f", "deep") && chdir("..") == 0, "a relative path from the new directory");
	check(mkdir("cwd", 0755) == 0 && chdir("cwd") == 0 && rmdir("../cwd") == 0,
	      "rmdir of the working directory");
	check(getcwd(buf, sizeof(buf)) == NULL && errno == ENOENT, "getcwd of a removed one");
	check_err(open("x", O_RDWR | O_CREAT, 0644), ENOENT, "a file in a removed directory");
	check(chdir(top) == 0, "back to the top");
}

/* Times, modes, owners; the file system's numbers. */
static void attributes(void)
{
	struct timespec ts[2] = { { 1000, 5 }, { 2000, 7 } }, keep[2];
	struct statfs sf;
	struct stat st;

	put("t", "time");
	check(utimensat(AT_FDCWD, "t", ts, 0) == 0 && stat("t", &st) == 0 &&
	      st.st_atim.tv_sec == 1000 && st.st_atim.tv_nsec == 5 &&
	      st.st_mtim.tv_sec == 2000 && st.st_mtim.tv_nsec == 7, "utimensat");
	keep[0] = (struct timespec){ 0, UTIME_OMIT };
	keep[1] = (struct timespec){ 0, UTIME_NOW };
	check(utimensat(AT_FDCWD, "t", keep, 0) == 0 && stat("t", &st) == 0 &&
	      st.st_atim.tv_sec == 1000 && st.st_mtim.tv_sec != 2000, "UTIME_OMIT and UTIME_NOW");
	ts[0].tv_nsec = 1000000000;
	check_err(utimensat(AT_FDCWD, "t", ts, 0), EINVAL, "a nanosecond past a second");
	check_err(utimensat(AT_FDCWD, "t", NULL, 0x8000), EINVAL, "utimensat's bad flags");
	keep[1].tv_nsec = UTIME_OMIT;
	check(utimensat(AT_FDCWD, "nothing", keep, 0) == 0, "both omitted: the path unread");
	check(chmod("t", 0600) == 0 && stat("t", &st) == 0 && (st.st_mode & 07777) == 0600,
	      "chmod");
	check_err(access("t", X_OK), EACCES, "X_OK of a file nobody may run");
	check(chmod("t", 0700) == 0 && access("t", X_OK) == 0, "X_OK after chmod");
	check(chown("t", 12, 34) == 0 && stat("t", &st) == 0 && st.st_uid == 12 &&
	      st.st_gid == 34, "chown");
	check(statfs(".", &sf) == 0 && sf.f_bsize > 0 && sf.f_namelen == 255 &&
	      sf.f_bfree <= sf.f_blocks, "statfs");
}

/* stdio on files: what the libc tests of fdopen, fscanf, ungetc and ftello do. */
static void stdio(void)
{
	FILE *f = fopen("io", "w+");
	char word[16];
	int n = 0, c;

	check(f && fprintf(f, "hello 42\n") == 9 && fflush(f) == 0, "fprintf");
	rewind(f);
	check(fscanf(f, "%15s %d", word, &n) == 2 && !strcmp(word, "hello") && n == 42, "fscanf");
	rewind(f);
	c = fgetc(f);
	check(c == 'h' && ungetc('j', f) == 'j' && fgetc(f) == 'j', "ungetc");
	fclose(f);
	f = fopen("io", "a");
	check(f && fputs("more", f) >= 0 && ftello(f) == 13, "ftello after an unflushed append");
	fclose(f);
	check(size_of("io") == 13, "fclose flushes");
	f = tmpfile();
	check(f && fputs("tmp", f) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	      fgets(word, sizeof(word), f) && !strcmp(word, "tmp"), "tmpfile");
	if (f)
		fclose(f);
	n = open("io", O_RDONLY);
	f = fdopen(n, "r");
	check(f && fgets(word, sizeof(word), f) && !strcmp(word, "hello 42\n"), "fdopen");
	if (f)
		fclose(f);
}

/* A child shares its parent's open file, position and all; the devices. */
static void sharing_and_devices(void)
{
	unsigned char buf[16], zeros[16] = { 0 };
	int fd = open("shared", O_RDWR | O_CREAT | O_TRUNC, 0644), status, i, any = 0;
	pid_t pid;

	check(fd >= 0 && write(fd, "parent ", 7) == 7, "a file to share");
	pid = fork();
	if (!pid)
		_exit(write(fd, "child", 5) == 5 ? 0 : 1);
	check(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0, "the child's write");
	check(lseek(fd, 0, SEEK_CUR) == 12 && has("shared", "parent child"),
	      "a position shared across fork");
	close(fd);

	fd = open("/dev/zero", O_RDONLY);
	memset(buf, 1, sizeof(buf));
	check(fd >= 0 && read(fd, buf, 16) == 16 && !memcmp(buf, zeros, 16), "/dev/zero");
	close(fd);
	fd = open("/dev/urandom", O_RDONLY);
	check(fd >= 0 && read(fd, buf, 16) == 16, "/dev/urandom");
	for (i = 0; i < 16; i++)
		any |= buf[i];
	check(any, "/dev/urandom gave something");
	close(fd);
	fd = open("/dev/full", O_WRONLY);
	check_err(write(fd, "x", 1), ENOSPC, "/dev/full");
	close(fd);
	fd = open("/dev/null", O_RDWR);
	check(fd >= 0 && write(fd, "x", 1) == 1 && read(fd, buf, 1) == 0, "/dev/null");
	close(fd);
}

/* A program copied into a file, made executable and run from there. */
static void copied_program(void)
{
	static char buf[1 << 16];
	int in = open("/proc/self/exe", O_RDONLY), out, status;
	ssize_t n;
	pid_t pid;

	out = open("prog", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	check(in >= 0 && out >= 0, "open a program to copy");
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		check(write(out, buf, n) == n, "copy a program");
	close(in);
	close(out);
	pid = fork();
	if (!pid) {
		execl("./prog", "prog", "child", (char *)NULL);
		_exit(127);
	}
	check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 42, "run a copied program");
}

/* What F_GETLK says of the range [start, start + len) of fd, from another process. */
static short lock_seen(int fd, long start, long len, pid_t *owner)
{
	struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	if (fcntl(fd, F_GETLK, &q))
		return -1;
	*owner = q.l_pid;
	return q.l_type;
}

/* Record locks between a parent and its child. */
static void record_locks(void)
{
	struct flock wr = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 10, .l_len = 5 };
	int fd = open("lk", O_RDWR | O_CREAT | O_TRUNC, 0644), p[2], st, again;
	pid_t pid, owner = 0;
	char c;

	check(fd >= 0 && !pipe(p) && fcntl(fd, F_SETLK, &wr) == 0, "F_SETLK of a write lock");
	pid = fork();
	if (!pid) {
		struct flock r = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 12, .l_len = 1 };
		struct flock before = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10 };
		int ok = lock_seen(fd, 0, 0, &owner) == F_WRLCK && owner == getppid();

		ok &= fcntl(fd, F_SETLK, &r) == -1 && (errno == EAGAIN || errno == EACCES);
		ok &= fcntl(fd, F_SETLK, &before) == 0;
		ok &= write(p[1], "r", 1) == 1;
		r.l_type = F_WRLCK;
		ok &= fcntl(fd, F_SETLKW, &r) == 0;	/* until the parent unlocks */
		_exit(ok ? 0 : 1);
	}
	check(read(p[0], &c, 1) == 1, "the child's word");
	usleep(20000);
	check(lock_seen(fd, 0, 10, &owner) == F_WRLCK && owner == pid,
	      "F_GETLK of the child's lock");
	wr.l_type = F_UNLCK;
	check(fcntl(fd, F_SETLK, &wr) == 0, "F_SETLK of an unlock");
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a child's locks and its wait for one");
	wr = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
	again = open("lk", O_RDONLY);
	check(fcntl(fd, F_SETLK, &wr) == 0 && again >= 0 && close(again) == 0, "a lock, a close");
	pid = fork();
	if (!pid)
		_exit(lock_seen(fd, 0, 0, &owner) == F_UNLCK ? 0 : 1);
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a close of another descriptor drops the locks");
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* /proc/self: the fd directory and its links, and maps. */
static void proc_self(void)
{
	char link[64], target[PATH_MAX], cwd[PATH_MAX], line[256];
	int fd = open("pf", O_RDWR | O_CREAT | O_TRUNC, 0644), n, again;
	struct stat st, st2;
	unsigned long lo, hi, here = (unsigned long)&n;
	pthread_attr_t a;
	size_t size = 0;
	void *stack;
	FILE *maps;
	int found = 0, stack_line = 0;

	check(fd >= 0 && write(fd, "proc", 4) == 4 && getcwd(cwd, sizeof(cwd)), "a file for /proc");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	check(n > 0 && !strncmp(target, cwd, strlen(cwd)) && !strcmp(target + strlen(cwd), "/pf"),
	      "readlink of /proc/self/fd/N");
	check(stat(link, &st) == 0 && fstat(fd, &st2) == 0 && st.st_ino == st2.st_ino,
	      "stat through /proc/self/fd/N");
	check(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "lstat of /proc/self/fd/N");
	again = open(link, O_RDONLY);
	check(again >= 0 && read(again, line, 4) == 4 && !memcmp(line, "proc", 4),
	      "open of /proc/self/fd/N reads from the start");
	close(again);
	check(listed_in("/proc/self/fd", fd) && listed_in("/proc/self/fd", 2),
	      "/proc/self/fd lists the open descriptors");
	close(fd);
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= here && here < hi)
			found = 1;
		stack_line |= strstr(line, "[stack]") != NULL;
	}
	if (maps)
		fclose(maps);
	check(found && stack_line, "/proc/self/maps has the stack");
	check(!pthread_getattr_np(pthread_self(), &a) && !pthread_attr_getstack(&a, &stack, &size) &&
	      (unsigned long)stack <= here && here < (unsigned long)stack + size,
	      "pthread_getattr_np of the first thread");
}

/*
 * /proc as a file system of its own: its root, the self link, cmdline,
 * sys/kernel's osrelease against uname, and what it refuses: a mode or
 * owner changed (EPERM), a link or a rename out of it (EXDEV), a write.
 */
static void proc_root(int argc, char **argv)
{
	char buf[512], want[512], pid[24];
	struct utsname u;
	struct stat st;
	size_t len = 0;
	int fd, n, i;

	check(stat("/proc", &st) == 0 && S_ISDIR(st.st_mode), "stat of /proc: a directory");
	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	snprintf(pid, sizeof(pid), "%d", getpid());
	check(n > 0 && (buf[n] = 0, !strcmp(buf, pid)), "readlink of /proc/self: the pid");
	for (i = 0; i < argc; i++) {
		memcpy(want + len, argv[i], strlen(argv[i]) + 1);
		len += strlen(argv[i]) + 1;
	}
	fd = open("/proc/self/cmdline", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	check(n == (int)len && !memcmp(buf, want, len), "/proc/self/cmdline: the arguments");
	close(fd);
	fd = open("/proc/sys/kernel/osrelease", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	check(!uname(&u) && n > 1 && buf[n - 1] == '\n' && (buf[n - 1] = 0, !strcmp(buf, u.release)),
	      "/proc/sys/kernel/osrelease: uname's release");
	check_err(chmod("/proc/self", 0555), EPERM, "chmod of /proc/self");
	check_err(chown("/proc/self", 0, 0), EPERM, "chown of /proc/self");
	check_err(link("/proc/self/cmdline", "pl"), EXDEV, "link out of /proc");
	check_err(rename("/proc/self/cmdline", "pl"), EXDEV, "rename out of /proc");
	check_err(open("/proc/sys/kernel/osrelease", O_WRONLY), EACCES, "a write to osrelease");
	check_err(stat("/proc/no-such-file", &st), ENOENT, "stat of what /proc lacks");
	check(listed_name("/proc", "self"), "/proc lists self");
}

/* What only the sandbox is held to: O_TMPFILE, and the bound on files' frames. */
static void sandbox_only(void)
{
	static char chunk[1 << 16];
	struct statfs before, after;
	long total = 0, n;
	int fd;

	fd = open(".", O_TMPFILE | O_RDWR, 0600);
	check(fd >= 0 && write(fd, "anon", 4) == 4 && !listed("anon", &(int){ 0 }), "O_TMPFILE");
	close(fd);
	check(statfs(".", &before) == 0, "statfs before");
	fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	memset(chunk, 'b', sizeof(chunk));
	while ((n = write(fd, chunk, sizeof(chunk))) > 0)
		total += n;
	check(n == -1 && errno == ENOSPC && total > (1 << 20), "ENOSPC at the bound");
	close(fd);
	check(unlink("big") == 0 && statfs(".", &after) == 0 &&
	      after.f_bfree == before.f_bfree, "the frames come back at unlink");
}

int main(int argc, char **argv)
{
	char top[] = "/tmp/files-XXXXXX";

	if (argc > 1 && !strcmp(argv[1], "child"))
		return 42;
	strict = argc > 1 && !strcmp(argv[1], "sandbox");
	check(mkdtemp(top) && chdir(top) == 0, "a directory of its own");
	contents();
	unlinked();
	names();
	directories(top);
	attributes();
	stdio();
	sharing_and_devices();
	copied_program();
	record_locks();
	proc_self();
	proc_root(argc, argv);
	if (strict)
		sandbox_only();
	if (failed)
		return 1;
	printf("files: ok\n");
	return 0;
}
