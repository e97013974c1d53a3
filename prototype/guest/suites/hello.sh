# hello: load the endovisor and the hello kernel, run one sandbox of two
# vCPUs, check that teardown left nothing live, and unload both modules.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_hello.ko || fail "insmod evk_hello"
launcher -v 2 hello || fail "launcher hello"
. /suites/teardown.sh
