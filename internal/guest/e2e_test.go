package guest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"endovisor/internal/figcheck"
	"endovisor/internal/testenv"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestE2E runs testdata/e2e/*.txtar: each boots the real guest through
// make's targets, as a reader would, and reads the console for what a good
// boot of its suites must show.  They see the repository root as $REPO
// and the caller's Go and home settings, and have mkbook on their PATH,
// built from this tree.  Each begins with
//
//	[short] skip
//	[!qemu] skip
//
// so that go test -short boots nothing; qemu holds where QEMU is installed,
// and is an error in CI, where a missing QEMU must fail, not skip.
func TestE2E(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	mkbook := sync.OnceValue(func() error { return buildMkbook(repo, bin) })
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "e2e"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			for _, v := range []string{"HOME", "GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "CI"} {
				if s, ok := os.LookupEnv(v); ok {
					env.Setenv(v, s)
				}
			}
			if testing.Short() {
				return nil
			}
			if err := mkbook(); err != nil {
				return err
			}
			env.Setenv("PATH", bin+string(filepath.ListSeparator)+env.Getenv("PATH"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond != "qemu" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := exec.LookPath("qemu-system-x86_64")
			if err != nil && testenv.InCI() {
				return false, fmt.Errorf("%s; CI must boot the guest", testenv.Missing("qemu-system-x86_64", "qemu-system-x86"))
			}
			return err == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"checkfigures": figcheck.Cmd,
		},
	})
}

// buildMkbook builds repo's cmd/mkbook into dir.
func buildMkbook(repo, dir string) error {
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "mkbook"), "./cmd/mkbook")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/mkbook: %w\n%s", err, out)
	}
	return nil
}
