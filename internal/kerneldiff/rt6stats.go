// Route sets checked against /proc/net/rt6_stats (rt6_stats_seq_show,
// net/ipv6/route.c): generated IPv6 routes in parts, with the counters
// read after each part on both sides.

package kerneldiff

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/netsimlab/netsim/internal/golden"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// An RT6Set is a random IPv6 route set given to `ip -6 -force -batch` in
// parts, /proc/net/rt6_stats read after each: devices with addresses
// (whose addrconf routes count too), then routes through them, then
// device events.
type RT6Set struct {
	Parts [][]string // the batch lines of each part
}

// rt6Devs are the veth pairs of a route set: the first of each pair
// carries the addresses, the gateways are on their prefixes.
var rt6Devs = []string{"a0", "a1", "a2"}

// GenRT6Set returns the route set of seed with about n route requests:
// three veth pairs (MAC addresses set) with four nodad /64s each and one
// tentative address; then routes of /16 to /128, half clustered under a
// few /32s and half random, through a gateway on one of the devices'
// prefixes, a device, or several gateways (multipath), now and then a
// blackhole or unreachable, source-specific, with a metric, an append that
// makes siblings of routes of equal metric, and about one request in
// eight deleting a route added before (now and then only one of its
// nexthops); then one device going down and up again, and one deleted.
// The requests are cut into four parts.
func GenRT6Set(seed uint64, n int) RT6Set {
	r := rand.New(rand.NewPCG(seed, 0x72743673746174))
	var set RT6Set
	setup := []string{"link set lo up"}
	for i, a := range rt6Devs {
		b := "b" + a[1:]
		setup = append(setup,
			fmt.Sprintf("link add %s address 02:00:00:00:%02x:0a type veth peer name %s address 02:00:00:00:%02x:0b", a, i, b, i),
			"link set "+a+" up", "link set "+b+" up")
		for s := range 4 {
			setup = append(setup, fmt.Sprintf("addr add 2001:db8:%x%x::1/64 dev %s nodad", i, s, a))
		}
		setup = append(setup, fmt.Sprintf("addr add 2001:db8:%x9::1/64 dev %s", i, a))
	}
	set.Parts = append(set.Parts, setup)

	gw := func() (string, string) {
		i := r.IntN(len(rt6Devs))
		return fmt.Sprintf("2001:db8:%x%x::%x", i, r.IntN(4), 2+r.IntN(200)), rt6Devs[i]
	}
	bases := make([][16]byte, 4)
	for i := range bases {
		bases[i][0], bases[i][1] = 0x20, 0x01
		bases[i][2], bases[i][3] = 0x0d, byte(0xb9+i)
	}
	prefix := func() netip.Prefix {
		var a [16]byte
		if r.IntN(2) == 0 {
			a = bases[r.IntN(len(bases))]
			for i := 4; i < 16; i++ {
				if i < 8 {
					a[i] = byte(r.IntN(4))
				} else {
					a[i] = byte(r.IntN(256))
				}
			}
		} else {
			for i := range a {
				a[i] = byte(r.IntN(256))
			}
			a[0] = 0x20 | a[0]&0x1f
		}
		p, _ := netip.AddrFrom16(a).Prefix(16 + r.IntN(113))
		return p
	}
	type route struct {
		spec string   // "PFX [from SRC] metric M"
		nhs  []string // "via G dev D" of each path, none for a reject route
	}
	var live []route
	metrics := []int{1024, 1024, 1024, 1024, 1, 100, 256, 2048}
	var reqs []string
	for len(reqs) < n {
		switch k := r.IntN(16); {
		case k < 2 && len(live) > 0:
			i := r.IntN(len(live))
			rt := live[i]
			if len(rt.nhs) > 1 && r.IntN(2) == 0 {
				// One path of a multipath route.
				j := r.IntN(len(rt.nhs))
				reqs = append(reqs, "route del "+rt.spec+" "+rt.nhs[j])
				live[i].nhs = append(rt.nhs[:j:j], rt.nhs[j+1:]...)
				continue
			}
			reqs = append(reqs, "route del "+rt.spec)
			live = append(live[:i], live[i+1:]...)
		case k < 4 && len(live) > 0:
			// An append: a route of the same metric through a gateway
			// becomes a sibling (a reject route refuses it).
			i := r.IntN(len(live))
			g, d := gw()
			nh := "via " + g + " dev " + d
			reqs = append(reqs, "route append "+live[i].spec+" "+nh)
			if len(live[i].nhs) > 0 {
				live[i].nhs = append(live[i].nhs, nh)
			}
		default:
			spec := prefix().String()
			if r.IntN(10) == 0 {
				spec += " from " + prefix().String()
			}
			spec += fmt.Sprintf(" metric %d", metrics[r.IntN(len(metrics))])
			rt := route{spec: spec}
			var req string
			switch m := r.IntN(10); {
			case m < 1:
				req = "route add " + []string{"blackhole", "unreachable"}[r.IntN(2)] + " " + spec
			case m < 2:
				d := rt6Devs[r.IntN(len(rt6Devs))]
				rt.nhs = []string{"dev " + d}
				req = "route add " + spec + " dev " + d
			case m < 4:
				req = "route add " + spec
				for range 2 + r.IntN(2) {
					g, d := gw()
					rt.nhs = append(rt.nhs, "via "+g+" dev "+d)
					req += " nexthop via " + g + " dev " + d
				}
			default:
				g, d := gw()
				rt.nhs = []string{"via " + g + " dev " + d}
				req = "route add " + spec + " " + rt.nhs[0]
			}
			reqs = append(reqs, req)
			live = append(live, rt)
		}
	}
	for i := range 4 {
		set.Parts = append(set.Parts, reqs[i*len(reqs)/4:(i+1)*len(reqs)/4])
	}
	set.Parts = append(set.Parts, []string{"link set a1 down"}, []string{"link set a1 up"}, []string{"link del a2"})
	return set
}

// rt6Transcript is what one side gave for a route set: per part, its
// error output and the rt6_stats line after it.
type rt6Transcript struct {
	Stderr []string
	Stats  []string
}

// Render writes a transcript, a part's error output only when not empty.
func (t rt6Transcript) Render(header string) string {
	var b strings.Builder
	b.WriteString(header)
	for i := range t.Stats {
		golden.WriteSection(&b, fmt.Sprintf("part %d", i+1), "")
		if t.Stderr[i] != "" {
			golden.WriteSection(&b, "stderr", t.Stderr[i])
		}
		golden.WriteSection(&b, "rt6_stats", t.Stats[i])
	}
	return b.String()
}

// RunRT6SetNetsim runs a route set on a fresh netsim kernel.
func RunRT6SetNetsim(set RT6Set) rt6Transcript {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	ip.Stdin = nil
	var t rt6Transcript
	for i, p := range set.Parts {
		var out, errb strings.Builder
		ip.Stdout, ip.Stderr = &out, &errb
		name := fmt.Sprintf("%d.batch", i)
		ip.Open = func(n string) (io.ReadCloser, error) {
			if n != name {
				return nil, &os.PathError{Op: "open", Path: n, Err: os.ErrNotExist}
			}
			return io.NopCloser(strings.NewReader(strings.Join(p, "\n") + "\n")), nil
		}
		ip.Main([]string{"-6", "-force", "-batch", name})
		t.Stderr = append(t.Stderr, errb.String())
		t.Stats = append(t.Stats, hideRT6Alloc(netsimRT6Stats(k, ip)))
	}
	return t
}

// RunRT6SetReal runs a route set in a new network namespace of the real
// kernel (see Available).
func RunRT6SetReal(set RT6Set) (rt6Transcript, error) {
	dir, err := os.MkdirTemp("", "rt6stats")
	if err != nil {
		return rt6Transcript{}, err
	}
	defer os.RemoveAll(dir)
	var sh strings.Builder
	sh.WriteString("echo 3600 >/proc/sys/net/ipv6/conf/default/dad_transmits || exit 99\n")
	fmt.Fprintf(&sh, "cd %s || exit 99\n", shQuote(dir))
	for i, p := range set.Parts {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.batch", i)), []byte(strings.Join(p, "\n")+"\n"), 0o644); err != nil {
			return rt6Transcript{}, err
		}
		fmt.Fprintf(&sh, "ip -6 -force -batch %d.batch >/dev/null 2>%d.err </dev/null\n", i, i)
		// A nodad address's local route comes from a work queue; a link
		// event's routes from linkwatch.
		sh.WriteString("sleep 0.3\n")
		fmt.Fprintf(&sh, "while IFS= read -r l; do printf '%%s\\n' \"$l\"; done </proc/net/rt6_stats >%d.stats\n", i)
	}
	if out, err := exec.Command("unshare", "-n", "sh", "-c", sh.String()).CombinedOutput(); err != nil {
		return rt6Transcript{}, fmt.Errorf("unshare: %v: %s", err, strings.TrimSpace(string(out)))
	}
	var t rt6Transcript
	for i := range set.Parts {
		e, err1 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.err", i)))
		s, err2 := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.stats", i)))
		if err := errors.Join(err1, err2); err != nil {
			return rt6Transcript{}, err
		}
		t.Stderr = append(t.Stderr, string(e))
		t.Stats = append(t.Stats, hideRT6Alloc(string(s)))
	}
	return t, nil
}
