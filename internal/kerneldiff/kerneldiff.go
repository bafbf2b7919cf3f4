// Package kerneldiff runs an `ip` script step by step on the real kernel, in
// a private network namespace, and on netsim, and compares the two after
// every step: the command's stdout, stderr and exit status (so errors are
// compared by the line ip prints for their errno and extack message), and
// the state dumps
//
//	ip -4 addr show
//	ip -4 route show table all
//	ip -4 rule show
//	ip -4 maddr show
//	ip nexthop show        (all families: with -4 the kernel leaves groups out)
//	ip -6 rule show        (only for scripts that use -6)
//	ip -6 route show table all  (for scripts that use IPv6 and generated sequences)
//	/proc/net/rt6_stats    (likewise)
//	ip -d link show        (only for generated sequences, once netsim prints it)
//	/proc/net/fib_triestat
//
// What moves with the real time of a run or depends on the machine is
// hidden on both sides (normalize): remaining address lifetimes are rounded
// up to 100 s, timers and idle times, a veth's queue counts.
// Duplicate address detection lasts 16 s (dad_transmits 3600, as in
// iproute's script tests, which the kernel keeps in a byte: 16 probes a
// second apart), so that IPv6 link-local addresses stay tentative on the
// real kernel through a run, as they do in netsim.
//
// IPv6 multicast memberships are left out: the real kernel joins IPv6
// groups from workqueues, after the command returned. Of /proc/net/rt6_stats,
// the routes allocated and the dst entries are hidden: `ip -6 route get`
// allocates a route copy per CPU it runs on (rt6_make_pcpu_route), and
// packets the kernel sends (MLD reports) allocate and free dst entries when
// they do.
//
// The real side is one `unshare -n -m` shell per script: per step it runs the
// command, one `ip -4 -batch` process for the IPv4 dumps, one `ip nexthop
// show` (and `ip -6 rule show` where used), and reads
// /proc/net/fib_triestat without forking, writing each to a file that the
// harness reads back. The netsim side runs the same commands with package
// iproute on a fresh rtnl kernel.
package kerneldiff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// Step is one command of a script: ip's arguments (options, object,
// command) without the leading "ip", and the script line it came from.
type Step struct {
	Line int      // 1-based line in the script; 0 for generated steps
	Args []string // e.g. ["route", "add", "10.0.0.0/8", "dev", "a0"]
}

// String returns the step as an ip command line.
func (s Step) String() string { return "ip " + strings.Join(s.Args, " ") }

// Parse reads a script: one ip command per line, with or without the
// leading "ip"; blank lines and lines starting with '#' are skipped. Words
// are separated by white space (no shell quoting).
func Parse(r io.Reader) ([]Step, error) {
	var steps []Step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "ip" {
			f = f[1:]
		}
		if len(f) == 0 {
			continue
		}
		for _, w := range f {
			if !safeWord(w) {
				return nil, fmt.Errorf("line %d: word %q: only letters, digits and -_.:/,@+=*? are allowed", n, w)
			}
		}
		steps = append(steps, Step{Line: n, Args: f})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return steps, nil
}

// safeWord reports whether w can be passed through a shell unquoted-safe
// (it is still single-quoted) and means the same word on both sides.
func safeWord(w string) bool {
	for _, c := range w {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("-_.:/,@+=*?", c):
		default:
			return false
		}
	}
	return w != ""
}

// Section is one named part of a snapshot: a command's output or a dump.
type Section struct {
	Name string
	Text string
}

// Snapshot is what one step gave on one side: its command's outcome and
// the dumps taken after it, in a fixed order.
type Snapshot struct {
	Sections []Section
}

// dumps are the show commands of the -4 batch, in order. Each but the
// first is preceded in the batch by `link show dev lo`, whose output
// separates them (the dumps themselves never print a line like it). addr
// show comes first: after a link show, iproute2 6.1's addr show in the same
// batch prints the link's "mode" too.
var dumps = []struct{ name, cmd string }{
	{"ip -4 addr show", "addr show"},
	{"ip -4 route show table all", "route show table all"},
	{"ip -4 rule show", "rule show"},
	{"ip -4 maddr show", "maddr show"},
}

const sepCmd = "link show dev lo"

func dumpBatch() string {
	var b strings.Builder
	for i, d := range dumps {
		if i > 0 {
			b.WriteString(sepCmd + "\n")
		}
		b.WriteString(d.cmd + "\n")
	}
	return b.String()
}

// uses6 reports whether any step names IPv6 (then `ip -6 rule show`, `ip
// -6 route show table all` and /proc/net/rt6_stats are dumped too).
func uses6(steps []Step) bool {
	for _, s := range steps {
		if is6(s) {
			return true
		}
	}
	return false
}

// is6 reports whether a step names IPv6: the -6 option or an IPv6 address.
func is6(s Step) bool {
	for _, a := range s.Args {
		if a == "-6" || a == "-family=inet6" || strings.Contains(a, "::") || strings.HasPrefix(a, "fe80:") || strings.HasPrefix(a, "2001:") {
			return true
		}
	}
	return false
}

// splitDumps cuts the -4 batch's output at the separators into the dumps'
// sections; output it cannot cut (a separator missing) is kept whole.
func splitDumps(out string) []Section {
	lines := strings.SplitAfter(out, "\n")
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "1: lo: ") && strings.Contains(l, " mode ") {
			parts = append(parts, cur.String())
			cur.Reset()
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") {
				i++
			}
			continue
		}
		cur.WriteString(l)
	}
	parts = append(parts, cur.String())
	if len(parts) != len(dumps) {
		return []Section{{"ip -4 -batch (dumps)", out}}
	}
	secs := make([]Section, len(dumps))
	for i, d := range dumps {
		secs[i] = Section{d.name, parts[i]}
	}
	return secs
}

// extraDumps says which dumps beside the fixed ones a script gets.
type extraDumps struct {
	rule6   bool // ip -6 rule show: the script uses IPv6
	route6  bool // ip -6 route show table all and rt6_stats: the script uses IPv6, or is generated
	details bool // ip -d link show: a generated sequence, and netsim prints it
}

func extras(steps []Step) extraDumps {
	gen := len(steps) > 0 && steps[0].Line == 0
	six := uses6(steps)
	return extraDumps{
		rule6:   six,
		route6:  six || gen,
		details: gen && features().linkDetails,
	}
}

// route6Dump is the IPv6 routes' dump command.
var route6Dump = []string{"-6", "route", "show", "table", "all"}

// rt6StatsRe matches /proc/net/rt6_stats's line: fib nodes, route nodes,
// routes allocated, route entries, cached routes, dst entries, routes
// discarded.
var rt6StatsRe = regexp.MustCompile(`^([0-9a-f]{4,} [0-9a-f]{4,}) [0-9a-f]{4,} ([0-9a-f]{4,} [0-9a-f]{4,}) [0-9a-f]{4,} ([0-9a-f]{4,})\n$`)

// hideRT6Alloc hides the routes allocated and the dst entries of
// /proc/net/rt6_stats (see the package comment).
func hideRT6Alloc(s string) string {
	return rt6StatsRe.ReplaceAllString(s, "$1 * $2 * $3\n")
}

func snapshot(stdout, stderr string, status int, dumpOut, nh, rule6, route6, rt6stats, details string, x extraDumps, trie string) Snapshot {
	s := Snapshot{Sections: []Section{
		{"stdout", stdout},
		{"stderr", stderr},
		{"exit status", strconv.Itoa(status) + "\n"},
	}}
	s.Sections = append(s.Sections, splitDumps(dumpOut)...)
	s.Sections = append(s.Sections, Section{"ip nexthop show", nh})
	if x.rule6 {
		s.Sections = append(s.Sections, Section{"ip -6 rule show", rule6})
	}
	if x.route6 {
		s.Sections = append(s.Sections, Section{"ip -6 route show table all", route6},
			Section{"/proc/net/rt6_stats", hideRT6Alloc(rt6stats)})
	}
	if x.details {
		s.Sections = append(s.Sections, Section{"ip -d link show", details})
	}
	s.Sections = append(s.Sections, Section{"/proc/net/fib_triestat", trie})
	for i := range s.Sections {
		s.Sections[i].Text = normalize(s.Sections[i].Text)
	}
	return s
}

// DefaultHashSeed is the multipath hash seed (net.ipv4.fib_multipath_hash_seed)
// both sides run with when not told another: the golden transcripts were
// taken with it. A namespace's own seed is random (per namespace since
// Linux 6.11), so which path of a multipath route or nexthop group `ip
// route get` reports would otherwise differ between runs and machines.
const DefaultHashSeed uint32 = 0x6e657473

// GeneratedHashSeed is the hash seed a generated sequence runs with: a
// different one for every sequence seed, so that the generated runs check
// netsim's multipath hash under many keys.
func GeneratedHashSeed(seed uint64) uint32 {
	z := seed + 0x9e3779b97f4a7c15 // splitmix64
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	if h := uint32(z ^ z>>31); h != 0 {
		return h
	}
	return 1 // 0 would ask for a random seed
}

// RunNetsim runs the steps on a fresh netsim kernel (rtnl.After) whose
// namespace has multipath hash seed hashSeed, and returns a snapshot after
// each. It checks the kernel's invariants after every step (see
// InvariantsSection).
func RunNetsim(steps []Step, hashSeed uint32) []Snapshot {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	if err := k.InitNet().Handle(ip.Task()).Sysctl("net.ipv4.fib_multipath_hash_seed", strconv.FormatUint(uint64(hashSeed), 10)); err != nil {
		panic("kerneldiff: " + err.Error())
	}
	ip.Stdin = nil
	ip.Open = func(name string) (io.ReadCloser, error) {
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
	}
	x := extras(steps)
	batch := dumpBatch()
	out := make([]Snapshot, len(steps))
	for i, s := range steps {
		o, e, st := ip.Output(s.Args...)
		// The kernel's invariants hold after every step; a broken one is a
		// section the real kernel's snapshot lacks, so a difference.
		broken := k.CheckInvariants()
		var d strings.Builder
		ip.Stdout, ip.Stderr = &d, &d
		ip.Stdin = strings.NewReader(batch)
		ip.Main([]string{"-4", "-batch", "-"})
		ip.Stdin = nil
		nho, nhe, _ := ip.Output("nexthop", "show")
		var r6, rt6, st6, det string
		if x.rule6 {
			o, e, _ := ip.Output("-6", "rule", "show")
			r6 = o + e
		}
		if x.route6 {
			o, e, _ := ip.Output(route6Dump...)
			rt6 = o + e
			st6 = netsimRT6Stats(k, ip)
		}
		if x.details {
			o, e, _ := ip.Output("-d", "link", "show")
			det = o + e
		}
		trie, err := k.InitNet().Handle(ip.Task()).TrieStat()
		if err != nil {
			trie = "error: " + err.Error() + "\n"
		}
		out[i] = snapshot(o, e, st, d.String(), nho+nhe, r6, rt6, st6, det, x, trie)
		if broken != nil {
			out[i].Sections = append(out[i].Sections, Section{InvariantsSection, broken.Error() + "\n"})
		}
	}
	return out
}

// InvariantsSection is the section a netsim snapshot gains when the
// kernel's invariants (rtnl.Kernel.CheckInvariants) are broken after its
// step: the broken invariants, one a line.
const InvariantsSection = "netsim invariants"

// Available reports why the real kernel cannot be used (nil if it can):
// the harness needs root, unshare, and iproute2 6.1.0, whose output
// netsim's iproute reproduces.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("not root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return err
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		return err
	}
	if out, err := exec.Command("ip", "-V").CombinedOutput(); err != nil || !strings.Contains(string(out), "iproute2-6.1.0") {
		return fmt.Errorf("netsim prints like iproute2 6.1.0, this ip is %q", strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("unshare", "-n", "-m", "true").CombinedOutput(); err != nil {
		return fmt.Errorf("unshare -n -m: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// settles reports whether a step is a link command, after which the real
// kernel finishes carrier changes asynchronously, or an IPv6 address
// command: an address's duplicate address detection starts from a work
// queue (addrconf_dad_start → addrconf_mod_dad_work), and only when it ends
// does the address's local route enter table local, which for a nodad
// address is right after the command.
func settles(s Step) bool {
	for _, a := range s.Args {
		if strings.HasPrefix(a, "-") {
			if a == "-n" || a == "-netns" || a == "-b" || a == "-batch" {
				return true // another namespace or a batch: be safe
			}
			continue
		}
		if len(a) >= 1 && strings.HasPrefix("address", a) && is6(s) {
			return true
		}
		return len(a) >= 1 && strings.HasPrefix("link", a)
	}
	return false
}

func shQuote(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }

// RunReal runs the steps in a new network namespace of the running kernel
// (and a new mount namespace with a private /run/netns, so that `ip netns`
// touches nothing outside) whose multipath hash seed is hashSeed, and
// returns a snapshot after each. Call Available first to learn whether it
// can work.
func RunReal(steps []Step, hashSeed uint32) ([]Snapshot, error) {
	return RunRealSettled(steps, hashSeed, 20*time.Millisecond)
}

// RunRealSettled is RunReal waiting settle after every link command before
// the dumps, for the kernel's linkwatch work to run: on a loaded machine
// the 20 ms RunReal waits may not be enough.
func RunRealSettled(steps []Step, hashSeed uint32, settle time.Duration) ([]Snapshot, error) {
	if hashSeed == 0 {
		return nil, errors.New("kerneldiff: hash seed 0 would be random")
	}
	for _, s := range steps {
		for _, w := range s.Args {
			if !safeWord(w) {
				return nil, fmt.Errorf("line %d: unsafe word %q", s.Line, w)
			}
		}
	}
	dir, err := os.MkdirTemp("", "kerneldiff")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "dumps"), []byte(dumpBatch()), 0o644); err != nil {
		return nil, err
	}
	x := extras(steps)
	var sh strings.Builder
	sh.WriteString("mount --make-rprivate / && mkdir -p /run/netns && mount -t tmpfs tmpfs /run/netns || exit 99\n")
	// Duplicate address detection ends after dad_transmits probes, one
	// second apart (addrconf_dad_work): 3600 (16 in the kernel's byte)
	// keep link-local addresses tentative through a run, as netsim, whose
	// commands take milliseconds of virtual time, shows them.
	sh.WriteString("echo 3600 >/proc/sys/net/ipv6/conf/default/dad_transmits || exit 99\n")
	fmt.Fprintf(&sh, "cd %s || exit 99\n", shQuote(dir))
	fmt.Fprintf(&sh, "echo %d >/proc/sys/net/ipv4/fib_multipath_hash_seed || exit 99\n", hashSeed)
	for i, s := range steps {
		q := make([]string, len(s.Args))
		for j, w := range s.Args {
			q[j] = shQuote(w)
		}
		fmt.Fprintf(&sh, "ip %s >%d.out 2>%d.err </dev/null; echo $? >%d.st\n", strings.Join(q, " "), i, i, i)
		if settles(s) {
			// Carrier and operstate changes reach the flags from the
			// linkwatch work queue, after ip returned (linkwatch_fire_event
			// in net/core/link_watch.c); netsim shows the settled state.
			fmt.Fprintf(&sh, "sleep %.3f\n", settle.Seconds())
		}
		fmt.Fprintf(&sh, "ip -4 -batch dumps >%d.dump 2>&1 </dev/null\n", i)
		fmt.Fprintf(&sh, "ip nexthop show >%d.nh 2>&1 </dev/null\n", i)
		if x.rule6 {
			fmt.Fprintf(&sh, "ip -6 rule show >%d.rule6 2>&1 </dev/null\n", i)
		}
		if x.route6 {
			fmt.Fprintf(&sh, "ip %s >%d.route6 2>&1 </dev/null\n", strings.Join(route6Dump, " "), i)
			fmt.Fprintf(&sh, "while IFS= read -r l; do printf '%%s\\n' \"$l\"; done </proc/net/rt6_stats >%d.rt6stats\n", i)
		}
		if x.details {
			fmt.Fprintf(&sh, "ip -d link show >%d.details 2>&1 </dev/null\n", i)
		}
		fmt.Fprintf(&sh, "while IFS= read -r l; do printf '%%s\\n' \"$l\"; done </proc/net/fib_triestat >%d.trie\n", i)
	}
	cmd := exec.Command("unshare", "-n", "-m", "sh", "-c", sh.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("unshare: %v: %s", err, strings.TrimSpace(string(out)))
	}
	snaps := make([]Snapshot, len(steps))
	for i := range steps {
		var rerr error
		read := func(ext string) string {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.%s", i, ext)))
			if err != nil && rerr == nil {
				rerr = err
			}
			return string(b)
		}
		o, e, stText, d, nh, trie := read("out"), read("err"), read("st"), read("dump"), read("nh"), read("trie")
		var r6, rt6, st6, det string
		if x.rule6 {
			r6 = read("rule6")
		}
		if x.route6 {
			rt6, st6 = read("route6"), read("rt6stats")
		}
		if x.details {
			det = read("details")
		}
		if rerr != nil {
			return nil, rerr
		}
		st, err := strconv.Atoi(strings.TrimSpace(stText))
		if err != nil {
			return nil, fmt.Errorf("step %d: exit status %q", i+1, stText)
		}
		snaps[i] = snapshot(o, e, st, d, nh, r6, rt6, st6, det, x, trie)
	}
	return snaps, nil
}

// Difference is the first place where netsim and the real kernel disagree.
type Difference struct {
	Step    int    // index of the step after which they differ
	Line    int    // its script line (0 for generated steps)
	Command string // the step as an ip command line
	Section string // what differs: "stderr", "exit status", "ip -4 route show table all", ...
	Diff    string // unified-style diff, "-" the real kernel, "+" netsim
}

func (d *Difference) Error() string { return d.String() }

// String renders the difference for a person.
func (d *Difference) String() string {
	where := fmt.Sprintf("step %d", d.Step+1)
	if d.Line > 0 {
		where = fmt.Sprintf("line %d", d.Line)
	}
	return fmt.Sprintf("%s: %s\n%s differs (- real kernel, + netsim):\n%s", where, d.Command, d.Section, d.Diff)
}

// Compare returns the first difference between the real kernel's
// snapshots and netsim's, or nil if they agree after every step.
func Compare(steps []Step, real, sim []Snapshot) *Difference {
	for i := range steps {
		if i >= len(real) || i >= len(sim) {
			break
		}
		r, s := real[i].Sections, sim[i].Sections
		for j := 0; j < len(r) || j < len(s); j++ {
			var rs, ss Section
			if j < len(r) {
				rs = r[j]
			}
			if j < len(s) {
				ss = s[j]
			}
			if rs != ss {
				name := rs.Name
				if name != ss.Name {
					name = rs.Name + " / " + ss.Name
				}
				return &Difference{Step: i, Line: steps[i].Line, Command: steps[i].String(),
					Section: name, Diff: linediff.Unified(rs.Text, ss.Text)}
			}
		}
	}
	return nil
}

// CompareAll returns a difference for every step after which the two sides
// disagree (the first differing section of each), in step order. After the
// first, a difference may follow from an earlier one rather than from its
// own step.
func CompareAll(steps []Step, real, sim []Snapshot) []*Difference {
	var ds []*Difference
	for i := range steps {
		if i >= len(real) || i >= len(sim) {
			break
		}
		if d := Compare(steps[i:i+1], real[i:i+1], sim[i:i+1]); d != nil {
			d.Step = i
			ds = append(ds, d)
		}
	}
	return ds
}

// Run runs the steps on both sides, each with multipath hash seed
// hashSeed, and returns the first difference (nil if none), or an error if
// the real kernel could not run them.
func Run(steps []Step, hashSeed uint32) (*Difference, error) {
	real, err := RunReal(steps, hashSeed)
	if err != nil {
		return nil, err
	}
	sim := RunNetsim(steps, hashSeed)
	d := Compare(steps, real, sim)
	// A difference may be the kernel's carrier change still queued, or
	// an IPv6 group join still in its workqueue: look again, waiting
	// longer after link commands. A bridge's operstate waits for
	// linkwatch's next non-urgent run, up to a second after the last one
	// of any namespace (linkwatch_schedule_work in net/core/link_watch.c):
	// a script with a bridge is looked at a third time, waiting for it.
	for _, settle := range []time.Duration{300 * time.Millisecond, 1100 * time.Millisecond} {
		if d == nil || settle > time.Second && !usesBridge(steps) {
			break
		}
		if real, err = RunRealSettled(steps, hashSeed, settle); err != nil {
			return nil, err
		}
		d = Compare(steps, real, sim)
	}
	return d, nil
}

// usesBridge reports whether a script has a bridge device.
func usesBridge(steps []Step) bool {
	for _, s := range steps {
		for _, a := range s.Args {
			if a == "bridge" || a == "master" {
				return true
			}
		}
	}
	return false
}

// netsimRT6Stats returns netsim's /proc/net/rt6_stats, read as
// /proc/net/fib_triestat is, through the initial namespace's handle.
func netsimRT6Stats(k *rtnl.Kernel, ip *iproute.IP) string {
	s, err := k.InitNet().Handle(ip.Task()).RT6Stats()
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return s
}
