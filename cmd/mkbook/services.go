package main

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"endovisor/internal/srcindex"
)

// {{services HEADER}}, alone on its line, is the table of the services
// generated from the one list of them (prototype/abi/ev_services.h), from
// which the C code takes their numbers, dispatch and crossings too, so
// that the book's table cannot drift from the code.  Each service is one
// line of the list:
//
//	EV_SERVICE(10, VM_MAP, vm_map, 4)  /* (vm, va, frame, prot): 0; -EBADF, -EINVAL */
//
// its number, its name in capitals (EV_SVC_VM_MAP) and as the book calls
// it, and the count of its arguments; then in the comment its arguments
// in parentheses, as many as the count, then what it returns, then after
// a semicolon the errors it can return, each -ECODE with what it means,
// or "ending" for -ESHUTDOWN once the sandbox's teardown has begun.  The
// numbers run from 0 without a gap or a repeat (the C build checks that
// EV_NR_SERVICES counts them); a line the parser does not understand
// fails with its header:line.  The header is a file of the sources
// (internal/srcindex), and a line of the list is one the C scanner reads as code,
// not one in a comment or an #if 0 block.  The table's
// last column is the chapter that explains each service: the first
// chapter, other than the table's own and chapter 1, whose prose names
// its function (`ev_svc_vm_map`) or its macro (`EV_SVC_VM_MAP`) in
// inline code, or, if none does, the first that names the service
// (`vm_map`, or as a call, `vm_map(vm, va, frame, prot)`).  A service no
// chapter explains fails the load, named.

var (
	svcLine  = regexp.MustCompile(`^\s*EV_SERVICE\(\s*([0-9]+)\s*,\s*([A-Z][A-Z0-9_]*)\s*,\s*([a-z][a-z0-9_]*)\s*,\s*([0-9]+)\s*\)\s*/\*\s*\((.*?)\):\s*(.*?)\s*\*/\s*$`)
	svcStart = regexp.MustCompile(`^\s*EV_SERVICE\b`)
	svcError = regexp.MustCompile(`^(-E[A-Z0-9]+)(?:\s+(.+))?$`)
	svcCode  = regexp.MustCompile(`-E[A-Z]`)
	// A name in a result or an error's words: EV_PT_QUOTA, tenant_run, EV_PROT_*.
	svcName = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\*?`)
)

// svcWords escapes a result's or an error's words, with the names in them as code.
func svcWords(s string) string {
	return svcName.ReplaceAllString(html.EscapeString(s), "<code>$0</code>")
}

type service struct {
	Name   string // vm_map
	Macro  string // EV_SVC_VM_MAP
	Number int
	Args   []string
	Result string
	Errors [][2]string // each code and what it means
	Line   int
}

type servicesKind struct{}

func (servicesKind) usage() string                    { return "{{services HEADER}}" }
func (servicesKind) block() bool                      { return true }
func (servicesKind) suites(config, []string) []string { return nil }
func (k servicesKind) resolve(b *book, args []string) (use, error) {
	if len(args) != 1 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	header := args[0]
	f, err := b.sourceFile(header)
	if err != nil {
		return use{}, err
	}
	svcs, err := readServices(f)
	if err != nil {
		return use{}, err
	}
	var rows strings.Builder
	for _, s := range svcs {
		ch := b.explainer(s)
		if ch == nil {
			return use{}, fmt.Errorf("%s:%d: no chapter explains the service %s (%d): name `%s`, `%s` or `ev_svc_%s` in the prose of the chapter that does",
				header, s.Line, s.Name, s.Number, s.Name, s.Macro, s.Name)
		}
		args := "none"
		if len(s.Args) > 0 {
			var a []string
			for _, x := range s.Args {
				a = append(a, "<code>"+html.EscapeString(x)+"</code>")
			}
			args = strings.Join(a, ", ")
		}
		errs := "none"
		if len(s.Errors) > 0 {
			var e []string
			for _, x := range s.Errors {
				c := "<code>" + html.EscapeString(x[0]) + "</code>"
				if x[1] != "" {
					c += " " + svcWords(x[1])
				}
				e = append(e, c)
			}
			errs = strings.Join(e, ", ")
		}
		fmt.Fprintf(&rows, "<tr><td>%d</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td><td><a href=\"%s\" title=\"%s\">chapter&nbsp;%d</a></td></tr>\n",
			s.Number, html.EscapeString(s.Name), args, svcWords(s.Result), errs,
			html.EscapeString(ch.Page), html.EscapeString(ch.Title), ch.Number)
	}
	out := "<table class=\"services\">\n<thead><tr><th>no.</th><th>service</th><th>arguments</th><th>returns</th><th>errors</th><th>explained in</th></tr></thead>\n<tbody>\n" +
		rows.String() + "</tbody>\n</table>"
	return use{text: fmt.Sprintf("%d services", len(svcs)), out: out}, nil
}

// explainer is the chapter that explains a service: the first to name
// its function or its macro, which is where its code is explained, or
// else the first to name the service.
func (b *book) explainer(s service) *chapter {
	for _, names := range []map[string]bool{
		{s.Macro: true, "ev_svc_" + s.Name: true},
		{s.Name: true},
	} {
		for _, ch := range b.chapters {
			if ch == b.cur || ch.Number == 1 || ch.source == nil {
				continue
			}
			for _, cs := range ch.source.spans {
				// `vm_map`, `vm_map()` and `vm_map(vm, va, frame, prot)` all name it.
				name, _, _ := strings.Cut(strings.TrimSpace(cs.text), "(")
				if names[name] {
					return ch
				}
			}
		}
	}
	return nil
}

// codeLines are f's lines as the C scanner reads them: a comment's text
// and an #if 0 block's lines blanked, so that a line there is no code.
func codeLines(f *srcindex.File) []string {
	blanked := strings.Split(srcindex.BlankC(strings.Join(f.Lines, "\n")), "\n")
	srcindex.CppLines(blanked)
	return blanked
}

// readServices parses the list's lines: those the C scanner reads as
// code, so that a line in a comment or an #if 0 block is none.
func readServices(f *srcindex.File) ([]service, error) {
	blanked := codeLines(f)
	var svcs []service
	byNumber := map[int]int{}
	for i, code := range blanked {
		if !svcStart.MatchString(code) {
			continue
		}
		n, text := i+1, f.Lines[i]
		at := fmt.Sprintf("%s:%d", f.Path, n)
		m := svcLine.FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("%s: cannot read this service's line: want EV_SERVICE(N, NAME, name, COUNT) /* (ARGS): RESULT; ERRORS */", at)
		}
		s := service{Name: m[3], Macro: "EV_SVC_" + m[2], Line: n}
		if strings.ToLower(m[2]) != m[3] {
			return nil, fmt.Errorf("%s: %s names the service %s: want the same name in capitals and in small letters", at, s.Macro, s.Name)
		}
		var err error
		s.Number, err = strconv.Atoi(m[1])
		if err != nil || len(m[1]) > 4 {
			return nil, fmt.Errorf("%s: %s: number %s", at, s.Macro, m[1])
		}
		if len(m[1]) > 1 && m[1][0] == '0' {
			return nil, fmt.Errorf("%s: %s: number %s: C reads it in octal; write it in decimal, without a leading 0", at, s.Macro, m[1])
		}
		if prev, ok := byNumber[s.Number]; ok {
			return nil, fmt.Errorf("%s: %s repeats the number %d, which line %d has", at, s.Macro, s.Number, prev)
		}
		if s.Number != len(svcs) {
			return nil, fmt.Errorf("%s: %s is number %d, want %d: the numbers run from 0, in order, without a gap", at, s.Macro, s.Number, len(svcs))
		}
		byNumber[s.Number] = n
		for _, a := range splitList(m[5], ',') {
			if strings.TrimSpace(m[5]) == "" {
				break
			}
			if a = strings.TrimSpace(a); a == "" {
				return nil, fmt.Errorf("%s: %s: an empty argument in (%s)", at, s.Macro, m[5])
			}
			s.Args = append(s.Args, a)
		}
		if count, _ := strconv.Atoi(m[4]); count != len(s.Args) {
			return nil, fmt.Errorf("%s: %s takes %s arguments, but its comment names %d: (%s)", at, s.Macro, m[4], len(s.Args), m[5])
		}
		parts := splitList(m[6], ';')
		if len(parts) > 2 {
			return nil, fmt.Errorf("%s: %s: want RESULT; ERRORS, with one semicolon", at, s.Macro)
		}
		s.Result = strings.TrimSpace(parts[0])
		if s.Result == "" || svcCode.MatchString(s.Result) {
			return nil, fmt.Errorf("%s: %s: want what it returns before the errors, as in \"(vm): 0; -EBADF\"", at, s.Macro)
		}
		if len(parts) == 2 {
			for _, e := range splitList(parts[1], ',') {
				e = strings.TrimSpace(e)
				if e == "ending" {
					s.Errors = append(s.Errors, [2]string{"-ESHUTDOWN", "once the teardown has begun"})
					continue
				}
				em := svcError.FindStringSubmatch(e)
				if em == nil {
					return nil, fmt.Errorf("%s: %s: error %q: want -ECODE and what it means, or ending", at, s.Macro, e)
				}
				s.Errors = append(s.Errors, [2]string{em[1], em[2]})
			}
		}
		svcs = append(svcs, s)
	}
	if len(svcs) == 0 {
		return nil, fmt.Errorf("header %s: no EV_SERVICE(N, NAME, name, COUNT) line", f.Path)
	}
	return svcs, nil
}

// splitList splits a list of the header's at each sep outside
// parentheses: (size, flags (or 0)) is two arguments.
func splitList(s string, sep rune) []string {
	paren := func(r rune) int {
		switch r {
		case '(':
			return 1
		case ')':
			return -1
		}
		return 0
	}
	var out []string
	for _, p := range srcindex.SplitOutside([]rune(s), func(r rune) bool { return r == sep }, paren) {
		out = append(out, string(p))
	}
	return out
}
