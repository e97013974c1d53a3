# linux-perf: one static benchmark binary of the repo's
# (prototype/linuxabi/lxbench.c, glibc), unmodified, timed in the same boot
# on Linux from the guest's shell, in a sandbox of one vCPU under the
# linux kernel proper, and under User-Mode Linux, a peer: a null call, a
# yield and a pipe round trip, mmap, first touch and munmap, fork, fork
# and exec, and Debian's busybox sh running a loop and a pipeline.  Its
# figures are linux.bench.native.*, linux.bench.sandbox.* and
# peer.uml.*, one of each per row, so the book reads each row as ratios
# within a boot.
# Linux first, before the endovisor and its system-call probe are loaded.
lxbench linux.bench.native || fail "lxbench on Linux"
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_linux.ko || fail "insmod evk_linux"
launcher -v 1 -s linux.bench -a "bench sh -c '/bin/lxbench sandbox'" linux > /tmp/run.log 2>&1
cat /tmp/run.log
grep -q '^launcher: vCPU 0 exit 0$' /tmp/run.log || fail "lxbench in the sandbox"
. /suites/teardown.sh
# User-Mode Linux (Debian's user-mode-linux) runs a Linux kernel as a
# process of the guest's, its processes as guest processes it traces with
# ptrace; its root is the guest's own file system (hostfs), so it runs the
# same /bin/lxbench and /bin/busybox, from an init written here.  Its
# console is this one, less the carriage returns its terminal adds; quiet
# keeps its kernel's log off it.
cat > /tmp/uml-init <<'INIT'
#!/bin/busybox sh
# Its own /proc over the guest's, or busybox's /proc/self/exe is linux.uml.
/bin/busybox mount -t proc proc /proc
/bin/lxbench peer.uml && echo EV-UML-OK
/bin/busybox poweroff -f
INIT
chmod +x /tmp/uml-init
TMPDIR=/tmp linux.uml mem=128M quiet con0=fd:0,fd:1 con=null \
	rootfstype=hostfs rootflags=/ rw init=/tmp/uml-init < /dev/null > /tmp/uml.log 2>&1
tr -d '\r' < /tmp/uml.log
grep -q '^EV-UML-OK' /tmp/uml.log || fail "lxbench under User-Mode Linux"
