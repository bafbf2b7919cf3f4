package fib6

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/internal/golden"
	"github.com/netsimlab/netsim/rt"
	"github.com/stretchr/testify/require"
)

var recordRT6Stats = flag.Bool("record", false, "record testdata/rt6stats from the real kernel (needs root)")

// rt6StatsSets are the route sets whose statistics are compared with the
// real kernel's: name, seed and size.
var rt6StatsSets = []struct {
	name string
	seed uint64
	n    int
}{
	{"small1", 1, 100},
	{"small2", 2, 100},
	{"small3", 3, 100},
	{"medium1", 11, 1000},
	{"medium2", 12, 1000},
	{"large1", 21, 10000},
}

// genRT6Batch returns an `ip -6 -batch` script of n route requests:
// blackhole and unreachable routes (no device needed) with prefixes of
// /16 to /128, half clustered under a few /32s and half random, some
// with metrics, some source-specific (`from`), and about one request in
// eight deleting a route added before.
func genRT6Batch(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0x6f6962))
	type rk struct {
		dst, src netip.Prefix
		metric   uint32
	}
	var live []rk
	seen := map[rk]bool{}
	bases := make([][16]byte, 4)
	for i := range bases {
		bases[i][0], bases[i][1] = 0x20, 0x01
		bases[i][2], bases[i][3] = byte(r.IntN(256)), byte(r.IntN(256))
	}
	randPrefix := func(lo, hi int) netip.Prefix {
		var a [16]byte
		if r.IntN(2) == 0 {
			a = bases[r.IntN(len(bases))]
			for i := 4; i < 16; i++ {
				// Clustered: few distinct values in the next bytes.
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
		p, _ := netip.AddrFrom16(a).Prefix(lo + r.IntN(hi-lo+1))
		return p
	}
	metrics := []uint32{1024, 1024, 1024, 1024, 1, 100, 1024, 2048}
	var out []string
	for len(out) < n {
		if len(live) > 0 && r.IntN(8) == 0 {
			i := r.IntN(len(live))
			k := live[i]
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			delete(seen, k)
			s := "route del " + k.dst.String()
			if k.src.IsValid() {
				s += " from " + k.src.String()
			}
			out = append(out, s+" metric "+strconv.Itoa(int(k.metric)))
			continue
		}
		k := rk{dst: randPrefix(16, 128), metric: metrics[r.IntN(len(metrics))]}
		if r.IntN(10) == 0 {
			k.src = randPrefix(16, 64)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		live = append(live, k)
		typ := "blackhole"
		if r.IntN(3) == 0 {
			typ = "unreachable"
		}
		s := "route add " + typ + " " + k.dst.String()
		if k.src.IsValid() {
			s += " from " + k.src.String()
		}
		out = append(out, s+" metric "+strconv.Itoa(int(k.metric)))
	}
	return out
}

// TestRT6StatsRecord records testdata/rt6stats/*.txt: each set's batch and
// the real kernel's /proc/net/rt6_stats after it (in a new network
// namespace; the sleep lets RCU frees finish). It runs with -record only.
func TestRT6StatsRecord(t *testing.T) {
	if !*recordRT6Stats {
		t.Skip("run with -record to record the real kernel's rt6_stats")
	}
	if os.Geteuid() != 0 {
		t.Skip("recording needs root")
	}
	dir := filepath.Join("testdata", "rt6stats")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, s := range rt6StatsSets {
		batch := genRT6Batch(s.seed, s.n)
		bf := filepath.Join(t.TempDir(), "batch")
		require.NoError(t, os.WriteFile(bf, []byte(strings.Join(batch, "\n")+"\n"), 0o644))
		out, err := exec.Command("unshare", "-n", "sh", "-c",
			"ip -6 -force -batch "+bf+" >/dev/null 2>&1; sleep 0.2; cat /proc/net/rt6_stats").Output()
		require.NoError(t, err)
		f := golden.File{Comment: fmt.Sprintf("# %s: seed %d, %d requests; the real kernel's rt6_stats after `ip -6 -force -batch` in a new namespace\n", s.name, s.seed, s.n)}
		f.Set("want", string(out))
		f.Set("batch", strings.Join(batch, "\n")+"\n")
		require.NoError(t, os.WriteFile(filepath.Join(dir, s.name+".txt"), []byte(f.Format()), 0o644))
	}
}

// replayBatch applies a generated batch to a new FIB the way ip6_route_add
// and ip6_route_del do, ignoring failed requests as ip -force does.
func replayBatch(t *testing.T, lines []string) *treeEnv {
	e := newTreeEnv(t)
	for _, l := range lines {
		f := strings.Fields(l)
		require.GreaterOrEqual(t, len(f), 3, l)
		require.Equal(t, "route", f[0], l)
		var r routeSpec
		i := 2
		if f[1] == "add" {
			i++ // the type: both reject types go through lo
		}
		r.dst = f[i]
		for i++; i+1 < len(f); i += 2 {
			switch f[i] {
			case "from":
				r.src = f[i+1]
			case "metric":
				m, err := strconv.ParseUint(f[i+1], 10, 32)
				require.NoError(t, err)
				r.metric = uint32(m)
			default:
				t.Fatalf("unknown word %q in %q", f[i], l)
			}
		}
		if f[1] == "add" {
			_ = e.add(r, rt.ModeAdd)
		} else {
			e.del(r)
		}
	}
	e.w.Settle()
	return e
}

// TestRT6StatsAgainstKernel replays each recorded batch and compares the
// statistics with the real kernel's.
func TestRT6StatsAgainstKernel(t *testing.T) {
	for _, s := range rt6StatsSets {
		t.Run(s.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "rt6stats", s.name+".txt"))
			require.NoError(t, err)
			f := golden.Parse(string(data))
			want, _ := f.Get("want")
			lines, _ := f.Get("batch")
			var batch []string
			for _, l := range strings.Split(lines, "\n") {
				if l != "" {
					batch = append(batch, l)
				}
			}
			require.Equal(t, genRT6Batch(s.seed, s.n), batch, "the generator changed: record again")
			e := replayBatch(t, batch)
			require.Equal(t, want, e.f.rt6Stats())
			require.NoError(t, e.f.checkTree())
		})
	}
}
