# sched-fair: the sandbox's group and a sibling group of equal weight, both
# on CPUs 0-1.  The sibling runs two busy loops for 10 s while the sandbox
# runs 1 busy task, 50, and 50 plus one that holds a guard for 10 ms at a
# time; then the same fifty busy work items as fifty Linux threads of one
# process in a group of their own (a thread per task).  Then no groups to
# tell the two apart: the sandbox of fifty tasks, and the fifty threads,
# each in one group with the sibling's two loops.  Linux's view is what is
# measured: the sibling's share of the processors, the most carriers (or
# threads) Linux had runnable at once, and the time the carriers spent
# preempted while carrying.
# A measurement: no checking mode, whose checks would be timed too.
# shellcheck disable=SC2034  # exported by /init, read by the launcher
EV_CHECKING=0
echo "+cpu +cpuset" > /sys/fs/cgroup/cgroup.subtree_control || fail "enable cpu and cpuset"
mkdir -p /sys/fs/cgroup/sibling /sys/fs/cgroup/flat
echo 0-1 > /sys/fs/cgroup/sibling/cpuset.cpus || fail "sibling cpuset"
echo 0-1 > /sys/fs/cgroup/flat/cpuset.cpus || fail "flat cpuset"
echo "EV-WEIGHTS sibling=$(cat /sys/fs/cgroup/sibling/cpu.weight)"
insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_sched.ko || fail "insmod evk_sched"

# sibling_beside LABEL GROUP CMD...: CMD in the background, the sibling's
# two loops in GROUP for 10 s beside it, then CMD's output.
sibling_beside() {
	label=$1 group=$2
	shift 2
	"$@" > /tmp/$label.out &
	load=$!
	sleep 1
	baseline sibling "$label" 10 "$group" || fail "sibling $label"
	wait $load || fail "$label"
	cat /tmp/$label.out
}

for run in "fair1:1" "fair50:50" "fair50g:50 guard"; do
	label=${run%%:*}
	tasks=${run#*:}
	sibling_beside "$label" sibling launcher -v 2 -c 0-1 -a "fair 12 $tasks" -s "$label" sched
done
sibling_beside linux50 sibling baseline threads linux50 12 50
sibling_beside flat.fair50 flat launcher -v 2 -g flat -a "fair 12 50" -s flat.fair50 sched
sibling_beside flat.linux50 flat baseline threads flat.linux50 12 50 flat
rmdir /sys/fs/cgroup/sibling /sys/fs/cgroup/flat
. /suites/teardown.sh
