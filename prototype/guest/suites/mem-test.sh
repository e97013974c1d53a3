# mem-test: the memory services' refusals, tenants in user mode, zero
# faults on first touch and after protect, a tenant's page fault handled by
# the kernel proper, and copy-on-write after its fork; and bugs planted for
# vOSTD's checking mode, each of which must make the report it expects
# (VOSTD-SANITIZER-EXPECTED), and without the mode must stay inside the
# sandbox, which goes on.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_mem.ko || fail "insmod evk_mem"
launcher -v 1 -a test mem || fail "launcher mem test"
EV_CHECKING=0 launcher -v 1 -s unchecked -a planted mem || fail "launcher mem planted, unchecked"
. /suites/teardown.sh
