package guest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"endovisor/internal/figlog"
)

// A Plan is how a suite is run unless told otherwise: how many boots, and
// the bound on each.
type Plan struct {
	Boots   int
	Timeout time.Duration
}

// plans holds the suites the book measures over several boots, and those
// whose boots take longer than the usual bound; every other suite is
// booted once, within five minutes.  Make's targets and mkbook both take
// their plans from here.
var plans = map[string]Plan{
	"sched-perf": {Boots: 5, Timeout: 5 * time.Minute},
	"sched-fair": {Boots: 5, Timeout: 10 * time.Minute},
	"mem-perf":   {Boots: 5, Timeout: 15 * time.Minute},
	"scale":      {Boots: 3, Timeout: 10 * time.Minute},
	"linux-perf": {Boots: 5, Timeout: 10 * time.Minute},
}

// checkedSuites are booted with Linux's own checks of its allocators on
// (allocatorChecks): the suites that test what a sandbox may do, not the
// ones that time it.  A sandbox's write into memory Linux has given back
// to its slab caches, or to anyone, then shows in the kernel log at the
// object's next use, and fails the boot.
var checkedSuites = map[string]bool{
	"fuzz":       true,
	"hostile":    true,
	"linux-abi":  true,
	"linux-conf": true,
	"mem-test":   true,
	"sched-test": true,
	"proc-test":  true,
}

// allocatorChecks: SLUB's consistency checks, red zones, poison on free
// and owner tracking on every cache, and KFENCE sampling an allocation
// every checkedKfenceMs, which catches a use after free on the sampled
// ones.  (The debug kernels sample every debugKfenceMs instead: KASAN
// checks every allocation there.)
const (
	allocatorChecks = "slub_debug=FZPU"
	checkedKfenceMs = 1
)

// PlanOf is suite's plan.
func PlanOf(suite string) Plan {
	if pl, ok := plans[suite]; ok {
		return pl
	}
	return Plan{Boots: 1, Timeout: 5 * time.Minute}
}

// Run builds what a boot needs and boots suite as plan says, writing boot
// n's console to out, or to out with -n before .log for several boots
// (bootLog); out must be named SUITE.log, and is prototype/.build/SUITE.log
// if empty.  It stops at the first boot that fails and is not the
// emulator's, and returns the log's name.
func (p *Pipeline) Run(suite string, plan Plan, out string) (string, error) {
	if plan.Boots < 1 {
		return "", fmt.Errorf("suite %s: %d boots", suite, plan.Boots)
	}
	if !figlog.ValidSuite(suite) {
		return "", fmt.Errorf("suite %q: want letters, digits, _ and -, not ending in -N", suite)
	}
	if _, err := os.Stat(filepath.Join(p.proto, "guest", "suites", suite+".sh")); err != nil {
		return "", fmt.Errorf("no suite %q in prototype/guest/suites", suite)
	}
	if out == "" {
		out = filepath.Join(p.build, suite+".log")
	}
	// A log is named for its suite, which figlog checks against its header.
	if filepath.Base(out) != suite+".log" {
		return "", fmt.Errorf("%s: a log of suite %s must be named %s.log", out, suite, suite)
	}
	k, a, err := p.prepareBoot()
	if err != nil {
		return "", err
	}
	p.logf("accelerator %s, CPU model %s (%s)", a.name, a.cpu, a.reason)
	if err := removeStaleLogs(out, plan.Boots); err != nil {
		return "", err
	}
	for i := 1; i <= plan.Boots; i++ {
		log := bootLog(out, i, plan.Boots)
		r := p.bootRetrying(k, a, suite, i, plan.Boots, log, plan.Timeout)
		if r.err != nil {
			return "", r.err
		}
		p.progress.Booted(Boot{Suite: suite, N: i, Of: plan.Boots, Attempt: r.attempt, Elapsed: r.elapsed, Log: log})
	}
	return out, nil
}

// Survey boots the hello suite boots times under each TCG CPU model and
// counts the clean boots: the evidence behind prototype/guest/cpu-model.
// Its report goes to w and to .build/cpu-survey.log.
func (p *Pipeline) Survey(models []string, boots int, w io.Writer) error {
	k, err := p.prepare(true)
	if err != nil {
		return err
	}
	var report []string
	for _, model := range models {
		a := accel{name: "tcg", cpu: model}
		clean := 0
		for i := 1; i <= boots; i++ {
			log := filepath.Join(p.build, "survey", fmt.Sprintf("%s-%d.log", strings.ReplaceAll(model, ",", "_"), i))
			r := boot(p, k, a, "hello", i, boots, 1, log, 5*time.Minute)
			res := "clean"
			if r.err != nil {
				res = "FAILED: " + firstLine(r.err)
			} else {
				clean++
			}
			line := fmt.Sprintf("survey model=%s boot=%d %.1fs %s", model, i, r.elapsed.Seconds(), res)
			p.logf("%s", line)
			report = append(report, line)
		}
		report = append(report, fmt.Sprintf("survey model=%s clean=%d of=%d", model, clean, boots))
	}
	text := strings.Join(report, "\n") + "\n"
	fmt.Fprint(w, text)
	return writeAtomic(filepath.Join(p.build, "cpu-survey.log"), []byte(text))
}

func firstLine(err error) string {
	return strings.SplitN(err.Error(), "\n", 2)[0]
}

// soakReport is what a soak hears of its retried boots: they are counted
// and said apart from the failures.
type soakReport struct {
	Progress
	say     func(format string, args ...any)
	round   int
	retried int
}

func (s *soakReport) Retried(b Boot) {
	s.say("soak round %d %s: retried: %s (console in %s)", s.round, b.Suite, b.Emulator, b.Log)
	s.retried++
}

// Soak boots every suite named once per round, for rounds rounds, without
// stopping at a failure, and reports each boot that failed and why: the
// lines go to w and to .build/soak.log, and each failed boot's console is
// kept in .build/soak/ (every boot's, with keep).  A boot the emulator broke is retried as Run
// retries it, and counted apart.  It fails if any boot failed.
func (p *Pipeline) Soak(suites []string, rounds int, timeout time.Duration, keep bool, w io.Writer) error {
	if len(suites) == 0 || rounds < 1 {
		return fmt.Errorf("soak: want a suite and at least one round")
	}
	k, a, err := p.prepareBoot()
	if err != nil {
		return err
	}
	var report []string
	say := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		fmt.Fprintln(w, line)
		report = append(report, line)
	}
	s := &soakReport{Progress: p.progress, say: say}
	soak := *p
	soak.progress = s
	console := func(suite string, round int) string {
		return filepath.Join(p.build, "soak", fmt.Sprintf("%s-%d.log", suite, round))
	}
	// A console of an earlier soak would pass for one of this soak's.
	for i := 1; i <= rounds; i++ {
		for _, suite := range suites {
			log := console(suite, i)
			for _, f := range []string{log, log + ".failed"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
		}
	}
	say("soak: %d rounds of %s, accelerator %s, CPU model %s", rounds, strings.Join(suites, " "), a.name, a.cpu)
	failed, boots := 0, 0
	start := time.Now()
	for i := 1; i <= rounds; i++ {
		s.round = i
		for _, suite := range suites {
			log := console(suite, i)
			r := soak.bootRetrying(k, a, suite, i, rounds, log, timeout)
			boots++
			if r.err != nil {
				failed++
				say("soak round %d %s: FAILED in %.1fs: %s", i, suite, r.elapsed.Seconds(), firstLine(r.err))
				continue
			}
			say("soak round %d %s: ok in %.1fs", i, suite, r.elapsed.Seconds())
			if keep {
				continue
			}
			// A clean boot's console is not kept.
			if err := os.Remove(log); err != nil {
				return err
			}
		}
	}
	say("soak: %d boots, %d failed, %d retried as the emulator's, in %s", boots, failed, s.retried,
		time.Since(start).Round(time.Second))
	if err := writeAtomic(filepath.Join(p.build, "soak.log"), []byte(strings.Join(report, "\n")+"\n")); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("soak: %d of %d boots failed", failed, boots)
	}
	return nil
}

// PrintSummary prints every figure of a suite's logs in dir aggregated
// over its boots, with its Linux baseline and the ratio where it names
// one.
func PrintSummary(w io.Writer, dir, suite string) error {
	s, err := figlog.ReadSuite(dir, suite)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d boot(s); median of boot medians, worst p99\n", suite, len(s.Logs))
	for _, key := range s.Keys() {
		a, err := s.Figure(key)
		if err != nil {
			fmt.Fprintf(w, "  %-28s %v\n", key, err)
			continue
		}
		line := fmt.Sprintf("  %-28s %12.1f %s", key, a.Value, a.Unit)
		if a.HasP99 {
			line += fmt.Sprintf("  p99 %.0f", a.P99)
		}
		if b := a.Primary.Fields["baseline"]; b != "" {
			if base, err := s.Figure(b); err == nil && base.Value != 0 {
				line += fmt.Sprintf("  vs %s %.0f: ratio %.3f", b, base.Value, a.Value/base.Value)
			}
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
