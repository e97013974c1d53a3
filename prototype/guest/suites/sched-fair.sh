# sched-fair: the sandbox's group and a sibling group of equal weight, both
# on CPUs 0-1.  The sibling runs two busy loops for 10 s while the sandbox
# runs 1 busy task, 50, and 50 plus one that holds a guard for 10 ms at a
# time.  Linux's view is what is measured: the sibling's share of the
# processors, the most carriers Linux had runnable at once, and the time
# the carriers spent preempted while carrying.
echo "+cpu +cpuset" > /sys/fs/cgroup/cgroup.subtree_control || fail "enable cpu and cpuset"
mkdir -p /sys/fs/cgroup/sibling
echo 0-1 > /sys/fs/cgroup/sibling/cpuset.cpus || fail "sibling cpuset"
echo "EV-WEIGHTS sibling=$(cat /sys/fs/cgroup/sibling/cpu.weight)"
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_sched.ko || fail "insmod evk_sched"
for run in "fair1:1" "fair50:50" "fair50g:50 guard"; do
	label=${run%%:*}
	tasks=${run#*:}
	launcher -v 2 -c 0-1 -a "fair 12 $tasks" -s "$label" sched > /tmp/$label.out &
	sandbox=$!
	sleep 1
	baseline sibling "$label" 10 || fail "sibling $label"
	wait $sandbox || fail "launcher $label"
	cat /tmp/$label.out
done
rmdir /sys/fs/cgroup/sibling
. /suites/teardown.sh
