# sched-perf: the kernelet's scheduling costs, and Linux's own in the same
# boot: sched_yield between two processes on one CPU, a real-time process
# woken through a pipe by an ordinary one on its CPU, a pipe wake-up across
# the two CPUs with both idle and with both busy, and a null system call;
# then the tenant round trips of the proc kernel, built as it is and with
# vOSTD's store checks, and Linux's null system
# call again with the endovisor's system-call probe in place, and once more
# after the endovisor is unloaded.
# A measurement: no checking mode, whose checks would be timed too.
# shellcheck disable=SC2034  # exported by /init, read by the launcher
EV_CHECKING=0
baseline yield 5000 || fail "baseline yield"
baseline wakelocal 5000 || fail "baseline wakelocal"
baseline pipe 2000 || fail "baseline pipe"
baseline pipebusy 2000 || fail "baseline pipebusy"
baseline syscall 5000 || fail "baseline syscall"
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_sched.ko || fail "insmod evk_sched"
insmod /lib/ev/evk_proc.ko || fail "insmod evk_proc"
insmod /lib/ev/evk_proc_sfi.ko || fail "insmod evk_proc_sfi"
launcher -v 2 -a perf sched || fail "launcher sched perf"
# The proc kernel, and the same kernel built with vOSTD's store checks (a
# prototype, chapter 20), first one then the other by the boot's number,
# so that a speed the emulator changes to during a boot falls on each as
# often.
boot=$(ev_param boot)
order="proc proc_sfi"
[ $((boot % 2)) = 0 ] && order="proc_sfi proc"
for k in $order; do
	launcher -v 2 -s $k -a perf $k || fail "launcher $k perf"
done
baseline syscall 5000 linux.getppid_rt_probed || fail "baseline syscall probed"
. /suites/teardown.sh
baseline syscall 5000 linux.getppid_rt_unloaded || fail "baseline syscall unloaded"
