package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSweep(t *testing.T) {
	var out bytes.Buffer
	svg := filepath.Join(t.TempDir(), "sweep.svg")
	require.NoError(t, run([]string{"sweep", "003", "-n", "8,16,32", "-rules", "32", "-plot", svg}, &out))
	require.Contains(t, out.String(), "before: makespan ∝ K^")
	require.Contains(t, out.String(), "after: makespan ∝ K^")
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.True(t, strings.Contains(string(b), "<svg"), "an SVG file")

	out.Reset()
	require.NoError(t, run([]string{"sweep", "-json", "-n", "8,16", "-rules", "16", "-family", "6", "003"}, &out))
	var res []struct {
		Mode     string    `json:"mode"`
		Sizes    []int     `json:"sizes"`
		Seconds  []float64 `json:"makespan_s"`
		Exponent float64   `json:"exponent"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	require.Len(t, res, 2)
	require.Equal(t, []int{8, 16}, res[0].Sizes)
	require.Greater(t, res[0].Exponent, res[1].Exponent, "before grows faster than after")

	for _, bad := range [][]string{
		{"sweep"}, {"sweep", "005"}, {"sweep", "003", "-n", "8"}, {"sweep", "003", "-n", "8,x"},
		{"sweep", "003", "-family", "5"}, {"sweep", "003", "-start", "later"},
	} {
		require.Error(t, run(bad, &out), "%v", bad)
	}
}

// needBash skips a test of templates where bash is not installed.
func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to expand templates:", err)
	}
}

// writeFile writes a file in a test's directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// routesTemplate adds N routes on a dummy in its phase "routes".
const routesTemplate = `# N /32 routes on d0
# phase: setup
printf '%s\n' 'link add d0 type dummy' 'link set d0 up'
# phase: routes
for ((i = 1; i <= $N; i++)); do echo "route add 10.0.$((i / 256)).$((i % 256))/32 dev d0"; done
`

// measureOf returns a measure of a phase of a mode's results.
func measureOf(t *testing.T, m sweepMode, phase, measure string) sweepMeasureOut {
	t.Helper()
	for _, p := range m.Phases {
		if p.Phase != phase {
			continue
		}
		for _, ms := range p.Measures {
			if ms.Measure == measure {
				return ms
			}
		}
	}
	t.Fatalf("%s: no measure %s in phase %s", m.Mode, measure, phase)
	return sweepMeasureOut{}
}

// TestSweepTemplate: a template's counters of known growth have their
// exponents: N route adds grow as N (exactly: the standard error is 0), and
// seed 000's flushes before the patch visit N² trie leaves, after it N.
func TestSweepTemplate(t *testing.T) {
	needBash(t)
	var out bytes.Buffer
	tmpl := writeFile(t, "routes.sh", routesTemplate)
	require.NoError(t, run([]string{"sweep", "-json", "-script", tmpl, "-var", "N=100,200,400,800"}, &out))
	var res []sweepMode
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	require.Len(t, res, 2)
	for _, m := range res {
		require.Equal(t, "N", m.Var)
		require.Equal(t, []int{100, 200, 400, 800}, m.Sizes)
		require.Equal(t, []string{"setup", "routes"}, []string{m.Phases[0].Phase, m.Phases[1].Phase})
		for _, name := range []string{"fib_alias_inserts", "ip_batch_lines"} {
			ms := measureOf(t, m, "routes", name)
			require.Equal(t, []float64{100, 200, 400, 800}, ms.Values, "%s %s", m.Mode, name)
			require.InDelta(t, 1, *ms.Exponent, 1e-9, "%s %s", m.Mode, name)
			require.InDelta(t, 0, *ms.ExponentSE, 1e-9, "%s %s", m.Mode, name)
		}
		ms := measureOf(t, m, "routes", "ip_execs")
		require.InDelta(t, 0, *ms.Exponent, 1e-9, "one ip process at every size")
	}

	out.Reset()
	require.NoError(t, run([]string{"sweep", "-json", "-script", "../../examples/templates/seed000.sh", "-var", "N=64,128,256,512"}, &out))
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	before, after := measureOf(t, res[0], "link down", "trie_leaf_visits"), measureOf(t, res[1], "link down", "trie_leaf_visits")
	require.Equal(t, "before", res[0].Mode)
	require.InDelta(t, 2, *before.Exponent, 0.06, "a FIB flush per nexthop: N flushes of N leaves")
	require.InDelta(t, 1, *after.Exponent, 0.1, "one flush")
	flushes := measureOf(t, res[0], "link down", "nexthop_fib_flushes")
	require.Equal(t, []float64{64, 128, 256, 512}, flushes.Values)

	// The table compares before and after, phase by phase.
	out.Reset()
	require.NoError(t, run([]string{"sweep", "-script", "../../examples/templates/seed000.sh", "-var", "N=64,128,256"}, &out))
	require.Regexp(t, `(?m)^link down +trie_leaf_visits +\d+ +1\.9\d ± 0\.\d\d +\d+ +0\.\d\d ± 0\.\d\d +\d+×`, out.String())
	require.Contains(t, out.String(), "before: makespan ∝ N^")
}

// TestSweepRoundTrip: the CSV of a sweep, read back, is its JSON.
func TestSweepRoundTrip(t *testing.T) {
	needBash(t)
	var out bytes.Buffer
	tmpl := writeFile(t, "routes.sh", routesTemplate)
	csvFile := filepath.Join(t.TempDir(), "sweep.csv")
	svg := filepath.Join(t.TempDir(), "sweep.svg")
	require.NoError(t, run([]string{"sweep", "-script", tmpl, "-var", "N=10,20,40", "-json", "-csv", csvFile,
		"-plot", svg, "-phase", "routes", "-measure", "virtual_s,fib_alias_inserts"}, &out))
	var fromJSON []sweepMode
	require.NoError(t, json.Unmarshal(out.Bytes(), &fromJSON))
	f, err := os.Open(csvFile)
	require.NoError(t, err)
	defer f.Close()
	fromCSV, err := readSweepCSV(f)
	require.NoError(t, err)
	require.Equal(t, fromJSON, fromCSV)
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.Contains(t, string(b), "<svg")
	require.Contains(t, string(b), "after fib_alias_inserts", "one line per mode and measure")

	_, err = readSweepCSV(strings.NewReader("a,b\n1,2\n"))
	require.ErrorContains(t, err, "not a sweep CSV")
	_, err = readSweepCSV(strings.NewReader("mode,phase,measure,N,value\nbefore,x,y,10,1\n"))
	require.ErrorContains(t, err, "N=10 has no makespan row before it")
}

// TestSweepTemplatesPrintExamples: each seed's template, at the seed's
// size, prints the seed's script as examples/ ships it (its lines after
// the header), the phase markers aside.
func TestSweepTemplatesPrintExamples(t *testing.T) {
	needBash(t)
	for _, c := range []struct {
		template, example, name string
		n                       int
	}{
		{"seed000.sh", "seed000.ip", "N", 65536},
		{"seed001.sh", "seed001.ip", "N", 1500},
		{"seed002.sh", "seed002.ip", "NIFS", 100},
		{"seed003.sh", "seed003.ip", "N", 1024},
		{"seed004.sh", "seed004.ip", "N", 10000},
		{"seed004-group.sh", "seed004-group.ip", "N", 10000},
	} {
		tmpl, err := os.ReadFile("../../examples/templates/" + c.template)
		require.NoError(t, err)
		got, err := expandTemplate(c.template, string(tmpl), []sweepVar{{Name: c.name}}, []int{c.n})
		require.NoError(t, err)
		var lines []string
		for _, l := range strings.Split(got, "\n") {
			if !strings.HasPrefix(l, "# phase:") {
				lines = append(lines, l)
			}
		}
		ex, err := os.ReadFile("../../examples/" + c.example)
		require.NoError(t, err)
		want := string(ex)
		for strings.HasPrefix(want, "#") {
			_, want, _ = strings.Cut(want, "\n")
		}
		require.Equal(t, want, strings.Join(lines, "\n"), c.template)
	}
}

// TestSweepBadInput: every bad input is an error that says what is wrong.
func TestSweepBadInput(t *testing.T) {
	needBash(t)
	tmpl := writeFile(t, "routes.sh", routesTemplate)
	dup := writeFile(t, "dup.sh", "# phase: a\necho 'link show'\n# phase: a\necho \"link show # $N\"\n")
	plain := writeFile(t, "plain.sh", "nexthop add id $N blackhole\n")
	failing := writeFile(t, "failing.sh", "echo 'route add 10.0.0.0/8 dev nosuch # $N'\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-script", tmpl, "-var", "N"}, `-var "N": want NAME=V1,V2,...`},
		{[]string{"-script", tmpl, "-var", "1N=1,2"}, `"1N" is not a shell variable name`},
		{[]string{"-script", tmpl, "-var", "N=1,x"}, `-var N: "x" is not a positive size`},
		{[]string{"-script", tmpl, "-var", "N=0,1"}, `-var N: "0" is not a positive size`},
		{[]string{"-script", tmpl, "-var", "N=2,2"}, `-var N: 2 is given twice`},
		{[]string{"-script", tmpl, "-var", "M=1,2"}, `-var M: the template ` + tmpl + ` does not use $M or ${M}`},
		{[]string{"-script", tmpl, "-var", "N=8"}, "N needs two or more sizes to fit a growth exponent"},
		{[]string{"-script", tmpl, "-var", "N=1,2", "-var", "N=3"}, "-var N given twice"},
		{[]string{"-script", tmpl}, "give its variable with -var NAME=V1,V2,..."},
		{[]string{"-script", filepath.Join(t.TempDir(), "none.sh"), "-var", "N=1,2"}, "no such file"},
		{[]string{"-script", tmpl, "-var", "N=1,2", "-n", "1,2"}, "-n is a seed's option"},
		{[]string{"-script", tmpl, "-var", "N=1,2", "003"}, "give a seed or -script, not both"},
		{[]string{"-script", plain, "-var", "N=1,2"}, "plain.sh with N=1: bash: line 1: nexthop: command not found"},
		{[]string{"-script", dup, "-var", "N=1,2"}, `phase "a" again (it begins at line 1)`},
		{[]string{"-script", failing, "-var", "N=1,2"}, `ip -batch exited with status 1: Cannot find device "nosuch"`},
		{[]string{"-script", tmpl, "-var", "N=1,2", "-config", "sideways"}, "-config sideways: not before, after or a readable config file"},
		{[]string{"-script", tmpl, "-var", "N=1,2", "-config", "after,after"}, `-config: mode "after" given twice`},
		{[]string{"-script", tmpl, "-var", "N=1,2", "-plot", filepath.Join(t.TempDir(), "p.svg"), "-phase", "nope"}, `-phase "nope": no such phase (have ["setup" "routes"])`},
		{[]string{"-script", tmpl, "-var", "N=1,2", "-plot", filepath.Join(t.TempDir(), "p.svg"), "-measure", "nope"}, `-measure "nope": not a measure of phase "routes" (have virtual_s, `},
		{[]string{"003", "-n", "8"}, "netns needs two or more sizes to fit a growth exponent"},
		{[]string{"000", "-var", "N=1,2"}, "-var is a template's option; seed 000's sizes are -n"},
		{[]string{"000", "-family", "6"}, "-family is an option of seed 003, not 000"},
		{[]string{"004", "-method", "all"}, `-method must be one-by-one, group or list, not "all"`},
		{[]string{"005"}, "no seed \"005\" to sweep (have 000, 001, 002, 003, 004)"},
	} {
		var out bytes.Buffer
		err := run(append([]string{"sweep"}, c.args...), &out)
		require.Error(t, err, "%v", c.args)
		require.Contains(t, err.Error(), c.want, "%v", c.args)
	}
	// Two variables with several values each: a sweep varies one.
	two := writeFile(t, "two.sh", "echo \"link add d$N$M type dummy\"\n")
	err := run([]string{"sweep", "-script", two, "-var", "N=1,2", "-var", "M=3,4"}, io.Discard)
	require.ErrorContains(t, err, "-var N and -var M both have several values")
	// One with one value is a constant.
	require.NoError(t, run([]string{"sweep", "-script", two, "-var", "N=1,2", "-var", "M=3"}, io.Discard))
}

// readSweepCSV reads writeSweepCSV's file back, fitting the exponents
// again (seed 003's up to P and from P are not in it).
func readSweepCSV(r io.Reader) ([]sweepMode, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) < 2 || len(rows[0]) != 5 || !slices.Equal(rows[0][:3], []string{"mode", "phase", "measure"}) || rows[0][4] != "value" {
		return nil, fmt.Errorf("not a sweep CSV: want the header mode,phase,measure,SIZE,value")
	}
	varName := rows[0][3]
	var res []sweepMode
	mode := func(name string) *sweepMode {
		for i := range res {
			if res[i].Mode == name {
				return &res[i]
			}
		}
		res = append(res, sweepMode{Mode: name, Var: varName})
		return &res[len(res)-1]
	}
	for i, row := range rows[1:] {
		line := i + 2
		k, err := strconv.Atoi(row[3])
		if err != nil {
			return nil, fmt.Errorf("line %d: size %q is not a number", line, row[3])
		}
		v, err := strconv.ParseFloat(row[4], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: value %q is not a number", line, row[4])
		}
		m := mode(row[0])
		if row[1] == "" && row[2] == csvMakespan {
			m.Sizes, m.Seconds = append(m.Sizes, k), append(m.Seconds, v)
			continue
		}
		at := slices.Index(m.Sizes, k)
		if at < 0 {
			return nil, fmt.Errorf("line %d: %s=%d has no makespan row before it", line, varName, k)
		}
		pi := slices.IndexFunc(m.Phases, func(p sweepPhaseOut) bool { return p.Phase == row[1] })
		if pi < 0 {
			m.Phases, pi = append(m.Phases, sweepPhaseOut{Phase: row[1]}), len(m.Phases)
		}
		p := &m.Phases[pi]
		mi := slices.IndexFunc(p.Measures, func(ms sweepMeasureOut) bool { return ms.Measure == row[2] })
		if mi < 0 {
			p.Measures, mi = append(p.Measures, sweepMeasureOut{Measure: row[2], Values: make([]float64, len(m.Sizes))}), len(p.Measures)
		}
		p.Measures[mi].Values[at] = v
	}
	for i := range res {
		m := &res[i]
		m.Exponent, m.ExponentSE = fitFields(fitOf(m.Sizes, m.Seconds, 0, math.MaxInt))
		for pi := range m.Phases {
			for mi := range m.Phases[pi].Measures {
				ms := &m.Phases[pi].Measures[mi]
				ms.Exponent, ms.ExponentSE = fitFields(fitOf(m.Sizes, ms.Values, 0, math.MaxInt))
			}
		}
	}
	return res, nil
}
