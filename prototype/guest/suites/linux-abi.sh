# linux-abi: Debian's busybox-static, byte for byte as the package ships
# it, run unmodified by the linux kernel proper (Linux's system calls, on
# proc's processes), one sandbox of one vCPU per command.  Each command's
# output goes to the sandbox's log a line at a time, and its exit status
# comes back as vCPU 0's exit code, which the launcher prints.  The kernel
# logs the system calls each run made, by name, and every call it does not
# have, once, as -ENOSYS.  Bad input too: a malformed ELF, an exec of a
# file that does not exist, a file that does not exist, and a program that
# hands the calls bad pointers, and a fork bomb; glibc's threads; what
# a call holds while it sleeps; and random calls from three threads.  The benchmark binary runs in linux-perf.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_linux.ko || fail "insmod evk_linux"

cases=0
failed=0

# run LABEL STATUS APPLET ARG...: busybox APPLET ARG... must end with STATUS.
run() {
	label=$1
	want=$2
	shift 2
	launcher -v 1 -s "linux.$label" -a "$label $*" linux > /tmp/run.log 2>&1
	cat /tmp/run.log
	got=$(sed -n 's/^launcher: vCPU 0 exit \(-*[0-9]*\).*/\1/p' /tmp/run.log)
	if [ "$got" = "$want" ]; then
		echo "EVTEST linux-abi $label ok exit=$got want=$want"
	else
		echo "EVTEST linux-abi $label FAIL exit=$got want=$want"
		fail "linux-abi $label: exit $got, want $want"
		failed=$((failed + 1))
	fi
	cases=$((cases + 1))
	live=$(grep -v ' 0$' /sys/class/misc/endovisor/live)
	[ -z "$live" ] || fail "linux-abi $label left objects live: $live"
}

run echo 0 echo hello
# The same, every call logged with its arguments and result.
run strace_echo 0 echo hello
run true 0 true
run false 1 false
run cat 0 cat /etc/motd
run ls 0 ls /
run arith 0 sh -c "'echo \$((6*7))'"
run loop 0 sh -c "'for i in 1 2 3; do echo loop \$i; done'"
run pipe 0 sh -c "'echo a b c | busybox wc -w'"
run status 3 sh -c "'exit 3'"
# A kill by a signal: the shell's own, and a child's, as its parent sees it.
run kill 137 sh -c "'kill -9 \$\$'"
run killchild 0 sh -c "'busybox sh -c \"kill \\\$\\\$\"; echo \$?'"
# What the first process leaves running is killed when it ends: here a
# pipe's reader blocked on a writer that sleeps.
run orphans 0 sh -c "'busybox sleep 100 | busybox cat & echo started'"
run nofile 1 cat /etc/nothing
run noexec 127 sh -c "'/bin/nothing'"
# The shell, refused with ENOEXEC, reads the file as a script, as it
# would on Linux, and finds no command its first line names.
run badelf 127 sh -c "'/bin/badelf'"
# A static C program of the repo's (prototype/linuxabi/badcalls.c) that
# hands the calls bad pointers, bad numbers and bad files; built static and
# static-PIE.
run badcalls 0 sh -c /bin/badcalls
run badcalls_pie 0 sh -c /bin/badcalls-pie
# glibc's threads (prototype/linuxabi/threads.c): a mutex and a condition
# variable under contention, thread-local variables, thread ids, and exit
# and kill of a process whose other threads sleep.  On Linux first, which
# checks the test itself, then in the sandbox, static and static-PIE.
# It crashes one thread on purpose, which Linux would log as a segfault,
# and the boot's check of the kernel log would read as a failure.
echo 0 > /proc/sys/debug/exception-trace
/bin/threads || fail "threads on Linux"
echo 1 > /proc/sys/debug/exception-trace
run threads 0 sh -c /bin/threads
run threads_pie 0 sh -c /bin/threads-pie
# Signals (prototype/linuxabi/signals.c): handlers with their siginfo,
# masks and flags, the alternate stack, faults caught and left with
# siglongjmp, FPU registers kept across a handler, calls interrupted and
# restarted, sigsuspend, a signal to one thread, SIGPIPE, and frames a
# handler forges.  On Linux first, which checks the test itself; a forged
# frame is a bad one, which Linux logs unless told not to.
echo 0 > /proc/sys/debug/exception-trace
/bin/signals || fail "signals on Linux"
echo 1 > /proc/sys/debug/exception-trace
run signals 0 sh -c "'/bin/signals sandbox'"
run signals_pie 0 sh -c "'/bin/signals-pie sandbox'"
# A writable file system (prototype/linuxabi/files.c): files made,
# written, truncated, sparse, unlinked while open, renamed and linked;
# links mid-path; directories listed and removed; times, modes and
# statfs; stdio over files; the devices; a program copied and run.  On
# Linux first, then in the sandbox, where it also checks O_TMPFILE and
# the bound on files' frames.
/bin/files || fail "files on Linux"
run files 0 sh -c "'/bin/files sandbox'"
run files_pie 0 sh -c "'/bin/files-pie sandbox'"
# Starting programs (prototype/linuxabi/spawn.c): posix_spawn with file
# actions, popen through /bin/sh, vfork's parent waiting for the exec or
# the end, and RLIMIT_NOFILE lowered and met.  On Linux first.
/bin/spawn || fail "spawn on Linux"
run spawn 0 sh -c /bin/spawn
run spawn_pie 0 sh -c /bin/spawn-pie
# Waiting on several files (prototype/linuxabi/waits.c): poll, ppoll,
# select and pselect on pipes, an eventfd, a device; woken, run out, with
# a mask that lets a signal in; O_NONBLOCK pipes.  On Linux first.
/bin/waits || fail "waits on Linux"
run waits 0 sh -c /bin/waits
run waits_pie 0 sh -c /bin/waits-pie
# Sockets (prototype/linuxabi/sockets.c): socketpair's streams and
# datagrams, a server on a path and on an abstract name, TCP and UDP on
# the loopback, poll, sendmsg and recvmsg, shutdown and the errors of
# calls made wrongly.  On Linux first, with its loopback up.
ip link set lo up || fail "the loopback up"
/bin/sockets || fail "sockets on Linux"
run sockets 0 sh -c /bin/sockets
run sockets_pie 0 sh -c /bin/sockets-pie
# An address space (prototype/linuxabi/memory.c): reservations that cost
# nothing, a sparse map, munmap and mprotect of a map's middle and the
# SIGSEGVs after, mremap, madvise, shared memory across fork, a deep
# stack and /proc/self/maps.  On Linux first.
/bin/memory || fail "memory on Linux"
run memory 0 sh -c /bin/memory
run memory_pie 0 sh -c /bin/memory-pie
# System V IPC (prototype/linuxabi/sysvipc.c): a shared memory segment
# across fork, counted and removed while attached; semaphore sets changed
# whole or not at all, sleepers woken, SEM_UNDO at exit; message queues
# by type, full and empty, with a receiver in another process.  On Linux
# first.
/bin/sysvipc || fail "sysvipc on Linux"
run sysvipc 0 sh -c /bin/sysvipc
run sysvipc_pie 0 sh -c /bin/sysvipc-pie
# Job control (prototype/linuxabi/jobs.c): children stopped by SIGSTOP and
# their own SIGTSTP, frozen, reported to WUNTRACED and WCONTINUED and by
# SIGCHLD, a read restarted after a continue, a stopped child killed, a
# SIGTSTP in an orphaned group discarded, a stopped group hung up when an
# exit orphans it.  On Linux first.
/bin/jobs || fail "jobs on Linux"
run jobs 0 sh -c /bin/jobs
# POSIX timers (prototype/linuxabi/timers.c): a one-shot timer's siginfo,
# a blocked periodic one's overruns, an absolute time, SIGEV_NONE,
# glibc's SIGEV_THREAD, SIGEV_THREAD_ID to one thread, a fork's child
# without them.  On Linux first.
/bin/timers || fail "timers on Linux"
run timers 0 sh -c /bin/timers
run timers_pie 0 sh -c /bin/timers-pie
# CPU time (prototype/linuxabi/cputime.c): the CPU clocks of the process,
# its threads and a child; getrusage, times and wait4's rusage, a child's
# time its parent's once reaped; ITIMER_VIRTUAL and ITIMER_PROF.  On Linux
# first.
/bin/cputime || fail "cputime on Linux"
run cputime 0 sh -c /bin/cputime
run cputime_pie 0 sh -c /bin/cputime-pie
# Time slices and sleeps (prototype/linuxabi/slices.c): two threads that
# only compute share the one vCPU, one spinning for a flag the other sets;
# two processes spin their turns through shared memory; a timer's handler
# ends a loop with no call in it; sleeps relative and absolute, and their
# errors.  On Linux first.
/bin/slices || fail "slices on Linux"
run slices 0 sh -c /bin/slices
run slices_pie 0 sh -c /bin/slices-pie
# A sleeping sandbox costs Linux nothing: its vCPU sleeps in vcpu_idle
# until the kernelet's timer ends busybox's sleep, rather than yielding.
run sleep 0 sleep 1
idle=$(sed -n 's/^launcher: vCPU 0 .* idle_ns=\([0-9]*\) .*/\1/p' /tmp/run.log)
[ "${idle:-0}" -ge 500000000 ] || fail "linux-abi sleep: the vCPU idled ${idle:-0} ns of a 1 s sleep"
# What a call holds while it sleeps and what address space comes back
# (prototype/linuxabi/lifetimes.c): a pipe closed, replaced or dup2'd over
# under a thread blocked reading or writing it; mmaps and munmaps, and
# mmaps that fail, by the thousand; a TLS outside user space, given to
# arch_prctl or to clone; and the registers a program finds at its entry
# after an exec from a program that left them dirty.  On Linux first, then
# in the sandbox, static and static-PIE.
/bin/lifetimes || fail "lifetimes on Linux"
run lifetimes 0 sh -c /bin/lifetimes
run lifetimes_pie 0 sh -c /bin/lifetimes-pie
# A fork bomb meets the sandbox's bound on live processes: fork fails
# with EAGAIN, the children exit, and fork works again
# (prototype/linuxabi/forkbomb.c).
run forkbomb 0 sh -c /bin/forkbomb
# Random system calls from three threads (prototype/linuxabi/abifuzz.c),
# for ev.fuzz_ms (5 s by default) with the seed ev.fuzz_seed or a fresh
# one: on Linux first, in a directory of its own, which must survive it;
# then in the sandbox, where the program after it must still pass.
seed=$(ev_param fuzz_seed)
# (five digits at most: the launcher passes the kernel 63 characters)
[ -n "$seed" ] || seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
ms=$(ev_param fuzz_ms)
[ -n "$ms" ] || ms=5000
# On Linux it runs 20 s at most: there it only shows that the program
# survives a kernel that answers correctly, and a long run's time goes to
# the sandbox.
linux_ms=$ms
[ "$linux_ms" -le 20000 ] || linux_ms=20000
echo "EV-FUZZ seed=$seed ms=$ms linux_ms=$linux_ms"
(cd /tmp && /bin/abifuzz "$seed" "$linux_ms") || fail "abifuzz on Linux (seed $seed)"
run abifuzz 0 sh -c "'/bin/abifuzz $seed $ms&&/bin/lifetimes'"
if [ "$failed" = 0 ]; then
	echo "EVTEST linux-abi all ok cases=$cases failed=0"
else
	echo "EVTEST linux-abi all FAIL cases=$cases failed=$failed"
fi
. /suites/teardown.sh
