package scenario_test

import (
	"bufio"
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/netsimlab/netsim/scenario"
	"github.com/stretchr/testify/require"
)

var updatePins = flag.Bool("update-pins", false, "rewrite testdata/seeds*.pinned from the current code")

// pinRuns are the seeds tables pinned: each seed on its own machine's
// profile (what `netsim seeds` prints), and every seed on the development
// VM's (`netsim seeds -machine devvm`). Each quotes its count in docs.
var pinRuns = []struct {
	machine, file string
	docs          []string // the files that quote the run's count
}{
	{"", "testdata/seeds.pinned", []string{"README.md", "docs/cost-model.md"}},
	{"devvm", "testdata/seeds.devvm.pinned", []string{"docs/cost-model.md"}},
}

const (
	// pinSlack is how far a row's virtual time may move from its pin.
	pinSlack = 0.01
	repin    = "go test -count=1 -run '^TestSeedsPinned$' ./scenario -update-pins"
)

// TestSeedsPinned runs every seed at full scale, as `netsim seeds` does,
// once on each seed's own machine's profile and once on the development
// VM's, and holds every row's virtual time to within 1% of the value pinned
// in testdata/seeds.pinned and testdata/seeds.devvm.pinned: a change that
// moves a prediction (or a calibrated row) fails here, and re-pins
// (-update-pins) in the same commit, so that the diff of the pins shows what
// it moved. About 45 s of real time per profile on two cores: -race and
// -short skip it, and CI runs it on its own without -race.
func TestSeedsPinned(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("runs every seed at full scale: `go test -run '^TestSeedsPinned$' ./scenario` without -race or -short")
	}
	for _, run := range pinRuns {
		t.Run(cmp.Or(run.machine, "own"), func(t *testing.T) {
			rows, err := scenario.RunSeedsWith(nil, scenario.SeedsOptions{Machine: run.machine})
			require.NoError(t, err)
			checkPins(t, rows, run.machine, run.file, run.docs)
		})
	}
}

// checkPins holds rows to the pins in file (or rewrites it with
// -update-pins) and checks that docs quote their count.
func checkPins(t *testing.T, rows []scenario.SeedRow, machine, file string, docs []string) {
	if *updatePins {
		require.NoError(t, os.WriteFile(file, formatPins(rows, machine), 0o644))
		t.Logf("wrote %d pins to %s", len(rows), file)
		return
	}
	pins := readPins(t, file)
	virtual := map[scenario.RowKey]time.Duration{}
	for _, r := range rows {
		k := scenario.RowKey{Seed: r.Seed, Phase: r.Phase, Mode: r.Mode}
		virtual[k] = r.Virtual
		pin, ok := pins[k]
		if !ok {
			t.Errorf("%s: virtual %v has no pin; pin it: %s", k, r.Virtual, repin)
			continue
		}
		if off := math.Abs(float64(r.Virtual-pin)) / float64(pin); off > pinSlack {
			t.Errorf("%s: virtual %v, pinned %v (%+.2f%%); if the change is meant, re-pin in the same commit: %s",
				k, r.Virtual, pin, 100*float64(r.Virtual-pin)/float64(pin), repin)
		}
	}
	for k := range pins {
		if _, ok := virtual[k]; !ok {
			t.Errorf("%s is pinned but no longer run; re-pin: %s", k, repin)
		}
	}
	// The README and the cost model's page quote the count `netsim seeds`
	// ends with.
	count := scenario.ScoreRows(rows).String()
	for _, doc := range docs {
		text, err := os.ReadFile("../" + doc)
		require.NoError(t, err)
		if !strings.Contains(strings.Join(strings.Fields(string(text)), " "), `"`+count+`"`) {
			t.Errorf("%s's count of calibrated and predicted rows (machine %q) is stale: netsim seeds ends with %q", doc, machine, count)
		}
	}
	// Rows declared the same by construction are, at full scale.
	for _, p := range scenario.PublishedTimes {
		if p.SameAs != (scenario.RowKey{}) {
			require.Equal(t, virtual[p.SameAs], virtual[p.Key()], "%s and %s", p.Key(), p.SameAs)
		}
	}
}

// formatPins returns the pins file for rows run on machine: a
// tab-separated line per row.
func formatPins(rows []scenario.SeedRow, machine string) []byte {
	var b bytes.Buffer
	cmd, on := "netsim seeds", "each seed on its own machine's profile"
	if machine != "" {
		cmd, on = "netsim seeds -machine "+machine, "every seed on the "+machine+" profile"
	}
	fmt.Fprintf(&b, `# The virtual time of every row of "%s" at full scale
# (%s), which TestSeedsPinned holds
# to within %g%%. A change that moves one re-pins in the same commit, from
# the current code:
#	%s
# seed	phase	mode	virtual
`, cmd, on, 100*pinSlack, repin)
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%v\n", r.Seed, r.Phase, r.Mode, r.Virtual)
	}
	return b.Bytes()
}

// readPins reads the pins file.
func readPins(t *testing.T, pinsFile string) map[scenario.RowKey]time.Duration {
	f, err := os.ReadFile(pinsFile)
	require.NoError(t, err, "pin the current values: %s", repin)
	pins := map[scenario.RowKey]time.Duration{}
	sc := bufio.NewScanner(bytes.NewReader(f))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		require.Len(t, fields, 4, "%s:%d: %q", pinsFile, n, line)
		d, err := time.ParseDuration(fields[3])
		require.NoError(t, err, "%s:%d: %q", pinsFile, n, line)
		require.Positive(t, d, "%s:%d: %q", pinsFile, n, line)
		k := scenario.RowKey{Seed: fields[0], Phase: fields[1], Mode: fields[2]}
		require.NotContains(t, pins, k, "%s:%d: %s pinned twice", pinsFile, n, k)
		pins[k] = d
	}
	require.NoError(t, sc.Err())
	return pins
}
