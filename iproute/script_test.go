package iproute_test

// Script tests: each testdata/*.txt file is a golden file (internal/golden:
// a comment, then "-- name --" sections) holding
//
//	cmd          the `ip` command lines to run, one per line, in one fresh
//	             network namespace (e.g. "ip -force -batch script"), or
//	             "cat /proc/net/fib_triestat" (or rt6_stats), "sysctl -q -w KEY=VALUE"
//	             (netsim: rtnl.Handle.Sysctl), or "sleep SECONDS" to let the
//	             kernel's timers and delayed work run (linkwatch defers a
//	             non-urgent operstate change up to a second, which netsim
//	             shows settled at once; a neighbour's state changes on
//	             timers): netsim's virtual time passes as long
//	script, ...  the files those commands read
//	want         the transcript the real kernel gave: for each command
//	             "$ CMD", its stdout (golden.Mark'ed), its stderr lines
//	             prefixed "! ", and "exit N" when N is not 0
//	want.netsim  (optional) netsim's transcript where it knowingly differs
//	             from the real kernel; the comment says why. A file whose
//	             comment has "netsim only:" (with the reason) has only
//	             want.netsim: the real kernel does not run it
//
// TestScripts runs every file on netsim and compares with want.netsim or
// want (-rewrite-netsim rewrites want.netsim). TestScriptsRealKernel runs
// them on the running kernel in a private network and mount namespace
// (unshare -n -m) and compares with want; it skips where that is not
// possible (not root, no unshare, an iproute2 other than 6.1.0), and for a
// file whose commands sleep more than maxRealSleep unless -real-sleeps is
// given. With -rewrite, it rewrites want from the real kernel instead. The transcripts
// were taken on Linux 6.18 with iproute2 6.1.0.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/internal/golden"
	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

var (
	rewrite       = flag.Bool("rewrite", false, "rewrite testdata want sections from the real kernel (needs root and unshare)")
	rewriteNetsim = flag.Bool("rewrite-netsim", false, "rewrite the want.netsim sections of testdata files that have one or are \"netsim only:\"")
	realSleeps    = flag.Bool("real-sleeps", false, "also check on the real kernel the transcripts that sleep longer than maxRealSleep")
)

// archive is a script test's file: a golden.File, with its sections also
// by name.
type archive struct {
	f       golden.File
	comment string
	files   map[string]string
}

func parseArchive(data string) *archive {
	f := golden.Parse(data)
	a := &archive{f: f, comment: f.Comment, files: map[string]string{}}
	for _, s := range f.Sections {
		a.files[s.Name] = s.Text
	}
	return a
}

func (a *archive) format() string { return a.f.Format() }

func (a *archive) set(name, content string) {
	a.f.Set(name, content)
	a.files[name] = content
}

func (a *archive) commands() [][]string {
	var out [][]string
	for _, l := range strings.Split(a.files["cmd"], "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// result is one command's outcome.
type result struct {
	stdout, stderr string
	status         int
}

func transcript(cmds [][]string, res []result) string {
	var b strings.Builder
	for i, c := range cmds {
		fmt.Fprintf(&b, "$ %s\n", strings.Join(c, " "))
		b.WriteString(golden.Mark(res[i].stdout))
		for _, l := range strings.SplitAfter(res[i].stderr, "\n") {
			if l != "" {
				b.WriteString("! " + l)
			}
		}
		if res[i].stderr != "" && !strings.HasSuffix(res[i].stderr, "\n") {
			b.WriteString("\n")
		}
		if res[i].status != 0 {
			fmt.Fprintf(&b, "exit %d\n", res[i].status)
		}
	}
	return b.String()
}

// runNetsim runs the commands in a fresh simulated kernel.
func runNetsim(a *archive) (out string, jsonErrs []string) {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	ip.Stdin = nil
	ip.Open = func(name string) (io.ReadCloser, error) {
		if s, ok := a.files[name]; ok {
			return io.NopCloser(strings.NewReader(s)), nil
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	// As on the real kernel (runReal): duplicate address detection lasts
	// 16 s.
	if err := k.InitNet().Handle(ip.Task()).Sysctl("net.ipv6.conf.default.dad_transmits", "3600"); err != nil {
		panic(err)
	}
	cmds := a.commands()
	res := make([]result, len(cmds))
	for i, c := range cmds {
		if strings.Join(c, " ") == "cat /proc/net/rt6_stats" {
			s, err := k.InitNet().Handle(ip.Task()).RT6Stats()
			res[i] = result{s, "", 0}
			if err != nil {
				res[i] = result{"", err.Error() + "\n", 1}
			}
			continue
		}
		if strings.Join(c, " ") == "cat /proc/net/fib_triestat" {
			s, err := k.InitNet().Handle(ip.Task()).TrieStat()
			if err != nil {
				res[i] = result{"", err.Error() + "\n", 1}
				continue
			}
			res[i] = result{s, "", 0}
			continue
		}
		if c[0] == "sleep" && len(c) == 2 {
			// Time passes: the kernel's timers and delayed work due in it
			// run as the next request enters.
			d, err := time.ParseDuration(c[1] + "s")
			if err != nil {
				panic(fmt.Sprintf("bad sleep %q", c[1]))
			}
			ip.Task().Sleep(d)
			continue
		}
		if len(c) == 4 && c[0] == "sysctl" && c[1] == "-q" && c[2] == "-w" {
			key, v, _ := strings.Cut(c[3], "=")
			if err := k.InitNet().Handle(ip.Task()).Sysctl(key, v); err != nil {
				res[i] = result{"", "sysctl: " + err.Error() + "\n", 255}
			}
			continue
		}
		o, e, st := ip.Output(c[1:]...)
		res[i] = result{o, e, st}
		// A failed command's output is what ip left of its document: a
		// dump refused after new_json_obj leaves a lone "[".
		if wantsJSON(c[1:]) && st == 0 {
			if err := decodeJSON(o); err != nil {
				jsonErrs = append(jsonErrs, fmt.Sprintf("%s: %v", strings.Join(c, " "), err))
			}
		}
	}
	return transcript(cmds, res), jsonErrs
}

// wantsJSON reports whether an ip command line has -j[son] among its
// options, and no -V[ersion], with which ip prints its version instead.
func wantsJSON(args []string) bool {
	asked := false
	for _, a := range args {
		if len(a) < 2 || a[0] != '-' {
			return asked
		}
		if strings.HasPrefix(a, "--") {
			a = a[1:]
		}
		if strings.HasPrefix("-Version", a) {
			return false // ip prints its version and exits, JSON or not
		}
		if len(a) > 1 && strings.HasPrefix("-json", a) {
			asked = true
		}
	}
	return asked
}

// decodeJSON decodes every JSON document of out (a batch prints one per
// show command), each with encoding/json, and fails on anything else.
func decodeJSON(out string) error {
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// realKernelAvailable reports whether this process can make private
// network and mount namespaces with the ip command.
func realKernelAvailable() error {
	if os.Geteuid() != 0 {
		return errors.New("not root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return err
	}
	// The transcripts are iproute2 6.1's: other versions word and format
	// some things differently.
	if out, err := exec.Command("ip", "-V").CombinedOutput(); err != nil || !strings.Contains(string(out), "iproute2-6.1.0") {
		return fmt.Errorf("the transcripts are iproute2 6.1.0's, this is %q", strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("unshare", "-n", "-m", "true").CombinedOutput(); err != nil {
		return fmt.Errorf("unshare -n -m: %v: %s", err, out)
	}
	return nil
}

// runReal runs the commands in a new network namespace of the running
// kernel, with a private /run/netns so that `ip netns` touches nothing
// outside.
func runReal(t *testing.T, a *archive) string {
	dir := t.TempDir()
	for n, s := range a.files {
		if n == "cmd" || strings.HasPrefix(n, "want") {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmds := a.commands()
	var sh strings.Builder
	sh.WriteString("set -u\nmount --make-rprivate / && mkdir -p /run/netns && mount -t tmpfs tmpfs /run/netns || exit 99\n")
	// Duplicate address detection ends after dad_transmits probes, one
	// retransmission time (1 s) apart (addrconf_dad_work). The kernel
	// keeps the count in a byte (ifp->dad_probes): 3600 are 16 probes,
	// which keep an address tentative for 16 to 17 s, as the transcripts
	// (and netsim, set alike) show it, however slowly the machine runs the
	// commands, unless a script sleeps that long.
	sh.WriteString("echo 3600 >/proc/sys/net/ipv6/conf/default/dad_transmits || exit 99\n")
	fmt.Fprintf(&sh, "cd %q || exit 99\n", dir)
	for i, c := range cmds {
		fmt.Fprintf(&sh, "%s >out.%d 2>err.%d </dev/null; echo $? >st.%d\n", strings.Join(c, " "), i, i, i)
	}
	cmd := exec.Command("unshare", "-n", "-m", "sh", "-c", sh.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("unshare: %v: %s", err, out)
	}
	res := make([]result, len(cmds))
	for i := range cmds {
		read := func(p string) string {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s.%d", p, i)))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		st, err := strconv.Atoi(strings.TrimSpace(read("st")))
		if err != nil {
			t.Fatal(err)
		}
		res[i] = result{read("out"), read("err"), st}
	}
	return transcript(cmds, res)
}

// transcriptCPUs is num_possible_cpus() of the machine the transcripts
// were taken on, which a veth's numtxqueues and numrxqueues print
// (veth_get_num_queues), as netsim does.
const transcriptCPUs = 2

// queuesRe matches an output line with a queue count, in text or JSON.
var queuesRe = regexp.MustCompile(`(?m)^[^$!].*(numtxqueues \d|"num_tx_queues")`)

// possibleCPUs counts the running machine's possible CPUs, from the
// ranges of /sys/devices/system/cpu/possible ("0-1", "0-3,6").
func possibleCPUs() (int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, found := strings.Cut(r, "-")
		if !found {
			hi = lo
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || h < l {
			return 0, fmt.Errorf("possible CPUs %q", b)
		}
		n += h - l + 1
	}
	return n, nil
}

func scriptFiles(t *testing.T) []string {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no script tests: %v", err)
	}
	return files
}

func TestScripts(t *testing.T) {
	for _, f := range scriptFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(data))
			want, ok := a.files["want.netsim"]
			if !ok {
				want = a.files["want"]
			}
			got, jsonErrs := runNetsim(a)
			for _, e := range jsonErrs {
				t.Errorf("JSON output does not decode: %s", e)
			}
			if *rewriteNetsim && (ok || strings.Contains(a.comment, "netsim only:")) {
				a.set("want.netsim", got)
				if err := os.WriteFile(f, []byte(a.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("netsim differs from %s:\n%s", f, linediff.Unified(want, got))
			}
		})
	}
}

// maxRealSleep is how long a transcript may sleep on the real kernel in
// an ordinary test run; netsim's virtual time passes at once.
const maxRealSleep = 10 * time.Second

// sleeps returns how long the archive's commands sleep.
func (a *archive) sleeps() time.Duration {
	var d time.Duration
	for _, c := range a.commands() {
		if len(c) == 2 && c[0] == "sleep" {
			s, err := time.ParseDuration(c[1] + "s")
			if err == nil {
				d += s
			}
		}
	}
	return d
}

func TestScriptsRealKernel(t *testing.T) {
	if err := realKernelAvailable(); err != nil {
		t.Skipf("no private network namespace on the real kernel: %v", err)
	}
	for _, f := range scriptFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(data))
			if strings.Contains(a.comment, "netsim only:") {
				t.Skip(strings.TrimSpace(a.comment[strings.Index(a.comment, "netsim only:"):]))
			}
			if d := a.sleeps(); d > maxRealSleep && !*rewrite && !*realSleeps {
				t.Skipf("sleeps %v on the real kernel: run with -real-sleeps", d)
			}
			if queuesRe.MatchString(a.files["want"]) {
				if n, err := possibleCPUs(); err != nil || n != transcriptCPUs {
					t.Skipf("a veth's queue counts are the machine's possible CPUs: the transcript's are %d, this machine's %d (%v)", transcriptCPUs, n, err)
				}
			}
			// The kernel joins an address's solicited-node group from a
			// workqueue (addrconf_dad_begin), just after the command that
			// added it returned: a run that raced with it is tried again.
			got := runReal(t, a)
			for try := 1; try < 3 && !*rewrite && !sameExpiries(got, a.files["want"]); try++ {
				got = runReal(t, a)
			}
			if *rewrite {
				a.set("want", got)
				if err := os.WriteFile(f, []byte(a.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !sameExpiries(got, a.files["want"]) {
				t.Errorf("the real kernel differs from %s:\n%s", f, linediff.Unified(a.files["want"], got))
			}
		})
	}
}

// expiresRe matches a route's time left as ip prints it, text and JSON.
var expiresRe = regexp.MustCompile(`(expires |"expires":)(\d+)`)

// sameExpiries compares two real-kernel transcripts with each route's time
// left rounded up to ten seconds: the kernel counts it in jiffies from the
// add, so a show within the same tick prints 100sec for `expires 100` and
// one a tick later 99sec, as the machine's speed decides. netsim's side
// (TestScripts) is compared exactly.
func sameExpiries(a, b string) bool {
	round := func(s string) string {
		return expiresRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := expiresRe.FindStringSubmatch(m)
			n, _ := strconv.Atoi(sub[2])
			return sub[1] + strconv.Itoa((n+9)/10*10)
		})
	}
	return a == b || round(a) == round(b)
}
