# linux-perf: one static benchmark binary of the repo's
# (prototype/linuxabi/lxbench.c, glibc), unmodified, timed in the same boot
# on Linux from the guest's shell, in a sandbox of one vCPU under the
# linux kernel proper, and under two peers, User-Mode Linux and gVisor
# (on its systrap and its ptrace platform): a null call, a yield and a
# pipe round trip, mmap, first touch and munmap, fork, fork and exec, and
# Debian's busybox sh running a loop and a pipeline.  Its figures are
# linux.bench.native.*, linux.bench.sandbox.*, peer.uml.*,
# peer.gvisor.systrap.* and peer.gvisor.ptrace.*, one of each per row
# (Linux's and the sandbox's in three parts, below), so the book reads
# each row as ratios within a boot.
# Linux and the sandbox take turns, three parts each (lxbench's part=K/N),
# and each row's figure is its cheapest part (figlog's parts.go): the
# emulator runs at one of two speeds and can change during a boot, and
# turns let a change meet both sides.  Linux runs with the endovisor and
# its system-call probe unloaded, as a program on Linux sees it; the
# sandbox's first launch keeps the figures of the endovisor, the kernel
# and the launcher, the others only their parts (launcher -q).
# A measurement: no checking mode, whose checks would be timed too.
# shellcheck disable=SC2034  # exported by /init, read by the launcher
EV_CHECKING=0
for part in 1/3 2/3 3/3; do
	lxbench linux.bench.native $part || fail "lxbench on Linux, part $part"
	insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
	insmod /lib/ev/evk_linux.ko || fail "insmod evk_linux"
	quiet=-q
	[ $part = 1/3 ] && quiet=
	launcher -v 1 $quiet -s linux.bench -a "bench sh -c '/bin/lxbench sandbox $part'" linux > /tmp/run.log 2>&1
	cat /tmp/run.log
	grep -q '^launcher: vCPU 0 exit 0$' /tmp/run.log || fail "lxbench in the sandbox, part $part"
	. /suites/teardown.sh
done
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
# gVisor's runsc (built from the Go module proxy at the version
# prototype/peers/gvisor pins) runs the same binary in a sandbox whose
# root is the guest's file system, under an overlay in memory, with no
# network and the cgroups left alone.  Its Sentry, the kernel that
# answers the program's calls, is a guest process; each platform is a
# way of catching those calls.  runsc pivots its processes' root, which
# the initramfs, the root of every mount, cannot be; so it runs in a mount
# namespace of its own whose root is a bind of the initramfs moved over
# it, as switch_root does.  Its output goes through a pipe: the Sentry
# writes to a file at offsets of its own, which the shell's would overwrite.
gunzip -c /lib/peers/runsc.gz > /tmp/runsc && chmod +x /tmp/runsc || fail "unpacking runsc"
mkdir -p /mnt/root /tmp/runsc-state
for platform in systrap ptrace; do
	unshare -m sh -c "mount --rbind / /mnt/root && cd /mnt/root && mount --move . / &&
		chroot . /tmp/runsc --root=/tmp/runsc-state --network=none --ignore-cgroups \
		--platform=$platform do /bin/lxbench peer.gvisor.$platform && echo EV-GVISOR-OK" \
		< /dev/null 2>&1 | cat > /tmp/gvisor.log
	cat /tmp/gvisor.log
	grep -q '^EV-GVISOR-OK' /tmp/gvisor.log || fail "lxbench under gVisor, $platform platform"
done
rm -f /tmp/runsc
