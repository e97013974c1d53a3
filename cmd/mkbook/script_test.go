package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"endovisor/internal/figcheck"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mkbook": func() {
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs testdata/scripts/*.txtar, each on a book of its own.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "scripts"),
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"checkfigures": figcheck.Cmd,
			"gen":          cmdGen,
			"waitglob":     cmdWaitGlob,
		},
	})
}

// gen [-oneline] FILE N TEXT writes TEXT N times to FILE, a line each or
// all on one line: the logs too big to keep in a script.
func cmdGen(ts *testscript.TestScript, neg bool, args []string) {
	oneline := len(args) > 0 && args[0] == "-oneline"
	if oneline {
		args = args[1:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf("usage: gen [-oneline] FILE N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	ts.Check(err)
	w := bufio.NewWriter(f)
	text := strings.Join(args[2:], " ")
	for i := 0; i < n; i++ {
		w.WriteString(text)
		if !oneline {
			w.WriteByte('\n')
		}
	}
	if oneline {
		w.WriteByte('\n')
	}
	ts.Check(w.Flush())
	ts.Check(f.Close())
}

// waitglob PATTERN waits, up to a minute, until a file matches PATTERN: a
// background build has got that far.
func cmdWaitGlob(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitglob PATTERN")
	}
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(ts.MkAbs(args[0])); len(m) > 0 {
			return
		}
	}
	ts.Fatalf("nothing matches %s after a minute", args[0])
}
