# sched-perf: the kernelet's scheduling costs, and Linux's own in the same
# boot: sched_yield between two processes on one CPU, and a pipe wake-up
# across the two CPUs.
baseline yield 5000 || fail "baseline yield"
baseline pipe 2000 || fail "baseline pipe"
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_sched.ko || fail "insmod evk_sched"
launcher -v 2 -a perf sched || fail "launcher sched perf"
. /suites/teardown.sh
