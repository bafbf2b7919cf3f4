package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// readProfile parses the pprof file at path and returns the names of its
// functions.
func readProfile(t *testing.T, path string) (*profile.Profile, map[string]bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	fns := make(map[string]bool)
	for _, fn := range p.Function {
		fns[fn.Name] = true
	}
	return p, fns
}

func TestIPPprof(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ip.pb.gz")
	var out, errb bytes.Buffer
	script := "link add d0 type dummy\nlink set d0 up\naddr add 10.0.0.1/24 dev d0\nroute add 10.1.0.0/16 via 10.0.0.2\nlink del d0\n"
	if st := ipMain([]string{"-pprof", path, "-batch", "-"}, strings.NewReader(script), &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	p, fns := readProfile(t, path)
	if p.SampleType[0].Type != "cpu" || len(p.Sample) == 0 {
		t.Fatalf("sample types %v, %d samples", p.SampleType, len(p.Sample))
	}
	for _, fn := range []string{"rtnl_newlink", "inet_rtm_newaddr", "inet_rtm_newroute", "rtnl_dellink", "unregister_netdevice_many", "rtnl_lock"} {
		if !fns[fn] {
			t.Errorf("no frame %s in the profile", fn)
		}
	}
}

func TestSeedsPprof(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "seeds.pb.gz")
	var out bytes.Buffer
	if err := run([]string{"seeds", "-only", "000", "-scale", "0.01", "-pprof", path}, &out); err != nil {
		t.Fatal(err)
	}
	p, fns := readProfile(t, path)
	if !fns["fib_flush"] || !fns["nexthop_flush_dev"] {
		t.Errorf("seed 000's flush is not in the profile")
	}
	runs := make(map[string]bool)
	for _, s := range p.Sample {
		runs[s.Label["run"][0]] = true
	}
	if !runs["seed 000 before"] || !runs["seed 000 after"] {
		t.Errorf("runs %v", runs)
	}
	if err := run([]string{"seeds", "-only", "000", "-pprof", filepath.Join(dir, "no", "such", "dir")}, &out); err == nil {
		t.Error("an unwritable -pprof path gives no error")
	}
}
