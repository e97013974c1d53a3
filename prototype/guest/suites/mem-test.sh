# mem-test: the memory services' refusals, tenants in user mode, zero
# faults on first touch and after protect, a tenant's page fault handled by
# the kernel proper, and copy-on-write after its fork.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_mem.ko || fail "insmod evk_mem"
launcher -v 1 -a test mem || fail "launcher mem test"
. /suites/teardown.sh
