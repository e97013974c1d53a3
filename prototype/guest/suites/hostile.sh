# hostile: the endovisor as a trust boundary.  Every service called with
# arguments the caller has no right to, and the calls a sandbox whose
# teardown has begun may still make; two sandboxes at once, one trying the
# other's block, frame and address space; the one that held them, spinning
# in sandbox code and never crossing again, killed with SIGKILL; a sandbox
# killed while its tenants spin in user mode; tenants' traps while another
# vCPU kicks theirs, and kills meanwhile; first tenant runs; a kill while a
# vCPU calls a long service (each kill timed until nothing is live); and
# after all that a sandbox that still runs, and modules that still unload.
# Nothing may stay live.
# shellcheck disable=SC2154  # $started: set by start_marked, sandboxes.sh
mkdir -p /tmp

. /suites/sandboxes.sh

insmod /lib/ev/endovisor.ko || fail "insmod endovisor"
insmod /lib/ev/evk_hostile.ko || fail "insmod evk_hostile"
insmod /lib/ev/evk_proc.ko || fail "insmod evk_proc"
insmod /lib/ev/evk_hello.ko || fail "insmod evk_hello"
insmod /lib/ev/evk_wild.ko || fail "insmod evk_wild"

launcher -v 2 -s test -a test hostile || fail "launcher hostile test"
live_clear || fail "the hostile test left objects live"
# The ownership check against a free on another vCPU: no copy passes once
# the free has returned.
launcher -v 2 -s stale -a stale hostile || fail "launcher hostile stale"
live_clear || fail "the stale race left objects live"
# Linux's symbol tables for the module, which the test aimed services at,
# still read whole and still name the kernel's own symbols.
cat /proc/kallsyms > /tmp/kallsyms || fail "reading /proc/kallsyms"
grep -q ' hostile_registry_cases[[:space:]]\[evk_hostile\]$' /tmp/kallsyms &&
	grep -q ' own_out[[:space:]]\[evk_hostile\]$' /tmp/kallsyms ||
	fail "/proc/kallsyms lost the hostile kernel's symbols"
echo "EV-KALLSYMS $(grep -c '\[evk_hostile\]$' /tmp/kallsyms) symbols of evk_hostile, hostile_registry_cases and own_out among them"

# Writes after free, from two vCPUs, till the heap's quota, beside a
# sandbox that checks its own blocks: the writes land in the writer's own
# pool, so the victim's blocks stay whole and Linux's allocator checks
# (this suite boots with them on) stay silent.
start_marked /tmp/victim.out 'hostile: victim running' -v 1 -s victim -a victim hostile
victim=$started
launcher -v 2 -s uaf -a uaf hostile || fail "launcher hostile uaf"
wait $victim || fail "launcher hostile victim"
cat /tmp/victim.out
live_clear || fail "the writes after free left objects live"

# vOSTD's store checks, a prototype (chapter 20): a kernel built with them
# stores into its own memory of every kind, and is stopped before a store
# into Linux's direct map or into its module's struct module.
launcher -v 1 -s wild -a own wild_sfi || fail "launcher wild own"
for what in direct module; do
	start_marked /tmp/wild.out 'VOSTD-SANITIZER-EXPECTED: wild store' \
		-v 1 -s wild_$what -a $what wild_sfi
	sleep 0.2
	kill -9 $started
	wait $started
	cat /tmp/wild.out
	live_clear || fail "the wild $what sandbox left objects live"
done

# The field $2 of the copy $1 of /proc/meminfo, in KiB.
meminfo_kib() {
	sed -n "s/^$2: *\([0-9]*\) kB\$/\1/p" "$1"
}

# What the field $1 gained between the two copies fill takes, in KiB.
gained() {
	echo $(($(meminfo_kib /tmp/meminfo.during "$1") - $(meminfo_kib /tmp/meminfo.before "$1")))
}

# The free pages on Linux's per-CPU lists, in KiB, from the copy $1 of
# /proc/zoneinfo: free, but not in MemFree, which counts only the buddy
# allocator's.  An allocation takes from these lists first and a free
# puts back onto them, so how many they hold moves MemFree both ways.
pcp_kib() {
	awk '/^ *count:/ { pages += $2 } END { print pages * 4 }' "$1"
}

# A quota must bound what the sandbox makes Linux hold.  The hostile kernel
# fills one and holds it, killed once the figure is taken:
#   fill WHAT /proc/meminfo FIELD KEY BOUND-KiB
# MemFree is read, with the per-CPU lists (pcp_kib), as what free memory
# lost; the other fields as what they gained.
fill() {
	what=$1 field=$2 key=$3 bound=$4
	cp /proc/meminfo /tmp/meminfo.before
	cp /proc/zoneinfo /tmp/zoneinfo.before
	# The fill is awaited by the shell's own read of a FIFO, so that no
	# process the suite starts to poll for it allocates in the window.
	# Descriptor 3 stays open until the filler is killed, so it never
	# writes to a FIFO with no reader; a filler that dies first ends the
	# read.
	rm -f /tmp/fill.fifo
	mkfifo /tmp/fill.fifo
	launcher -v 1 -s "fill_$what" -a "fill $what" hostile > /tmp/fill.fifo 2>&1 &
	filler=$!
	exec 3< /tmp/fill.fifo
	: > /tmp/fill.out
	while IFS= read -r line <&3; do
		printf '%s\n' "$line" >> /tmp/fill.out
		case $line in *"hostile: fill $what holding"*) break ;; esac
	done
	cp /proc/meminfo /tmp/meminfo.during
	cp /proc/zoneinfo /tmp/zoneinfo.during
	# The launcher's own page tables, and its log reader's (a process of
	# its own), are Linux's count for those processes, not the sandbox's.
	own=0
	if [ "$field" = PageTables ]; then
		for p in $filler $(cat /proc/$filler/task/*/children); do
			own=$((own + $(awk '/^VmPTE:/ { print $2 }' /proc/$p/status)))
		done
	fi
	kill -9 $filler
	wait $filler
	exec 3<&-
	cat /tmp/fill.out
	grep -q "hostile: fill $what holding" /tmp/fill.out || fail "fill $what did not fill"
	# What it held: its first field, as the figure hostile.WHAT_FIELD.
	# shellcheck disable=SC2046  # split into the field's name and value
	set -- $(sed -n "s/.*hostile: fill $what holding \([a-z]*\)=\([0-9]*\).*/\1 \2/p" /tmp/fill.out)
	fig "hostile.${what}_$1" "$2" max "$1"
	grown=$(($(gained "$field") - own))
	pcp=$(($(pcp_kib /tmp/zoneinfo.during) - $(pcp_kib /tmp/zoneinfo.before)))
	# Free memory is MemFree and the per-CPU lists together: what the
	# lists gained meanwhile was freed, not held.
	[ "$field" = MemFree ] && grown=$((0 - $(gained "$field") - pcp))
	# What some of Linux's kinds of memory gained meanwhile, parts of the
	# figure, kept to tell a sandbox's growth from Linux's own.
	fig "hostile.$key" $grown max KiB bound=$bound launcher=$own pcp=$pcp slab="$(gained Slab)" \
		vmalloc="$(gained VmallocUsed)" pagetables="$(gained PageTables)" \
		percpu="$(gained Percpu)" stacks="$(gained KernelStack)"
	[ $grown -le $bound ] || fail "fill $what: $field grew past $bound KiB"
	live_clear || fail "fill $what left objects live"
}
# The heap: 1-byte blocks.  Its pool's pages, its slabs' records and its
# table, all that the blocks make Linux hold, are what EV_MEM_QUOTA (64
# MiB) counts; so free memory (MemFree and the per-CPU lists), whatever
# kind of memory it went to, and 2 MiB for the launcher's own and whatever
# else Linux allocated meanwhile.
fill heap MemFree heap_memfree_drop $((65536 + 2048))
# The page tables: EV_PT_QUOTA pages of 4 KiB, 8 MiB, the 8 KiB a fault
# may take past it (a PMD, and a PUD in a space's first fault), and 128 KiB
# for Linux's own page tables meanwhile (12 to 44 KiB in the boots seen);
# the launcher's and its log reader's own tables (their VmPTE) are not the
# sandbox's.
fill tables PageTables tables_growth $((2048 * 4 + 8 + 128))

launcher -v 1 -s hold -a hold hostile > /tmp/hold.out 2>&1 &
holder=$!
for _ in $(seq 100); do
	grep -q 'hostile: hold block=' /tmp/hold.out && break
	sleep 0.1
done
victim=$(sed -n 's/.*hostile: hold block=\([0-9a-f]*\) frame=\([0-9a-f]*\).*/\1 \2/p' /tmp/hold.out)
[ -n "$victim" ] || fail "the holding sandbox did not start"
launcher -v 1 -s attack -a "attack $victim" hostile || fail "launcher hostile attack"
killwait $holder kill.holder_ms || fail "the holder outlived its kill"
wait $holder
echo "EV-KILLED holder exit=$?"
cat /tmp/hold.out
live_clear || fail "the killed holder left objects live"

# A stop and a freeze: a kernel spinning masked in sandbox code on one vCPU
# and idle on the other has both carriers parked, stopped or frozen by
# Linux in user mode, and carries on where it was when they are let go.
start_marked /tmp/park.out 'hostile: park spinning' -v 2 -s park -a park hostile
parker=$started
stopwait stop $parker stop.parker_ms || fail "the parker would not stop"
stopwait freeze $parker freeze.parker_ms || fail "the parker would not freeze"
wait $parker || fail "launcher hostile park"
cat /tmp/park.out
live_clear || fail "the parked sandbox left objects live"
# Killed while it is stopped: its carriers die parked, in user mode.
start_marked /tmp/park.out 'hostile: park spinning' -v 2 -s parkkill -a park hostile
parker=$started
kill -STOP $parker
sleep 0.5
killwait $parker kill.stopped_ms || fail "the stopped parker outlived its kill"
wait $parker
echo "EV-KILLED stopped parker exit=$?"
cat /tmp/park.out
live_clear || fail "the killed parker left objects live"

launcher -v 2 -s spin -a "run spin" proc > /tmp/spin.out 2>&1 &
spinner=$!
for _ in $(seq 100); do
	grep -q 'spin: two threads spinning' /tmp/spin.out && break
	sleep 0.1
done
sleep 0.5
# Stopped and frozen while its tenants spin in user mode, where Linux stops
# and freezes them as any user code; then killed.
stopwait stop $spinner stop.spinner_ms || fail "the spinner would not stop"
stopwait freeze $spinner freeze.spinner_ms || fail "the spinner would not freeze"
killwait $spinner kill.spinner_ms || fail "the spinner outlived its kill"
wait $spinner
echo "EV-KILLED spinner exit=$?"
cat /tmp/spin.out
live_clear || fail "the killed tenants left objects live"

# Traps under kicks: every exception and every system call of a tenant
# reaches the kernel proper as itself while another vCPU kicks its vCPU.
launcher -v 2 -s race -a race hostile || fail "launcher hostile race"
live_clear || fail "the race left objects live"
# The same with two vCPUs kicking the third at once, and the tick's
# retries among them: each vCPU's one cross-call record is sent by one
# kicker at a time (a KCSAN kernel reports it if not).
launcher -v 3 -s race3 -a race hostile || fail "launcher hostile race3"
live_clear || fail "the race with two kickers left objects live"

# A first tenant run: its rax whole, initial FPU registers, and the
# launcher's own back (the launcher checks its registers itself).
launcher -v 2 -s firstrun -a firstrun hostile || fail "launcher hostile firstrun"
live_clear || fail "the first runs left objects live"
# A tenant's context freed by the other vCPU while the tenant runs: the
# run ends in -EFAULT.
launcher -v 2 -s ctxfree -a ctxfree hostile || fail "launcher hostile ctxfree"
live_clear || fail "the freed contexts left objects live"


# Kills while the tenant is kicked: ten launchers killed mid-race.
for round in $(seq 10); do
	start_marked /tmp/racekill.out 'hostile: racekill running' \
		-v 2 -s racekill$round -a racekill hostile
	sleep 0.2
	killwait $started kill.racekill_ms >> /tmp/racekill.figs ||
		fail "racekill round $round outlived its kill"
	wait $started
	echo "EV-KILLED racekill$round exit=$?"
	grep 'launcher: fatal' /tmp/racekill.out && fail "a tenant's signal reached the launcher"
	live_clear || fail "the killed race left objects live"
done
# The longest of the ten.
awk '{ v = $3; sub("value=", "", v); if (v + 0 >= max) { max = v + 0; line = $0 } }
	END { print line }' /tmp/racekill.figs

# A kill while the vCPU calls a long service without end.
start_marked /tmp/calloop.out 'hostile: calloop running' -v 1 -s calloop -a calloop hostile
sleep 0.3
killwait $started kill.calloop_ms || fail "the calibrate loop outlived its kill"
wait $started
echo "EV-KILLED calloop exit=$?"
live_clear || fail "the killed calibrate loop left objects live"

launcher -v 2 -s after hello || fail "launcher hello after the kills"
. /suites/teardown.sh
