package main

import (
	"strings"
	"testing"
)

// TestRewriteSVG: what a diagram file may hold, and what mkbook writes of it.
func TestRewriteSVG(t *testing.T) {
	const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>T</title>`
	good := head + `<g id="a" class="d-box"><rect x="1" y="1" width="2" height="2"/></g><use href="#a" x="3"/>` +
		`<text x="1" y="9">a &lt;b&gt; &amp; <tspan class="d-code">c</tspan></text></svg>`
	out, title, err := rewriteSVG([]byte(good), "d-x-", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<g id="d-x-a" class="d-box">`, `<use href="#d-x-a" x="3"></use>`,
		`a &lt;b&gt; &amp; <tspan class="d-code">c</tspan>`, `width="10" height="10" role="img"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewritten diagram lacks %s: %s", want, out)
		}
	}
	if title != "T" {
		t.Errorf("title %q", title)
	}
	for _, c := range []struct{ svg, err string }{
		{head + `<a href="http://x"><text>x</text></a></svg>`, "<a> is not an element"},
		{head + `<image href="x.png"/></svg>`, "<image> is not an element"},
		{head + `<rect onload="x()"/></svg>`, "may not have the attribute onload"},
		{head + `<rect style="fill:red"/></svg>`, "may not have the attribute style"},
		{head + `<rect fill="red"/></svg>`, `<rect fill="red">: not a value`},
		{head + `<rect transform="url(#x)"/></svg>`, "not a value"},
		{head + `<use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="#a"/></svg>`, "of another namespace"},
		{head + `<rect>text</rect></svg>`, "text in a <rect>"},
		{head + `<text><rect/></text></svg>`, "<rect> inside a <text>"},
		{head + `<rect id="a"/><rect id="a"/></svg>`, "the id a is used twice"},
		{head + `<title>again</title></svg>`, "a <title> other than"},
		{head + `</svg><svg/>`, "a second root element"},
		{head + `<rect>`, "not well-formed"},
		{head + `</svg>trailing`, "text outside the <svg>"},
		{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title> </title></svg>`, "no <title>, or an empty one"},
		{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="x()"><title>T</title></svg>`, "not onload"},
		{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10"><title>T</title></svg>`, "want four numbers"},
		{`<svg viewBox="0 0 10 10"><title>T</title></svg>`, "not of the SVG namespace"},
		{`<html xmlns="http://www.w3.org/2000/svg"/>`, "the root is <html>"},
		{`<?xml-stylesheet href="x.css"?>` + head + `</svg>`, "a processing instruction"},
		{head + strings.Repeat("<g>", 20) + strings.Repeat("</g>", 20) + `</svg>`, "nested deeper"},
		{`<!DOCTYPE svg [<!ENTITY a "aaaa">]>` + head + `<text>&a;</text></svg>`, "a <!DOCTYPE> directive"},
		{head + `<text>&a;</text></svg>`, "not well-formed XML: invalid character entity &a;"},
		{head + `<rect class="toc hidden"/></svg>`, `<rect class="toc hidden">: not a value`},
		{head + `<g id="a"><use href="#a"/></g></svg>`, "a <use> of #a, which is or holds a <use> itself"},
		{head + `<rect id="r"/><use id="u" href="#r"/><use href="#u"/></svg>`, "a <use> of #u, which is or holds"},
		{head + `<g id="b"><rect/></g><g id="c"><use href="#b"/><use href="#b"/></g><g id="d"><use href="#c"/><use href="#c"/></g></svg>`, "a <use> of #c, which is or holds"},
	} {
		if _, _, err := rewriteSVG([]byte(c.svg), "d-x-", nil); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want an error with %q", c.svg, err, c.err)
		}
	}
}
