# hello: load the endovisor and the hello kernel, run one sandbox of two
# vCPUs, check that teardown left nothing live, and unload both modules.
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_hello.ko || fail "insmod evk_hello"
launcher -v 2 hello || fail "launcher hello"
echo "EV-LIVE $(tr '\n' ' ' < /sys/class/misc/endovisor/live)"
grep -q '^sandboxes 0$' /sys/class/misc/endovisor/live &&
	grep -q '^vcpus 0$' /sys/class/misc/endovisor/live &&
	grep -q '^stacks 0$' /sys/class/misc/endovisor/live ||
	fail "objects still live after teardown"
rmmod evk_hello || fail "rmmod evk_hello"
rmmod endovisor || fail "rmmod endovisor"
dmesg | grep -q 'endovisor: unloaded' || fail "endovisor did not unload"
