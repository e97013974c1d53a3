package main

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"endovisor/internal/figlog"
)

// The logs as the book shows them: a line named by {{logfile}}, the lines
// a {{quote}} finds, and a page per log with an anchor per line.  Only
// files in the logs directory are logs: a chapter cannot publish
// /etc/passwd, and a log page is named by its path there, so two logs
// never share a page.  Each log is read a line at a time, within
// figlog's bounds, and its page written as it is read.

// maxQuote bounds the lines one {{quote}} may pull into a chapter, and
// maxScan the bytes of logs all of them and the log pages read together,
// so that a chapter of many quotes cannot make a build take hours.
const (
	maxQuote = 200
	maxScan  = 256 << 20
)

// eachLine reads a log for a placeholder or a log page, within the
// book's budget.
func (b *book) eachLine(name string, fn func(n int, line string) error) error {
	if st, err := os.Stat(name); err == nil {
		if b.scanned += st.Size(); b.scanned > maxScan {
			return fmt.Errorf("the book reads more than %d MiB of logs for its quotes, log references and log pages: quote less", maxScan>>20)
		}
	}
	return figlog.EachLine(name, fn)
}

var logfileRef = regexp.MustCompile(`^(.+):(\d+)$`)

// inLogs maps a path a chapter names, relative to the root, to where the
// book reads it: a chapter names a log where make leaves it, in
// prototype/.build/, and with -logs the book reads it from there instead.
func (b *book) inLogs(rel string) string {
	if rest, ok := strings.CutPrefix(rel+"/", defaultLogs+"/"); ok {
		return path.Join(b.c.logs, rest)
	}
	return rel
}

// logFile resolves a path the chapter names, relative to the root, to a
// log in the logs directory.
func (b *book) logFile(rel string) (string, error) {
	rel = b.inLogs(rel)
	if _, err := os.Lstat(b.path(rel)); err != nil {
		return "", fmt.Errorf("no log %s", rel)
	}
	name, ok := figlog.Within(b.path(b.c.logs), b.path(rel))
	if !ok {
		return "", fmt.Errorf("%s is not in the logs directory %s", rel, b.c.logs)
	}
	return name, nil
}

// logfile checks that PATH is a log with line LINE, and links to it.
func (b *book) logfile(ref string) (use, error) {
	m := logfileRef.FindStringSubmatch(ref)
	if m == nil {
		return use{}, fmt.Errorf("want PATH:LINE, have %q", ref)
	}
	line, err := strconv.Atoi(m[2])
	if err != nil || line < 1 {
		return use{}, fmt.Errorf("%s: no line %s", m[1], m[2])
	}
	name, err := b.logFile(m[1])
	if err != nil {
		return use{}, err
	}
	n, ok := b.lines[name]
	if !ok {
		if err := b.eachLine(name, func(k int, _ string) error { n = k; return nil }); err != nil {
			return use{}, err
		}
		b.lines[name] = n
	}
	if line > n {
		return use{}, fmt.Errorf("%s has %d lines, not a line %d", m[1], n, line)
	}
	b.files[name] = true
	return use{text: ref, out: b.logLink(name, line, ref)}, nil
}

// quote renders the lines of a suite's first log that hold text, as a
// preformatted block whose lines link to the log.
func (b *book) quote(suite, text string) (use, error) {
	s, err := b.suite(suite)
	if err != nil {
		return use{}, err
	}
	if b.c.runDate != "" && !b.holds(s.Logs[0].File, text) {
		// As for a figure: a stored run kept before its suite printed
		// the line cannot judge the sentence that quotes it.
		return use{}, fmt.Errorf("no line of %s holds %q: %w", b.rel(s.Logs[0].File), text, errPredates)
	}
	return b.quoteLines(s.Logs[0].File, text)
}

// holds says whether a line of the log name holds text.
func (b *book) holds(name, text string) bool {
	found := false
	_ = b.eachLine(name, func(_ int, l string) error {
		found = found || strings.Contains(l, text)
		return nil
	})
	return found
}

// quoteLines renders the lines of the log or record name that hold text.
func (b *book) quoteLines(name, text string) (use, error) {
	var out strings.Builder
	found := 0
	err := b.eachLine(name, func(n int, l string) error {
		if !strings.Contains(l, text) {
			return nil
		}
		if found++; found > maxQuote {
			return fmt.Errorf("more than %d lines of %s hold %q: quote something rarer", maxQuote, b.rel(name), text)
		}
		fmt.Fprintf(&out, "<a href=\"%s#L%d\">%s</a>\n", b.logPage(name), n, html.EscapeString(l))
		return nil
	})
	if err != nil {
		return use{}, err
	}
	if found == 0 {
		return use{}, fmt.Errorf("no line of %s holds %q", b.rel(name), text)
	}
	b.files[name] = true
	return use{text: text, out: `<pre class="logquote">` + strings.TrimSuffix(out.String(), "\n") + "</pre>"}, nil
}

// logName is a log's path in the logs directory, which names its page.
// A record is not a log (record.go): its pages are apart.
func (b *book) logName(file string) string {
	if r, ok := relWithin(b.path(b.c.logs), file); ok {
		return r
	}
	return filepath.Base(file)
}

// relWithin is file's path in dir, links resolved in both, and whether
// it lies there at all.
func relWithin(dir, file string) (string, bool) {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	name, ok := figlog.Within(d, file)
	if !ok {
		return "", false
	}
	r, err := filepath.Rel(d, name)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// logPage is the link from a page at the site's top to a log's page.
func (b *book) logPage(file string) string {
	if name, ok := b.recordName(file); ok {
		return "records/" + name + ".html"
	}
	return "logs/" + b.logName(file) + ".html"
}

// writeLogs renders every log a figure came from, and every log a
// {{logfile}} or {{quote}} names, as a page with one anchor per line.
func (b *book) writeLogs(dir string) error {
	names := map[string]bool{}
	for name := range b.logs {
		names[name] = true
	}
	for name := range b.files {
		names[name] = true
	}
	var sorted []string
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	figAt := map[string]map[int]string{}
	for k, a := range b.figs {
		if a.Terms != nil {
			continue // a sum's lines are its terms'
		}
		for _, f := range a.Boots {
			if figAt[f.File] == nil {
				figAt[f.File] = map[int]string{}
			}
			figAt[f.File][f.Line] = k
		}
	}
	for _, name := range sorted {
		if err := b.writeLog(dir, name, figAt[name]); err != nil {
			return err
		}
	}
	return nil
}

func (b *book) writeLog(dir, name string, figAt map[int]string) error {
	title := b.rel(name)
	page := b.logPage(name)
	up := strings.Repeat("../", strings.Count(page, "/"))
	d := pageData{Title: title, Chapters: b.chapters, Kind: "log", Up: up,
		Content: template.HTML("<h1 id=\"log\">" + html.EscapeString(title) + "</h1>\n<pre>" + linesHole + "</pre>")}
	// The log's lines are written as they are read.
	return writeLines(filepath.Join(dir, filepath.FromSlash(page)), d, func(w io.Writer) error {
		return b.eachLine(name, func(n int, line string) error {
			text := html.EscapeString(line)
			// A figure's line links to the figure's entry in the provenance.
			if k, ok := figAt[n]; ok {
				text = fmt.Sprintf("<a class=\"figline\" href=\"%sprovenance.html#%s\" title=\"where this figure is used\">%s</a>", up, html.EscapeString(k), text)
			}
			_, err := fmt.Fprintf(w, "<span id=\"L%d\"><a class=\"ln\" href=\"#L%d\">%5d</a> %s</span>\n", n, n, n, text)
			return err
		})
	})
}
