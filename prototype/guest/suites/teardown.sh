# Shared by the suites: teardown left nothing live, and every module unloads.
echo "EV-LIVE $(tr '\n' ' ' < /sys/class/misc/endovisor/live)"
for f in sandboxes vcpus stacks blocks block_bytes pool_pages frames vms fpus; do
	grep -q "^$f 0$" /sys/class/misc/endovisor/live || fail "$f still live after teardown"
done
for m in $(lsmod | sed -n 's/^\(evk_[a-z_]*\) .*/\1/p'); do
	rmmod "$m" || fail "rmmod $m"
done
# A suite may load and unload it more than once (linux-perf's turns):
# this unload must add a message, not find an earlier one.
unloaded=$(dmesg | grep -c 'endovisor: unloaded')
rmmod endovisor || fail "rmmod endovisor"
[ "$(dmesg | grep -c 'endovisor: unloaded')" -gt "$unloaded" ] || fail "endovisor did not unload"
