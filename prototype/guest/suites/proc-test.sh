# proc-test: tenant processes in the proc kernel on two vCPUs: a tenant that
# prints, forks, yields, waits and exits; x87, SSE and MXCSR isolation
# between two threads on one carrier; fifty threads; munmap and the clock;
# copy-on-write isolation after fork; and the kills of a tenant that reads an
# unmapped page, one that writes a read-only page, one that faults outside
# its region, one that executes an invalid opcode, and one that makes an
# unknown system call, after each of which the sandbox goes on.  The same
# tests again on the proc kernel built with vOSTD's store checks (a
# prototype, chapter 20), where no store of them may be refused.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_proc.ko || fail "insmod evk_proc"
insmod /lib/ev/evk_proc_sfi.ko || fail "insmod evk_proc_sfi"
launcher -v 2 -a test proc || fail "launcher proc test"
launcher -v 2 -s sfi -a test proc_sfi || fail "launcher proc_sfi test"
. /suites/teardown.sh
