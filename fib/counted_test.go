package fib

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// sameTrie reports how two tries differ, node for node: the arenas, their
// free lists and counts, so the same tnodes, bits, slen and layout (the
// dirty marks of counted flushes aside). "" when they are the same.
func sameTrie(a, b *trie) string {
	clean := func(tn []tnode) []tnode {
		c := slices.Clone(tn)
		for i := range c {
			c[i].dirty = false
		}
		return c
	}
	switch {
	case !slices.Equal(clean(a.tn), clean(b.tn)):
		for i := range min(len(a.tn), len(b.tn)) {
			x, y := a.tn[i], b.tn[i]
			x.dirty, y.dirty = false, false
			if x != y {
				return fmt.Sprintf("tnode %d: %+v, want %+v", i, x, y)
			}
		}
		return fmt.Sprintf("%d tnodes, want %d", len(a.tn), len(b.tn))
	case !slices.Equal(a.lf, b.lf):
		return "leaves differ"
	case !slices.Equal(a.fa, b.fa):
		return "aliases differ"
	case !slices.Equal(a.kids, b.kids):
		return "child slots differ"
	case !slices.Equal(a.tnFree, b.tnFree) || !slices.Equal(a.lfFree, b.lfFree) || !slices.Equal(a.faFree, b.faFree):
		return "free lists differ"
	case a.nLeaves != b.nLeaves || a.nTnodes != b.nTnodes || a.nAliases != b.nAliases || a.nInline != b.nInline:
		return "counts differ"
	}
	for i := range a.kidsFree {
		if !slices.Equal(a.kidsFree[i], b.kidsFree[i]) {
			return fmt.Sprintf("free child blocks of %d bits differ", i)
		}
	}
	return ""
}

// sameFIB reports how the counted FIB c differs from the real one r: its
// tables, tries, routes, fib_infos and the task's counters and clock.
func sameFIB(c, r *env) string {
	if c.t.Now() != r.t.Now() {
		return fmt.Sprintf("virtual time %d ns, want %d", int64(c.t.Now()), int64(r.t.Now()))
	}
	if cc, rc := c.t.Counters(), r.t.Counters(); cc != rc {
		for k := range sim.NumKinds {
			if cc[k] != rc[k] {
				return fmt.Sprintf("counter %v: %d, want %d", sim.Kind(k), cc[k], rc[k])
			}
		}
	}
	ct, rt := c.f.Tables(), r.f.Tables()
	if len(ct) != len(rt) {
		return fmt.Sprintf("%d tables, want %d", len(ct), len(rt))
	}
	for i := range ct {
		if ct[i].id != rt[i].id || ct[i].routes != rt[i].routes {
			return fmt.Sprintf("table %d with %d routes, want %d with %d", ct[i].id, ct[i].routes, rt[i].id, rt[i].routes)
		}
		if d := sameTrie(ct[i].t, rt[i].t); d != "" {
			return fmt.Sprintf("table %d: %s", ct[i].id, d)
		}
		if cs, rs := ct[i].Stats(), rt[i].Stats(); cs.String() != rs.String() {
			return fmt.Sprintf("table %d stats:\n%s\nwant\n%s", ct[i].id, cs, rs)
		}
	}
	if c.show() != r.show() {
		return fmt.Sprintf("routes:\n%s\nwant\n%s", c.show(), r.show())
	}
	if c.f.InfoCount() != r.f.InfoCount() || c.f.mem != r.f.mem {
		return "fib_infos or freed tnode memory differ"
	}
	return ""
}

// TestCountedFlush runs random operations on two FIBs, one with counted
// flushes, and requires the same errors, tries (node for node), routes,
// counters and virtual time after every one, and the counted index's
// invariants (check). The operations build tries of a few hundred
// prefixes in main, local (shared with main until a rule unmerges them),
// table 100 and default, with nexthop objects, groups and classic
// nexthops on two devices and error routes, and kill them in every way a
// flush follows: nexthop removal (one flush per nexthop before seed 000's
// patch, one in all after), a device going down, an address removed,
// routes deleted; the namespace's exit (flush_all) ends each run.
func TestCountedFlush(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	var unsettled, flushes atomic.Int64
	t.Run("seeds", func(t *testing.T) {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			policy := nexthop.FlushPerNexthop
			if seed%2 == 0 {
				policy = nexthop.FlushDeferred
			}
			t.Run(fmt.Sprintf("seed%d-%v", seed, policy), func(t *testing.T) {
				t.Parallel()
				u, f := runCounted(t, seed, policy, 600)
				unsettled.Add(u)
				flushes.Add(f)
			})
		}
	})
	t.Logf("%d flushes; %d times a tnode was not settled at a counted flush", flushes.Load(), unsettled.Load())
	if flushes.Load() == 0 {
		t.Errorf("no flushes: the test no longer reaches the case it is for")
	}
}

// TestCountedFlushUnsettled is a counted flush that must resize a tnode
// below which it removes nothing: a root that a new route's tnode put
// below it, where as a child it should halve (fewer than 25% of its
// children used, against 15% at the root), and a flush that removes only
// that route. The real walk halves the old root on its way; so must the
// counted one, before it removes the route and collapses the new root.
func TestCountedFlushUnsettled(t *testing.T) {
	for _, policy := range []nexthop.Policy{nexthop.FlushPerNexthop, nexthop.FlushDeferred} {
		t.Run(policy.String(), func(t *testing.T) {
			p := newCountedPair(t, 0, policy)
			p.run(setupLines()...)
			p.run("nexthop add id 1 via 198.51.100.2 dev vethA", "nexthop add id 2 via 198.51.100.3 dev vethA")
			for i := range 64 {
				p.run(fmt.Sprintf("route add 10.0.0.%d/32 nhid 1 table 100", i))
			}
			// 12 of 64 left: 18.75%, enough for a root, too few for a child.
			for i := 12; i < 64; i++ {
				p.run(fmt.Sprintf("route del 10.0.0.%d/32 table 100", i))
			}
			if n := p.unsettledNow(); n != 0 {
				t.Fatalf("%d tnodes not settled before the new route", n)
			}
			p.run("route add 20.0.0.0/8 nhid 2 table 100")
			if n := p.unsettledNow(); n == 0 {
				t.Fatal("every tnode settled: the case is gone")
			}
			p.run("nexthop del id 2")
			if p.flushes == 0 || p.unsettled == 0 {
				t.Fatalf("%d flushes, %d unsettled tnodes at them", p.flushes, p.unsettled)
			}
			if d := sameFIB(p.ce, p.re); d != "" {
				t.Fatal(d)
			}
			if n := p.unsettledNow(); n != 0 {
				t.Fatalf("%d tnodes not settled after the flush", n)
			}
			p.run("nexthop del id 1")
			p.exit()
		})
	}
}

// countedPair is a FIB with counted flushes beside one without, run
// with the same operations.
type countedPair struct {
	t         *testing.T
	seed      uint64
	ce, re    *env
	log       []string
	steps     int
	unsettled int64 // tnodes not settled when a flush began, summed
	flushes   int64
}

func newCountedPair(t *testing.T, seed uint64, policy nexthop.Policy) *countedPair {
	p := &countedPair{t: t, seed: seed, ce: newEnv(t, policy), re: newEnv(t, policy)}
	p.ce.f.SetCountedWalks(true)
	return p
}

// unsettledNow counts the tnodes of the counted FIB's tries that are not
// settled.
func (p *countedPair) unsettledNow() int64 {
	var n int64
	seen := map[*trie]bool{}
	for _, tb := range p.ce.f.Tables() {
		if tr := tb.t; !seen[tr] {
			seen[tr] = true
			for i := 1; i < len(tr.tn); i++ {
				if tr.tn[i].bits != 0 && !tr.settled(uint32(i)) {
					n++
				}
			}
		}
	}
	return n
}

func (p *countedPair) fail(format string, args ...any) {
	p.t.Helper()
	start := max(0, len(p.log)-12)
	p.t.Fatalf("seed %d step %d: %s\nlast operations:\n  %s", p.seed, len(p.log), fmt.Sprintf(format, args...),
		strings.Join(p.log[start:], "\n  "))
}

// run runs lines on both FIBs. After a line that flushed, and every 16
// lines, it compares them in full (sameFIB) and checks the counted one's
// invariants; after the others, the clocks and counters.
func (p *countedPair) run(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		p.log = append(p.log, l)
		n := p.unsettledNow()
		before := p.ce.t.Counters().Get(sim.FIBFlush)
		cerr, rerr := p.ce.ip(l), p.re.ip(l)
		flushed := p.ce.t.Counters().Get(sim.FIBFlush) - before
		if flushed > 0 {
			p.flushes += flushed
			p.unsettled += n
		}
		if fmt.Sprint(cerr) != fmt.Sprint(rerr) {
			p.fail("error %v, want %v", cerr, rerr)
		}
		if p.ce.t.Now() != p.re.t.Now() || p.ce.t.Counters() != p.re.t.Counters() {
			p.fail("%s", sameFIB(p.ce, p.re))
		}
		if p.steps++; flushed == 0 && p.steps%16 != 0 {
			continue
		}
		if d := sameFIB(p.ce, p.re); d != "" {
			p.fail("%s", d)
		}
		if err := p.ce.f.CheckInvariants(); err != nil {
			p.fail("%v", err)
		}
	}
}

// exit runs the namespace's exit (flush_all) on both and compares them.
func (p *countedPair) exit() {
	p.t.Helper()
	p.log = append(p.log, "exit")
	for _, e := range []*env{p.ce, p.re} {
		e.rtnl.Lock(e.t)
		e.f.Exit(e.t)
		e.rtnl.Unlock(e.t)
	}
	if d := sameFIB(p.ce, p.re); d != "" {
		p.fail("after exit: %s", d)
	}
}

// runCounted is one run of TestCountedFlush. It returns how many tnodes
// were not settled at the start of a flush, summed over the flushes, and
// the number of flushes.
func runCounted(t *testing.T, seed uint64, policy nexthop.Policy, steps int) (unsettled, flushes int64) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	p := newCountedPair(t, seed, policy)
	run, ce := p.run, p.ce
	// Every third run turns counted flushes on only once the FIB has
	// routes, which SetCountedWalks then indexes.
	late := seed%3 == 0
	if late {
		ce.f.SetCountedWalks(false)
	}
	run(setupLines()...)
	run("link add vethC type veth peer name vethD", "link set vethC up", "link set vethD up",
		"addr add 192.0.2.1/24 dev vethC")
	const nhs = 24
	nhLine := func(id int) string {
		switch {
		case id%8 == 7:
			return fmt.Sprintf("nexthop add id %d group %d/%d", id, id-1, id-2)
		case id%8 == 5:
			return fmt.Sprintf("nexthop add id %d blackhole", id)
		case id%2 == 0:
			return fmt.Sprintf("nexthop add id %d via 192.0.2.%d dev vethC", id, 10+id)
		}
		return fmt.Sprintf("nexthop add id %d via 198.51.100.%d dev vethA", id, 10+id)
	}
	for id := 1; id <= nhs; id++ {
		run(nhLine(id))
	}
	// Clustered prefixes, so that the trie has full tnodes to inflate and
	// halve, and a few scattered ones.
	var pool []string
	for len(pool) < 400 {
		a := 0x0a000000 | rnd.Uint32()&0x000fff00
		bits := 20 + rnd.IntN(13)
		if rnd.IntN(10) == 0 {
			a, bits = rnd.Uint32()&0x7fffffff|0x01000000, 8+rnd.IntN(25)
		}
		p := addrFrom4(a & mask(bits))
		if f := addr4(p) >> 24; f == 0 || f == 127 || f >= 224 || f == 198 || f == 192 {
			continue
		}
		pool = append(pool, fmt.Sprintf("%v/%d", p, bits))
	}
	route := func() string {
		var b strings.Builder
		b.WriteString(pool[rnd.IntN(len(pool))])
		switch rnd.IntN(12) {
		case 0, 1, 2, 3:
			fmt.Fprintf(&b, " nhid %d", 1+rnd.IntN(nhs))
		case 4, 5:
			fmt.Fprintf(&b, " via 192.0.2.%d", 2+rnd.IntN(3))
		case 6, 7:
			fmt.Fprintf(&b, " via 198.51.100.%d", 2+rnd.IntN(3))
		case 8:
			b.WriteString(" dev vethC")
		case 9:
			b.WriteString(" unreachable")
		case 10:
			b.WriteString(" blackhole")
		default:
			b.WriteString(" prohibit")
		}
		switch rnd.IntN(10) {
		case 0:
			b.WriteString(" table 100")
		case 1:
			b.WriteString(" table local")
		case 2:
			b.WriteString(" table default")
		}
		if rnd.IntN(4) == 0 {
			fmt.Fprintf(&b, " metric %d", rnd.IntN(3))
		}
		return b.String()
	}
	modes := []string{"add", "add", "add", "append", "replace", "prepend"}
	for step := range steps {
		if late && step == steps/4 {
			ce.f.SetCountedWalks(true)
			if err := ce.f.CheckInvariants(); err != nil {
				p.fail("%v", err)
			}
		}
		switch k := rnd.IntN(100); {
		case k < 45:
			run("route " + modes[rnd.IntN(len(modes))] + " " + route())
		case k < 55:
			// A burst, as scripts add routes.
			for range 20 + rnd.IntN(40) {
				run("route add " + route())
			}
		case k < 70:
			run("route del " + route())
		case k < 82:
			id := 1 + rnd.IntN(nhs)
			run(fmt.Sprintf("nexthop del id %d", id))
			if id%8 == 7 || rnd.IntN(2) == 0 {
				// A group comes back after its members.
				for _, m := range []int{id - 2, id - 1, id} {
					if m >= 1 && ce.nh.Get(nexthop.ID(m)) == nil {
						run(nhLine(m))
					}
				}
			}
		case k < 88:
			run("link set vethC down", "link set vethC up")
			for id := 2; id <= nhs; id += 2 {
				if ce.nh.Get(nexthop.ID(id)) == nil {
					run(nhLine(id))
				}
			}
			for id := 7; id <= nhs; id += 8 {
				if ce.nh.Get(nexthop.ID(id)) == nil && ce.nh.Get(nexthop.ID(id-1)) != nil && ce.nh.Get(nexthop.ID(id-2)) != nil {
					run(nhLine(id))
				}
			}
		case k < 92:
			run("addr del 192.0.2.1/24 dev vethC", "addr add 192.0.2.1/24 dev vethC")
		case k < 93 && rnd.IntN(3) == 0:
			run("rule add from 203.0.113.1 table 100")
		default:
			run("route del " + route())
		}
	}
	// The namespace's exit flushes everything, error routes included.
	p.exit()
	return p.unsettled, p.flushes
}

// TestCountedSitesChurn: a fib_info's list of leaves stays within twice
// its routes however often routes come and go (stale keys are compacted
// away), and a flush after the churn still matches the real walk.
func TestCountedSitesChurn(t *testing.T) {
	p := newCountedPair(t, 0, nexthop.FlushPerNexthop)
	p.run(setupLines()...)
	p.run("nexthop add id 1 via 198.51.100.2 dev vethA")
	for round := range 20 {
		for i := range 32 {
			p.run(fmt.Sprintf("route add 10.1.%d.0/24 nhid 1", i))
		}
		for i := range 32 {
			if i%4 != round%4 {
				p.run(fmt.Sprintf("route del 10.1.%d.0/24", i))
			}
		}
		for i := range 32 {
			if i%4 == round%4 {
				p.run(fmt.Sprintf("route del 10.1.%d.0/24", i))
			}
		}
		if err := p.ce.f.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
	// 1280 route adds and deletes later, only the set-up's routes are
	// listed (local and main share the trie).
	tr := p.ce.f.Table(TableMain).t
	keys := 0
	for _, k := range tr.cf.sites {
		keys += len(k)
	}
	if keys == 0 || keys > 2*tr.nAliases {
		t.Fatalf("%d keys listed for %d routes", keys, tr.nAliases)
	}
	for i := range 32 {
		p.run(fmt.Sprintf("route add 10.1.%d.0/24 nhid 1", i))
	}
	p.run("nexthop del id 1")
	if p.flushes == 0 {
		t.Fatal("no flush")
	}
	if d := sameFIB(p.ce, p.re); d != "" {
		t.Fatal(d)
	}
}
