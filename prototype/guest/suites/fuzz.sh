# fuzz: runs killed at random points, then the services called with
# generated arguments (kernels/fuzz) on two vCPUs racing each other, beside
# a sandbox whose block and frame every call must leave alone.  The seed is
# the kernel command line's ev.fuzz_seed (make fuzz-services FUZZ_SEED=N,
# to draw a failed run again) or a fresh one, printed; ev.fuzz_ms bounds
# the long run (20 s by default).  The kernel fails the run on any answer
# it can check and finds wrong; the boot fails on any report in the
# kernel log (init's check_dmesg), and on anything left live.
# shellcheck disable=SC2154  # $started: set by start_marked, sandboxes.sh
mkdir -p /tmp

. /suites/sandboxes.sh

seed=$(ev_param fuzz_seed)
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
ms=$(ev_param fuzz_ms)
[ -n "$ms" ] || ms=20000
echo "EV-FUZZ seed=$seed ms=$ms"

insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_fuzz.ko || fail "insmod evk_fuzz"
insmod /lib/ev/evk_hostile.ko || fail "insmod evk_hostile"
insmod /lib/ev/evk_hello.ko || fail "insmod evk_hello"

# Runs killed at a random point: after 0 to 1.5 s of calls, a SIGKILL;
# the sandbox must end, and leave nothing live.
for round in 1 2 3 4; do
	start_marked /tmp/fuzzkill.out 'fuzz: seed=' \
		-v 2 -s fuzzkill$round -a "fuzz $((seed + round)) 60000" fuzz
	sleep "$(awk -v r="$(od -An -N2 -tu2 /dev/urandom)" 'BEGIN { printf "%.2f", r % 150 / 100 }')"
	killwait $started kill.fuzz_ms >> /tmp/fuzzkill.figs ||
		fail "fuzz round $round outlived its kill"
	wait $started
	echo "EV-KILLED fuzzkill$round exit=$?"
	grep 'FAIL' /tmp/fuzzkill.out
	live_clear || fail "the killed fuzz run left objects live"
done
# The longest of the kills.
awk '{ v = $3; sub("value=", "", v); if (v + 0 >= max) { max = v + 0; line = $0 } }
	END { print line }' /tmp/fuzzkill.figs

# The long run, beside a sandbox that holds a block and a frame.
start_marked /tmp/hold.out 'hostile: hold block=' -v 1 -s hold -a hold hostile
holder=$started
other=$(sed -n 's/.*hostile: hold block=\([0-9a-f]*\) frame=\([0-9a-f]*\).*/\1 \2/p' /tmp/hold.out)
launcher -v 2 -s fuzz -a "fuzz $seed $ms $other" fuzz > /tmp/fuzz.out 2>&1 ||
	fail "launcher fuzz (seed $seed)"
# Its calls of calibrate print the endovisor's timings, again and again:
# not this suite's figures.
grep -v '^\[endovisor\] EVFIG' /tmp/fuzz.out
calls=$(sed -n 's/.*fuzz: vCPU [01]: \([0-9]*\) calls.*/\1/p' /tmp/fuzz.out | awk '{ n += $1 } END { print n + 0 }')
fig fuzz.calls "$calls" max calls seed="$seed" ms="$ms"
[ "$calls" -gt 0 ] || fail "the fuzzer made no calls"
kill -9 $holder
wait $holder
live_clear || fail "the fuzz run left objects live"

launcher -v 2 -s after hello || fail "launcher hello after the fuzzer"
. /suites/teardown.sh
