package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// The logs make book makes: $(BUILD)/SUITE.log or $(BUILD)/SUITE-1.log in
// the Makefile's LOGS.
var makeLogRE = regexp.MustCompile(`\$\(BUILD\)/([A-Za-z0-9_-]+?)(?:-1)?\.log`)

// TestMakeRunsEverySuite: mkbook boots nothing, so every suite the
// chapters draw on must be one whose log make book makes.
func TestMakeRunsEverySuite(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	logs := regexp.MustCompile(`(?m)^LOGS := ((?:.*\\\n)*.*)$`).FindSubmatch(mk)
	if logs == nil {
		t.Fatal("Makefile: no LOGS := line")
	}
	var made []string
	for _, m := range makeLogRE.FindAllSubmatch(logs[1], -1) {
		made = append(made, string(m[1]))
	}
	suites, err := referencedSuites(config{root: root, logs: defaultLogs, src: "book/src"})
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) == 0 {
		t.Fatal("the chapters draw on no suite: the reader of their placeholders is broken")
	}
	for _, s := range suites {
		if !slices.Contains(made, s) {
			t.Errorf("the chapters draw on suite %s, but no log of it is in the Makefile's LOGS (make book would not run it)", s)
		}
	}
}
