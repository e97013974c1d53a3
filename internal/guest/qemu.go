package guest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"endovisor/internal/figlog"
)

// accel is how QEMU runs the guest: KVM where a probe shows it works,
// otherwise TCG (software emulation) with the CPU model in
// prototype/guest/cpu-model.
type accel struct {
	name   string // kvm or tcg
	cpu    string
	reason string // why this one
}

func (a accel) args() []string {
	if a.name == "kvm" {
		return []string{"-accel", "kvm", "-cpu", "host"}
	}
	return []string{"-accel", "tcg,thread=multi", "-cpu", a.cpu}
}

const (
	guestCPUs = 2
	guestMem  = "512M"
	// The debug kernel's shadow memory and quarantine want more, its
	// checks run every boot several times longer, and KFENCE samples an
	// allocation every this many milliseconds (off unless set).
	debugGuestMem = "1536M"
	debugSlowdown = 4
	debugKfenceMs = 100
	// How many times a boot the emulator broke (emulatorFault) is tried again.
	emulatorRetries = 2
)

// cpuModel reads the TCG CPU model chosen by the survey.
func cpuModel(p *Pipeline) (string, error) {
	name := filepath.Join(p.proto, "guest", "cpu-model")
	b, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "model="); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s: no model= line", name)
}

// chooseAccel probes KVM once per build directory: a guest that boots to
// user space within the bound means KVM works.  The answer is cached in
// .build/accel so that every later boot uses the same.
func chooseAccel(p *Pipeline, k *kernel) (accel, error) {
	model, err := cpuModel(p)
	if err != nil {
		return accel{}, err
	}
	tcg := accel{name: "tcg", cpu: model}
	cache := filepath.Join(p.build, "accel")
	if b, err := os.ReadFile(cache); err == nil {
		name, reason, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		if name == "kvm" {
			return accel{name: "kvm", cpu: "host", reason: reason}, nil
		}
		tcg.reason = reason
		return tcg, nil
	}
	a := tcg
	if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err != nil {
		a.reason = "no usable /dev/kvm"
	} else {
		f.Close()
		kvm := accel{name: "kvm", cpu: "host"}
		r := boot(p, k, kvm, "probe", 1, 1, 1, filepath.Join(p.build, "kvm-probe.log"), 30*time.Second)
		if r.err == nil && r.sawProbe {
			kvm.reason = "kvm probe booted"
			a = kvm
		} else {
			a.reason = "kvm probe failed"
		}
	}
	if err := os.WriteFile(cache, []byte(a.name+" "+a.reason+"\n"), 0o644); err != nil {
		return accel{}, err
	}
	return a, nil
}

// badConsole matches what must never appear on a good boot's console: a
// WARN or BUG splat (each begins with "cut here"), an oops or panic, a
// lockup or stall report, a user program's crash, or a guest-side failure:
// the suite's own (EV-FAIL), or a FAIL that a sandbox kernel, a tenant,
// the launcher or a baseline printed, even one whose program went on to
// exit 0; or a report of vOSTD's checking mode (prototype/abi/ev_report.h),
// but one a test planted and expected, which reads VOSTD-SANITIZER-EXPECTED.
var badConsole = regexp.MustCompile(`cut here|WARNING: (CPU|stack|can't|kernel stack|possible|inconsistent|suspicious|bad unlock|lock held|held lock)|BUG:|BUG [^ ]+ \(|Poison overwritten|Redzone overwritten|kernel BUG|Oops|Kernel panic|general protection fault|Call Trace:|double fault|stack-protector|soft lockup|hard LOCKUP|blocked for more than|rcu: INFO|detected stalls|UBSAN|KFENCE|segfault at|traps:|EV-FAIL|\bFAIL\b|VOSTD-SANITIZER:`)

type bootResult struct {
	err      error
	sawProbe bool
	emulator string // why the failure is the emulator's, if it is (emulatorFault)
	attempt  int
	elapsed  time.Duration
}

func qemuVersion() string {
	out, err := exec.Command("qemu-system-x86_64", "--version").Output()
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
	if len(f) >= 4 {
		return f[3]
	}
	return "unknown"
}

func hostCPU() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown"
}

// boot runs one guest boot of suite and writes its console to out, after a
// header line that says how the boot was made.  A boot fails if QEMU
// fails, if it runs past timeout, if the console shows a panic, BUG, oops
// or warning, or a test case that failed, or if the guest's init did not
// report EV-DONE status=ok.  A boot past its time is asked what it was
// doing before it is killed (askHung).  A failed boot's console is kept
// in out.failed and out is left alone.
func boot(p *Pipeline, k *kernel, a accel, suite string, n, of, attempt int, out string, timeout time.Duration) bootResult {
	start := time.Now()
	// tsc=reliable: under TCG the clocksource watchdog sometimes finds
	// the TSC skewed against the emulated HPET, switches clocksource in
	// the middle of a measurement, and patches sched_clock's static key
	// at run time, which TCG has been seen to oops on (int3 in
	// sched_clock_cpu).  The emulated TSC follows the host's clock.
	// sysrq_always_enabled: a boot that runs past its time is asked for
	// backtraces by sysrq keys (askHung).
	cmdline := fmt.Sprintf("console=ttyS0 loglevel=4 panic=-1 oops=panic preempt=full tsc=reliable sysrq_always_enabled ev.suite=%s ev.boot=%d", suite, n)
	kfenceMs := 0 // KFENCE off: the pinned kernel's default
	if checkedSuites[suite] {
		cmdline += " " + allocatorChecks
		kfenceMs = checkedKfenceMs
	}
	cmdline += p.fuzz
	mem, hangPause := guestMem, 5*time.Second
	if k.debug {
		mem, timeout, hangPause = debugGuestMem, timeout*debugSlowdown, 20*time.Second
		kfenceMs = debugKfenceMs
		// nokaslr: a hung boot's instruction pointers can then be
		// named from System.map (nameHungRIPs).
		cmdline += " nokaslr"
	}
	if kfenceMs > 0 {
		cmdline += fmt.Sprintf(" kfence.sample_interval=%d", kfenceMs)
	}
	args := append([]string{"-nodefaults", "-no-user-config", "-machine", "pc"}, a.args()...)
	args = append(args, "-smp", fmt.Sprint(guestCPUs), "-m", mem,
		"-display", "none", "-serial", "mon:stdio", "-no-reboot",
		"-kernel", k.vmlinuz, "-initrd", filepath.Join(p.build, "initramfs.cpio"),
		"-append", cmdline)
	cmd := exec.Command("qemu-system-x86_64", args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return bootResult{err: err, attempt: attempt}
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return bootResult{err: err, attempt: attempt}
	}
	cmd.Stderr = cmd.Stdout
	header := fmt.Sprintf("EVRUN suite=%s boot=%d of=%d attempt=%d accel=%s cpu=%s smp=%d mem=%s kernel=%s qemu=%s host=%q date=%s",
		suite, n, of, attempt, a.name, a.cpu, guestCPUs, mem, k.version, qemuVersion(), hostCPU(),
		time.Now().UTC().Format(time.RFC3339))
	lines := []string{header}
	if err := cmd.Start(); err != nil {
		return bootResult{err: err, attempt: attempt}
	}
	console := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			console <- strings.TrimRight(sc.Text(), "\r")
		}
		close(console)
	}()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	ranPast := false
	for reading := true; reading; {
		select {
		case l, ok := <-console:
			if reading = ok; ok && ranPast {
				l = monitorEcho(l)
			}
			if ok {
				lines = append(lines, l)
			}
		case <-deadline.C:
			ranPast = true
			lines = append(lines, fmt.Sprintf("%sboot ran past %v: asking it for backtraces (sysrq %s) and its registers",
				hangMark, timeout, strings.Join(hangSysrq, " ")))
			go askHung(stdin, hangPause, func() { _ = cmd.Process.Kill() })
		}
	}
	waitErr := cmd.Wait()
	if ranPast {
		lines = append(lines, nameHungRIPs(lines, k.systemMap(), k.debug)...)
	}
	r := bootResult{elapsed: time.Since(start), attempt: attempt}

	var bad, failedTests []string
	done, began := false, false
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "EV-BOOT ") {
			began = true
		}
		if badConsole.MatchString(l) {
			bad = append(bad, l)
		}
		// A test line (prototype/abi/ev_report.h) that failed, or is malformed.
		if t, ok, err := figlog.ParseTest(l); ok && err != nil {
			failedTests = append(failedTests, fmt.Sprintf("%q: %v", l, err))
		} else if ok && !t.OK {
			failedTests = append(failedTests, t.String())
		}
		if figlog.Done(l) {
			done = true
		}
		if strings.HasPrefix(l, "EV-PROBE-OK") {
			r.sawProbe = true
		}
	}
	switch {
	case ranPast:
		r.err = fmt.Errorf("boot %d of %s ran past %v", n, suite, timeout)
	case waitErr != nil:
		r.err = fmt.Errorf("qemu: %w", waitErr)
	case len(failedTests) > 0:
		r.err = fmt.Errorf("boot %d of %s: %d test case(s) failed, the first: %s", n, suite, len(failedTests), failedTests[0])
	case len(bad) > 0:
		r.err = fmt.Errorf("boot %d of %s: the console shows %q", n, suite, bad[0])
	case !done:
		r.err = fmt.Errorf("boot %d of %s: the guest did not report EV-DONE status=ok", n, suite)
	}
	if r.err != nil {
		r.emulator = emulatorFault(lines, began)
	}
	text := strings.Join(lines, "\n") + "\n"
	if r.err != nil {
		tail := lines
		if len(tail) > 40 {
			tail = tail[len(tail)-40:]
		}
		if err := writeAtomic(out+".failed", []byte(text)); err != nil {
			r.err = fmt.Errorf("%w\n(and its console could not be kept: %v)", r.err, err)
			r.emulator = "" // with no console kept, it is not booted again
			return r
		}
		r.err = fmt.Errorf("%w\nconsole tail (whole console in %s.failed):\n%s", r.err, out, strings.Join(tail, "\n"))
		return r
	}
	if err := os.Remove(out + ".failed"); err != nil && !os.IsNotExist(err) {
		r.err = err
		return r
	}
	if err := writeAtomic(out, []byte(text)); err != nil {
		r.err = err
	}
	return r
}

// emulatorFault names the three failures that multi-threaded TCG causes
// on its own, seen on boots that otherwise pass.  The first: a guest that
// dies before its init began the suite (nothing of the prototype has run;
// see prototype/guest/cpu-model).  The second: a trap on an int3 that is
// no longer in memory.  Linux patches live code (static keys, kprobes) by writing an
// int3 first and the new instruction after, synchronizing every processor
// in between; a processor can only trap on that int3 after it is gone by
// running stale translated code, which no real processor does.  The oops
// then shows, before the faulting address, the byte that replaced the
// int3.  The third, seen once in CI: an oops in Linux's own code (a NULL
// call from a softirq) while the endovisor's init was still running, that
// is while it was patching Linux's text to place its kprobe and tracepoint
// probes, with no module's code in the trace.  Anything else is a failure
// of ours.
func emulatorFault(lines []string, began bool) string {
	if !began {
		return "it died before the suite began"
	}
	if oopsDuringLoad(lines) {
		return "it oopsed in Linux's own code while the endovisor's init patched Linux's text"
	}
	for i, l := range lines {
		if !strings.Contains(l, "Oops: int3") {
			continue
		}
		for _, c := range lines[i:] {
			_, code, ok := strings.Cut(c, "Code: ")
			if !ok {
				continue
			}
			f := strings.Fields(code)
			for j, b := range f {
				if strings.HasPrefix(b, "<") && j > 0 && f[j-1] != "cc" {
					return fmt.Sprintf("it trapped on an int3 no longer in memory (%s %s): stale code", f[j-1], b)
				}
			}
			return ""
		}
	}
	return ""
}

// moduleFrame matches a call-trace line in a module's code.
var moduleFrame = regexp.MustCompile(`\+0x[0-9a-f]+/0x[0-9a-f]+ \[[A-Za-z0-9_]+\]`)

// endovisorLoading matches the endovisor in a module list while its init runs.
var endovisorLoading = regexp.MustCompile(`\bendovisor\([A-Z]*\+\)`)

// oopsDuringLoad reports whether the first oops came while the endovisor
// module was loading ("endovisor(OE+)" in its module list) with no module
// frame anywhere in the report.
func oopsDuringLoad(lines []string) bool {
	first := -1
	for i, l := range lines {
		if strings.Contains(l, "BUG: ") || strings.Contains(l, "Oops: ") {
			first = i
			break
		}
	}
	if first < 0 {
		return false
	}
	loading := false
	for _, l := range lines[first:] {
		if moduleFrame.MatchString(l) {
			return false
		}
		if _, mods, ok := strings.Cut(l, "Modules linked in:"); ok {
			loading = loading || endovisorLoading.MatchString(mods)
		}
		if strings.Contains(l, "end trace") || strings.Contains(l, "Kernel panic") {
			break
		}
	}
	return loading
}

func writeAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// bootLog names boot n's log: out itself for a single boot, out with -n
// before .log for several.
func bootLog(out string, n, boots int) string {
	if boots == 1 {
		return out
	}
	return fmt.Sprintf("%s-%d.log", strings.TrimSuffix(out, ".log"), n)
}

// prepareBoot builds what a boot needs and chooses the accelerator.
func (p *Pipeline) prepareBoot() (*kernel, accel, error) {
	k, err := p.prepare(true)
	if err != nil {
		return nil, accel{}, err
	}
	a, err := chooseAccel(p, k)
	return k, a, err
}

// bootRetrying boots as boot does, and boots again, at most
// emulatorRetries times, while the failure is the emulator's
// (emulatorFault); each such console is kept as out.emulator-N and
// reported to the progress as retried.
func (p *Pipeline) bootRetrying(k *kernel, a accel, suite string, n, of int, out string,
	timeout time.Duration) bootResult {
	r := boot(p, k, a, suite, n, of, 1, out, timeout)
	for try := 1; r.err != nil && r.emulator != "" && try <= emulatorRetries; try++ {
		kept := fmt.Sprintf("%s.emulator-%d", out, try)
		if err := os.Rename(out+".failed", kept); err != nil {
			return bootResult{err: fmt.Errorf("keeping the console of a boot the emulator broke: %w", err)}
		}
		p.progress.Retried(Boot{Suite: suite, N: n, Of: of, Attempt: try, Elapsed: r.elapsed,
			Log: kept, Err: r.err, Emulator: r.emulator})
		r = boot(p, k, a, suite, n, of, try+1, out, timeout)
	}
	return r
}

// removeStaleLogs removes the logs an earlier run with another number of
// boots left under the same name, so that a suite's logs are always one
// run's.
func removeStaleLogs(out string, boots int) error {
	base := strings.TrimSuffix(out, ".log")
	var stale []string
	if boots > 1 {
		stale = append(stale, out)
	}
	numbered, _ := filepath.Glob(base + "-*.log")
	for _, name := range numbered {
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(name, base+"-"), "%d.log", &n); err == nil && (boots == 1 || n > boots) {
			stale = append(stale, name)
		}
	}
	for _, name := range stale {
		if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
