package main

import (
	"strings"
	"testing"

	"endovisor/tools/figlog"
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
