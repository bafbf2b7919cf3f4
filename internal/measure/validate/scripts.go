// The real side's scripts (a row's set-up and timed step as bash and ip
// batch files, and the script that runs them inside the namespace) and
// the machine's facts: how busy it is, its kernel and CPU.

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/netsimlab/netsim/internal/validate"
)

// inner runs inside the fresh namespace: the set-up, a pause, the timed
// step under bash's `time`, the check. It prints "setup S", "time WALL
// USER SYS" and "check LINES".
const inner = `set -euo pipefail
# Refuse to touch the host's network namespace.
[ "$(readlink /proc/self/ns/net)" != "$HOST_NS" ] || { echo "not in a private network namespace" >&2; exit 1; }
[ "$(ip -o link show | wc -l)" = 1 ] || { echo "the namespace is not fresh" >&2; exit 1; }
%s
s0=$EPOCHREALTIME
. "$D/setup.sh"
echo "setup $(awk -v a="$s0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%%.3f", b - a }')"
sleep 1
TIMEFORMAT='time %%R %%U %%S'
# time's report goes to the group's stderr, the step's to timed.err.
rc=0
{ time { ( . "$D/timed.sh" ) >/dev/null 2>"$D/timed.err"; }; } 2>"$D/time.out" || rc=$?
if [ "$rc" != 0 ]; then
	echo "the timed step failed (exit $rc):" >&2
	head -5 "$D/timed.err" >&2
	exit 1
fi
cat "$D/time.out"
echo "check $(ip -o %s | wc -l)"
`

// privateNetns gives the named namespaces of `ip netns add` a private
// tmpfs in this (private) mount namespace.
const privateNetns = `[ "$(readlink /proc/self/ns/mnt)" != "$HOST_MNT" ] || { echo "not in a private mount namespace" >&2; exit 1; }
mkdir -p /run/netns
mount -t tmpfs netsim-validate /run/netns`

// writeScripts writes row r's scripts into directory d.
func writeScripts(d string, r *validate.Row) error {
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	r.Expand()
	files := map[string][]byte{}
	var setup strings.Builder
	setup.WriteString("# the row's set-up\n")
	for i, s := range r.Setup {
		switch {
		case s.Netns > 0:
			fmt.Fprintf(&setup, "for i in $(seq 1 %d); do ip netns add ns-$i; done\n", s.Netns)
		case s.Sysctl != "":
			fmt.Fprintf(&setup, "sysctl -q -w %s=%s\n", s.Sysctl, s.Value)
		default:
			name := fmt.Sprintf("setup%d.ip", i+1)
			files[name] = validate.Script(s.Lines)
			fmt.Fprintf(&setup, "ip -batch \"$D/%s\"\n", name)
		}
	}
	files["setup.sh"] = []byte(setup.String())

	st := r.Timed
	opts := strings.Join(st.Opts, " ")
	if opts != "" {
		opts += " "
	}
	var timed strings.Builder
	fmt.Fprintf(&timed, "# the row's timed step (%v)\n", st.Kind)
	switch st.Kind {
	case validate.Batch:
		files["timed.ip"] = validate.Script(st.Lines)
		fmt.Fprintf(&timed, "ip %s-batch \"$D/timed.ip\"\n", opts)
	case validate.Loop:
		files["timed.ip"] = validate.Script(st.Lines)
		fmt.Fprintf(&timed, "while read -r l; do ip %s$l; done <\"$D/timed.ip\"\n", opts)
	case validate.Parallel:
		for j, lines := range st.Jobs {
			files[fmt.Sprintf("job%d.ip", j+1)] = validate.Script(lines)
		}
		fmt.Fprintf(&timed, "pids=\nfor j in $(seq 1 %d); do ip %s-batch \"$D/job$j.ip\" & pids+=\" $!\"; done\n", len(st.Jobs), opts)
		timed.WriteString("rc=0\nfor p in $pids; do wait $p || rc=1; done\nexit $rc\n")
	case validate.Netns:
		files["timed.ip"] = validate.Script(st.Lines)
		fmt.Fprintf(&timed, "pids=\nfor i in $(seq 1 %d); do ip -n ns-$i %s-batch \"$D/timed.ip\" & pids+=\" $!\"; done\n", st.Netns, opts)
		timed.WriteString("rc=0\nfor p in $pids; do wait $p || rc=1; done\nexit $rc\n")
	default:
		return fmt.Errorf("%s: unknown step kind %v", r.ID(), st.Kind)
	}
	files["timed.sh"] = []byte(timed.String())

	pre := ""
	if r.MultiNetns() {
		pre = privateNetns
	}
	files["inner.sh"] = []byte(fmt.Sprintf(inner, pre, strings.Join(r.Check, " ")))
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// waitDismantled waits (up to max) until the namespaces of earlier
// repetitions are gone: the kernel dismantles a namespace after its last
// process exits (cleanup_net, in a kworker, under RTNL for its devices),
// and a repetition that starts meanwhile waits for RTNL in its timed step.
// The probe is a request that needs RTNL, a veth pair made in a fresh
// namespace: twice in a row under 50 ms means nothing holds RTNL for long.
// It returns how long it waited.
func waitDismantled(max time.Duration) time.Duration {
	start := time.Now()
	fast := 0
	for fast < 2 && time.Since(start) < max {
		t0 := time.Now()
		err := exec.Command("unshare", "-n", "ip", "link", "add", "probe0", "type", "veth", "peer", "name", "probe1").Run()
		if err != nil {
			return time.Since(start) // no probe here; the repetition shows it
		}
		if time.Since(t0) < 50*time.Millisecond {
			fast++
		} else {
			fast = 0
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start)
}

// cpuStat returns /proc/stat's "cpu" line's fields.
func cpuStat() []int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	line, _, _ := strings.Cut(string(b), "\n")
	var v []int64
	for _, f := range strings.Fields(line)[1:] {
		var x int64
		fmt.Sscan(f, &x)
		v = append(v, x)
	}
	return v
}

// busy returns the percentage of CPU time not idle (idle, iowait) between
// two cpuStat samples.
func busy(a, b []int64) int {
	if len(a) < 5 || len(b) < len(a) {
		return 0
	}
	var total, idle int64
	for i := range a {
		d := b[i] - a[i]
		total += d
		if i == 3 || i == 4 {
			idle += d
		}
	}
	if total <= 0 {
		return 0
	}
	return int(100 * (total - idle) / total)
}

// waitIdle waits up to wait for the machine to be at most max % busy
// (over half a second) and returns the last busy %.
func waitIdle(wait time.Duration, max int) int {
	deadline := time.Now().Add(wait)
	for {
		a := cpuStat()
		time.Sleep(500 * time.Millisecond)
		b := busy(a, cpuStat())
		if b <= max || time.Now().After(deadline) {
			return b
		}
		time.Sleep(1500 * time.Millisecond)
	}
}

func kernel() string {
	out, err := exec.Command("uname", "-r").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func cpu() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	n := 0
	if out, err := exec.Command("nproc").Output(); err == nil {
		fmt.Sscan(string(out), &n)
	}
	return fmt.Sprintf("%d × %s", n, model)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
