package fib

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/nexthop"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/kernel/*.golden from this machine's kernel (needs root and unshare)")

// kernelCase is a route set built by an `ip -batch` script, run both on the
// simulated FIB and, when possible, on the real kernel in a private network
// namespace. Their /proc/net/fib_triestat must be identical, and for small
// sets so must `ip -4 route show table all`.
type kernelCase struct {
	name   string
	lines  []string
	routes bool // compare the route dump too
}

const vethSetup = "link add vethA type veth peer name vethB\nlink set vethA up\nlink set vethB up\naddr add 198.51.100.1/24 dev vethA"

func setupLines() []string { return strings.Split(vethSetup, "\n") }

// seed000Lines is seed 000's route set at size n (65,536 in the seed): n
// nexthops via 198.51.100.2 and one /32 route per nexthop, 10.a.b.0 with
// nhid 256a+b+1 (without nexthops, routes via the gateway itself).
func seed000Lines(n int, withNexthops bool) []string {
	lines := setupLines()
	if withNexthops {
		for i := 1; i <= n; i++ {
			lines = append(lines, fmt.Sprintf("nexthop add id %d via 198.51.100.2 dev vethA", i))
		}
	}
	for i := 1; i <= n; i++ {
		a, b := (i-1)/256, (i-1)%256
		if withNexthops {
			lines = append(lines, fmt.Sprintf("route add 10.%d.%d.0/32 nhid %d", a, b, i))
		} else {
			lines = append(lines, fmt.Sprintf("route add 10.%d.%d.0/32 via 198.51.100.2", a, b))
		}
	}
	return lines
}

// randomPrefixes returns n distinct random prefixes of length 8..32.
func randomPrefixes(r *rand.Rand, n int) []netip.Prefix {
	seen := make(map[netip.Prefix]bool)
	var out []netip.Prefix
	for len(out) < n {
		bits := 8 + r.IntN(25)
		a := addrFrom4(r.Uint32() & mask(bits))
		p := netip.PrefixFrom(a, bits)
		// Keep clear of the veth's connected routes and of loopback,
		// multicast and the zero network.
		if f := addr4(a) >> 24; f == 0 || f == 127 || f >= 224 || f == 198 {
			continue
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func routeLine(verb string, p netip.Prefix, table int) string {
	s := fmt.Sprintf("route %s %s", verb, p)
	if verb != "del" {
		s += " dev vethA"
	}
	if table != 0 {
		s += fmt.Sprintf(" table %d", table)
	}
	return s
}

func kernelCases() []kernelCase {
	var cs []kernelCase
	cs = append(cs, kernelCase{name: "veth-address", lines: setupLines(), routes: true})
	cs = append(cs, kernelCase{name: "seed000", lines: seed000Lines(65536, true)})
	cs = append(cs, kernelCase{name: "seed000-via", lines: seed000Lines(65536, false)})

	// Random /8../32 sets in table 100, in two insertion orders.
	r := rand.New(rand.NewPCG(1, 2))
	ps := randomPrefixes(r, 3000)
	for k, order := range []string{"a", "b"} {
		lines := setupLines()
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		for _, p := range ps {
			lines = append(lines, routeLine("add", p, 100))
		}
		cs = append(cs, kernelCase{name: "random3000-" + order, lines: lines, routes: k == 0})
	}
	// The same, then half of them deleted in random order.
	{
		lines := setupLines()
		for _, p := range ps {
			lines = append(lines, routeLine("add", p, 100))
		}
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		for _, p := range ps[:len(ps)/2] {
			lines = append(lines, routeLine("del", p, 100))
		}
		cs = append(cs, kernelCase{name: "random3000-del-half", lines: lines, routes: true})
	}
	// Dense /24s and /32s in main, every third one deleted.
	{
		lines := setupLines()
		var added []string
		for i := 0; i < 4096; i++ {
			p := fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)
			if i%2 == 1 {
				p = fmt.Sprintf("172.16.%d.%d/32", i/256, i%256)
			}
			added = append(added, p)
			lines = append(lines, "route add "+p+" via 198.51.100.2")
		}
		for i := 0; i < len(added); i += 3 {
			lines = append(lines, "route del "+added[i])
		}
		cs = append(cs, kernelCase{name: "dense-del-third", lines: lines})
	}
	// A bit of everything in small: types, metrics, tos, sources, multipath,
	// appended and prepended duplicates, several tables, overlapping
	// prefixes, addresses with broadcasts and secondaries, then an
	// unmerge, a device down and an address removal.
	mixed := append(setupLines(),
		"link add vethC type veth peer name vethD",
		"link set vethC up",
		"link set vethD up",
		"addr add 198.51.100.7/24 dev vethA",
		"addr add 10.9.0.1/31 dev vethA",
		"addr add 10.8.0.1/32 dev vethA",
		"addr add 10.7.0.1/30 brd + dev vethA",
		"addr add 10.6.0.1/16 brd 10.6.0.0 dev vethA",
		"addr add 192.0.2.1/24 dev vethC",
		"nexthop add id 1 via 198.51.100.2 dev vethA",
		"nexthop add id 2 via 192.0.2.3 dev vethC",
		"nexthop add id 3 group 1/2",
		"route add 10.0.0.0/32 nhid 1",
		"route add 10.0.0.1/32 nhid 3",
		"route add 10.0.0.2/32 nhid 2",
		"route add 10.1.0.0/16 nexthop via 198.51.100.2 dev vethA nexthop via 192.0.2.3 dev vethC weight 3",
		"route add unreachable 10.2.0.0/16",
		"route add prohibit 10.3.0.0/16 metric 5",
		"route add blackhole 10.4.0.0/16 table 100",
		"route add 10.5.0.0/16 via 198.51.100.2 src 198.51.100.1 proto static tos 0x10 metric 20",
		"route add 10.5.0.0/16 via 198.51.100.2 onlink dev vethA table 1000",
		"route add 10.5.0.0/16 via 192.0.2.9",
		"route add 10.5.0.0/16 via 192.0.2.10 metric 7",
		"route append 10.5.0.0/16 via 198.51.100.9 metric 7",
		"route prepend 10.5.0.0/16 via 198.51.100.8 metric 7",
		"route add default via 198.51.100.2",
		"route append default via 192.0.2.3",
		"route add 10.5.128.0/17 via 192.0.2.4",
		"route add 10.5.0.0/24 dev vethC",
		"route replace 10.5.0.0/24 via 192.0.2.5",
		"route add 10.5.0.0/25 via 192.0.2.6 table 100",
		"route add 10.64.0.0/10 via 198.51.100.3",
		"route add 10.255.255.255/32 via 198.51.100.3",
	)
	cs = append(cs, kernelCase{name: "mixed", lines: mixed, routes: true})
	cs = append(cs, kernelCase{name: "mixed-unmerged", lines: append(mixed[:len(mixed):len(mixed)],
		"rule add from 203.0.113.1 table 100"), routes: true})
	cs = append(cs, kernelCase{name: "mixed-vethC-down", lines: append(mixed[:len(mixed):len(mixed)],
		"link set vethC down"), routes: true})
	cs = append(cs, kernelCase{name: "mixed-addr-del", lines: append(mixed[:len(mixed):len(mixed)],
		"addr del 198.51.100.1/24 dev vethA", "addr del 10.7.0.1/30 dev vethA", "addr del 192.0.2.1/24 dev vethC"), routes: true})
	return cs
}

// simOutput runs a case on the simulated FIB: /proc/net/fib_triestat, a
// "----" line, and for small cases the route dump.
func simOutput(t *testing.T, c kernelCase) string {
	e := newEnv(t, nexthop.FlushDeferred)
	for i, l := range c.lines {
		if err := e.ip(l); err != nil {
			t.Fatalf("%s line %d %q: %v", c.name, i+1, l, err)
		}
	}
	out := e.f.TrieStat() + "----\n"
	if c.routes {
		out += e.show()
	}
	return out
}

// kernelAvailable reports whether this machine can run the cases on its
// kernel: root, and unshare and ip installed and working.
func kernelAvailable() (bool, string) {
	if os.Geteuid() != 0 {
		return false, "not root"
	}
	for _, p := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(p); err != nil {
			return false, p + " not found"
		}
	}
	if err := exec.Command("unshare", "-n", "true").Run(); err != nil {
		return false, "unshare -n: " + err.Error()
	}
	return true, ""
}

// kernelOutput runs a case in a private network namespace of the real
// kernel; it sends no traffic.
func kernelOutput(t *testing.T, c kernelCase) string {
	dir := t.TempDir()
	script := filepath.Join(dir, "batch")
	if err := os.WriteFile(script, []byte(strings.Join(c.lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sh := fmt.Sprintf("ip -batch %s >/dev/null && cat /proc/net/fib_triestat && echo ----", script)
	if c.routes {
		sh += " && ip -4 route show table all"
	}
	// Remove the routes before the namespace goes: a kernel without seed
	// 000's patch holds RTNL for half a minute to flush 65,536 nexthops
	// that still have routes. (Without nexthop_compat_mode 0, `ip route
	// flush` sends back the gateway of nhid routes, which the kernel
	// refuses.)
	sh = "(" + sh + "); rc=$?; echo 0 >/proc/sys/net/ipv4/nexthop_compat_mode; " +
		"ip -4 route flush table all >/dev/null 2>&1; exit $rc"
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("unshare", "-n", "sh", "-c", sh)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s on the kernel: %v\n%s", c.name, err, stderr.String())
	}
	return stdout.String()
}

// TestKernelShapes compares the simulated trie and routes with the kernel's
// for the same scripts: with the machine's kernel when the test runs as root
// with unshare (the kernel's output is also checked against the golden
// file), and with the golden files recorded from it otherwise.
func TestKernelShapes(t *testing.T) {
	live, why := kernelAvailable()
	recorded := filepath.Join("testdata", "kernel", "RELEASE")
	if live && !*rewrite {
		// The goldens come from one kernel release; another may differ
		// (iproute2's output too), so only its own release is compared.
		rel, _ := exec.Command("uname", "-r").Output()
		want, _ := os.ReadFile(recorded)
		if strings.TrimSpace(string(rel)) != strings.TrimSpace(string(want)) {
			live, why = false, fmt.Sprintf("kernel %s, goldens from %s", bytes.TrimSpace(rel), bytes.TrimSpace(want))
		}
	}
	if live && *rewrite {
		rel, err := exec.Command("uname", "-r").Output()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(recorded, rel, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !live {
		t.Logf("comparing with golden files only: %s", why)
	}
	for _, c := range kernelCases() {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && len(c.lines) > 10000 {
				t.Skip("large case")
			}
			got := simOutput(t, c)
			golden := filepath.Join("testdata", "kernel", c.name+".golden")
			if live {
				k := kernelOutput(t, c)
				if *rewrite {
					if err := os.WriteFile(golden, []byte(k), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if got != k {
					t.Errorf("simulated FIB differs from the kernel's:\n%s", linediff.Unified(k, got))
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (rerun as root with -rewrite)", err)
			}
			if got != string(want) {
				t.Errorf("simulated FIB differs from %s:\n%s", golden, linediff.Unified(string(want), got))
			}
		})
	}
}
