package figlog

import (
	"fmt"
	"math/bits"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A figure measured in parts: the same measurement run several times in
// one boot, each run a line of its own with part=K/N, so that a suite can
// take turns between the two sides it compares (Linux and the sandbox,
// one run of each in turn) and a change of the emulator's speed during
// the boot meets both.
//
//	EVFIG linux.bench.native.getppid_rt value=1080 stat=median unit=cycles p99=1998 n=1000 part=2/3
//
// The figure is its cheapest part's line, as a cheapest of rounds is the
// cheapest round: a part that ran at the emulator's slow speed does not
// stand for the figure while another ran at the fast one.  Only a
// cheapest (stat=min) or a median may come in parts, a log must hold each
// part once, and the parts must be alike: one statistic and unit, so many
// samples, rounds and calls, one baseline, a p99 in all or none.

// maxParts bounds N: a few runs take turns; more is a log gone wrong.
const maxParts = 16

var partRE = regexp.MustCompile(`^([0-9]{1,2})/([0-9]{1,2})$`)

// figurePart parses a figure's part=K/N; ok is false for a figure that
// is not in parts.
func figurePart(fields map[string]string) (k, n int, ok bool, err error) {
	p, ok := fields["part"]
	if !ok {
		return 0, 0, false, nil
	}
	m := partRE.FindStringSubmatch(p)
	if m == nil {
		return 0, 0, true, fmt.Errorf("part=%s: want K/N, as 2/3", p)
	}
	k, _ = strconv.Atoi(m[1])
	n, _ = strconv.Atoi(m[2])
	if n < 2 || n > maxParts || k < 1 || k > n {
		return 0, 0, true, fmt.Errorf("part=%s: want 1 <= K <= N, 2 <= N <= %d", p, maxParts)
	}
	if s := fields["stat"]; s != "min" && s != "median" {
		return 0, 0, true, fmt.Errorf("part=%s on a figure of stat=%s: only a cheapest or a median may come in parts", p, s)
	}
	return k, n, true, nil
}

// parts tracks the figures of one log that come in parts.
type parts map[string]*partsSeen

// The rest of what the parts must agree in is the kept line's.
type partsSeen struct {
	n    int
	seen uint32 // bit K-1 for part K
}

// add records f's part, kept being the line that stands for its key so
// far (nil for the key's first line); it returns whether f is the
// cheapest part so far, and so stands for the figure, or why the line is
// refused.
func (ps parts) add(f Figure, kept *Figure) (cheaper bool, err error) {
	k, n, ok, err := figurePart(f.Fields)
	if err != nil {
		return false, fmt.Errorf("figure %s: %v", f.Key, err)
	}
	s := ps[f.Key]
	if kept == nil {
		if ok {
			ps[f.Key] = &partsSeen{n: n, seen: 1 << (k - 1)}
		}
		return true, nil
	}
	switch {
	case s == nil || !ok:
		return false, fmt.Errorf("figure %s given twice in one log", f.Key)
	case n != s.n:
		return false, fmt.Errorf("figure %s: part=%d/%d, but an earlier part said %d parts", f.Key, k, n, s.n)
	case s.seen&(1<<(k-1)) != 0:
		return false, fmt.Errorf("figure %s: part %d/%d given twice", f.Key, k, n)
	case f.Fields["unit"] != kept.Fields["unit"] || f.Fields["stat"] != kept.Fields["stat"]:
		return false, fmt.Errorf("figure %s: part %d/%d is %s %s, an earlier part %s %s", f.Key, k, n,
			f.Fields["stat"], f.Fields["unit"], kept.Fields["stat"], kept.Fields["unit"])
	}
	// The parts are one measurement run again: so many samples each, read
	// against one baseline, or the cheapest would be picked among unlikes.
	for _, field := range []string{"n", "rounds", "calls", "baseline"} {
		if f.Fields[field] != kept.Fields[field] {
			return false, fmt.Errorf("figure %s: part %d/%d has %s=%q, an earlier part %q", f.Key, k, n,
				field, f.Fields[field], kept.Fields[field])
		}
	}
	_, p99 := f.Fields["p99"]
	if _, keptP99 := kept.Fields["p99"]; p99 != keptP99 {
		return false, fmt.Errorf("figure %s: part %d/%d and an earlier part differ in having a p99", f.Key, k, n)
	}
	s.seen |= 1 << (k - 1)
	v, _ := f.Value("value")
	old, _ := kept.Value("value")
	return v < old, nil
}

// missing says which figure's parts are not all in the log, if any.
func (ps parts) missing() error {
	keys := make([]string, 0, len(ps))
	for key := range ps {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if s := ps[key]; s.seen != (1<<s.n)-1 {
			var absent []string
			for k := 1; k <= s.n; k++ {
				if s.seen&(1<<(k-1)) == 0 {
					absent = append(absent, strconv.Itoa(k))
				}
			}
			return fmt.Errorf("figure %s: %d of its %d parts only (no part %s)", key, bits.OnesCount32(s.seen), s.n,
				strings.Join(absent, ", "))
		}
	}
	return nil
}
