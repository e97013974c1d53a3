package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// {{diagram NAME Caption words...}}, alone on its line, shows
// book/src/diagrams/NAME.svg as a numbered figure of its chapter ("Figure
// 8.2. Caption").  The SVG is inlined, not linked, so that the site's
// style sheet colours it: a diagram draws in currentColor and in the
// classes style.css gives a colour in each theme and in print (d-box,
// d-fill, d-trust, d-user, d-accent, d-warm, d-muted, d-arrow, d-head,
// d-line, d-dash, d-bold, d-small, d-code); a class is one of these d-
// classes, never one of the site's own.
//
// A diagram file is input like a chapter, and what reaches the page is
// not the file but mkbook's own rewriting of it: the file must be
// well-formed XML whose root is an <svg> with a viewBox and a <title>,
// and hold only the elements and attributes of plain shapes and text
// listed below, with values of their plain forms (no url(), no colour
// but none and currentColor, a <use> only of an id of the same file).
// Every id is prefixed with the diagram's name, so that two diagrams on
// one page (the print view has them all) never share one.  Each diagram
// is shown once in the book, and a file no chapter shows fails the load,
// so that none is left to rot.

var diagramName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

const (
	svgNS      = "http://www.w3.org/2000/svg"
	maxDiagram = 64 << 10
	maxDepth   = 16
)

var (
	svgNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	svgID     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	// The values each attribute may take.
	svgAttrs = map[string]*regexp.Regexp{
		"id":                svgID,
		"class":             regexp.MustCompile(`^d-[a-z0-9-]+( d-[a-z0-9-]+)*$`), // the diagrams' own, not the site's
		"x":                 svgNumber,
		"y":                 svgNumber,
		"x1":                svgNumber,
		"y1":                svgNumber,
		"x2":                svgNumber,
		"y2":                svgNumber,
		"cx":                svgNumber,
		"cy":                svgNumber,
		"r":                 svgNumber,
		"rx":                svgNumber,
		"ry":                svgNumber,
		"dx":                svgNumber,
		"dy":                svgNumber,
		"width":             svgNumber,
		"height":            svgNumber,
		"stroke-width":      svgNumber,
		"font-size":         svgNumber,
		"d":                 regexp.MustCompile(`^[MmLlHhVvCcSsQqAaZz0-9 ,.-]+$`),
		"points":            regexp.MustCompile(`^[0-9 ,.-]+$`),
		"transform":         regexp.MustCompile(`^((translate|rotate|scale)\([0-9 ,.-]+\) ?)+$`),
		"stroke-dasharray":  regexp.MustCompile(`^[0-9][0-9 ,.]*$`),
		"text-anchor":       regexp.MustCompile(`^(start|middle|end)$`),
		"dominant-baseline": regexp.MustCompile(`^(auto|middle|central|hanging)$`),
		"font-weight":       regexp.MustCompile(`^(normal|bold)$`),
		"font-style":        regexp.MustCompile(`^(normal|italic)$`),
		"fill":              regexp.MustCompile(`^(none|currentColor)$`),
		"stroke":            regexp.MustCompile(`^(none|currentColor)$`),
		"href":              regexp.MustCompile(`^#[A-Za-z][A-Za-z0-9_-]*$`),
	}
	// The elements a diagram may hold, each with the attributes it may
	// have beyond the common ones.
	svgCommon   = []string{"id", "class", "transform", "fill", "stroke", "stroke-width", "stroke-dasharray"}
	svgElements = map[string][]string{
		"svg":      nil, // the root, read apart
		"title":    {},
		"desc":     {},
		"defs":     {},
		"g":        {"font-size", "font-weight", "font-style", "text-anchor"},
		"rect":     {"x", "y", "width", "height", "rx", "ry"},
		"circle":   {"cx", "cy", "r"},
		"ellipse":  {"cx", "cy", "rx", "ry"},
		"line":     {"x1", "y1", "x2", "y2"},
		"polyline": {"points"},
		"polygon":  {"points"},
		"path":     {"d"},
		"text":     {"x", "y", "dx", "dy", "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline"},
		"tspan":    {"x", "y", "dx", "dy", "font-size", "font-weight", "font-style", "text-anchor"},
		"use":      {"href", "x", "y"},
	}
	// The elements whose text is shown; elsewhere only white space.
	svgText = map[string]bool{"title": true, "desc": true, "text": true, "tspan": true}
)

type diagramKind struct{}

func (diagramKind) usage() string                    { return "{{diagram NAME CAPTION...}}" }
func (diagramKind) block() bool                      { return true }
func (diagramKind) suites(config, []string) []string { return nil }
func (k diagramKind) resolve(b *book, args []string) (use, error) {
	if len(args) < 2 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	name := args[0]
	if !diagramName.MatchString(name) {
		return use{}, fmt.Errorf("diagram %q: a name is lower-case letters and digits, with hyphens between", name)
	}
	if b.diagrams == nil {
		b.diagrams = map[string]*chapter{}
	}
	if ch, ok := b.diagrams[name]; ok {
		return use{}, fmt.Errorf("diagram %s is shown already, in %s: a diagram is shown once", name, ch.src)
	}
	file := filepath.Join(b.c.src, "diagrams", name+".svg")
	caption := strings.Join(args[1:], " ")
	if r, _, ok, err := b.retiredIn(caption); err != nil || ok {
		if err != nil {
			return use{}, err
		}
		return use{}, b.retiredError("the caption", r)
	}
	var refs []srcRef
	svg, title, err := readDiagram(b.path(file), "d-"+name+"-", func(line int, text string, title bool) (string, error) {
		out, r, err := b.diagramWords(text, title)
		refs = append(refs, r...)
		return out, err
	})
	if err != nil {
		return use{}, fmt.Errorf("%s: %w", file, err)
	}
	n := 1
	for _, ch := range b.diagrams {
		if ch == b.cur {
			n++
		}
	}
	b.diagrams[name] = b.cur
	num := fmt.Sprintf("%d.%d", b.cur.Number, n)
	out := fmt.Sprintf("<figure class=\"diagram\" id=\"figure-%s\">\n%s\n<figcaption><span class=\"fignum\">Figure %s.</span> %s</figcaption>\n</figure>",
		name, svg, num, html.EscapeString(caption))
	return use{text: "Figure " + num + ". " + caption + " (" + title + ")", out: out, refs: refs}, nil
}

// diagramCode finds what may be a code name in a diagram's text: a tag
// (struct ev_vm) or an identifier, perhaps with ().  A word without an
// underscore is taken for a word: a diagram has no backticks to say it is
// code, nor a way to qualify a name.
var diagramCode = regexp.MustCompile(`(struct|union|enum) [A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*(\(\))?`)

// diagramQual is a qualifier after a name, as prose writes it: a name of
// two definitions, syscall_dispatch in proc/syscall.c.
var diagramQual = regexp.MustCompile(`^ in ([A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_])`)

// diagramWords checks a piece of a diagram's text as prose is checked: no
// retired design's word, and every code name resolves (an identifier with
// an underscore, a name with (), a tag), as
// a backticked name does in prose.  It returns the text as the page shows
// it, each name that has a definition linked to it, and the places of
// the sources it names.  The title is checked, not linked: it is not
// drawn.
func (b *book) diagramWords(text string, title bool) (string, []srcRef, error) {
	if r, _, ok, err := b.retiredIn(text); err != nil || ok {
		if err != nil {
			return "", nil, err
		}
		return "", nil, b.retiredError(fmt.Sprintf("%q", strings.TrimSpace(text)), r)
	}
	var out strings.Builder
	var refs []srcRef
	last := 0
	for _, m := range diagramCode.FindAllStringIndex(text, -1) {
		name := text[m[0]:m[1]]
		if m[0] > 0 && (text[m[0]-1] == '-' || text[m[0]-1] == '/' || text[m[0]-1] == '.') {
			continue // -EINVAL, a path's part, a file's suffix
		}
		if !strings.Contains(name, "_") && !strings.HasSuffix(name, "()") && !tagName.MatchString(name) {
			continue // a word, or a name a diagram cannot qualify (run, mm)
		}
		qual := ""
		if q := diagramQual.FindStringSubmatch(text[m[1]:]); q != nil {
			qual = q[1]
		}
		l, err := b.codeName(name, qual)
		if err != nil {
			return "", nil, fmt.Errorf("`%s`: %w", name, err)
		}
		if l == nil || title {
			continue
		}
		if l.ref != nil {
			refs = append(refs, *l.ref)
		}
		out.WriteString(html.EscapeString(text[last:m[0]]))
		fmt.Fprintf(&out, `<a class="%s" href="%s"><title>%s</title>%s</a>`, l.class, html.EscapeString(l.href),
			html.EscapeString(l.title), html.EscapeString(name))
		last = m[1]
	}
	out.WriteString(html.EscapeString(text[last:]))
	return out.String(), refs, nil
}

// checkDiagrams fails on a diagram file that no chapter shows.
func (b *book) checkDiagrams() error {
	dir := filepath.Join(b.c.src, "diagrams")
	entries, err := os.ReadDir(b.path(dir))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".svg")
		if !ok {
			continue
		}
		if _, shown := b.diagrams[name]; !shown {
			return fmt.Errorf("%s: no chapter shows this diagram: put {{diagram %s Caption}} where the prose explains it, or remove the file",
				filepath.Join(dir, e.Name()), name)
		}
	}
	return nil
}

// readDiagram reads an SVG file and writes it anew as the page will show
// it, its ids prefixed; it returns that and the diagram's title.
func readDiagram(name, prefix string, words func(int, string, bool) (string, error)) (string, string, error) {
	st, err := os.Lstat(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("no such diagram")
	}
	if err != nil {
		return "", "", err
	}
	if !st.Mode().IsRegular() || st.Size() > maxDiagram {
		return "", "", fmt.Errorf("want a regular file of at most %d KiB", maxDiagram>>10)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return "", "", err
	}
	return rewriteSVG(data, prefix, words)
}

// rewriteSVG checks an SVG against the allow-list and writes it out.
// words, if not nil, writes each piece of text the diagram shows (title
// says it is the title's, which is not drawn), or fails on it.
func rewriteSVG(data []byte, prefix string, words func(line int, text string, title bool) (string, error)) (string, string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	line := func() int { l, _ := d.InputPos(); return l }
	fail := func(format string, a ...any) (string, string, error) {
		return "", "", fmt.Errorf("line %d: %s", line(), fmt.Sprintf(format, a...))
	}
	var out strings.Builder
	var stack []string
	ids := map[string]bool{}
	refs := map[string]int{} // each id a <use> names, and its line
	// The ids of the open elements, and those that hold a <use>: a <use>
	// of one would nest uses, which can draw exponentially many shapes
	// from a few lines, or loop.
	var openIDs []string
	holdsUse := map[string]bool{}
	title, inTitle, done, seenRoot := "", false, false, false
	children := 0 // the root's child elements so far
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return "", "", fmt.Errorf("line %d: not well-formed XML: %s", se.Line, se.Msg)
			}
			return "", "", fmt.Errorf("line %d: %w", line(), err)
		}
		switch t := tok.(type) {
		case xml.ProcInst:
			if t.Target != "xml" || seenRoot {
				return fail("a processing instruction <?%s?>", t.Target)
			}
		case xml.Directive:
			return fail("a <!%s> directive (no DOCTYPE or entities)", strings.Fields(string(t) + " x")[0])
		case xml.Comment:
		case xml.CharData:
			text := string(t)
			if len(stack) > 0 && svgText[stack[len(stack)-1]] {
				if inTitle {
					title += text
				}
				shown := html.EscapeString(text)
				if words != nil {
					if shown, err = words(line(), text, inTitle); err != nil {
						return "", "", fmt.Errorf("line %d: %w", line(), err)
					}
				}
				out.WriteString(shown)
			} else if strings.TrimSpace(text) != "" {
				where := "outside the <svg>"
				if len(stack) > 0 {
					where = "in a <" + stack[len(stack)-1] + ">"
				}
				return fail("text %s", where)
			}
		case xml.EndElement:
			out.WriteString("</" + t.Name.Local + ">")
			stack = stack[:len(stack)-1]
			if len(openIDs) > 0 {
				openIDs = openIDs[:len(openIDs)-1]
			}
			inTitle = false
			if len(stack) == 0 {
				done = true
			}
		case xml.StartElement:
			el := t.Name.Local
			if done {
				return fail("a second root element <%s>", el)
			}
			if t.Name.Space != svgNS {
				return fail("<%s> is not of the SVG namespace %s", el, svgNS)
			}
			if len(stack) >= maxDepth {
				return fail("elements nested deeper than %d", maxDepth)
			}
			if len(stack) == 0 {
				if el != "svg" {
					return fail("the root is <%s>, want <svg>", el)
				}
				seenRoot = true
				root, err := svgRoot(t)
				if err != nil {
					return fail("%v", err)
				}
				out.WriteString(root)
				stack = append(stack, el)
				continue
			}
			extra, ok := svgElements[el]
			if !ok || el == "svg" {
				return fail("<%s> is not an element a diagram may hold", el)
			}
			if svgText[stack[len(stack)-1]] && el != "tspan" {
				return fail("<%s> inside a <%s>", el, stack[len(stack)-1])
			}
			if len(stack) == 1 {
				children++
				if children == 1 && el != "title" {
					return fail("the <svg>'s first element is <%s>, want its <title>", el)
				}
			}
			if el == "title" {
				if len(stack) != 1 || children != 1 {
					return fail("a <title> other than the <svg>'s first element")
				}
				inTitle = true
			}
			id := ""
			for _, a := range t.Attr {
				if a.Name.Space == "" && a.Name.Local == "id" {
					id = a.Value
				}
			}
			openIDs = append(openIDs, id)
			if el == "use" {
				for _, o := range openIDs {
					holdsUse[o] = true
				}
			}
			out.WriteString("<" + el)
			for _, a := range t.Attr {
				attr := a.Name.Local
				if a.Name.Space != "" {
					return fail("<%s> has the attribute %s:%s, of another namespace", el, a.Name.Space, attr)
				}
				allowed := false
				for _, x := range append(extra, svgCommon...) {
					allowed = allowed || x == attr
				}
				if !allowed {
					return fail("<%s> may not have the attribute %s", el, attr)
				}
				if !svgAttrs[attr].MatchString(a.Value) {
					return fail("<%s %s=%q>: not a value mkbook allows there", el, attr, a.Value)
				}
				v := a.Value
				switch attr {
				case "id":
					if ids[v] {
						return fail("the id %s is used twice", v)
					}
					ids[v] = true
					v = prefix + v
				case "href":
					refs[v[1:]] = line()
					v = "#" + prefix + v[1:]
				}
				fmt.Fprintf(&out, " %s=\"%s\"", attr, html.EscapeString(v))
			}
			out.WriteString(">")
			stack = append(stack, el)
		}
	}
	if !seenRoot || !done {
		return fail("no whole <svg> element")
	}
	for id, l := range refs {
		if !ids[id] {
			return "", "", fmt.Errorf("line %d: a <use> of #%s, which the file does not define", l, id)
		}
		if holdsUse[id] {
			return "", "", fmt.Errorf("line %d: a <use> of #%s, which is or holds a <use> itself: a <use> repeats shapes, not uses", l, id)
		}
	}
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "", "", fmt.Errorf("the <svg> has no <title>, or an empty one: say what the diagram shows")
	}
	return out.String(), title, nil
}

// svgRoot checks the root's attributes and writes its start tag: the
// viewBox kept, the size taken from it (the style sheet scales it down to
// fit), and its role an image named by its title.
func svgRoot(t xml.StartElement) (string, error) {
	var box []float64
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			if a.Value != svgNS {
				return "", fmt.Errorf("the <svg>'s xmlns is %q, want %s", a.Value, svgNS)
			}
		case a.Name.Space == "" && a.Name.Local == "viewBox":
			for _, f := range strings.FieldsFunc(a.Value, func(r rune) bool { return r == ' ' || r == ',' }) {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil || !svgNumber.MatchString(f) {
					return "", fmt.Errorf("viewBox %q: want four numbers", a.Value)
				}
				box = append(box, v)
			}
			if len(box) != 4 || box[2] <= 0 || box[3] <= 0 || box[2] > 4000 || box[3] > 4000 {
				return "", fmt.Errorf("viewBox %q: want four numbers, the width and height positive and at most 4000", a.Value)
			}
		case a.Name.Space == "" && (a.Name.Local == "width" || a.Name.Local == "height"):
			// The viewBox gives the size.
		default:
			name := a.Name.Local
			if a.Name.Space != "" {
				name = a.Name.Space + ":" + name
			}
			return "", fmt.Errorf("the <svg> may have only xmlns, viewBox, width and height, not %s", name)
		}
	}
	if box == nil {
		return "", fmt.Errorf("the <svg> has no viewBox")
	}
	n := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return fmt.Sprintf(`<svg class="diagram-svg" xmlns="%s" viewBox="%s %s %s %s" width="%s" height="%s" role="img">`,
		svgNS, n(box[0]), n(box[1]), n(box[2]), n(box[3]), n(box[2]), n(box[3])), nil
}
