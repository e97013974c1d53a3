# Shared by the suites that start sandboxes in the background and kill
# them: waiting for one to start, and for nothing to be left live after.

# Everything live back to zero, within five seconds of a sandbox's end.
live_clear() {
	for _ in $(seq 50); do
		grep -v ' 0$' /sys/class/misc/endovisor/live | grep -q . || break
		sleep 0.1
	done
	echo "EV-LIVE $(tr '\n' ' ' < /sys/class/misc/endovisor/live)"
	! grep -v ' 0$' /sys/class/misc/endovisor/live | grep -q .
}

# start_marked OUT MARKER ARGS...: a launcher in the background, writing
# OUT, once OUT shows MARKER; its pid in $started.
start_marked() {
	out=$1 marker=$2
	shift 2
	launcher "$@" > "$out" 2>&1 &
	# shellcheck disable=SC2034  # read by the suites that source this
	started=$!
	for _ in $(seq 200); do
		grep -q "$marker" "$out" && return 0
		sleep 0.05
	done
	cat "$out"
	fail "no '$marker' from launcher $*"
}
