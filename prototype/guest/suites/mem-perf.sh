# mem-perf: the memory services' costs, and Linux's own in the same boot:
# first touch of present pages, and of pages never touched, by a read (the
# zero page) and by a write (a page allocated and zeroed); mprotect of 2 MiB,
# fork of 64 MiB, munmap of 64 MiB a child still maps; the heap and copy
# baselines the endovisor measures itself.
# A measurement: no checking mode, whose checks would be timed too.
# shellcheck disable=SC2034  # exported by /init, read by the launcher
EV_CHECKING=0
baseline touch 512 || fail "baseline touch"
baseline mprotect 9 || fail "baseline mprotect"
baseline fork 3 || fail "baseline fork"
baseline munmap 3 || fail "baseline munmap"
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_mem.ko || fail "insmod evk_mem"
launcher -v 1 -a perf mem || fail "launcher mem perf"
# The vostd_alloc pairs again in the checking mode, keyed checked.*: what
# the mode costs when it is on.
launcher -k -v 1 -s checked -a "perf pair" mem || fail "launcher mem perf pair, checking mode"
. /suites/teardown.sh
