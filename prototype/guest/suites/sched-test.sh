# sched-test: the kernelet's functional tests in the sched kernel on two
# vCPUs: yield, priority wake, cross-vCPU wake, idle and kick, a kick
# racing a pick, and the guard.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_sched.ko || fail "insmod evk_sched"
launcher -v 2 -a test sched || fail "launcher sched test"
. /suites/teardown.sh
