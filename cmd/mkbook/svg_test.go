package main

import (
	"strings"
	"testing"

	"endovisor/internal/figlog"
)

// TestPlotEscapes: the plot writes the key and unit as SVG text, escaped,
// even though the log parser admits only plain ones.
func TestPlotEscapes(t *testing.T) {
	a := &figlog.Aggregate{Key: "<script>k</script>", Unit: `"><script>u</script>`, Value: 1,
		Boots: []figlog.Figure{{Fields: map[string]string{"value": "1"}}}}
	for _, labels := range []bool{false, true} {
		if s := plotSVG(a, 100, 20, labels); strings.Contains(s, "<script>") {
			t.Errorf("plotSVG(labels=%v) writes markup from the figure: %s", labels, s)
		}
	}
}

func TestFormatRatio(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{
		{2.5, "2.5"}, {1, "1.0"}, {0.9, "0.90"}, {0.0043, "0.0043"},
		{9.94, "9.9"}, {9.95, "9.9"}, {9.950001, "10"}, // 9.95 is stored just below 9.95
		{9.96, "10"}, {9.999, "10"}, {10, "10"}, {10.4, "10"}, {99.6, "100"},
		{0.0996, "0.10"}, {0.995, "1.0"}, {0.00999, "0.010"}, {1234.5, "1,235"},
	} {
		if got := formatRatio(c.r); got != c.want {
			t.Errorf("formatRatio(%v) = %s, want %s", c.r, got, c.want)
		}
	}
}
