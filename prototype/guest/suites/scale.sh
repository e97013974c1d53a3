# scale: how the costs grow with the work, and Linux's own in the same
# boot where it has a counterpart.  Linux's yield round trip, fork and
# munmap of 4, 16 and 64 MiB; the mem kernel's rows (the heap pair with 1,
# 1,000 and 100,000 blocks live, the ownership check with 1, 64 and 512
# frames granted on 2 vCPUs, and on 16, fork and unmap of 4, 16 and 64 MiB,
# what a tenant space makes Linux hold); then 1, 8 and 64 sandboxes of the
# sched kernel alive at once, one vCPU each (the scale program).
# A measurement: no checking mode, whose checks would be timed too.
# shellcheck disable=SC2034  # exported by /init, read by the launcher
EV_CHECKING=0
baseline yield 2000 || fail "baseline yield"
for mib in 4 16 64; do
	baseline fork 3 $mib || fail "baseline fork $mib"
	baseline munmap 3 $mib || fail "baseline munmap $mib"
done
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_mem.ko || fail "insmod evk_mem"
insmod /lib/ev/evk_sched.ko || fail "insmod evk_sched"
launcher -v 2 -a scale mem || fail "launcher mem scale"
launcher -v 16 -s scale -a "scale owns" mem || fail "launcher mem scale owns"
for n in 1 8 64; do
	scale $n 1500 || fail "scale $n"
done
. /suites/teardown.sh
