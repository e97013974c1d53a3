package guest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSourceLDFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		src  string
		want []string
		bad  bool
	}{
		{src: "/*\n * a program\n */\nint main(void) { return 0; }\n"},
		{src: "/*\n * ldflags: -Wl,-e,entry\n */\n", want: []string{"-Wl,-e,entry"}},
		{src: "/* x\n * ldflags: -Wl,-e,a -Wl,-z,now\n */\n", want: []string{"-Wl,-e,a", "-Wl,-z,now"}},
		{src: "/*\n * ldflags: -lm\n */\n", bad: true},
	} {
		src := filepath.Join(dir, "p.c")
		if err := os.WriteFile(src, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := sourceLDFlags(src)
		if tc.bad {
			if err == nil {
				t.Errorf("sourceLDFlags(%q) = %q, want an error", tc.src, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("sourceLDFlags(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}
