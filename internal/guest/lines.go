package guest

import (
	"bufio"
	"os"
	"strings"
)

// A numberedLine is a line of a file of the pipeline's own settings.
type numberedLine struct {
	n    int
	text string
}

// settingLines reads a file of settings (kernel.pin, debug.config,
// checkpatch.allow): its lines trimmed, each with its number, without
// blank lines and # comments.
func settingLines(name string) ([]numberedLine, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []numberedLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, numberedLine{n, t})
		}
	}
	return out, sc.Err()
}
