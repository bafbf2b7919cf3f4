package machine

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/sim"
)

// TestDefaultCostsAreDevVM: sim.DefaultCosts is the devvm profile's costs,
// one named profile and not a mix.
func TestDefaultCostsAreDevVM(t *testing.T) {
	p, err := Load("devvm")
	require.NoError(t, err)
	require.Equal(t, sim.DefaultCosts, p.Costs)
}

// TestShipped: every shipped profile loads, has a title, round-trips
// through WriteTo, and every value has a source with a text; devvm has no
// fitted constant, and the seeds' profiles derive from it.
func TestShipped(t *testing.T) {
	names := Names()
	require.Equal(t, []string{"devvm", "seed000", "seed001", "seed002", "seed003", "seed004"}, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p, err := Load(name)
			require.NoError(t, err)
			require.Equal(t, name, p.Name)
			require.NotEmpty(t, p.Title)
			require.NoError(t, p.Costs.Validate())
			for _, f := range FieldNames() {
				src, ok := p.Sources[f]
				require.True(t, ok, f)
				require.NotEmpty(t, src.Text, f)
			}
			var b bytes.Buffer
			_, err = p.WriteTo(&b)
			require.NoError(t, err)
			q, err := Parse(name+ext, &b)
			require.NoError(t, err, b.String())
			require.Equal(t, p, q)
			if name == "devvm" {
				require.Empty(t, p.Base)
				for f, src := range p.Sources {
					require.Contains(t, []Provenance{Measured, Estimated}, src.Kind, "%s is %s: the VM's profile has no fitted or derived constant", f, src.Kind)
				}
			} else {
				require.Equal(t, "devvm", p.Base)
			}
		})
	}
}

// TestSeedDifferences: each seed's profile is the VM's with exactly its
// declared differences, each with its provenance.
func TestSeedDifferences(t *testing.T) {
	vm, err := Load("devvm")
	require.NoError(t, err)
	want := map[string]map[string]Provenance{
		"seed000": {},
		"seed001": {"HWAddrCompare": Calibrated},
		"seed002": {"NetnsExec": Calibrated},
		"seed003": {"RuleChange": Calibrated, "Fork": Calibrated, "IPBatchLine": Derived, "Syscall": Derived},
		"seed004": {"Fib6Visit": Calibrated},
	}
	for name, diffs := range want {
		// Every seed's kernel ticks at its own HZ, which no seed states:
		// HZ=1000 and no tick for RCU's callbacks, the model its
		// published times were fitted and predicted with.
		diffs["RCUTick"], diffs["Jiffy"] = Estimated, Estimated
		p, err := Load(name)
		require.NoError(t, err)
		got := map[string]Provenance{}
		for _, f := range FieldNames() {
			a, _ := vm.Value(f)
			b, _ := p.Value(f)
			if a != b || vm.Sources[f] != p.Sources[f] {
				got[f] = p.Sources[f].Kind
			}
		}
		require.Equal(t, diffs, got, name)
	}
	p, err := Load("seed003")
	require.NoError(t, err)
	require.Equal(t, 256, p.Facts.CPUs)
	require.Equal(t, Derived, p.Sources["CPUs"].Kind)
	p, err = Load("seed001")
	require.NoError(t, err)
	require.Contains(t, p.Facts.CPU, "E5-2650 v3")
	require.Zero(t, p.Facts.CPUs, "the patch does not say")
}

// devvmText is the devvm profile's text with a line replaced or added.
func devvmText(t *testing.T) string {
	b, ok := shippedText("devvm")
	require.True(t, ok)
	return string(b)
}

// without returns text less its line that starts with prefix (and that
// line's continuation lines).
func without(text, prefix string) string {
	var out []string
	skip := false
	for _, l := range strings.Split(text, "\n") {
		if skip && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			continue
		}
		skip = strings.HasPrefix(l, prefix)
		if !skip {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestParseErrors: every bad profile gets an error naming FILE:LINE and
// what is wrong.
func TestParseErrors(t *testing.T) {
	vm := devvmText(t)
	base := "name x\nbase devvm\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"unknown field", base + "Syscal 3µs measured x\n", "x.profile:3: unknown entry \"Syscal\""},
		{"duplicate line", base + "Syscall 3µs measured x\nSyscall 4µs measured y\n", "x.profile:4: Syscall set again (first at line 3)"},
		{"bad value", base + "Syscall 3 measured x\n", "x.profile:3: Syscall: \"3\" is not a duration"},
		{"negative value", base + "Fib6Visit -3ns measured x\n", "x.profile:3: Fib6Visit: -3ns is negative"},
		{"negative size", base + "Memory.L2 -1M measured x\n", "x.profile:3: Memory.L2: -1M is negative"},
		{"bad size", base + "Memory.L2 1MB measured x\n", "x.profile:3: Memory.L2: \"1MB\" is not a size"},
		{"share with a suffix", base + "GracePeriodTicks2 1K measured x\n", "x.profile:3: GracePeriodTicks2: \"1K\" is not a share per mille (0 to 1000)"},
		{"share past 1000", base + "GracePeriodTicks3 1001 measured x\n", "x.profile:3: GracePeriodTicks3: \"1001\" is not a share per mille"},
		{"bad provenance", base + "Syscall 3µs guessed x\n", "x.profile:3: Syscall: \"guessed\" is not a provenance"},
		{"no source", base + "Syscall 3µs\n", "x.profile:3: Syscall needs a source"},
		{"no text", base + "Syscall 3µs measured\n", "x.profile:3: Syscall: measured needs a text"},
		{"unknown base", "base vm\n", "x.profile:1: unknown base \"vm\""},
		{"base after costs", "Syscall 3µs measured x\nbase devvm\n", "x.profile:2: base must come before"},
		{"bad cpus", base + "cpus two\n", "x.profile:3: cpus: \"two\" is not a number"},
		{"zero cpus", base + "cpus 0\n", "x.profile:3: cpus: 0: want a positive number or unknown"},
		{"stray continuation", "  text\n", "x.profile:1: an indented line continues"},
		{"missing fields", without(without(vm, "Fib6Visit"), "Memory.DRAM"), "x.profile:"},
		{"missing fields named", without(without(vm, "Fib6Visit"), "Memory.DRAM"), "no value for Fib6Visit, Memory.DRAM"},
		{"bad name", "name a/b\n", "x.profile:1: name \"a/b\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.profile", strings.NewReader(tc.text))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestBaseCycle: profiles whose bases lead back to one of them are an
// error, not an endless recursion.
func TestBaseCycle(t *testing.T) {
	files := map[string]string{
		"a": "base b\n",
		"b": "base c\n",
		"c": "base a\n",
	}
	lookup := func(name string) ([]byte, bool) {
		s, ok := files[name]
		return []byte(s), ok
	}
	_, err := parse("a.profile", []byte(files["a"]), lookup, "a")
	require.ErrorContains(t, err, "base a: a cycle (a → b → c → a)")
	_, err = parse("self.profile", []byte("base self\n"), func(string) ([]byte, bool) { return []byte("base self\n"), true })
	require.ErrorContains(t, err, "a cycle (self → self)")
}

// TestOverride: a profile is its base plus the lines it overrides; facts
// are its own.
func TestOverride(t *testing.T) {
	p, err := Parse("mine.profile", strings.NewReader("title my laptop\nbase devvm\ncpus 8\n"+
		"Fib6Visit 30ns measured costs.sh -s dev: Fib6Visit@1000 30 ns\nMemory.L3 16M measured lscpu\n"))
	require.NoError(t, err)
	require.Equal(t, "mine", p.Name)
	require.Equal(t, 8, p.Facts.CPUs)
	require.Empty(t, p.Facts.CPU, "facts are not inherited")
	require.Equal(t, 30*time.Nanosecond, p.Costs.Fib6Visit)
	require.Equal(t, int64(16<<20), p.Costs.Memory.L3)
	require.Equal(t, Source{Measured, "costs.sh -s dev: Fib6Visit@1000 30 ns"}, p.Sources["Fib6Visit"])
	want := sim.DefaultCosts
	want.Fib6Visit, want.Memory.L3 = 30*time.Nanosecond, 16<<20
	require.Equal(t, want, p.Costs)
	vm, _ := Load("devvm")
	require.Equal(t, vm.Sources["Syscall"], p.Sources["Syscall"])
}

// TestLoadFile: Load reads a file when the name is no shipped profile, and
// says which names there are when it is neither.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lab.profile")
	require.NoError(t, os.WriteFile(file, []byte("base seed004\nhz 1000 measured grep CONFIG_HZ= /boot/config: CONFIG_HZ=1000\n"), 0o644))
	p, err := Load(file)
	require.NoError(t, err)
	require.Equal(t, "lab", p.Name)
	require.Equal(t, 129*time.Nanosecond, p.Costs.Fib6Visit)
	require.Equal(t, 1000, p.Facts.HZ)
	_, err = Load("devm")
	require.ErrorContains(t, err, `no profile "devm": not a shipped profile (devvm, seed000`)
}

// TestEveryCostsField: the profile format holds every field of sim.Costs,
// found by reflection, so a field added to sim.Costs is required of every
// profile.
func TestEveryCostsField(t *testing.T) {
	n := 0
	var count func(reflect.Type)
	count = func(t reflect.Type) {
		for i := range t.NumField() {
			if t.Field(i).Type.Kind() == reflect.Struct {
				count(t.Field(i).Type)
			} else {
				n++
			}
		}
	}
	count(reflect.TypeFor[sim.Costs]())
	require.Len(t, FieldNames(), n)
	require.Contains(t, FieldNames(), "Memory.L3Hit")
}

// FuzzParse: Parse never panics, and what it accepts WriteTo writes back
// to the same profile.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		b, _ := shippedText(name)
		f.Add(string(b))
	}
	f.Add("base devvm\nSyscall 3µs measured x\n  more\n")
	f.Add("base devvm\ncpus unknown estimated no idea\npagesize 2M\nMemory.L1 0 estimated none\n")
	f.Add("base seed003\ntitle t\n\tcontinued #not a comment\n")
	f.Add("base devvm\nJiffy 1h0m0.5s estimated x\nhz -1\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse("fuzz.profile", strings.NewReader(text))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if _, err := p.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		q, err := Parse("fuzz.profile", &b)
		if err != nil {
			t.Fatalf("WriteTo wrote what Parse refuses: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip changed the profile:\n%+v\n%+v\n%s", p, q, b.String())
		}
	})
}
