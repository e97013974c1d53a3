package guest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A run's logs replace every log an earlier run of the suite left under
// the same name, whatever its number of boots.
func TestRemoveStaleLogs(t *testing.T) {
	for _, tt := range []struct {
		boots int
		have  []string
		keep  []string
	}{
		{1, []string{"s.log", "s-1.log", "s-2.log", "other-1.log"}, []string{"other-1.log", "s.log"}},
		{2, []string{"s.log", "s-1.log", "s-2.log", "s-3.log", "s-x.log"}, []string{"s-1.log", "s-2.log", "s-x.log"}},
	} {
		dir := t.TempDir()
		for _, name := range tt.have {
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := removeStaleLogs(filepath.Join(dir, "s.log"), tt.boots); err != nil {
			t.Fatal(err)
		}
		var left []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			left = append(left, e.Name())
		}
		if !slices.Equal(left, tt.keep) {
			t.Errorf("%d boots over %v: left %v, want %v", tt.boots, tt.have, left, tt.keep)
		}
	}
}

func TestBootLogAndPlan(t *testing.T) {
	if got := bootLog("d/s.log", 1, 1); got != "d/s.log" {
		t.Errorf("one boot's log: %s", got)
	}
	if got := bootLog("d/s.log", 3, 5); got != "d/s-3.log" {
		t.Errorf("boot 3 of 5's log: %s", got)
	}
	if pl := PlanOf("sched-perf"); pl.Boots != 5 {
		t.Errorf("sched-perf's plan: %+v", pl)
	}
	if pl := PlanOf("hello"); pl.Boots != 1 || pl.Timeout <= 0 {
		t.Errorf("hello's plan: %+v", pl)
	}
}
