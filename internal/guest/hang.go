package guest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A boot that runs past its time is asked what it was doing before it is
// killed, so that a hang leaves more in its console than its last line.
// The serial port is QEMU's mux of the console and the monitor (-serial
// mon:stdio), and QEMU's stdin is ours.  First the guest's own Linux is
// asked, by magic sysrq keys each sent after a serial break: it answers
// while its serial interrupt still runs on some CPU.  Then the monitor
// is asked for every vCPU's registers, which it answers even when no CPU
// of the guest runs anything but a loop; each RIP is then named from the
// kernel's System.map where the kernel was booted without KASLR.

// muxEscape is QEMU's mux escape key (Ctrl-A): escape b sends a break on
// the serial line, escape c moves the input to the monitor.
const muxEscape = "\x01"

// hangSysrq are the sysrq keys asked of a hung guest: 9 lets every
// message through to the console (the boot's loglevel=4 keeps the
// backtraces back), l backtraces every CPU by NMI (a CPU spinning with
// interrupts off answers too), w lists the tasks in uninterruptible
// sleep, d the locks held (lockdep's; a kernel without lockdep prints
// sysrq's help instead).
var hangSysrq = []string{"9", "l", "w", "d"}

// hangMark begins the lines the pipeline adds to a hung boot's console.
const hangMark = "EVHANG "

// askHung asks the guest behind in, QEMU's stdin, what it is doing,
// giving its Linux pause to answer each key, then kills it with kill.
func askHung(in io.Writer, pause time.Duration, kill func()) {
	defer kill()
	send := func(s string) bool {
		_, err := io.WriteString(in, s)
		return err == nil
	}
	for _, key := range hangSysrq {
		// Linux takes the first byte after a break, within 5 s, as a
		// sysrq key (uart_handle_break); a second lets the break in.
		if !send(muxEscape + "b") {
			return
		}
		time.Sleep(time.Second)
		if !send(key) {
			return
		}
		time.Sleep(pause)
	}
	if send(muxEscape+"c") && send("info registers -a\n") {
		time.Sleep(2 * time.Second)
	}
}

// monitorEcho cleans the monitor's echo of a command typed at it, which
// redraws the line after every character: it keeps the last drawing.
func monitorEcho(l string) string {
	const back, erase = "\x1b[D", "\x1b[K"
	i := strings.LastIndex(l, back)
	if !strings.HasPrefix(l, "(qemu) ") || i < 0 {
		return l
	}
	return "(qemu) " + strings.ReplaceAll(l[i+len(back):], erase, "")
}

// vcpuRIP matches the monitor's line of a vCPU's instruction pointer.
var vcpuRIP = regexp.MustCompile(`^RIP=([0-9a-f]{16}) `)

// nameHungRIPs returns a line for each RIP the monitor printed in lines,
// named from the System.map sysmap if named is true.
func nameHungRIPs(lines []string, sysmap string, named bool) []string {
	var syms *symbolTable
	if named {
		if t, err := readSystemMap(sysmap); err == nil {
			syms = t
		}
	}
	var out []string
	cpu := 0
	for _, l := range lines {
		m := vcpuRIP.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rip, _ := strconv.ParseUint(m[1], 16, 64)
		what := "not named (KASLR, or no System.map)"
		if syms != nil {
			what = syms.name(rip)
		}
		out = append(out, fmt.Sprintf("%svcpu=%d rip=%s %s", hangMark, cpu, m[1], what))
		cpu++
	}
	return out
}

// symbolTable is a kernel's text symbols, sorted by address.
type symbolTable struct {
	addr  []uint64
	names []string
}

func readSystemMap(name string) (*symbolTable, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &symbolTable{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) != 3 || (fl[1] != "t" && fl[1] != "T") {
			continue
		}
		a, err := strconv.ParseUint(fl[0], 16, 64)
		if err != nil {
			continue
		}
		t.addr, t.names = append(t.addr, a), append(t.names, fl[2])
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !sort.SliceIsSorted(t.addr, func(i, j int) bool { return t.addr[i] < t.addr[j] }) {
		return nil, fmt.Errorf("%s: not sorted by address", name)
	}
	return t, nil
}

// name names addr as symbol+offset, or says it is outside the kernel's
// text (in a module, or user mode).
func (t *symbolTable) name(addr uint64) string {
	i := sort.Search(len(t.addr), func(i int) bool { return t.addr[i] > addr }) - 1
	if i < 0 || i == len(t.addr)-1 {
		return "outside the kernel's text (a module, or user mode)"
	}
	return fmt.Sprintf("%s+0x%x", t.names[i], addr-t.addr[i])
}
