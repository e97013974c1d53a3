package figlog

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Where a figure line may stand, and who writes it there:
//
//	EVFIG KEY ...                a guest program at the start of a console
//	                             line: the launcher's own figures, the
//	                             Linux baselines
//	[endovisor] EVFIG KEY ...    the endovisor, into a sandbox's log
//	[KERNEL.N] EVFIG KEY ...     a sandbox kernel on vCPU N, through the log
//	                             service, which writes the tag itself; the
//	                             proc kernel forwards its tenants' figures
//	                             this way, as they are
//
// A sandbox kernel or a tenant cannot forge the first two: the log service
// tags every line it writes, and the proc kernel tags every tenant line
// that does not start with EVFIG.  Anything else that holds "EVFIG " (a
// tenant's "[proc.0] [pid 3] ... EVFIG ...", text quoted in a kernel
// message) is not a figure, and a log that holds one is refused rather
// than read with a figure missing or made up.
var (
	figurePlace = regexp.MustCompile(tagged + `EVFIG\b`)
	mentionRE   = regexp.MustCompile(`\bEVFIG\b`)
)

// tagged matches the start of a line up to where a figure or a test line
// (tests.go) may begin: nothing, [endovisor] or [KERNEL.N], and a space.
const tagged = `^(?:\[(?:endovisor|[A-Za-z0-9_-]+\.[0-9]+)\] )?`

// figureText returns the key and the fields' text of a figure line, which
// is EVFIG, one space and the key, as a reader's grep for "EVFIG KEY "
// finds it; ok is false for a line that is no figure, and err says why a
// line that mentions EVFIG is not one.
func figureText(line string) (key, fields string, ok bool, err error) {
	if m := figurePlace.FindString(line); m != "" {
		rest, spaced := strings.CutPrefix(line[len(m):], " ")
		key, fields, _ = strings.Cut(rest, " ")
		if !spaced || key == "" {
			return "", "", true, fmt.Errorf("want EVFIG, a space and the figure's key")
		}
		return key, fields, true, nil
	}
	if mentionRE.MatchString(line) {
		return "", "", false, fmt.Errorf("EVFIG where no figure may stand: a figure line starts with " +
			"EVFIG, [endovisor] EVFIG or [KERNEL.N] EVFIG")
	}
	return "", "", false, nil
}

// What each field of a figure may hold.  Keys, units and statistics are
// words the book prints and links by, so they are plain; numbers are
// plain decimals as the guest's printf writes them (no NaN, no Inf, no
// exponent), of a size a reader can read.
var (
	keyRE    = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	numberRE = regexp.MustCompile(`^-?[0-9]{1,18}(\.[0-9]{1,9})?$`)
	countRE  = regexp.MustCompile(`^[0-9]{1,18}$`)
	wordRE   = regexp.MustCompile(`^[A-Za-z%][A-Za-z0-9_/%.-]{0,31}$`)
	fieldRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,31}$`)
)

// ValidKey reports whether key may name a figure.
func ValidKey(key string) bool { return keyRE.MatchString(key) }

// checkFigure checks a figure's key and the fields the book reads.
func checkFigure(key string, fields map[string]string) error {
	if !keyRE.MatchString(key) {
		return fmt.Errorf("EVFIG key %q: want letters, digits, _, . and -", key)
	}
	v, ok := fields["value"]
	if !ok {
		return fmt.Errorf("figure %s has no value=", key)
	}
	if !numberRE.MatchString(v) {
		return fmt.Errorf("figure %s: value=%s is not a number (want a decimal like 36 or 36.2)", key, v)
	}
	if p, ok := fields["p99"]; ok && !numberRE.MatchString(p) {
		return fmt.Errorf("figure %s: p99=%s is not a number", key, p)
	}
	if p, ok := fields["p99"]; ok && strings.HasPrefix(p, "-") {
		return fmt.Errorf("figure %s: p99=%s is negative", key, p)
	}
	u, ok := fields["unit"]
	if !ok {
		return fmt.Errorf("figure %s has no unit=", key)
	}
	if !wordRE.MatchString(u) {
		return fmt.Errorf("figure %s: unit=%q: want a plain word like cycles or ms", key, u)
	}
	if s, ok := fields["stat"]; ok && !wordRE.MatchString(s) {
		return fmt.Errorf("figure %s: stat=%q: want a plain word like median or min", key, s)
	}
	if b, ok := fields["baseline"]; ok && !keyRE.MatchString(b) {
		return fmt.Errorf("figure %s: baseline=%q is not a figure key", key, b)
	}
	for _, name := range []string{"n", "rounds", "calls", "pages", "samples", "preemptions", "wakes"} {
		if c, ok := fields[name]; ok && !countRE.MatchString(c) {
			return fmt.Errorf("figure %s: %s=%s is not a count", key, name, c)
		}
	}
	return nil
}

// checkValue refuses what a field's value may not hold anywhere: bytes
// that are not UTF-8 and control characters, which a quoted value could
// otherwise smuggle in (a newline would end a line of code on a page).
func checkValue(name, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s= is not UTF-8", name)
	}
	if strings.ContainsFunc(v, unicode.IsControl) {
		return fmt.Errorf("%s= holds a control character", name)
	}
	return nil
}
